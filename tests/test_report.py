"""check --from: real pasted reports are diagnosed; odd input never raises."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envguard.errors import SnapshotError
from envguard.knowledge import Matrices, load_matrices
from envguard.reports import NOT_REPORTED, normalize_report, parse_environments, parse_report
from envguard.rules import run_rules
from envguard.snapshot import DriverInfo, Unavailable

REPORTS = Path(__file__).parent / "data" / "reports"
CASES = sorted(p for p in REPORTS.iterdir() if (p / "case.json").exists())


@pytest.fixture(scope="module")
def matrices() -> Matrices:
    return load_matrices()


def test_collect_env_facts() -> None:
    snapshot, notes = parse_report((REPORTS / "001-rtx5090d-sm120-cu126" / "env.txt").read_text(), "001")
    assert notes == ()
    torch = snapshot.framework("torch")
    assert torch is not None and (torch.version, torch.cuda, torch.accelerator) == ("2.6.0+cu126", "12.6", "cuda")
    assert [g.name for g in snapshot.gpu_list()] == ["NVIDIA GeForce RTX 5090 D"]
    assert isinstance(snapshot.driver, DriverInfo) and snapshot.driver.version == "570.124.04"
    assert not isinstance(snapshot.python, Unavailable) and snapshot.python.version == "3.12.9"
    assert not isinstance(snapshot.cudnn, Unavailable) and snapshot.cudnn[0].version == "9.8.0"
    assert snapshot.host.glibc == "2.40"


def test_full_width_colons_quotes_and_mixed_sources() -> None:
    text = (
        "> PyTorch version\uff1a 2.5.1+cu124\n"
        "> Python version :  3.11.9 (main)\n"
        "> GPU models and configuration:\n> GPU 0: NVIDIA A100-SXM4-80GB\n> GPU 1: NVIDIA A100-SXM4-80GB\n"
        "\n+-----------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
        "|-------------------------------+----------------------+----------------------+\n"
        "torchvision==0.19.0\n"
    )
    snapshot, notes = parse_report(text, "mixed")
    assert isinstance(snapshot.driver, DriverInfo) and snapshot.driver.cuda_driver_version == "11.4"
    assert len(snapshot.gpu_list()) == 1  # the same model twice is one name; the count is not in the text
    report = run_rules(snapshot, load_matrices())
    codes = {f.code for f in report.findings}
    assert "driver-too-old" in codes  # cu124 needs >= 525.60.13
    assert "companion-mismatch" in codes  # torchvision 0.19 belongs to torch 2.4
    assert notes == ()


def test_contradictions_become_notes_not_guesses() -> None:
    text = "PyTorch version: 2.1.0+cu121\nNvidia driver version: 535.104.05\nI use torch 2.0.1 here\n"
    snapshot, notes = parse_report(text, "contradict")
    torch = snapshot.framework("torch")
    assert torch is not None and torch.version == "2.1.0+cu121"
    assert any("contradictory" in n and "2.0.1" in n for n in notes)


def test_envguard_json_is_read_back() -> None:
    data = (Path(__file__).parent / "data" / "snapshots" / "torch210-cu121-driver470.json").read_text()
    snapshot, _ = parse_report(data, "snap.json")
    assert snapshot.framework("torch") is not None


def test_text_without_facts_is_a_clear_error() -> None:
    with pytest.raises(SnapshotError, match="no environment facts found"):
        parse_report("hello, my model does not train. any ideas?\n", "prose.txt")


def test_missing_facts_are_not_reported_not_absent() -> None:
    snapshot, _ = parse_report("PyTorch version: 2.4.0+cu121\n", "min")
    assert isinstance(snapshot.driver, Unavailable) and snapshot.driver.code == NOT_REPORTED
    assert [f.code for f in run_rules(snapshot, load_matrices()).findings] == []


def test_normalize_report() -> None:
    # a fence becomes an empty line, so that line numbers stay those of the text as pasted
    assert normalize_report("> > a\uff1ab\r\n```\nc\u00a0d") == ["a:b", "", "c d"]


REPORT_WORDS = st.sampled_from([
    "PyTorch version: ", "CUDA used to build PyTorch: ", "GPU 0: ", "Nvidia driver version: ", "cuDNN version: ",
    "| NVIDIA-SMI ", "Driver Version: ", "CUDA Version: ", "torch==", "### TensorFlow version\n", "\n", " ",
    "2.1.0+cu121", "12.1", "470.82.01", "NVIDIA GeForce RTX 4090", "found version 11040", "\uff1a", "> ", "```",
    "Could not load dynamic library 'libcudnn.so.8'", "Name: torch\nVersion: ", "[pip3] ", "{", "}", ":", "|",
])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=400), st.lists(REPORT_WORDS, max_size=40).map("".join)))
def test_parser_never_raises_unexpectedly(text: str) -> None:
    """Arbitrary or truncated text yields a snapshot or a SnapshotError (exit 3), nothing else."""
    try:
        snapshot, _ = parse_report(text, "fuzz")
    except SnapshotError:
        return
    run_rules(snapshot, load_matrices())


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CASES), st.integers(min_value=0, max_value=4000))
def test_truncated_real_reports(case: Path, cut: int) -> None:
    text = (case / "env.txt").read_text(encoding="utf-8")[:cut]
    try:
        snapshot, _ = parse_report(text, case.name)
    except SnapshotError:
        return
    run_rules(snapshot, load_matrices())


CAPTURES = Path(__file__).parent / "data" / "captures"


@pytest.mark.parametrize(
    ("relpath", "check"),
    [
        ("nvcc/12.5.82-linux.txt", lambda s: s.toolkit_list()[0].version == "12.5"),
        ("nvidia-smi-misc/list-gpus-titan-v-plus-rtx-5880-ada.txt",
         lambda s: [g.name for g in s.gpu_list()] == ["NVIDIA TITAN V", "NVIDIA RTX 5880 Ada Generation"]),
        ("nvidia-smi-query-gpu/titan-v-plus-rtx-5880-ada-driver-570.86.15-compute_cap-compute_mode-driver_version"
         "-name-index.txt", lambda s: [g.compute_capability for g in s.gpu_list()] == ["7.0", "8.9"]),
        ("cudnn-version-h/cudnn-8.2.1-grep-CUDNN_MAJOR-A2.txt", lambda s: s.cudnn[0].version == "8.2.1"),
        ("proc-driver-nvidia-version/open-565.57.01-x86_64-ubuntu24.04.txt",
         lambda s: s.driver.version == "565.57.01"),
    ],
)
def test_other_tool_outputs_are_facts(relpath: str, check: object) -> None:
    snapshot, _ = parse_report((CAPTURES / relpath).read_text(encoding="utf-8"), relpath)
    assert callable(check) and check(snapshot), snapshot


def test_two_messages_of_one_cause_make_one_finding() -> None:
    text = (CAPTURES / "nvidia-smi" / "failure-wsl2-couldnt-communicate-failed-to-shut-down-nvml.txt").read_text()
    snapshot, _ = parse_report(text, "wsl")
    findings = run_rules(snapshot, load_matrices()).findings
    assert [f.code for f in findings] == ["driver-missing"]
    assert len(findings[0].evidence) == 2


# ---- fuzzing the reader pipeline (issue 14): arbitrary, truncated and mixed real text, 10k inputs -----------

CORPUS_TEXTS = [(p / "env.txt").read_text(encoding="utf-8") for p in CASES]
_MATRICES = load_matrices()


def _mixed(parts: list[tuple[int, int, int]]) -> str:
    """Slices of real reports spliced together (what people paste: pieces of several tools' output)."""
    out = []
    for which, start, length in parts:
        text = CORPUS_TEXTS[which % len(CORPUS_TEXTS)]
        begin = start % max(len(text), 1)
        out.append(text[begin:begin + length])
    return "\n".join(out)


_INPUTS = st.one_of(
    st.text(max_size=300),
    st.lists(REPORT_WORDS, max_size=30).map("".join),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 100_000), st.integers(0, 600)), min_size=1,
             max_size=4).map(_mixed),
)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(_INPUTS)
def test_reader_pipeline_fuzz(text: str) -> None:
    """No exception but SnapshotError, and no input takes over 100 ms (regex backtracking would)."""
    import time

    start = time.perf_counter()
    with contextlib.suppress(SnapshotError):
        parse_environments(text, "fuzz", _MATRICES)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.1 or _retry_is_fast(text), f"{elapsed:.3f} s on {text[:80]!r}"


def _retry_is_fast(text: str) -> bool:
    """A loaded CI machine can stall one call: a slow input must be slow again (best of three) to fail."""
    return min(_timed(text) for _ in range(3)) < 0.1


def _timed(text: str) -> float:
    import time

    start = time.perf_counter()
    with contextlib.suppress(SnapshotError):
        parse_environments(text, "fuzz", _MATRICES)
    return time.perf_counter() - start
