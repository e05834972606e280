"""Module source addresses, parsed and normalized exactly as OpenTofu does.

``parse_source(raw)`` follows OpenTofu's ``addrs.ParseModuleSource`` (reference §2):

1. **local** when the text starts with ``./``, ``../``, ``.\\`` or ``..\\`` (Go ``path.Clean``,
   ``./`` kept unless the result starts with ``../``);
2. **registry** when it parses as ``[host/]namespace/name/system[//subdir]``
   (registry-address rules; ``github.com`` and ``bitbucket.org`` are reserved; default host
   ``registry.opentofu.org``);
3. otherwise **remote** through go-getter's subdir split and detectors (GitHub shorthand,
   scp-like ``git@host:path``, GCS, S3, absolute file paths), giving a normalized package
   address such as ``git::https://github.com/org/repo.git?ref=v1`` and a separate subdir.

``oci://`` addresses get their own type with the tag/digest rules of OpenTofu's OCI getter
(reference §4). Each value's ``str()`` is the string OpenTofu prints and records in
``modules.json`` (subdir placed before the query).

One deliberate difference: go-getter asks ``api.bitbucket.org`` whether a
``bitbucket.org/...`` shorthand is git or Mercurial; Bitbucket has served only git since
2020, so tofu-solve maps it to git without a network call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import NoReturn
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit

from .._lazy import load
from ..errors import SourceAddressError, go_quote
from ..output_edge import has_control, one_line
from .hosts import for_display
from .hosts import normalize as normalize_host

DEFAULT_REGISTRY_HOST = "registry.opentofu.org"
GETTERS = frozenset({"file", "gcs", "git", "hg", "http", "https", "oci", "s3"})

_REG_NAME_RE = re.compile(r"[0-9A-Za-z](?:[0-9A-Za-z\-_]{0,62}[0-9A-Za-z])?")
_REG_SYSTEM_RE = re.compile(r"[0-9a-z]{1,64}")
_FORCED_RE = re.compile(r"([A-Za-z0-9]+)::(.+)", re.S)
_SSH_RE = re.compile(r"(?:([^@]+)@)?([^:]+):/?(.+)", re.S)
_OCI_REPO_RE = re.compile(
    r"[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*)*")
_OCI_TAG_RE = re.compile(r"[\w][\w.-]{0,127}")
_OCI_DIGEST_RE = re.compile(r"([a-z0-9]+(?:[.+_-][a-z0-9]+)*):([a-zA-Z0-9=_-]+)")
_DIGEST_HEX_LEN = {"sha256": 64, "sha384": 96, "sha512": 128}


class SourceKind(str, Enum):  # noqa: UP042 (not StrEnum: str() of a member names its class, as messages show it)
    """What installs a source: decides which candidate provider enumerates versions."""

    LOCAL = "local"
    REGISTRY = "registry"
    GIT = "git"
    OCI = "oci"
    HTTP = "http"
    S3 = "s3"
    GCS = "gcs"
    HG = "hg"
    FILE = "file"
    OTHER = "other"


# --------------------------------------------------------------------------- helpers


def go_path_clean(p: str) -> str:
    """Go's ``path.Clean`` (lexical, slash-separated)."""
    if p == "":
        return "."
    rooted = p.startswith("/")
    out: list[str] = []
    for part in p.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if out and out[-1] != "..":
                out.pop()
            elif not rooted:
                out.append("..")
            continue
        out.append(part)
    cleaned = "/".join(out)
    if rooted:
        return "/" + cleaned
    return cleaned or "."


def source_dir_subdir(src: str) -> tuple[str, str]:
    """go-getter ``SourceDirSubdir``: split ``//subdir`` (the first ``//`` after any
    ``scheme://``, before ``?``), moving a query written after the subdir back onto the
    package."""
    stop = src.find("?")
    if stop == -1:
        stop = len(src)
    offset = 0
    idx = src[:stop].find("://")
    if idx > -1:
        offset = idx + 3
    idx = src[offset:stop].find("//")
    if idx == -1:
        return src, ""
    idx += offset
    subdir = src[idx + 2 :]
    src = src[:idx]
    q = subdir.find("?")
    if q > -1:
        src += subdir[q:]
        subdir = subdir[:q]
    return src, subdir


def split_package_subdir(given: str) -> tuple[str, str]:
    """OpenTofu ``getmodules.SplitPackageSubdir``: as above, the subdir ``path.Clean``-ed."""
    pkg, sub = source_dir_subdir(given)
    if sub:
        sub = go_path_clean(sub)
    return pkg, sub


def _url_scheme(s: str) -> str:
    """The scheme Go's ``url.Parse`` would find ("" when none)."""
    for i, c in enumerate(s):
        if c.isascii() and c.isalpha():
            continue
        if i > 0 and ((c.isascii() and c.isdigit()) or c in "+-."):
            continue
        if c == ":" and i > 0:
            return s[:i].lower()
        return ""
    return ""


def _encode_query(query: str) -> str:
    pairs = parse_qsl(query, keep_blank_values=True)
    pairs.sort(key=lambda kv: kv[0])
    return urlencode(pairs, quote_via=quote_plus)


def _escape_path(path: str) -> str:
    return quote(path, safe="/$&+,:;=@")


def _with_subdir(base: str, subdir: str) -> str:
    if not subdir:
        return base
    if "?" in base:
        head, q = base.split("?", 1)
        return f"{head}//{subdir}?{q}"
    return f"{base}//{subdir}"


# --------------------------------------------------------------------------- types


@dataclass(frozen=True)
class LocalSource:
    """A relative path inside the calling package (``./child``, ``../sibling``)."""

    path: str

    kind = SourceKind.LOCAL

    def __str__(self) -> str:
        return self.path

    @property
    def package_address(self) -> str:
        return self.path


@dataclass(frozen=True, order=True)
class RegistryPackage:
    """A module package in a module registry: ``host/namespace/name/system``.
    ``default_host`` (not part of its identity) is the host the target product leaves out
    when displaying an address."""

    host: str
    namespace: str
    name: str
    system: str
    default_host: str = field(default=DEFAULT_REGISTRY_HOST, compare=False, repr=False)

    def __str__(self) -> str:
        """OpenTofu's ``String()``: the host in its display form (Unicode, not punycode)."""
        return f"{for_display(self.host)}/{self.namespace}/{self.name}/{self.system}"

    @property
    def for_display(self) -> str:
        """Without the host when it is the default registry (``ForDisplay``)."""
        short = f"{self.namespace}/{self.name}/{self.system}"
        return short if self.host == self.default_host else f"{for_display(self.host)}/{short}"


@dataclass(frozen=True)
class RegistrySource:
    """A registry module source: a package and an optional subdirectory inside it."""

    package: RegistryPackage
    subdir: str = ""

    kind = SourceKind.REGISTRY

    def __str__(self) -> str:
        return _with_subdir(str(self.package), self.subdir)

    @property
    def for_display(self) -> str:
        return _with_subdir(self.package.for_display, self.subdir)

    @property
    def package_address(self) -> str:
        return str(self.package)


@dataclass(frozen=True)
class GitRemote:
    """The git parts of a remote package address.

    Attributes:
        url: what ``git`` is given (``https://host/repo.git``, ``ssh://git@host/p``,
            ``file:///srv/repo``, ``git://host/repo``), without tofu-solve's ``ref``/``depth``.
        ref: ``?ref=`` value ("" when absent).
        depth: ``?depth=`` value (0 when absent).
    """

    url: str
    ref: str
    depth: int


@dataclass(frozen=True)
class RemoteSource:
    """A go-getter package address (git, http, s3, gcs, hg, file...) and a subdir.

    Attributes:
        package: the normalized package address, forced getter included
            (``git::https://example.com/x.git?ref=v1``).
        subdir: the subdirectory inside the package ("" for its root).
    """

    package: str
    subdir: str = ""

    def __str__(self) -> str:
        return _with_subdir(self.package, self.subdir)

    @property
    def package_address(self) -> str:
        return self.package

    @property
    def getter(self) -> str:
        m = _FORCED_RE.fullmatch(self.package)
        if m:
            return m.group(1).lower()
        return _url_scheme(self.package)

    @property
    def kind(self) -> SourceKind:
        g = self.getter
        return {"git": SourceKind.GIT, "http": SourceKind.HTTP, "https": SourceKind.HTTP,
                "s3": SourceKind.S3, "gcs": SourceKind.GCS, "hg": SourceKind.HG,
                "file": SourceKind.FILE}.get(g, SourceKind.OTHER)

    @property
    def git(self) -> GitRemote:
        """The git URL, ref and depth. Raises SourceAddressError for non-git sources or a
        non-integer ``depth``."""
        if self.kind is not SourceKind.GIT:
            raise SourceAddressError("Not a git source", f"{self} is not a git module source.")
        m = _FORCED_RE.fullmatch(self.package)
        url = m.group(2) if m else self.package
        parts = urlsplit(url)
        kept, ref, depth = [], "", 0
        for k, v in parse_qsl(parts.query, keep_blank_values=True):
            if k == "ref":
                ref = v
            elif k == "depth":
                try:
                    depth = int(v)
                except ValueError:
                    raise SourceAddressError(
                        "Invalid module source address",
                        f'{self}: "depth" must be an integer, not {v!r}.') from None
            else:
                kept.append((k, v))
        base = url.split("?", 1)[0]
        # sshkey and other getter arguments stay with the remote (git ignores none of them).
        if kept:
            base += "?" + urlencode(kept, quote_via=quote_plus)
        return GitRemote(base, ref, depth)

    def with_ref(self, ref: str) -> RemoteSource:
        """The same source pinned to ``ref`` (existing ``ref`` replaced)."""
        m = _FORCED_RE.fullmatch(self.package)
        force, url = (m.group(1) + "::", m.group(2)) if m else ("", self.package)
        base, _, query = url.partition("?")
        pairs = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "ref"]
        pairs.append(("ref", ref))
        return RemoteSource(force + base + "?" + urlencode(pairs, quote_via=quote_plus), self.subdir)


@dataclass(frozen=True)
class OciSource:
    """``oci://registry[:port]/repository[//subdir][?tag=T|?digest=D]`` (OpenTofu >= 1.10).

    Attributes:
        registry: host[:port].
        repository: repository path.
        tag: ``?tag=`` ("" when absent; OpenTofu then uses ``latest`` unless a digest is
            given).
        digest: ``?digest=`` ("" when absent).
        subdir: subdirectory inside the package.
    """

    registry: str
    repository: str
    tag: str = ""
    digest: str = ""
    subdir: str = ""

    kind = SourceKind.OCI

    @property
    def package(self) -> str:
        base = f"oci://{self.registry}/{self.repository}"
        if self.tag:
            return f"{base}?tag={self.tag}"
        if self.digest:
            return f"{base}?digest={self.digest}"
        return base

    @property
    def package_address(self) -> str:
        """The repository, without tag or digest: one package, many versions."""
        return f"oci://{self.registry}/{self.repository}"

    def __str__(self) -> str:
        return _with_subdir(self.package, self.subdir)


ModuleSource = LocalSource | RegistrySource | RemoteSource | OciSource


# --------------------------------------------------------------------------- parsing


def is_local(raw: str) -> bool:
    return raw.startswith(("./", "../", ".\\", "..\\"))


def parse_local(raw: str) -> LocalSource:
    clean = go_path_clean(raw.replace("\\", "/"))
    if not clean.startswith("../"):
        clean = "./" + clean
    return LocalSource(clean)


def parse_registry(raw: str, default_host: str = DEFAULT_REGISTRY_HOST) -> RegistrySource:
    """registry-address ``ParseModuleSource``; a three-part address is on ``default_host``
    (``registry.opentofu.org``, or ``registry.terraform.io`` for a Terraform target).

    Raises:
        SourceAddressError: with the registry-address message (wrong part count, bad
            host, reserved host, invalid namespace/name/system, query string...).
    """
    def fail(msg: str) -> NoReturn:
        raise SourceAddressError("Invalid registry module source address", msg)

    if has_control(raw):  # quoted on one line (issue #67 §1)
        fail(f"{one_line(raw, 200)} holds control characters")

    if is_local(raw):
        fail(f"can't use local directory {go_quote(raw)} as a module registry address")
    pkg, sub = split_package_subdir(raw)
    if "?" in pkg:
        fail("module registry addresses may not include a query string portion")
    if sub.startswith("../"):
        fail(f'subdirectory path "{sub}" leads outside of the module package')
    parts = pkg.split("/")
    if len(parts) not in (3, 4):
        fail("a module registry source address must have either three or four slash-separated components")
    host = default_host
    if len(parts) == 4:
        h = normalize_host(parts[0])
        if h is None:
            if "--" in parts[0]:
                fail(f'invalid module registry hostname "{parts[0]}"; internationalized domain names '
                     "must be given as direct unicode characters, not in punycode")
            fail(f'invalid module registry hostname "{parts[0]}"')
        if "." not in h:
            fail("invalid module registry hostname: must contain at least one dot")
        host = h
        parts = parts[1:]
    if host in ("github.com", "bitbucket.org"):
        fail(f'can\'t use "{host}" as a module registry host, because it\'s reserved for '
             "installing directly from version control repositories")
    ns, name, system = parts
    if not _REG_NAME_RE.fullmatch(ns) and "." in ns:
        # registry-address: "seems like the user omitted one of the latter components in an
        # address with an explicit hostname"
        fail("source address must have three more components after the hostname: the namespace, the name, "
             "and the target system")
    for label, val in (("namespace", ns), ("name", name)):
        if not _REG_NAME_RE.fullmatch(val):
            fail(f'invalid {label} "{val}": must be between one and 64 characters, including ASCII '
                 "letters, digits, dashes, and underscores, where dashes and underscores may not be "
                 "the prefix or suffix")
    if not _REG_SYSTEM_RE.fullmatch(system):
        fail(f'invalid target system "{system}": must be between one and 64 ASCII letters or digits')
    return RegistrySource(RegistryPackage(host, ns, name, system, default_host), sub)


def _detect(src: str) -> tuple[str, bool]:
    """One pass of OpenTofu's detector list over ``src`` (no forced getter, no subdir).
    Returns (result, matched)."""
    # 1. GitHub (OpenTofu strips the query and re-attaches it afterwards)
    if src.startswith("github.com/"):
        base, _, query = src.partition("?")
        parts = base.split("/")
        if len(parts) < 3:
            raise SourceAddressError("Invalid module source address",
                                     "GitHub URLs should be github.com/username/repo")
        path = "/" + "/".join(parts[1:3])
        if not path.endswith(".git"):
            path += ".git"
        url = "https://github.com" + _escape_path(path)
        if len(parts) > 3:
            url += "//" + "/".join(parts[3:])
        out = "git::" + url
        if query:
            out = _with_query(out, query)
        return out, True
    # 2. Git, scp-like SSH (only for user "git")
    m = _SSH_RE.fullmatch(src)
    if m and m.group(1) == "git":
        host, path = m.group(2), m.group(3)
        q = ""
        if "?" in path:
            path, q = path.split("?", 1)
            q = _encode_query(q)
        url = f"ssh://git@{host}" + _escape_path(path if path.startswith("/") else "/" + path)
        if q:
            url += "?" + q
        return "git::" + url, True
    # 3. BitBucket: see module docstring (git, no network call)
    if src.startswith("bitbucket.org/"):
        base, _, query = src.partition("?")
        parts = base.split("/")
        url = "https://bitbucket.org/" + "/".join(parts[1:3])
        if not url.endswith(".git"):
            url += ".git"
        if len(parts) > 3:
            url += "//" + "/".join(parts[3:])
        out = "git::" + url
        return (_with_query(out, query) if query else out), True
    # 4. GCS
    if "googleapis.com/" in src:
        parts = src.split("/")
        if len(parts) < 5:
            raise SourceAddressError("Invalid module source address", "URL is not a valid GCS URL")
        return f"gcs::https://www.googleapis.com/storage/{parts[2]}/{parts[3]}/{'/'.join(parts[4:])}", True
    # 5. S3
    if ".amazonaws.com/" in src:
        parts = src.split("/")
        host_parts = parts[0].split(".")
        if len(host_parts) == 3:
            return f"s3::https://{host_parts[0]}.amazonaws.com/{'/'.join(parts[1:])}", True
        if len(host_parts) == 4:
            return f"s3::https://{host_parts[1]}.amazonaws.com/{host_parts[0]}/{'/'.join(parts[1:])}", True
        if len(host_parts) == 5 and host_parts[1] == "s3":  # bucket.s3.REGION.amazonaws.com (go-getter detect_s3.go)
            return (f"s3::https://s3.{host_parts[2]}.amazonaws.com/{host_parts[0]}/{'/'.join(parts[1:])}",
                    True)
        raise SourceAddressError("Invalid module source address",
                                 "URL is not a valid S3 URL")
    # 6. OpenTofu's file detector
    if src.startswith("/"):
        return "file://" + _escape_path(src), True
    raise SourceAddressError(
        "Invalid module source address",
        f"OpenTofu cannot detect a supported external module source type for {src}")


def _with_query(addr: str, query: str) -> str:
    head, sub = source_dir_subdir(addr)
    head = head + ("&" if "?" in head else "?") + query
    return _with_subdir(head, sub)


def _getter_detect(src: str) -> str:
    """go-getter ``Detect(src, "", detectors)``."""
    m = _FORCED_RE.fullmatch(src)
    force, get_src = (m.group(1), m.group(2)) if m else ("", src)
    get_src, sub = source_dir_subdir(get_src)
    if _url_scheme(get_src):
        return src
    result, _ = _detect(get_src)
    m2 = _FORCED_RE.fullmatch(result)
    detect_force, result = (m2.group(1), m2.group(2)) if m2 else ("", result)
    result, detect_sub = source_dir_subdir(result)
    if detect_sub:
        sub = f"{detect_sub}/{sub}" if sub else detect_sub
    if sub:
        head, _, q = result.partition("?")
        result = f"{head}//{sub}" + (f"?{q}" if q else "")
    if force:
        return f"{force}::{result}"
    if detect_force:
        return f"{detect_force}::{result}"
    return result


def parse_remote(raw: str) -> RemoteSource:
    """OpenTofu ``parseModuleSourceRemote``. Raises SourceAddressError."""
    pkg, sub = split_package_subdir(raw)
    if sub.startswith("../"):
        raise SourceAddressError("Invalid module source address",
                                 f'subdirectory path "{sub}" leads outside of the module package')
    norm = _getter_detect(pkg)
    norm, more = split_package_subdir(norm)
    if more:
        sub = go_path_clean(f"{more}/{sub}") if sub else go_path_clean(more)
        if sub.startswith("../"):
            raise SourceAddressError(
                "Invalid module source address",
                f'detected subdirectory path "{sub}" of "{norm}" leads outside of the module package')
    m = _FORCED_RE.fullmatch(norm)
    if m and m.group(1).lower() not in GETTERS:
        raise SourceAddressError("Invalid module source address",
                                 f'Unsupported module source type "{m.group(1)}" in {raw!r}.')
    return RemoteSource(norm, sub)


class OciGetterError(SourceAddressError):
    """An ``oci://`` address OpenTofu's OCI getter refuses when it downloads
    (``internal/getmodules/oci_getter.go``). ``getter_error`` is the getter's error as
    ``tofu init`` shows it (``error downloading 'URL': invalid reference: ...``); ``package``
    is the address without its subdirectory, which OpenTofu's installer names ("Failed to
    download module", ``internal/initwd/module_install.go``)."""

    def __init__(self, package: str, getter_error: str):
        super().__init__("Invalid module source address", f"{package}: {getter_error}")
        self.package = package
        self.getter_error = getter_error


def _go_query_encode(pairs: list[tuple[str, str]]) -> str:
    """Go's ``url.Values.Encode``: keys sorted, each value in order, ``QueryEscape``d."""
    order = sorted({k for k, _ in pairs})
    return "&".join(f"{quote_plus(k, safe='')}={quote_plus(v, safe='')}" for k in order
                    for kk, v in pairs if kk == k)


def _go_digest_error(value: str) -> str | None:
    """go-digest ``Parse``'s error for ``value`` (``invalid checksum digest format``,
    ``unsupported digest algorithm``, ``invalid checksum digest length``), or None."""
    i = value.find(":")
    if i <= 0 or i + 1 == len(value):
        return "invalid checksum digest format"
    algorithm, encoded = value[:i], value[i + 1:]
    if algorithm not in _DIGEST_HEX_LEN:
        return "unsupported digest algorithm" if _OCI_DIGEST_RE.fullmatch(value) else "invalid checksum digest format"
    if len(encoded) != _DIGEST_HEX_LEN[algorithm]:
        return "invalid checksum digest length"
    return None if re.fullmatch(r"[a-f0-9]+", encoded) else "invalid checksum digest format"


def parse_oci(raw: str) -> OciSource:
    """An ``oci://`` source with OpenTofu's OCI getter rules, checked in the getter's order
    and refused with its words (``internal/getmodules/oci_getter.go``: the ``archive``
    argument, then ORAS-Go's ``Reference.Validate`` of the registry and repository, then
    ``resolveManifestDescriptor``'s arguments).

    Raises:
        OciGetterError: what the getter refuses (its table: ``oci_getter_test.go``
            ``TestOCIGetter``, in ``tests/conformance/opentofu/oci_sources.json``).
        SourceAddressError: an address that never reaches the getter (``oci::``, no host,
            a subdirectory leaving the package).
    """
    def fail(msg: str) -> NoReturn:
        raise SourceAddressError("Invalid module source address", f"{raw}: {msg}")

    if raw.lower().startswith("oci::"):
        fail('OCI sources use the "oci://" scheme, not a forced "oci::" getter')
    pkg, sub = split_package_subdir(raw)
    if sub.startswith("../"):
        fail(f'subdirectory path "{sub}" leads outside of the module package')
    parts = urlsplit(pkg)
    if parts.scheme != "oci":
        fail("the scheme must be oci")
    if not parts.netloc:
        fail("an OCI source needs a registry host")
    registry = parts.netloc
    repo = parts.path.lstrip("/")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    shown = f"oci://{registry}{parts.path}" + (f"?{_go_query_encode(pairs)}" if pairs else "")

    def getter(msg: str) -> NoReturn:
        raise OciGetterError(pkg, f"error downloading '{shown}': {msg}")

    if any(k == "archive" for k, _ in pairs):  # go-getter calls GetFile, which refuses it
        raise OciGetterError(pkg, 'the "archive" argument is not allowed for OCI sources, because the archive '
                                  "format is detected automatically from the image manifest")
    if not _OCI_REPO_RE.fullmatch(repo):
        getter(f'invalid reference: invalid repository "{repo}"')
    grouped: dict[str, list[str]] = {}
    for k, v in pairs:
        grouped.setdefault(k, []).append(v)
    tag = digest = ""
    unsupported = []
    for k, values in grouped.items():
        if len(values) > 1:
            getter(f'too many "{k}" arguments')
        v = values[0]
        if k == "tag":
            if v == "":
                getter("tag argument must not be empty")
            if not _OCI_TAG_RE.fullmatch(v):
                getter(f'invalid reference: invalid tag "{v}"')
            tag = v
        elif k == "digest":
            if v == "":
                getter("digest argument must not be empty")
            err = _go_digest_error(v)
            if err is not None:
                getter(f"invalid digest: {err}")
            digest = v
        else:
            unsupported.append(k)
    if len(unsupported) == 1:
        getter(f'unsupported argument "{unsupported[0]}"')
    if unsupported:
        getter(f"unsupported arguments: {', '.join(unsupported)}")
    if tag and digest:
        getter('cannot set both "tag" and "digest" arguments')
    return OciSource(registry, repo, tag, digest, sub)


def parse_source(raw: str, default_host: str = DEFAULT_REGISTRY_HOST) -> ModuleSource:
    """Parse a module ``source`` argument as OpenTofu does; a registry address without a
    host is on ``default_host`` (:mod:`tofu_solve.addrs.product`).

    Raises:
        SourceAddressError: a form OpenTofu rejects, with its message.
    """
    if not isinstance(raw, str) or raw == "":
        raise SourceAddressError("Invalid module source address",
                                 "The module source address must be a non-empty string.")
    if has_control(raw):  # a newline or an escape in a pull request's source is quoted on one line (#67 §1)
        raise SourceAddressError("Invalid module source address",
                                 f"{one_line(raw, 200)}: a source address holds no control characters.")
    if is_local(raw):
        return parse_local(raw)
    try:
        return parse_registry(raw, default_host)
    except SourceAddressError:
        pass
    if raw.startswith("oci://") or raw.lower().startswith("oci::"):
        return parse_oci(raw)
    return parse_remote(raw)


def lock_source(source: ModuleSource, versioned: bool, version_label: str) -> str:
    """The ``source`` a module lock entry records for a call at a selected version: for
    git and OCI calls with a ``version`` constraint, the address pinned to the selected tag
    (``?ref=TAG`` / ``?tag=TAG``); otherwise the normalized address. Always redacted
    (:func:`tofu_solve.addrs.redact.redact`), so a lock never holds a credential."""
    load("tofu_solve.addrs.redact")
    from .redact import redact

    if versioned and isinstance(source, RemoteSource) and source.kind is SourceKind.GIT:
        return redact(str(source.with_ref(version_label)))
    if versioned and isinstance(source, OciSource):
        return redact(str(OciSource(source.registry, source.repository, version_label, "", source.subdir)))
    return redact(str(source))


def tofu_source(source: ModuleSource, versioned: bool, version_label: str) -> str:
    """The call's source as ``tofu init`` sees it once the override bridge is merged (what
    ``modules.json`` records): like :func:`lock_source`, but not redacted."""
    if versioned and isinstance(source, RemoteSource) and source.kind is SourceKind.GIT:
        return str(source.with_ref(version_label))
    if versioned and isinstance(source, OciSource):
        return str(OciSource(source.registry, source.repository, version_label, "", source.subdir))
    return str(source)
