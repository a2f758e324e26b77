"""Real GPU tests (`pytest --run-gpu -m gpu` on a GPU host; scripts/gpu-validate runs them): the smoke cases on
CUDA and the NVML probe against nvidia-smi. Skipped without --run-gpu, and skipped (with the reason) where the
interpreter under test has no CUDA torch that sees a GPU.

The interpreter under test is $ENVGUARD_GPU_PYTHON (gpu-validate sets it to its $PYTHON), else this checkout's
.venv, else the one running pytest.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envguard.commands import _probe
from envguard.commands import smoke as app
from envguard.smoke import DistOptions
from envguard.smoke.base import SmokeRun, SmokeStatus

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parent.parent
PAYLOAD = ROOT / "envguard" / "smoke" / "_payload.py"
TIMEOUT = 300


def _python() -> str:
    chosen = os.environ.get("ENVGUARD_GPU_PYTHON")
    if chosen:
        return chosen
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


@functools.cache
def _why_no_cuda(python: str) -> str | None:
    probe = subprocess.run(
        (python, "-c", "import torch, sys; sys.exit(0 if torch.version.cuda and torch.cuda.is_available() else 3)"),
        capture_output=True, text=True, timeout=120, check=False)
    if probe.returncode == 0:
        return None
    return f"{python} has no CUDA torch that sees a GPU: {probe.stderr.strip()[-300:] or 'no GPU'}"


def _cuda_python() -> str:
    """The interpreter under test, once it is known to have a CUDA torch that sees a GPU (else skip)."""
    python = _python()
    why = _why_no_cuda(python)
    if why is not None:
        pytest.skip(why)
    return python


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVGUARD_SMOKE_")}
    for key in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(key, None)
    env.update(extra)
    return env


def _doc(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert lines, f"no output (exit {result.returncode}); stderr:\n{result.stderr[-3000:]}"
    doc: dict[str, Any] = json.loads(lines[-1])
    return doc


def _case(case: str, *args: str) -> dict[str, Any]:
    result = subprocess.run((_cuda_python(), str(PAYLOAD), case, "--device", "cuda", *args), capture_output=True,
                            text=True, timeout=TIMEOUT, env=_env(), cwd=str(ROOT), check=False)
    return _doc(result)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@functools.cache
def _suite() -> SmokeRun:
    """perf and dataloader through envguard itself: the real snapshot (NVML), peaks matched to the GPU that ran."""
    run, _fingerprint = app.smoke(_probe.ProbeOptions(_cuda_python()), level=2, cases=("dataloader", "perf"),
                                  timeout_s=TIMEOUT, device="cuda", dist=DistOptions())
    return run


def _result(case: str) -> Any:
    found = next(r for r in _suite().results if r.case == case)
    assert found.status is SmokeStatus.PASSED, (found.detail, found.log)
    return found


def test_fp16_autocast_with_gradscaler_takes_its_steps() -> None:
    doc = _case("amp", "--level", "2")
    assert doc["status"] == "passed", doc
    m = doc["metrics"]
    assert m["steps"] == 50
    assert m["grad_scale_fp16"] > 1.0, "the scale did not collapse"
    assert m["overflow_steps_fp16"] < m["steps"] / 2, "most steps were applied, not skipped"
    assert m["final_loss_fp16"] < m["first_loss_fp16"]
    assert m["first_loss_rel_diff_fp16"] <= 0.01 and m["final_loss_rel_diff_fp16"] <= 0.1
    assert doc["device"].startswith("cuda:") and doc["info"]["gpu_name"]


def test_nccl_world_1_all_reduce_is_exact_and_reports_algbw() -> None:
    argv = (_cuda_python(), "-m", "torch.distributed.run", "--nproc-per-node=1", "--nnodes=1", "--rdzv-backend=c10d",
            f"--rdzv-endpoint=127.0.0.1:{_free_port()}", str(PAYLOAD), "ddp", "--level", "2", "--device", "cuda")
    result = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, env=_env(), cwd=str(ROOT),
                            check=False)
    doc = _doc(result)
    assert doc["status"] == "passed", (doc, result.stderr[-3000:])
    assert doc["info"]["backend"] == "nccl"
    assert doc["info"]["nccl"].count(".") == 2, doc["info"]
    m = doc["metrics"]
    assert m["world_size"] == 1.0
    assert m["algbw_GBps_max"] > 0
    assert not any(k.startswith("busbw_") for k in m), "no bus bandwidth at world size 1 (it is 0 by definition)"
    assert "busbw n/a at world size 1" in doc["detail"]


def test_bf16_matmul_reaches_70_percent_of_the_dense_peak_at_8192() -> None:
    perf = _result("perf")
    assert perf.metrics["matmul_n"] >= 8192
    if "pct_of_peak_tflops_bf16" not in perf.metrics:
        pytest.skip(f"no bf16 peak for {perf.info.get('gpu_name')} in gpu-peaks.toml: {perf.detail}")
    assert perf.metrics["pct_of_peak_tflops_bf16"] >= 70.0, perf.detail


def test_pinned_host_to_device_copy_reaches_60_percent_of_the_link() -> None:
    loader = _result("dataloader")
    if "pct_of_pcie_h2d_pinned" not in loader.metrics:
        pytest.skip(f"NVML reported no PCIe link for this GPU: {loader.detail}")
    assert loader.metrics["pct_of_pcie_h2d_pinned"] >= 60.0, loader.detail


def test_deterministic_mode_is_bitwise_identical_with_conv_across_processes() -> None:
    first = _case("determinism", "--level", "2")
    again = _case("determinism", "--level", "2")
    assert first["status"] == "passed", first
    assert "(MLP and Conv2d, cuDNN)" in first["detail"]
    assert again["status"] == "passed", again
    assert first["digests"] == again["digests"]
    assert set(first["digests"]) == {"weights[float32,cuda]", "losses[float32,cuda]"}


def test_nvml_facts_equal_nvidia_smis() -> None:
    from envguard.probes import parsers
    from envguard.probes.nvml import NvmlReport, query_nvml

    smi = shutil.which("nvidia-smi")
    if smi is None:
        pytest.skip("nvidia-smi is not on PATH")
    fields = ("index", "name", "uuid", "memory.total", "pci.bus_id", "compute_cap", "driver_version",
              "pcie.link.gen.max", "pcie.link.width.max", "persistence_mode", "mig.mode.current")
    csv = subprocess.run((smi, f"--query-gpu={','.join(fields)}", "--format=csv,nounits"), capture_output=True,
                         text=True, timeout=60, check=True).stdout
    report = query_nvml(10.0)
    assert isinstance(report, NvmlReport), report
    assert report.driver_version == parsers.driver_from_query_csv(csv)
    by_smi = {g.index: g for g in parsers.gpus_from_query_csv(csv)}
    assert [g.index for g in report.gpus] == sorted(by_smi)
    for gpu in report.gpus:
        other = by_smi[gpu.index]
        assert (gpu.name, gpu.uuid, gpu.memory_total_mib, gpu.compute_capability) == (
            other.name, other.uuid, other.memory_total_mib, other.compute_capability)
        assert (gpu.pci_bus_id or "").lower() == (other.pci_bus_id or "").lower()
        assert (gpu.pcie_link_gen_max, gpu.pcie_link_width_max) == (other.pcie_link_gen_max, other.pcie_link_width_max)
        assert (gpu.persistence_mode, gpu.mig_mode) == (other.persistence_mode, other.mig_mode)
