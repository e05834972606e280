"""``tofu-solve list``: every module and provider version in use, from lock files only
(issue #39 §2; opentofu/opentofu#3270 asks which module versions are in use across roots).

Reads ``.terraform.lock.hcl`` of the root (or, with ``-recursive``, of every root module
under ``-chdir`` that has one); no network, no configuration, no cache. Each module package
version and provider version is listed once, with every root and call path that uses it and,
when a policy is in force (:mod:`tofu_solve.config.policy`), its verdict. Output: text,
``-json`` (one document), or ``-format=cyclonedx``: a CycloneDX 1.6 SBOM written by
``cyclonedx-python-lib``, with a package URL and the hashes each lock records.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .._lazy import load
from .._version import __version__
from ..addrs.module_source import OciSource, RegistrySource, parse_source
from ..addrs.redact import redact
from ..config.policy import Policy, Subject, load_policy, package_address
from ..errors import TofuSolveError
from ..lockfile import LOCK_FILE_NAME, read_lock_file
from ..remote.lifecycle import Deprecation
from ..remote.registry_lifecycle import revocations_from
from ..settings import Settings
from ..solver.locks import policy_denial
from ..solver.model import Kind
from ..store.cache import Cache, key_of
from ..versions.cooldown import format_age, format_day
from ..versions.target import lock_product
from .arguments.init_flags import policy_inputs, policy_overrides
from .monorepo import relative_name, walk_roots

if TYPE_CHECKING:
    from packageurl import PackageURL


@dataclass
class Item:
    """One module package version or provider version, and who uses it.

    Attributes:
        kind: ``module`` or ``provider``.
        name: the package address (a registry package with its host, ``git::URL``,
            ``oci://host/repo``) or the provider address.
        version: as the lock writes it.
        uses: (root, call path) pairs; a provider's call path is "".
        hashes: every hash the locks record (``h1:``, ``zh:``).
        package: a module's immutable address (commit or digest), "" when floating.
        verdict: the policy's word ("allowed", or why not), None without a policy.
        released: when the version was released (seconds since the epoch), as a registry's
            version list said and the cache kept it; None when the cache does not know.
        repository: a provider's source repository as its registry named it when ``init``
            read the provider (kept in the cache), None when no registry said.
        lifecycle: what its registry said of a module version when ``init`` last asked
            (kept in the cache; issue #62 §3): ``revoked: message``, ``deprecated: reason``,
            or None.
    """

    kind: str
    name: str
    version: str
    uses: list[tuple[str, str]] = field(default_factory=list)
    hashes: set[str] = field(default_factory=set)
    package: str = ""
    verdict: str | None = None
    released: float | None = None
    repository: str | None = None
    lifecycle: str | None = None

    def as_data(self, now: float) -> dict:
        return {"kind": self.kind, "name": self.name, "version": self.version,
                "uses": [{"root": r, "path": p} for r, p in self.uses], "hashes": sorted(self.hashes),
                "package": self.package or None, "policy": self.verdict, "lifecycle": self.lifecycle,
                "released": format_day(self.released) if self.released is not None else None,
                "age_seconds": round(now - self.released) if self.released is not None else None}


def inventory(base: Path, recursive: bool, policy: Policy | None = None,
              host: str = "registry.opentofu.org", cache: Cache | None = None,
              settings: Settings | None = None) -> tuple[list[str], list[Item]]:
    """The roots read (named from ``base``) and the items, sorted (modules first); with
    ``cache``, each version's release time where an earlier run's registry listing kept it
    (read only: nothing is fetched); ``settings``: the run's, for the walk (the download
    cache and what git ignores are not entered).

    Raises:
        LockFileError: a lock file that does not parse (file and line).
        ConfigurationError: ``base`` cannot be read.
    """
    roots = [r for r in (walk_roots(base, settings) if recursive else [base]) if (r / LOCK_FILE_NAME).is_file()]
    items: dict[tuple[str, str, str], Item] = {}
    names = []
    for root in roots:
        name = relative_name(root, base)
        names.append(name)
        locks = read_lock_file(root / LOCK_FILE_NAME)
        for path, m in sorted(locks.modules.items()):
            try:
                source = parse_source(m.source, host)
            except TofuSolveError:
                continue
            # a lock edited by hand may hold credentials tofu-solve never writes: the one
            # redaction rule again, before any address reaches a line of output or an SBOM
            address = redact(package_address(source) or m.source)
            item = items.setdefault(("module", address, m.version), Item("module", address, m.version))
            item.uses.append((name, path))
            item.hashes.update(m.hashes)
            item.package = item.package or redact(m.package)
            if policy is not None and item.verdict is None:
                item.verdict = _module_verdict(policy, source, address, m.version, Subject.of_call(path, m.source))
        for addr, p in sorted(locks.providers.items()):
            item = items.setdefault(("provider", addr, p.version), Item("provider", addr, p.version))
            item.uses.append((name, ""))
            item.hashes.update(p.hashes)
            if policy is not None and item.verdict is None:
                rule = policy_denial(policy, Kind.PROVIDER, addr, p.version)
                item.verdict = f"denied: {rule.cite()}" if rule is not None else "allowed"
    if cache is not None:
        for i in items.values():
            times = cache.read_json(f"{i.kind}-release-times", key_of(i.name))
            at = times.get(i.version) if isinstance(times, dict) else None
            i.released = float(at) if isinstance(at, (int, float)) else None
            if i.kind == "module":
                i.lifecycle = _lifecycle(cache, i.name, i.version)
            if i.kind == "provider":
                told = cache.read_json("provider-repository", key_of(i.name))
                repository = told.get("source") if isinstance(told, dict) else None
                i.repository = repository if isinstance(repository, str) else None
    return names, sorted(items.values(), key=lambda i: (i.kind != "module", i.name, i.version))


def _lifecycle(cache: Cache, package: str, version: str) -> str | None:
    """What the registry said of a module version when ``init`` last asked (the cache):
    revoked, deprecated, or None."""
    revoked = revocations_from(cache.peek_json("module-revocations", key_of(package)), package).get(version)
    if revoked is not None:
        return f"revoked: {revoked.reason}" + (f" ({revoked.link})" if revoked.link else "")
    told = cache.peek_json("module-deprecations", key_of(package))
    deprecated = Deprecation.from_registry(told.get(version)) if isinstance(told, dict) else None
    return f"deprecated: {deprecated.words().removeprefix('deprecated by its registry: ')}" if deprecated else None


def _module_verdict(policy: Policy, source, address: str, version: str, call: Subject) -> str:
    """The policy's word on a locked module version: its source refused, the version denied
    (a ``deny`` block or a failing mandatory ``module_policy`` for ``call``), or allowed."""
    refusal = policy.source_refusal(source)
    if refusal is not None:
        return f"refused source: {policy.refusal_words(refusal[0])}"
    rule = policy_denial(policy, Kind.MODULE, address, version, call)
    return f"denied: {rule.cite()}" if rule is not None else "allowed"


def text(names: list[str], items: list[Item], now: float) -> str:
    """The inventory for people: one line per version (with its release day and age where
    known), its uses under it."""
    import shutil
    import sys
    import textwrap

    width = shutil.get_terminal_size((120, 24)).columns if sys.stdout.isatty() else 120
    # long lists fold on indented lines (issue #59 §3): no line longer than the terminal, or 120
    out = [textwrap.fill(f"{len(names)} root module{'s' if len(names) != 1 else ''} with a lock file: "
                         f"{', '.join(names) or '-'}", width, subsequent_indent="    ", break_long_words=False,
                         break_on_hyphens=False)]
    for kind, title in (("module", "Modules"), ("provider", "Providers")):
        rows = [i for i in items if i.kind == kind]
        out += ["", f"{title} ({len(rows)} version{'s' if len(rows) != 1 else ''}):"]
        for i in rows:
            verdict = f"  [{i.verdict}]" if i.verdict and i.verdict != "allowed" else ""
            verdict += f"  [{i.lifecycle}]" if i.lifecycle else ""
            age = f" (released {format_day(i.released)}, {format_age(now - i.released)} ago)" \
                if i.released is not None else ""
            out.append(f"- {i.name} {i.version}{age}{verdict}")
            for root, path in i.uses:
                out.append(f"    {root}: {path}" if path else f"    {root}")
    return "\n".join(out)


#: The purl ``terraform`` type's default registry (purl-spec PR #889, a draft: types/terraform-definition.json).
PURL_TERRAFORM_DEFAULT = "registry.terraform.io"


@dataclass(frozen=True)
class Identity:
    """What a scanner reads to know a component (issue #50 §3).

    Attributes:
        purl: the package URL (``packageurl.PackageURL``).
        vcs: (git URL, commit) of a git package, redacted; None for others.
        distribution: (``oci://host/repo@sha256:…``, hex digest) of an OCI package; None for others.
        go: a provider's second identity, the one advisory databases key provider advisories
            on (GitHub's advisory database and OSV: the Go module of its source repository,
            ``pkg:golang/github.com/hashicorp/terraform-provider-aws@v6.58.0``); None for others.
        go_origin: where ``go``'s repository came from: ``registry`` (the registry named it)
            or ``convention`` (``github.com/NAMESPACE/terraform-provider-TYPE``, the name
            both public registries require of a provider's repository).
    """

    purl: PackageURL
    vcs: tuple[str, str] | None = None
    distribution: tuple[str, str] | None = None
    go: PackageURL | None = None
    go_origin: str | None = None


def identity(i: Item) -> Identity:
    """The package URL and the immutable references of ``i``:

    * a registry module or a provider: ``pkg:terraform/NAMESPACE/NAME@VERSION``, as the draft
      purl type of purl-spec PR #889 defines it (a draft, not yet merged: namespace and name
      as the registry writes them, ``repository_url`` when the registry is not its default
      ``registry.terraform.io``); a module's target system, which the draft does not place,
      in a ``target_system`` qualifier;
    * an OCI package: ``pkg:oci/NAME@sha256:…?repository_url=HOST/REPO&tag=VERSION``
      (purl-spec's ``oci`` type), its digest also as a ``distribution`` reference;
    * a git package: ``pkg:generic/NAME@VERSION?vcs_url=git+URL@COMMIT`` (purl has no git
      type; ``vcs_url`` is its standard qualifier), the commit also as a ``vcs`` reference.

    A registry module whose package is git or OCI gets both its ``pkg:terraform`` purl and the
    package's reference. Addresses are as the lock writes them (already redacted)."""
    load("packageurl")
    from packageurl import PackageURL

    def terraform(host: str, namespace: str, name: str, **extra: str) -> PackageURL:
        qualifiers = dict(extra)
        if host != PURL_TERRAFORM_DEFAULT:
            qualifiers["repository_url"] = f"https://{host}"
        return PackageURL(type="terraform", namespace=namespace, name=name, version=i.version,
                          qualifiers=qualifiers or None)

    vcs = distribution = None
    package = None
    if i.package:
        try:
            package = parse_source(i.package)
        except TofuSolveError:
            package = None
    git = getattr(package, "git", None)
    if git is not None and git.ref:
        vcs = (git.url, git.ref)
    if isinstance(package, OciSource) and package.digest:
        distribution = (f"oci://{package.registry}/{package.repository}@{package.digest}",
                        package.digest.partition(":")[2])
    if i.kind == "provider":
        host, namespace, name = i.name.split("/")
        module, origin = go_module(namespace, name, i.repository)
        go_namespace, _, go_name = module.rpartition("/")
        version = i.version if i.version.startswith("v") else f"v{i.version}"
        return Identity(terraform(host, namespace, name), go=PackageURL(type="golang", namespace=go_namespace,
                                                                         name=go_name, version=version),
                        go_origin=origin)
    try:
        source = parse_source(i.name)
    except TofuSolveError:
        source = None
    if isinstance(source, RegistrySource):
        p = source.package
        return Identity(terraform(p.host, p.namespace, p.name, target_system=p.system), vcs, distribution)
    if isinstance(source, OciSource):
        name = source.repository.rsplit("/", 1)[-1]
        digest = package.digest if isinstance(package, OciSource) else ""
        purl = PackageURL(type="oci", name=name, version=digest or None,
                          qualifiers={"repository_url": f"{source.registry}/{source.repository}", "tag": i.version})
        return Identity(purl, None, distribution)
    url = git.url if git is not None else i.name.removeprefix("git::")
    name = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git") or "package"
    qualifiers = {"vcs_url": f"git+{url}@{vcs[1]}" if vcs else f"git+{url}"} if i.name.startswith("git::") \
        else {"download_url": i.package or i.name}
    return Identity(PackageURL(type="generic", name=name, version=i.version, qualifiers=qualifiers), vcs, None)


def go_module(namespace: str, type_: str, repository: str | None) -> tuple[str, str]:
    """A provider's Go module path and where it came from: the registry's ``source``
    repository (``https://github.com/hashicorp/terraform-provider-aws`` ->
    ``github.com/hashicorp/terraform-provider-aws``), else ``convention``: the repository
    name both public registries require of a provider (``terraform-provider-TYPE`` under
    its namespace on GitHub)."""
    if repository:
        path = repository.split("://", 1)[-1].rstrip("/").removesuffix(".git")
        if path.count("/") >= 2 and " " not in path:
            return path.lower() if path.startswith("github.com/") else path, "registry"
    return f"github.com/{namespace}/terraform-provider-{type_}", "convention"


def brief_roots(names: list[str]) -> str:
    """The roots as an SBOM names them, briefly (issue #60 §3: not a comma-joined list of
    forty paths): the one root; else the roots' common directory with their count
    (``envs/ (40 roots)``); else the count (``40 roots``)."""
    if len(names) <= 1:
        return names[0] if names else "."
    parts = [n.split("/") for n in names]
    common = []
    for segs in zip(*parts, strict=False):
        if len(set(segs)) != 1:
            break
        common.append(segs[0])
    if common and all(len(p) > len(common) for p in parts):
        return f"{'/'.join(common)}/ ({len(names)} roots)"
    return f"{len(names)} roots"


def cyclonedx(names: list[str], items: list[Item], products: list[str] | None = None) -> str:
    """A CycloneDX 1.6 JSON SBOM of the items (``cyclonedx-python-lib``): one component per
    module package version and provider version, named by :func:`identity` (package URL,
    ``vcs`` reference with the commit, ``distribution`` reference with the OCI digest as a
    SHA-256 hash), its ``zh:`` hashes as SHA-256 in CycloneDX's ``hashes``, ``h1:`` hashes,
    call paths and roots as properties (an ``h1:`` is a hash of a directory, which CycloneDX
    has no algorithm for); ``products``, the product each lock was written for (OpenTofu,
    Terraform), as the metadata's ``tofu-solve:product`` properties."""
    load("cyclonedx.model")
    from cyclonedx.model import ExternalReference, ExternalReferenceType, HashAlgorithm, HashType, Property, XsUri
    load("cyclonedx.model.bom")
    from cyclonedx.model.bom import Bom
    load("cyclonedx.model.component")
    from cyclonedx.model.component import Component, ComponentType
    load("cyclonedx.model.component_evidence")
    from cyclonedx.model.component_evidence import ComponentEvidence, IdentityField
    load("cyclonedx.model.component_evidence")
    from cyclonedx.model.component_evidence import Identity as EvidenceIdentity
    load("cyclonedx.output.json")
    from cyclonedx.output.json import JsonV1Dot6

    bom = Bom()
    top = bom.metadata.component = Component(name=brief_roots(names), type=ComponentType.APPLICATION,
                                             bom_ref="roots")
    for name in names:
        bom.metadata.properties.add(Property(name="tofu-solve:root", value=name))
    for product in sorted(set(products or [])):
        bom.metadata.properties.add(Property(name="tofu-solve:product", value=product))
    components = []
    for i in items:
        ident = identity(i)
        props = [Property(name="tofu-solve:h1", value=h) for h in sorted(i.hashes) if h.startswith("h1:")]
        props += [Property(name="tofu-solve:use", value=f"{root}:{path}" if path else root) for root, path in i.uses]
        if i.verdict is not None:
            props.append(Property(name="tofu-solve:policy", value=i.verdict))
        if i.lifecycle is not None:
            props.append(Property(name="tofu-solve:lifecycle", value=i.lifecycle))
        if i.released is not None:
            props.append(Property(name="tofu-solve:released", value=format_day(i.released)))
        hashes = [HashType(alg=HashAlgorithm.SHA_256, content=h[3:]) for h in sorted(i.hashes) if h.startswith("zh:")]
        refs = []
        if ident.vcs is not None:
            refs.append(ExternalReference(type=ExternalReferenceType.VCS, url=XsUri(ident.vcs[0]),
                                          comment=f"commit {ident.vcs[1]}"))
        if ident.distribution is not None:
            refs.append(ExternalReference(type=ExternalReferenceType.DISTRIBUTION, url=XsUri(ident.distribution[0]),
                                          hashes=[HashType(alg=HashAlgorithm.SHA_256, content=ident.distribution[1])]))
        evidence = None
        if ident.go is not None:  # the identity advisory databases key providers on (issue #60 §3)
            evidence = ComponentEvidence(identity=[EvidenceIdentity(field=IdentityField.PURL,
                                                                    concluded_value=ident.go.to_string())])
            props.append(Property(name="tofu-solve:go-module-from", value=ident.go_origin or "convention"))
        components.append(Component(
            name=i.name, version=i.version, type=ComponentType.LIBRARY, purl=ident.purl,
            bom_ref=f"{i.kind}:{i.name}@{i.version}", hashes=hashes, properties=props, group=i.kind,
            external_references=refs, evidence=evidence,
            description="module package" if i.kind == "module" else "provider"))
    for c in components:
        bom.components.add(c)
    bom.register_dependency(top, components)  # what the roots use; the lock records no nesting of versions
    return JsonV1Dot6(bom).output_as_string(indent=2)


def spdx(names: list[str], items: list[Item], products: list[str] | None = None,
         now: float | None = None) -> str:
    """An SPDX 2.3 JSON document of the items, written and validated by ``spdx-tools``
    (the SPDX project's own library): one package per module package version and provider
    version, named by its address, with :func:`identity`'s package URL as a
    ``PACKAGE-MANAGER purl`` reference, a git package's ``git+URL@COMMIT`` as its download
    location where SPDX's grammar admits it (NOASSERTION otherwise, the address then in
    ``sourceInfo``, as for an OCI package's digest address), a
    provider's ``zh:`` hashes as SHA256 checksums; the roots as one package that depends on
    each. The namespace is derived from the content (the same items give the same
    namespace); ``now`` (seconds since the epoch) is the creation time.

    Raises:
        ValueError: the library refused the document (a bug: nothing here is user input
            it could refuse).
    """
    import datetime
    import hashlib
    import io

    load("spdx_tools.spdx.model")
    from spdx_tools.spdx.model import (
        Actor,
        ActorType,
        Checksum,
        ChecksumAlgorithm,
        CreationInfo,
        Document,
        ExternalPackageRef,
        ExternalPackageRefCategory,
        Package,
        Relationship,
        RelationshipType,
        SpdxNoAssertion,
    )
    load("spdx_tools.spdx.validation.uri_validators")
    from spdx_tools.spdx.validation.uri_validators import validate_download_location
    load("spdx_tools.spdx.writer.json.json_writer")
    from spdx_tools.spdx.writer.json.json_writer import write_document_to_stream

    digest = hashlib.sha256(json.dumps([names, [(i.kind, i.name, i.version, sorted(i.hashes), i.package)
                                                for i in items]]).encode()).hexdigest()
    created = datetime.datetime.fromtimestamp(int(time.time() if now is None else now), datetime.UTC)
    info = CreationInfo(
        "SPDX-2.3", "SPDXRef-DOCUMENT", "tofu-solve " + brief_roots(names),
        f"https://spdx.org/spdxdocs/tofu-solve-{digest}", [Actor(ActorType.TOOL, f"tofu-solve-{__version__}")],
        created.replace(tzinfo=None),
        creator_comment=("Lock files written for " + ", ".join(sorted(set(products)))) if products else None)
    roots = Package("SPDXRef-roots", brief_roots(names), SpdxNoAssertion(), files_analyzed=False,
                    comment="the root modules read: " + (", ".join(names) or "."))
    packages = [roots]
    relationships = [Relationship("SPDXRef-DOCUMENT", RelationshipType.DESCRIBES, "SPDXRef-roots")]
    for n, i in enumerate(items, 1):
        ident = identity(i)
        where = f"git+{ident.vcs[0]}@{ident.vcs[1]}" if ident.vcs is not None else \
            ident.distribution[0] if ident.distribution is not None else None
        # SPDX's download-location grammar has no port and no oci://: such a location is
        # kept as the package's source information, as the library's validator asks
        location: str | SpdxNoAssertion = where if where and not validate_download_location(where) \
            else SpdxNoAssertion()
        package = Package(
            f"SPDXRef-{i.kind}-{n}", i.name, location, version=i.version, files_analyzed=False,
            source_info=f"installed from {where}" if where and isinstance(location, SpdxNoAssertion) else None,
            checksums=[Checksum(ChecksumAlgorithm.SHA256, h[3:]) for h in sorted(i.hashes) if h.startswith("zh:")],
            external_references=[ExternalPackageRef(ExternalPackageRefCategory.PACKAGE_MANAGER, "purl",
                                                    ident.purl.to_string())] + (
                [ExternalPackageRef(ExternalPackageRefCategory.PACKAGE_MANAGER, "purl", ident.go.to_string(),
                                    comment=f"the provider's Go module ({ident.go_origin})")]
                if ident.go is not None else []),
            comment="module package" if i.kind == "module" else "provider")
        packages.append(package)
        relationships.append(Relationship("SPDXRef-roots", RelationshipType.DEPENDS_ON, package.spdx_id))
    out = io.StringIO()
    write_document_to_stream(Document(info, packages=packages, relationships=relationships), out, validate=True)
    return out.getvalue()


def run(ns, settings: Settings) -> int:
    """The command (``ns`` as the parser left it)."""
    base = Path(ns.chdir)
    host = "registry.opentofu.org"
    policy = load_policy(base, getattr(ns, "policy", None), settings.environ, host,
                         overrides=frozenset(policy_overrides(ns)), inputs=policy_inputs(ns))
    names, items = inventory(base, bool(ns.recursive), policy, host, Cache(settings.cache_dir), settings)
    fmt = "json" if ns.json else ns.format
    now = time.time()
    if fmt == "json":
        json.dump({"tofu_solve_version": __version__, "roots": names, "items": [i.as_data(now) for i in items]},
                  sys.stdout, indent=2)
        print()
    elif fmt in ("cyclonedx", "spdx"):
        found = [lock_product(base / n) for n in names]
        products = [f[0].name for f in found if f is not None]
        print(cyclonedx(names, items, products) if fmt == "cyclonedx" else spdx(names, items, products, now))
    else:
        print(text(names, items, now))
    return 0


__all__ = ["Identity", "Item", "brief_roots", "cyclonedx", "go_module", "identity", "inventory", "run", "spdx", "text"]
