"""A package store on an OCI registry, shared by a fleet of CI jobs (issue #49).

``TOFU_SOLVE_PACKAGE_STORE=oci://HOST[:PORT]/PREFIX`` (or ``init -package-store=``) names it.
Before an origin, ``init`` looks in the store for every package the lock file names; what
comes from the store is untrusted until verified against the lock, and what a job verified
from an origin it pushes to the store for the next jobs.

Layout, in formats OpenTofu itself reads:

* **Module packages** (:class:`ModuleKey`): ``PREFIX/modules/<origin host and path>-<hash>``,
  tag ``git-<commit>`` or ``<algorithm>-<checksum>`` (the package's identity, never reused
  for other contents). An OpenTofu module package (reference §4, ``oci_getter.go``): an
  image manifest, ``artifactType`` ``application/vnd.opentofu.modulepkg``, one
  ``archive/zip`` layer holding the whole package, so ``oci://HOST/REPO?tag=...`` works as
  a module source for ``tofu``. Annotations record the origin address, version, identity
  and ``h1:``. The zip is built deterministically (sorted names, fixed times and modes), so
  every job pushes the same bytes for the same package.
* **Provider packages** (:class:`ProviderKey`): ``PREFIX/providers/${hostname}/${namespace}/
  ${type}``, a tag per version (``+`` written ``_``), an index manifest of ``artifactType``
  ``application/vnd.opentofu.provider`` with one ``application/vnd.opentofu.provider-target``
  image manifest per platform holding the registry's own ``.zip`` (OpenTofu's
  ``website/docs/cli/oci_registries/provider-mirror.mdx``): ``tofu`` with an ``oci_mirror``
  block whose ``repository_template`` is ``HOST/PREFIX/providers/${hostname}/${namespace}/
  ${type}`` installs from the same store.

Trust: a module artifact is installed only when its unpacked contents hash to an ``h1:`` the
lock records; a provider package only when its zip's SHA-256 is a ``zh:`` the lock records
or its unpacked ``h1:`` is one. Anything else is reported once (``PackageStore.report``)
and the origin is used. A store that is down, slow or refuses costs at most
:data:`STORE_TIMEOUT` per request and one warning: after its first failure to answer it is
not asked again in the run.

Writing: after a package is verified, it is pushed in the background (at most
:data:`PUSH_WORKERS` at once): blobs first (content-addressed), then the manifest under its
tag, only when the tag is absent or holds what failed verification. A job killed mid-push
leaves blobs without a tag, which no job reads; the next job's push completes it.
:meth:`StorePusher.finish` waits at most a grace period and names what was not pushed.
``TOFU_SOLVE_PACKAGE_STORE_PUSH=false`` or credentials that may only read: nothing is pushed
(one note per run).

The store is split by job over one client (issue #71 §2): :class:`StoreLedger` records what
the lock expects and what the store did (``ledger.py``), :class:`StoreReader` reads and
verifies what ``init`` installs (``reading.py``), :class:`StoreVerifier` checks packages for
``store verify`` and ``store push`` (``verifying.py``), :class:`StorePusher` pushes
(``pushing.py``); :class:`PackageStore` holds the four. ``address.py`` is light: ``init``'s
early start reads the store setting before the rest is imported.
"""
