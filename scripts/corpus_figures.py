#!/usr/bin/env python3
"""Measure ``check --from`` on a corpus of real reports, as tests/test_report_corpus.py judges it.

    scripts/corpus_figures.py                      # figures over tests/data/reports
    scripts/corpus_figures.py --cases DIR          # figures over another folder of cases (a held-out set)
    scripts/corpus_figures.py --misses             # ... and one line per missed case
    scripts/corpus_figures.py --write-known        # rewrite KNOWN_MISSES.json (and its recall floor) from this run
    scripts/corpus_figures.py --dump OUT.json      # every case's facts, findings and notes, to diff two checkouts
    scripts/corpus_figures.py --diff A.json B.json # which cases read or judge differently between two dumps

Run it with the checkout's interpreter (``.venv/bin/python scripts/corpus_figures.py``); ``--code ROOT`` measures the
envguard package of another checkout (e.g. an unpacked ``git archive`` of an earlier commit) on the same cases, which
is how a held-out set's first contact is measured on the code as it was before anything was built for it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "tests" / "data" / "reports"


@dataclass(frozen=True)
class Outcome:
    name: str
    expected: tuple[str, ...]
    errors: tuple[str, ...] | None  # None: no environment facts found
    judgement: str  # the case's lead_judgement kind, "" when it has none

    @property
    def missed(self) -> tuple[str, ...]:
        return self.expected if self.errors is None else tuple(c for c in self.expected if c not in self.errors)

    @property
    def hits(self) -> int:
        return len(self.expected) - len(self.missed)

    @property
    def known_miss(self) -> str | None:
        """The KNOWN_MISSES.json reason for this case, None when it passes."""
        if self.errors is None:
            what = ", ".join(self.missed) if self.expected else "a negative"
            return f"no environment facts found: {what} not diagnosed"
        if not self.expected:
            return f"negative with errors: {', '.join(self.errors)}" if self.errors else None
        if not self.missed:
            return None
        found = f" (found {', '.join(self.errors)})" if self.errors else ""
        return f"not diagnosed: {', '.join(self.missed)}{found}"


def _load(code_root: Path | None) -> None:
    if code_root is not None:
        sys.path.insert(0, str(code_root.resolve()))
    else:
        sys.path.insert(0, str(ROOT))


def _cases(folder: Path) -> list[Path]:
    return sorted((p for p in folder.iterdir() if (p / "case.json").exists()), key=lambda p: p.name)


def measure(folder: Path, dump: dict[str, object] | None = None) -> list[Outcome]:
    from envguard.errors import SnapshotError
    from envguard.findings import Severity
    from envguard.knowledge import load_matrices
    from envguard.reports import parse_environments
    from envguard.rules import run_rules

    sys.path.insert(0, str(ROOT / "tests"))
    code: dict[str, str] = importlib.import_module("test_report_corpus").CODE  # the cases' codes → envguard's

    matrices = load_matrices()
    out: list[Outcome] = []
    for case in _cases(folder):
        meta = json.loads((case / "case.json").read_text(encoding="utf-8"))
        expected = tuple(code[c] for c in meta["expected_findings"] if c != "none")
        judgement = str((meta.get("lead_judgement") or {}).get("kind", ""))
        errors: tuple[str, ...] | None
        try:
            envs = parse_environments((case / "env.txt").read_text(encoding="utf-8"), case.name, matrices)
        except SnapshotError as exc:
            errors = None
            if dump is not None:
                dump[case.name] = {"no_facts": str(exc)}
        else:
            found: set[str] = set()
            seen = []
            for env in envs:
                report = run_rules(env.snapshot, matrices, notes=env.notes)
                found |= {f.code for f in report.findings if f.severity is Severity.ERROR}
                if dump is not None:
                    seen.append({
                        "snapshot": repr(env.snapshot),
                        "notes": [str(n) for n in env.notes],
                        "findings": [[f.severity.value, f.code, f.message] for f in report.findings],
                    })
            errors = tuple(sorted(found))
            if dump is not None:
                dump[case.name] = seen
        out.append(Outcome(case.name, expected, errors, judgement))
    return out


def figures(outcomes: list[Outcome]) -> dict[str, object]:
    total = sum(len(o.expected) for o in outcomes)
    hits = sum(o.hits for o in outcomes)
    # the expectations the kept text and the sourced tables can give: all but the misses judged "not derivable"
    d_total = total - sum(len(o.missed) for o in outcomes if o.judgement == "not derivable")
    d_hits = hits
    negatives = [o for o in outcomes if not o.expected]
    return {
        "cases": len(outcomes),
        "negatives": len(negatives),
        "expected": total,
        "hits": hits,
        "recall": round(hits / total, 4) if total else None,
        "derivable_expected": d_total,
        "derivable_hits": d_hits,
        "derivable_recall": round(d_hits / d_total, 4) if d_total else None,
        "negatives_with_errors": [o.name for o in negatives if o.errors],
        "no_facts": [o.name for o in outcomes if o.errors is None],
        "missed_cases": sum(o.known_miss is not None for o in outcomes),
    }


def write_known(outcomes: list[Outcome], path: Path) -> None:
    known = {o.name: o.known_miss for o in outcomes if o.known_miss is not None}
    total = sum(len(o.expected) for o in outcomes)
    floor = math.floor(1000 * sum(o.hits for o in outcomes) / total) / 1000
    body = dict(sorted(known.items()))
    body["__recall_floor__"] = f"{floor:.3f}"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def diff(a: Path, b: Path) -> int:
    left = json.loads(a.read_text(encoding="utf-8"))
    right = json.loads(b.read_text(encoding="utf-8"))
    names = sorted(set(left) | set(right))
    changed = [n for n in names if left.get(n) != right.get(n)]
    for n in changed:
        sys.stdout.write(n + "\n")
    sys.stdout.write(f"{len(changed)} of {len(names)} cases differ" + "\n")
    return 1 if changed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=Path, default=REPORTS)
    ap.add_argument("--code", type=Path, help="checkout whose envguard package to measure (default: this one)")
    ap.add_argument("--misses", action="store_true", help="print one line per case that is not diagnosed")
    ap.add_argument("--write-known", action="store_true", help="rewrite tests/data/reports/KNOWN_MISSES.json")
    ap.add_argument("--dump", type=Path, help="write every case's snapshot, notes and findings as JSON")
    ap.add_argument("--diff", type=Path, nargs=2, metavar=("A", "B"))
    args = ap.parse_args()
    if args.diff:
        return diff(*args.diff)
    if not args.cases.is_dir():
        sys.stderr.write(f"error: {args.cases} is not a folder of cases\n")
        return 2
    _load(args.code)
    dump: dict[str, object] | None = {} if args.dump else None
    outcomes = measure(args.cases, dump)
    if args.misses:
        for o in outcomes:
            if o.known_miss:
                sys.stdout.write(f"{o.name}: {o.known_miss}" + (f" [{o.judgement}]" if o.judgement else "") + "\n")
    sys.stdout.write(json.dumps(figures(outcomes), indent=1) + "\n")
    if args.dump and dump is not None:
        args.dump.write_text(json.dumps(dump, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    if args.write_known:
        write_known(outcomes, REPORTS / "KNOWN_MISSES.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
