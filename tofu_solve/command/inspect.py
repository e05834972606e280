"""``tofu-solve inspect``: the module calls, provider requirements and OpenTofu version
constraints of a root module, with file and line (text, or ``-json``)."""

from __future__ import annotations

import json
import sys

from ..addrs.redact import redact
from ..config import ModuleConfig, load_module_dir
from ..config.variables import collect_input_values
from ..settings import Settings


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


def print_config(cfg: ModuleConfig, out) -> None:
    print(f"Configuration in {cfg.dir} ({len(cfg.files)} files: {', '.join(cfg.files) or 'none'})", file=out)
    print("\nModule calls:", file=out)
    if not cfg.module_calls:
        print("  (none)", file=out)
    for c in cfg.module_calls:
        ver = f" {c.version.text}" if c.version else ""
        extra = " (count)" if c.has_count else " (for_each)" if c.has_for_each else ""
        shown = getattr(c.source, "for_display", redact(str(c.source)))
        print(f"  - {c.name}: {shown}{ver}{extra}  [{c.constraint_where}]", file=out)
    print("\nRequired providers:", file=out)
    if not cfg.provider_requirements:
        print("  (none)", file=out)
    for p in cfg.provider_requirements:
        ver = p.constraint.text if p.constraint else "(any version)"
        print(f"  - {p.local_name} = {p.address.for_display} {ver}  [{p.where}]", file=out)
    print("\nOpenTofu version constraints:", file=out)
    if not cfg.core_requirements:
        print("  (none)", file=out)
    for r in cfg.core_requirements:
        note = "" if r.kind == "compatible_with" or r.tofu_file else " (ignored by OpenTofu >= 1.12: not a .tofu file)"
        print(f"  - {r.kind} {r.constraint.text}  [{r.where}]{note}", file=out)


def run(args, settings: Settings) -> int:
    """The command: ``args`` as the parser left them."""
    cfg = load_module_dir(args.chdir, inputs=collect_input_values(args.chdir, settings.environ, tuple(args.vars or ())))
    if args.json:
        json.dump(config_as_data(cfg), sys.stdout, indent=2)
        print()
    else:
        print_config(cfg, sys.stdout)
    return 0
