"""check --from on the corpus of real public reports (tests/data/reports, each case's source in its case.json).

Each case asserts its expected finding codes (error severity) and, for negatives, that no error is reported.
Cases envguard does not diagnose yet are listed in KNOWN_MISSES with what is missing; they are strict xfails, so
fixing one fails the test until it is taken off the list. The aggregate test holds recall at or above the figure
measured when the list was last updated, and forbids "no environment facts found" and errors on negatives.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envguard.errors import SnapshotError
from envguard.findings import Severity
from envguard.knowledge import Matrices, load_matrices
from envguard.reports import parse_environments
from envguard.rules import run_rules

REPORTS = Path(__file__).parent / "data" / "reports"
CASES = sorted(p for p in REPORTS.iterdir() if (p / "case.json").exists())
#: cases/README.md maps the cases' codes to envguard's.
CODE = {
    "driver-too-old-for-cuda": "driver-too-old", "arch-not-in-wheel": "arch-unsupported",
    "cpu-only-build": "cpu-only-build", "cudnn-mismatch": "cudnn-mismatch", "cuda-libs-missing": "cuda-libs-missing",
    "tf-native-windows-gpu-unsupported": "platform-unsupported", "python-unsupported": "python-unsupported",
    "torchvision-mismatch": "companion-mismatch", "nccl-mismatch": "nccl-mismatch",
    "driver-library-mismatch": "driver-library-mismatch", "jax-plugin-mismatch": "companion-mismatch",
}
#: case → why it is not diagnosed yet (updated from /work's measurement; see the closing note of issue 14).
KNOWN_MISSES: dict[str, str] = json.loads((REPORTS / "KNOWN_MISSES.json").read_text(encoding="utf-8"))
#: Recall of expected codes over the corpus when KNOWN_MISSES was last updated (a ratchet: never lower).
RECALL_FLOOR = float(KNOWN_MISSES.pop("__recall_floor__", "0"))


@pytest.fixture(scope="module")
def matrices() -> Matrices:
    return load_matrices()


def diagnose(case: Path, matrices: Matrices) -> tuple[set[str] | None, list[str]]:
    """(error codes over every environment the report describes, expected codes); None when no facts."""
    meta = json.loads((case / "case.json").read_text())
    expected = [CODE[c] for c in meta["expected_findings"] if c != "none"]
    try:
        envs = parse_environments((case / "env.txt").read_text(encoding="utf-8"), case.name, matrices)
    except SnapshotError:
        return None, expected
    errors: set[str] = set()
    for env in envs:
        report = run_rules(env.snapshot, matrices, notes=env.notes)
        errors |= {f.code for f in report.findings if f.severity is Severity.ERROR}
    return errors, expected


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.xfail(reason=KNOWN_MISSES[c.name], strict=True))
     if c.name in KNOWN_MISSES else c for c in CASES],
    ids=lambda p: p.name,
)
def test_real_report_is_diagnosed(case: Path, matrices: Matrices) -> None:
    errors, expected = diagnose(case, matrices)
    assert errors is not None, "no environment facts found"
    if not expected:
        assert errors == set()
    for code in expected:
        assert code in errors, (code, sorted(errors))


def test_corpus_figures(matrices: Matrices) -> None:
    hits = total = 0
    no_facts, bad_negatives = [], []
    for case in CASES:
        errors, expected = diagnose(case, matrices)
        total += len(expected)
        if errors is None:
            no_facts.append(case.name)
            continue
        hits += sum(code in errors for code in expected)
        if not expected and errors:
            bad_negatives.append(case.name)
    assert len(CASES) >= 120
    assert hits / total >= RECALL_FLOOR, f"recall {hits}/{total} fell below {RECALL_FLOOR}"
    assert [c for c in bad_negatives if c not in KNOWN_MISSES] == []
    assert [c for c in no_facts if c not in KNOWN_MISSES] == []


def test_known_misses_name_real_cases() -> None:
    assert set(KNOWN_MISSES) <= {c.name for c in CASES}


#: What a listed case's lead_judgement may say (tests/data/reports/README.md).
JUDGEMENTS = {"warning", "not derivable", "disputed", "reader gap"}


def test_every_listed_case_says_why_it_is_missed() -> None:
    unjudged = []
    for name in KNOWN_MISSES:
        meta = json.loads((REPORTS / name / "case.json").read_text(encoding="utf-8"))
        judgement = meta.get("lead_judgement") or {}
        if judgement.get("kind") not in JUDGEMENTS or not str(judgement.get("why", "")).strip():
            unjudged.append(name)
    assert unjudged == []
