"""Run one ``tofu-solve init`` in this process and report, as JSON on stdout: exit code,
wall seconds, peak RSS (KiB), network operations and the selected versions. Used by
``bench/run.py`` so that every measurement is a fresh process (cold imports, own memory)."""

import json
import os
import resource
import sys
import time

from tofu_solve.command.init import InitOptions, run_init
from tofu_solve.errors import TofuSolveError
from tofu_solve.settings import Settings

root = sys.argv[1]
extra = sys.argv[2:]
t0 = time.perf_counter()
out = {"root": root}
try:
    res = run_init(InitOptions(root=root, upgrade="-upgrade" in extra), Settings.from_environ(os.environ))
    out.update(ok=True, modules={p: c.version_text for p, c in res.resolution.modules.items()},
               network=res.network, rounds=res.resolution.rounds, stats=res.stats)
except TofuSolveError as e:
    out.update(ok=False, error=e.summary, kind=type(e).__name__)
out["seconds"] = time.perf_counter() - t0
out["peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(out))
