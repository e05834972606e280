"""``tofu-solve inspect``: the module calls, provider requirements and OpenTofu (or
Terraform) version constraints of a root module, with file and line (text, or ``-json``),
read as the repository's product reads it (which files, which registry host)."""

from __future__ import annotations

from pathlib import Path

from ..addrs.redact import redact
from ..config import ModuleConfig, load_module_dir
from ..config.variables import collect_input_values
from ..settings import Settings
from ..versions.target import configured_client, target_version
from .arguments.report_flags import InspectArguments
from .views.report_views import InspectView


def config_as_data(cfg: ModuleConfig) -> dict:
    return {
        "dir": str(cfg.dir),
        "files": list(cfg.files),
        "module_calls": [
            {"name": c.name, "source": redact(str(c.source)), "source_kind": c.source.kind.value,
             "version": c.version.text if c.version else None,
             "file": c.constraint_where.file, "line": c.constraint_where.line,
             "count": c.has_count, "for_each": c.has_for_each}
            for c in cfg.module_calls
        ],
        "required_providers": [
            {"name": p.local_name, "source": str(p.address),
             "version": p.constraint.text if p.constraint else None,
             "file": p.where.file, "line": p.where.line, "legacy": p.legacy}
            for p in cfg.provider_requirements
        ],
        "opentofu_constraints": [
            {"constraint": r.constraint.text, "kind": r.kind, "file": r.where.file, "line": r.where.line,
             "tofu_file": r.tofu_file}
            for r in cfg.core_requirements
        ],
    }


def run(ns, settings: Settings) -> int:
    """The command: ``ns`` as the parser left it, read once into :class:`InspectArguments`."""
    args = InspectArguments.from_namespace(ns)
    # read as the repository's product reads it (issue #50 §5: a Terraform root is not OpenTofu's)
    client = configured_client(settings, args.tf_path, named=bool(args.tofu_version or args.terraform_version))
    target = target_version(args.tofu_version, Path(args.chdir), terraform=args.terraform_version, client=client,
                            reads=settings.reads)
    cfg = load_module_dir(args.chdir, inputs=collect_input_values(args.chdir, settings.environ, tuple(args.vars or ())),
                          product=target.product)
    InspectView(args.json).config(cfg, {**config_as_data(cfg), "product": target.product.name}, target.product.name)
    return 0
