"""What the names of ``-upgrade=NAME,...`` and ``-accept-checksum=NAME,...`` name in a lock
file (a module call path or call name, a module package, a provider). Which locks then hold
is :class:`~tofu_solve.solver.lock_terms.LockTerms`'s answer."""

from __future__ import annotations

from .._lazy import load
from ..addrs.module_source import RegistrySource
from ..addrs.product import Product
from ..errors import TofuSolveError
from .entries import LockFile


def named_locks(locks: LockFile, tree, names: tuple[str, ...], product: Product,
                flag: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """What each NAME of ``-upgrade=NAME,...`` or ``-accept-checksum=NAME,...`` (``flag``)
    names in the lock file: (NAME -> the module call paths it names, NAME -> the provider
    addresses). A NAME is a module call path (``eks.kms``) or call name (``kms``: every call
    so named), a module package (``terraform-aws-modules/kms/aws``, with or without its
    host) or a provider (``hashicorp/aws`` or its full address); names without a host are on
    ``product``'s registry host.

    Raises:
        ConfigurationError: a NAME that names nothing in the lock file, with the nearest
            name when one is near (OpenTofu's "did you mean" distance). With ``-upgrade``, a
            call or provider of the configuration not locked yet is no error (it is chosen
            afresh anyway).
    """
    load("tofu_solve.addrs.identifiers")
    from ..addrs.identifiers import valid_call_path
    load("tofu_solve.addrs.module_source")
    from ..addrs.module_source import parse_source
    load("tofu_solve.errors")
    from ..errors import ConfigurationError

    def package_names(source: str) -> set[str]:
        try:
            src = parse_source(source, product.registry_host)
        except TofuSolveError:
            return set()
        if isinstance(src, RegistrySource):
            return {str(src.package), src.package.for_display}
        return {source.split("?", 1)[0]}

    modules: dict[str, list[str]] = {}
    providers: dict[str, list[str]] = {}
    for name in names:
        modules[name] = [path for path, m in sorted(locks.modules.items())
                         if name == path or (valid_call_path(name) and "." not in name
                                             and path.rsplit(".", 1)[-1] == name) or name in package_names(m.source)]
        providers[name] = [a for a in sorted(locks.providers) if name in (a, product.short(a))]
        if modules[name] or providers[name]:
            continue
        known = {rc.call.name for rc in tree.remote_calls} | {
            n for rc in tree.remote_calls for n in package_names(str(rc.call.source))} | {
            x for _, r in tree.providers for x in (str(r.address), product.short(str(r.address)))}
        if flag == "-upgrade" and name in known:
            continue  # a call or provider not locked yet is simply chosen afresh anyway
        import difflib

        near = difflib.get_close_matches(name, sorted(known | set(locks.modules) | {
            product.short(a) for a in locks.providers}), n=1, cutoff=0.6)
        hint = f" Did you mean {flag}={near[0]}?" if near else ""
        raise ConfigurationError(
            f"Unknown name in {flag}",
            f'{flag}={name} names no module call, module package or provider of this configuration\'s '
            f"lock file.{hint} Use a call path (vpc, eks.kms), a module package "
            "(terraform-aws-modules/kms/aws) or a provider (hashicorp/aws).")
    return modules, providers


__all__ = ["named_locks"]
