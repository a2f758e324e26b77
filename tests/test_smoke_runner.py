"""The smoke runner and its outputs with a fake runner: crashes, hangs and garbage are results, not aborts."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

import pytest

from envguard._subprocess import CommandResult
from envguard.formatters.smoke import smoke_json, smoke_junit, smoke_markdown, smoke_text
from envguard.smoke import DistOptions, SuiteOptions, decode_case, run_suite, select_cases
from envguard.smoke.base import SmokeStatus


def ok(case: str, **extra: object) -> str:
    doc = {"case": case, "status": "passed", "detail": "", "metrics": {"steps": 3, "loss": 0.5},
           "digests": {"weights[float32,cpu]": "ab" * 32}, "device": "cpu", "torch": "2.13.0+cpu", **extra}
    return "some library noise\n" + json.dumps(doc) + "\n"


class Scripted:
    """Answers each case by name (the case is argv's first argument after the payload path)."""

    def __init__(self, answers: dict[str, CommandResult | str]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, ...]] = []
        self.envs: list[dict[str, str] | None] = []

    def __call__(self, argv: tuple[str, ...], *, timeout: float, env: dict[str, str] | None = None,
                 cwd: str | None = None, stdin: str | None = None) -> CommandResult:
        self.calls.append(argv)
        self.envs.append(env)
        payload_index = next(i for i, a in enumerate(argv) if a.endswith("envguard_smoke_payload.py"))
        case = argv[payload_index + 1]
        answer = self.answers.get(case, ok(case))
        if isinstance(answer, str):
            return CommandResult(argv, 0, answer, "", 0.5)
        return CommandResult(argv, answer.returncode, answer.stdout, answer.stderr, answer.duration_s,
                             answer.timed_out)


def options(cases: tuple[str, ...], **kw: object) -> SuiteOptions:
    return SuiteOptions("/venv/bin/python", 2, cases, env={"PATH": "/usr/bin"}, **kw)  # type: ignore[arg-type] # reason: test kwargs


def test_crash_hang_and_garbage_do_not_stop_the_suite() -> None:
    runner = Scripted({
        "amp": CommandResult((), -11, "", "Fatal Python error: Segmentation fault", 3.0),
        "determinism": CommandResult((), -9, "", "", 300.0, timed_out=True),
        "gradcheck": "not json at all\n",
    })
    events: list[tuple[str, object]] = []
    run = run_suite(runner, options(("amp", "determinism", "gradcheck", "dataloader")),
                    lambda case, result: events.append((case, result)))
    by_case = {r.case: r for r in run.results}
    assert by_case["amp"].status is SmokeStatus.ERROR
    assert "SIGSEGV" in by_case["amp"].detail
    assert by_case["determinism"].status is SmokeStatus.TIMEOUT
    assert by_case["gradcheck"].status is SmokeStatus.ERROR
    assert by_case["dataloader"].status is SmokeStatus.PASSED
    assert by_case["dataloader"].digests == {"weights[float32,cpu]": "ab" * 32}
    assert run.failed
    assert [c for c, r in events if r is None] == ["amp", "determinism", "gradcheck", "dataloader"]


def test_ddp_goes_through_the_launcher() -> None:
    runner = Scripted({})
    run_suite(runner, options(("ddp",), dist=DistOptions(nproc_per_node=2)))
    (argv,) = runner.calls
    assert argv[:2] == ("/venv/bin/python", "-c") and "runpy.run_module('torch.distributed.run'" in argv[2]
    assert "--nproc-per-node=2" in argv and "--rdzv-backend=c10d" in argv
    assert any(a.startswith("--rdzv-endpoint=127.0.0.1:") for a in argv)
    env = runner.envs[0] or {}
    assert int(env["ENVGUARD_SMOKE_DIST_TIMEOUT"]) <= 60


def test_skipped_and_failed_statuses() -> None:
    skipped = json.dumps({"case": "perf", "status": "skipped", "detail": "perf needs a CUDA GPU"})
    failed = json.dumps({"case": "amp", "status": "failed", "detail": "loss did not decrease"})
    run = run_suite(Scripted({"perf": skipped, "amp": failed}), options(("amp", "perf")))
    assert [(r.case, r.status) for r in run.results] == [("amp", SmokeStatus.FAILED), ("perf", SmokeStatus.SKIPPED)]


def test_passed_json_with_a_bad_exit_status_is_an_error() -> None:
    result = decode_case("amp", CommandResult((), 1, ok("amp"), "", 1.0))
    assert result.status is SmokeStatus.ERROR


def test_select_cases() -> None:
    assert "ddp" not in select_cases(1)
    assert "ddp" in select_cases(2)
    assert select_cases(2, only=("amp",)) == ("amp",)
    assert "perf" not in select_cases(3, skip=("perf",))
    with pytest.raises(ValueError, match="unknown smoke case"):
        select_cases(2, only=("warp-drive",))


def test_outputs() -> None:
    runner = Scripted({"amp": CommandResult((), -11, "", "", 1.0),
                       "perf": json.dumps({"case": "perf", "status": "skipped", "detail": "needs a GPU"})})
    run = run_suite(runner, options(("amp", "gradcheck", "perf")))
    text = smoke_text(run, None)
    assert text.startswith("envguard smoke: FAIL — 1 passed, 1 failed, 1 skipped")
    doc = json.loads(smoke_json(run, None, 4))
    assert doc["command"] == "smoke" and doc["exit_code"] == 4 and len(doc["results"]) == 3
    suite = ET.fromstring(smoke_junit(run).split("?>", 1)[1]).find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("errors"), suite.get("skipped")) == ("3", "1", "1")
    assert "| amp | error |" in smoke_markdown(run, None)


def test_percent_of_peak_and_pcie() -> None:
    import dataclasses

    from envguard.knowledge import load_matrices
    from envguard.smoke.base import SmokeResult, SmokeRun
    from envguard.smoke.peaks import annotate
    from tests.fakes import H100_590, make_snapshot

    gpu = dataclasses.replace(H100_590, source="NVML", pcie_link_width=8)
    snap = make_snapshot(driver="590.48.01", cuda_driver="13.1", gpus=[gpu])
    run = SmokeRun(2, "py", (
        SmokeResult("perf", SmokeStatus.PASSED, 5.0, "matmul", {"tflops_bf16": 741.75, "d2d_GBps": 2680.0}),
        SmokeResult("dataloader", SmokeStatus.PASSED, 2.0, "", {"h2d_GBps_pinned": 25.2}),
        SmokeResult("amp", SmokeStatus.PASSED, 1.0),
    ), 8.0)
    out = annotate(run, snap, load_matrices())
    perf, loader, amp = out.results
    assert round(perf.metrics["pct_of_peak_tflops_bf16"]) == 75  # 741.75 of 989 dense BF16
    assert round(perf.metrics["pct_of_peak_d2d_GBps"]) == 80  # 2680 of 3350 GB/s
    assert round(loader.metrics["pct_of_pcie_h2d_pinned"]) == 40  # 25.2 of 63.0 GB/s (gen 5 x16)
    assert "x8 of x16 (degraded)" in loader.detail
    assert amp == run.results[2]


def test_throttling_seen_during_perf_is_reported() -> None:
    from envguard.knowledge import load_matrices
    from envguard.smoke.base import SmokeResult, SmokeRun
    from envguard.smoke.peaks import annotate
    from tests.fakes import H100_590, make_snapshot

    snap = make_snapshot(driver="590.48.01", cuda_driver="13.1", gpus=[H100_590])
    run = SmokeRun(1, "py", (SmokeResult("perf", SmokeStatus.PASSED, 5.0, "matmul", {"tflops_bf16": 500.0}),), 5.0)
    (perf,) = annotate(run, snap, load_matrices(), {"perf": ("hardware thermal slowdown",)}).results
    assert "GPU clocks slowed down during the run: hardware thermal slowdown" in perf.detail
    assert perf.metrics["throttled"] == 1.0
