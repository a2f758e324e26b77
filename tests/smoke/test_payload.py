"""The smoke payload run for real in an interpreter with torch: statuses, metrics, digests, fault injection."""

from __future__ import annotations

import ast
import functools
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD = ROOT / "envguard" / "smoke" / "_payload.py"
TORCH_PYTHON = ROOT / ".venv" / "bin" / "python"
KEYS = {"case", "status", "detail", "metrics", "digests", "device", "torch", "framework", "info", "duration_s"}
STATUSES = {"passed", "failed", "skipped", "error"}
#: what a case may take at level 1 on a 2-core CPU, torch import included, with room for a loaded machine
CASE_TIMEOUT = 120


@functools.cache
def _torch_python() -> str:
    if not TORCH_PYTHON.exists():
        pytest.skip(f"{TORCH_PYTHON} does not exist")
    probe = subprocess.run(
        (str(TORCH_PYTHON), "-c", "import torch"), capture_output=True, text=True, timeout=CASE_TIMEOUT, check=False
    )
    if probe.returncode != 0:
        pytest.skip(f"{TORCH_PYTHON} cannot import torch")
    return str(TORCH_PYTHON)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVGUARD_SMOKE_")}
    for key in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(key, None)
    env.update(extra)
    return env


def _run(
    *args: str, python: str | None = None, env: dict[str, str] | None = None, timeout: float = CASE_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    argv = (python or _torch_python(), str(PAYLOAD), *args)
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, env=env or _env(), cwd=str(ROOT), check=False
    )


def _doc(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The JSON object on the last non-empty line of stdout, checked against the contract."""
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert lines, f"no output (exit {result.returncode}); stderr:\n{result.stderr[-3000:]}"
    doc = json.loads(lines[-1])
    assert isinstance(doc, dict)
    assert set(doc) == KEYS, doc
    assert doc["status"] in STATUSES, doc
    assert isinstance(doc["detail"], str)
    assert "\n" not in doc["detail"]
    assert isinstance(doc["duration_s"], float)
    assert all(isinstance(k, str) and (v is None or isinstance(v, float)) for k, v in doc["metrics"].items()), doc
    for name, digest in doc["digests"].items():
        assert name.endswith("]") and "[" in name, name
        assert len(digest) == 64 and int(digest, 16) >= 0, (name, digest)
    assert sum(1 for line in lines if line.lstrip().startswith("{")) == 1, result.stdout
    return doc


@functools.cache
def _level1(case: str) -> dict[str, Any]:
    result = _run(case, "--level", "1", "--device", "cpu")
    assert result.returncode == 0, result.stderr[-3000:]
    return _doc(result)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _launch_ddp(*args: str, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    argv = (
        _torch_python(), "-m", "torch.distributed.run", "--nproc-per-node=2", "--nnodes=1",
        "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{_free_port()}", str(PAYLOAD), "ddp", *args,
    )
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=str(ROOT), check=False)


# ---------------------------------------------------------------------------------------------- the file itself


def test_payload_is_py38_and_standalone() -> None:
    """It runs inside other interpreters: 3.8 syntax, stdlib + torch (+ its frameworks), nothing from envguard."""
    tree = ast.parse(PAYLOAD.read_text(), feature_version=(3, 8))
    allowed_lazy = {"torch", "tensorflow", "jax", "onnx", "onnxruntime"}
    top_level = {id(node) for node in tree.body}
    future_annotations = any(
        isinstance(n, ast.ImportFrom) and n.module == "__future__" and any(a.name == "annotations" for a in n.names)
        for n in tree.body
    )
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            roots = [(node.module or "").split(".")[0]]
        else:
            roots = []
        for root in roots:
            assert root != "envguard", ast.dump(node)
            assert root != "subprocess", "the payload spawns nothing"
            if id(node) in top_level:
                assert root in sys.stdlib_module_names, f"module-level import of {root}"
            else:
                assert root in sys.stdlib_module_names or root in allowed_lazy, f"import of {root}"
        if not future_annotations:
            annotations: list[ast.expr | None] = []
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                annotations.append(node.returns)
                args = node.args
                annotations += [a.annotation for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
            if isinstance(node, ast.AnnAssign):
                annotations.append(node.annotation)
            for ann in annotations:
                for sub in ast.walk(ann) if ann is not None else ():
                    assert not (isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.BitOr)), "X | Y fails on 3.8"
                    assert not (
                        isinstance(sub, ast.Subscript)
                        and isinstance(sub.value, ast.Name)
                        and sub.value.id in {"list", "dict", "tuple", "set", "type", "frozenset"}
                    ), "builtin generics fail on 3.8"


# ---------------------------------------------------------------------------------------------- the cases at level 1


def test_amp_passes_with_sane_metrics() -> None:
    doc = _level1("amp")
    assert doc["status"] == "passed", doc
    assert doc["device"] == "cpu"
    assert doc["torch"] and doc["torch"][0].isdigit()
    assert doc["framework"] == f"torch {doc['torch']}"
    m = doc["metrics"]
    for mode in ("fp32", "fp16", "bf16"):  # fp16 on the CPU: torch >= 2.3 has torch.amp.GradScaler("cpu")
        assert m[f"step_ms_{mode}"] > 0
        assert m[f"final_loss_{mode}"] < m[f"first_loss_{mode}"]
    for mode, tol in (("fp16", 0.01), ("bf16", 0.03)):
        assert m[f"speedup_{mode}"] > 0
        assert 0 <= m[f"first_loss_rel_diff_{mode}"] <= tol
    assert m["grad_scale_fp16"] > 1 and m["overflow_steps_fp16"] == 0
    assert "fp16 + GradScaler" in doc["detail"] and "autocast dtypes checked" in doc["detail"]
    assert set(doc["digests"]) == {"weights[float32,cpu]", "losses[float32,cpu]"}
    assert 0 < doc["duration_s"] < CASE_TIMEOUT


def test_amp_fails_when_autocast_does_not_cast() -> None:
    doc = _doc(_run("amp", "--level", "1", "--device", "cpu", env=_env(ENVGUARD_SMOKE_INJECT="nocast:amp")))
    assert doc["status"] == "failed", doc
    assert "fp16: autocast produced float32 outputs, not float16" in doc["detail"]
    assert "bf16: autocast produced float32 outputs, not bfloat16" in doc["detail"]


def test_dataloader_passes_and_hints_only_with_a_margin() -> None:
    doc = _level1("dataloader")
    assert doc["status"] == "passed", doc
    m = doc["metrics"]
    cpus = len(os.sched_getaffinity(0))
    assert m["usable_cpus"] == cpus
    assert m["samples_per_s_workers_0"] > 0
    assert m["samples_per_s_workers_1"] > 0
    assert ("samples_per_s_workers_2" in m) == (cpus >= 2), "level 1: 0, 1 and 2 workers (no more than the CPUs)"
    assert "samples_per_s_workers_4" not in m
    assert m["item_ms"] > 0.2, "realistic per-item work, not ~0.1 ms"
    assert 0 <= m["dev_shm_free_GiB"] <= m["dev_shm_GiB"]
    assert "synthetic hint:" in doc["detail"]
    rates = {w: m[f"samples_per_s_workers_{w}"] for w in (0, 1, 2) if f"samples_per_s_workers_{w}" in m}
    if "recommended_num_workers" in m:
        pick = int(m["recommended_num_workers"])
        assert rates[pick] >= 1.2 * rates[0]
        assert f"synthetic hint: num_workers={pick} (" in doc["detail"]
    else:
        assert max(rates.values()) < 1.2 * rates[0]
        assert "no worker count beat num_workers=0 by 20% here" in doc["detail"]
    assert set(doc["digests"]) == {"batches[float32+int64,cpu]"}


def test_determinism_passes_and_deterministic_mode_matches_on_cpu() -> None:
    doc = _level1("determinism")
    assert doc["status"] == "passed", doc
    assert set(doc["digests"]) == {"weights[float32,cpu]", "losses[float32,cpu]"}
    assert doc["metrics"]["default_runs_identical"] == 1.0
    assert doc["metrics"]["deterministic_matches_default"] == 1.0
    assert "(MLP and Conv2d)" in doc["detail"]


def test_determinism_digests_are_identical_across_processes() -> None:
    first = _level1("determinism")
    again = _run("determinism", "--level", "1", "--device", "cpu")
    assert _doc(again)["digests"] == first["digests"]


def test_gradcheck_passes_on_every_op() -> None:
    doc = _level1("gradcheck")
    assert doc["status"] == "passed", doc
    assert doc["metrics"]["ops_checked"] == 5.0
    for op in ("matmul", "conv2d", "softmax", "log_softmax", "layer_norm"):
        assert op in doc["detail"]
        assert doc["metrics"][f"ms_{op}"] >= 0


def test_perf_is_skipped_on_cpu() -> None:
    doc = _level1("perf")
    assert doc["status"] == "skipped"
    assert doc["detail"] == "perf needs a CUDA GPU"


@pytest.mark.parametrize("case", ["tensorflow", "jax"])
def test_optional_frameworks_skip_when_absent(case: str) -> None:
    doc = _level1(case)
    assert doc["status"] in ("skipped", "passed"), doc
    assert doc["torch"] is None, "the tensorflow and jax cases never import torch"
    if doc["status"] == "skipped":
        assert doc["detail"] == f"{case} is not installed"
        assert doc["framework"] is None
    else:
        assert doc["framework"].startswith(f"{case} ")


def test_export_passes_at_level_2_and_matches_eager() -> None:
    result = _run("export", "--level", "2", "--device", "cpu")
    assert result.returncode == 0, result.stderr[-3000:]
    doc = _doc(result)
    assert doc["status"] == "passed", doc
    assert doc["device"] == "cpu"
    assert doc["framework"] == f"torch {doc['torch']}"
    m = doc["metrics"]
    assert m["export_s"] > 0
    assert m["max_abs_diff_export"] <= 1e-5
    assert set(doc["digests"]) == {"output[float32,cpu]"}
    assert doc["detail"].startswith("torch.export on cpu matches eager")
    # onnx and onnxruntime are in the test extras: the parity path must run here, not be skipped
    assert m["max_abs_diff_onnx"] <= 1e-4, doc
    assert "ONNX under onnxruntime " in doc["detail"]


def test_bad_arguments_give_an_error_document() -> None:
    result = _run("no-such-case", "--level", "1")
    doc = _doc(result)
    assert doc["status"] == "error"
    assert doc["detail"].startswith("bad arguments:")


# ---------------------------------------------------------------------------------------------- ddp


def test_ddp_passes_under_the_launcher_with_gloo() -> None:
    result = _launch_ddp("--level", "1", "--device", "cpu", env=_env(), timeout=CASE_TIMEOUT)
    assert result.returncode == 0, result.stderr[-3000:]
    doc = _doc(result)
    assert doc["status"] == "passed", doc
    assert doc["detail"].startswith("gloo, world 2")
    m = doc["metrics"]
    assert m["world_size"] == 2.0
    assert m["busbw_GBps_max"] > 0
    assert m["busbw_GBps_1KiB"] > 0 and m["busbw_GBps_1MiB"] > 0
    assert m["algbw_GBps_1MiB"] > 0 and m["busbw_GBps_1MiB"] == m["algbw_GBps_1MiB"]  # 2(n-1)/n = 1 at n = 2
    assert doc["info"] == {"backend": "gloo"}
    assert set(doc["digests"]) == {"weights[float32,cpu]"}


@pytest.mark.parametrize(("inject", "message"), [
    ("paramdiff:ddp", "parameters differ across ranks after 1 steps (max spread "),
    ("badreduce:ddp", "all_reduce(SUM) of known float64 integers is wrong in 1 of 4096 elements"),
])
def test_ddp_checks_fire(inject: str, message: str) -> None:
    env = _env(ENVGUARD_SMOKE_INJECT=inject)
    result = _launch_ddp("--level", "1", "--device", "cpu", env=env, timeout=CASE_TIMEOUT)
    assert result.returncode != 0, "a rank whose case did not pass exits 1"
    doc = _doc(result)
    assert doc["status"] == "failed", doc
    assert message in doc["detail"]


def test_ddp_without_the_launcher_is_an_error() -> None:
    doc = _doc(_run("ddp", "--level", "1"))
    assert doc["status"] == "error"
    assert doc["detail"] == "ddp must run under torch.distributed.run"


# ---------------------------------------------------------------------------------------------- fault injection


def test_segfault_injection_kills_the_process_without_json() -> None:
    result = _run("amp", "--level", "1", env=_env(ENVGUARD_SMOKE_INJECT="segfault:amp"))
    assert result.returncode < 0
    assert not any(line.lstrip().startswith("{") for line in result.stdout.splitlines())


def test_hang_injection_hangs() -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        _run("gradcheck", "--level", "1", env=_env(ENVGUARD_SMOKE_INJECT="hang:gradcheck"), timeout=5)


def test_injection_names_its_case() -> None:
    doc = _doc(_run("perf", "--level", "1", env=_env(ENVGUARD_SMOKE_INJECT="segfault:amp,hang:gradcheck")))
    assert doc["status"] == "skipped"


def test_dataloader_worker_crash_fails_the_case() -> None:
    result = _run("dataloader", "--level", "1", env=_env(ENVGUARD_SMOKE_INJECT="workercrash:dataloader"))
    doc = _doc(result)
    assert doc["status"] == "failed", doc
    assert "num_workers=1" in doc["detail"]


def test_nondeterministic_op_fails_determinism_naming_it() -> None:
    env = _env(ENVGUARD_SMOKE_INJECT="nondeterministic:determinism")
    doc = _doc(_run("determinism", "--level", "1", "--device", "cpu", env=env))
    assert doc["status"] == "failed", doc
    assert "put_ has no deterministic implementation" in doc["detail"]


def test_wrong_backward_fails_gradcheck_naming_the_op() -> None:
    env = _env(ENVGUARD_SMOKE_INJECT="badgrad:gradcheck")
    doc = _doc(_run("gradcheck", "--level", "1", "--device", "cpu", env=env))
    assert doc["status"] == "failed", doc
    assert doc["detail"].startswith("gradcheck failed for injected_wrong_backward (")


def test_export_mismatch_fails_naming_the_difference() -> None:
    env = _env(ENVGUARD_SMOKE_INJECT="mismatch:export")
    doc = _doc(_run("export", "--level", "1", "--device", "cpu", env=env))
    assert doc["status"] == "failed", doc
    assert doc["detail"].startswith("torch.export: the exported program differs from eager (max abs difference ")
    assert doc["metrics"]["max_abs_diff_export"] >= 1e-3 * 0.99


def test_ddp_rank_exit_ends_the_run_within_the_timeout() -> None:
    env = _env(ENVGUARD_SMOKE_INJECT="exit:ddp", ENVGUARD_SMOKE_DIST_TIMEOUT="20")
    start = time.monotonic()
    result = _launch_ddp("--level", "2", "--device", "cpu", env=env, timeout=110)
    elapsed = time.monotonic() - start
    assert result.returncode != 0
    assert elapsed < 20 + 40, elapsed
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    if lines:  # rank 0 may have reported before the launcher stopped it
        assert _doc(result)["status"] == "failed"


# ---------------------------------------------------------------------------------------------- no torch


def test_an_interpreter_without_torch_gives_skipped(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run((sys.executable, "-m", "venv", "--without-pip", str(venv)), check=True, timeout=CASE_TIMEOUT)
    python = str(venv / "bin" / "python")
    doc = _doc(_run("amp", "--level", "1", python=python, env=_env()))
    assert doc["status"] == "skipped"
    assert doc["detail"].startswith("torch is not installed in ")
    assert str(venv) in doc["detail"]
    assert doc["torch"] is None
    assert doc["framework"] is None
