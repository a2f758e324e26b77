"""The smoke runner and its outputs with a fake runner: crashes, hangs and garbage are results, not aborts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from envguard._subprocess import CommandResult
from envguard.formatters.smoke import smoke_json, smoke_junit, smoke_markdown, smoke_text
from envguard.smoke import DistOptions, SuiteOptions, decode_case, run_suite, select_cases
from envguard.smoke.base import SmokeResult, SmokeRun, SmokeStatus
from envguard.snapshot import GpuInfo


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
        SmokeResult("perf", SmokeStatus.PASSED, 5.0, "matmul", {"tflops_bf16": 741.75, "d2d_GBps": 2680.0,
                                                                "matmul_n": 8192.0}),
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


def _peaks_run(*results: SmokeResult) -> SmokeRun:
    return SmokeRun(2, "py", tuple(results), 5.0)


def _perf(metrics: dict[str, float], info: dict[str, str] | None = None) -> SmokeResult:
    return SmokeResult("perf", SmokeStatus.PASSED, 5.0, "matmul", metrics, info=info or {})


def _two_gpus() -> tuple[GpuInfo, GpuInfo]:
    import dataclasses

    from envguard.probes import parsers
    from tests.fakes import H100_590, capture

    h100 = dataclasses.replace(H100_590, source="NVML")
    table = parsers.parse_nvidia_smi_table(capture("nvidia-smi/h200-141gb-driver-590.48.01-cuda-13.1.txt"))
    assert table is not None
    h200 = dataclasses.replace(table.gpus[0], index=1, uuid="GPU-22222222-2222-2222-2222-222222222222")
    return h100, h200


def test_no_percentage_of_peak_below_8192() -> None:
    from envguard.knowledge import load_matrices
    from envguard.smoke.peaks import annotate
    from tests.fakes import H100_590, make_snapshot

    snap = make_snapshot(driver="590.48.01", cuda_driver="13.1", gpus=[H100_590])
    (perf,) = annotate(_peaks_run(_perf({"tflops_bf16": 400.0, "matmul_n": 2048.0, "d2d_GBps": 2680.0})),
                       snap, load_matrices()).results
    assert not any(k.startswith("pct_of_peak_tflops") for k in perf.metrics)
    assert round(perf.metrics["pct_of_peak_d2d_GBps"]) == 80  # a bandwidth does not depend on the matmul size
    assert "matmul 2048² is below 8192²: no percentage of peak" in perf.detail


def test_the_peak_is_that_of_the_gpu_that_ran() -> None:
    from envguard.knowledge import load_matrices
    from envguard.smoke.peaks import annotate
    from tests.fakes import make_snapshot

    h100, h200 = _two_gpus()
    assert h200.name == "NVIDIA H200"
    snap = make_snapshot(driver="590.48.01", cuda_driver="13.1", gpus=[h100, h200])
    metrics = {"tflops_bf16": 700.0, "matmul_n": 8192.0, "d2d_GBps": 4000.0}
    by_uuid = _perf(metrics, {"gpu_name": "NVIDIA H200", "gpu_uuid": "22222222-2222-2222-2222-222222222222"})
    (perf,) = annotate(_peaks_run(by_uuid), snap, load_matrices()).results
    assert round(perf.metrics["pct_of_peak_d2d_GBps"]) == round(100 * 4000 / 4800)  # H200's 4.8 TB/s, not H100's
    # no name or UUID reported: CUDA_VISIBLE_DEVICES says which GPU the payload saw first
    (perf,) = annotate(_peaks_run(_perf(metrics)), snap, load_matrices(),
                       env={"CUDA_VISIBLE_DEVICES": "1"}).results
    assert round(perf.metrics["pct_of_peak_d2d_GBps"]) == round(100 * 4000 / 4800)
    (perf,) = annotate(_peaks_run(_perf(metrics)), snap, load_matrices()).results
    assert round(perf.metrics["pct_of_peak_d2d_GBps"]) == round(100 * 4000 / 3350)


def test_a_mig_slice_gets_no_percentage_of_the_whole_gpu() -> None:
    import dataclasses

    from envguard.knowledge import load_matrices
    from envguard.smoke.peaks import annotate
    from tests.fakes import H100_590, make_snapshot

    mig = dataclasses.replace(H100_590, mig_mode="Enabled")
    snap = make_snapshot(driver="590.48.01", cuda_driver="13.1", gpus=[mig])
    (perf,) = annotate(_peaks_run(_perf({"tflops_bf16": 100.0, "matmul_n": 8192.0})), snap, load_matrices()).results
    assert "pct_of_peak_tflops_bf16" not in perf.metrics
    assert "MIG instance: no percentage of the whole GPU's peak" in perf.detail


def test_throttling_seen_during_perf_is_reported() -> None:
    from envguard.knowledge import load_matrices
    from envguard.probes.nvml import ClockEvents
    from envguard.smoke.base import SmokeResult, SmokeRun
    from envguard.smoke.peaks import annotate
    from tests.fakes import H100_590, make_snapshot

    snap = make_snapshot(driver="590.48.01", cuda_driver="13.1", gpus=[H100_590])
    run = SmokeRun(1, "py", (SmokeResult("perf", SmokeStatus.PASSED, 5.0, "matmul", {"tflops_bf16": 500.0}),), 5.0)
    (perf,) = annotate(run, snap, load_matrices(), {"perf": ClockEvents(0x40 | 0x4, "NVML")}).results
    assert "GPU clocks slowed down during the run: hardware thermal slowdown" in perf.detail
    assert "software power cap active (normal under a dense GEMM; information, not a slowdown)" in perf.detail
    assert perf.metrics["throttled"] == 1.0 and perf.metrics["sw_power_cap"] == 1.0
    (perf,) = annotate(run, snap, load_matrices(), {"perf": ClockEvents(0x4 | 0x1, "NVML")}).results
    assert "throttled" not in perf.metrics and "slowed down" not in perf.detail
    (perf,) = annotate(run, snap, load_matrices(), {"perf": ClockEvents(None, "the driver answers neither")}).results
    assert "clock-event reasons unknown (the driver answers neither)" in perf.detail
    assert "throttled" not in perf.metrics


def test_gpu_defaults_device_and_ranks() -> None:
    from envguard.smoke import default_nproc, payload_device, visible_gpus

    assert visible_gpus(1, {}) == 1
    assert visible_gpus(8, {"CUDA_VISIBLE_DEVICES": "0,3"}) == 2
    assert visible_gpus(8, {"CUDA_VISIBLE_DEVICES": ""}) == 0
    assert visible_gpus(2, {"CUDA_VISIBLE_DEVICES": "1,5,0"}) == 1  # the runtime stops at the invalid entry
    assert visible_gpus(1, {"CUDA_VISIBLE_DEVICES": "-1"}) == 0
    assert visible_gpus(2, {"CUDA_VISIBLE_DEVICES": "GPU-8c2b,GPU-1a"}) == 2
    assert payload_device("auto", 1) == "cuda"  # a GPU box whose torch sees no GPU must fail, not skip
    assert payload_device("auto", 0) == "auto" and payload_device("cpu", 4) == "cpu"
    assert default_nproc(1, "auto") == 1  # one rank per GPU over NCCL, world 1 on a one-GPU machine
    assert default_nproc(8, "cuda") == 8
    assert default_nproc(0, "auto") == 2 and default_nproc(4, "cpu") == 2


def test_every_case_skipped_or_none_selected_is_nothing_tested() -> None:
    skipped = json.dumps({"case": "perf", "status": "skipped", "detail": "perf needs a CUDA GPU"})
    run = run_suite(Scripted({"perf": skipped}), options(("perf",)))
    assert run.nothing_tested and run.failed
    assert smoke_text(run, None).startswith("envguard smoke: FAIL — nothing was tested (every case was skipped)")
    assert json.loads(smoke_json(run, None, 4))["nothing_tested"] is True
    empty = run_suite(Scripted({}), options(()))
    assert empty.results == () and empty.failed
    assert "nothing was tested (no case was selected)" in smoke_text(empty, None)
    one = run_suite(Scripted({"perf": skipped}), options(("perf", "amp")))
    assert not one.nothing_tested and not one.failed


def test_a_failed_case_keeps_its_full_output() -> None:
    trace = ("Traceback (most recent call last):\n  File \"x.py\", line 1\n"
             "RuntimeError: CUDA error: an illegal memory access")
    runner = Scripted({"amp": CommandResult((), 1, "", trace + "\nlast line", 2.0)})
    run = run_suite(runner, options(("amp", "gradcheck")))
    amp, grad = run.results
    assert amp.status is SmokeStatus.ERROR and amp.log is not None and grad.log is None
    with open(amp.log, encoding="utf-8") as fh:
        text = fh.read()
    assert trace in text and "# envguard smoke amp: error, exit 1" in text
    doc = json.loads(smoke_json(run, None, 4))
    assert doc["results"][0]["log"] == amp.log and doc["results"][1]["log"] is None
    assert f"full output: {amp.log}" in smoke_text(run, None, width=400)

    shutil.rmtree(Path(amp.log).parent)


def test_a_log_folder_keeps_every_case(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    runner = Scripted({"amp": CommandResult((), 0, ok("amp"), "UserWarning: something", 2.0)})
    run = run_suite(runner, SuiteOptions("/venv/bin/python", 2, ("amp",), env={"ENVGUARD_SMOKE_LOG_DIR": str(folder)}))
    (amp,) = run.results
    assert amp.status is SmokeStatus.PASSED and amp.log == str(folder / "amp.log")
    assert "UserWarning: something" in (folder / "amp.log").read_text(encoding="utf-8")
    assert sorted(p.name for p in folder.iterdir()) == ["amp.log"], "no temp file left"


def test_the_payload_reports_gpu_facts_in_info() -> None:
    doc = json.loads(ok("perf").splitlines()[-1])
    doc["info"] = {"gpu_name": "NVIDIA H200", "gpu_uuid": "abc", "nccl": "2.27.3", "null": None}
    result = decode_case("perf", CommandResult((), 0, json.dumps(doc), "", 1.0))
    assert result.info == {"gpu_name": "NVIDIA H200", "gpu_uuid": "abc", "nccl": "2.27.3"}
    assert json.loads(smoke_json(SmokeRun(1, "py", (result,), 1.0), None, 0))["results"][0]["info"]["nccl"] == "2.27.3"
