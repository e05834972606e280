"""Write each case's ``expect`` from what tofu-solve answers now (``python -m
tests.solver.update_cases``). Review the diff: a case whose answer changes is a change of
behaviour."""

from __future__ import annotations

import json

from tests.solver.test_cases import CASES, run_case


def main() -> None:
    for path in CASES:
        case = json.loads(path.read_text())
        got, _, _ = run_case(case["index"])
        if case.get("expect") != got:
            case["expect"] = got
            # recorded universes (record_case.py) stay compact; the hand-written ones readable
            text = json.dumps(case, separators=(",", ":")) if case.get("recorded") else json.dumps(case, indent=1)
            path.write_text(text + "\n")
            print(f"updated {path.name}")


if __name__ == "__main__":
    main()
