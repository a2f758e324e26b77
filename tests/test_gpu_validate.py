"""scripts/gpu-validate on a machine without a GPU: it fails clearly (exit 3, the reason in one line and in
summary.json), after collecting the evidence it can, in the promised layout (one tarball, at most 8 JSON files).

The nvidia-smi used here is a fake at the hardware boundary: a script that prints the real capture
tests/data/captures/nvidia-smi-q/h100-80gb-hbm3-driver-590.48.01-cuda-13.1.txt for `-q` (and the same
machine's --query-gpu capture for --query-gpu, the H100 MIG table capture for the plain table).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.fakes import CAPTURES

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "gpu-validate"
TORCH_PYTHON = ROOT / ".venv" / "bin" / "python"
Q = CAPTURES / "nvidia-smi-q" / "h100-80gb-hbm3-driver-590.48.01-cuda-13.1.txt"
CSV = CAPTURES / "nvidia-smi-query-gpu" / "h100-80gb-hbm3-driver-590.48.01-all-fields.csv"
TABLE = CAPTURES / "nvidia-smi" / "h100-80gb-hbm3-mig-enabled-driver-590.48.01-cuda-13.1.txt"
KEY_FILES = {"summary.json", "torch-build.json", "check.json", "smoke.json", "perf.json", "fingerprint.json",
             "gpu-tests.json"}

needs_torch = pytest.mark.skipif(not TORCH_PYTHON.exists(), reason="the project .venv with torch is not there")


def _path_without_nvidia_smi(tmp_path: Path) -> str:
    """PATH with the system folders only (this machine has no nvidia-smi; a GPU host running the tests would)."""
    keep = [p for p in os.environ.get("PATH", "").split(os.pathsep)
            if p and not (Path(p) / "nvidia-smi").exists()]
    return os.pathsep.join(keep)


def _fake_nvidia_smi(tmp_path: Path) -> Path:
    folder = tmp_path / "fakebin"
    folder.mkdir()
    script = folder / "nvidia-smi"
    script.write_text(
        "#!/bin/sh\n"
        f'case "$1" in\n  -q) cat {shlex.quote(str(Q))} ;;\n  --query-gpu=*) cat {shlex.quote(str(CSV))} ;;\n'
        '  topo) echo "GPU0 X" ;;\n'
        f"  *) cat {shlex.quote(str(TABLE))} ;;\nesac\n")
    script.chmod(0o755)
    return folder


def _run(out: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(("bash", str(SCRIPT), *args, str(out)), capture_output=True, text=True, env=env,
                          timeout=300, check=False, cwd=str(ROOT))


def _env(path: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OUT", "PYTHON", "ENVGUARD_PYTHON")}
    env["PATH"] = path
    env.update(extra)
    return env


def _members(out: Path) -> set[str]:
    with tarfile.open(out / "gpu-validate-evidence.tar.gz") as tar:
        return {m.name for m in tar.getmembers()}


def test_the_script_parses_and_needs_no_network_or_docker() -> None:
    subprocess.run(("bash", "-n", str(SCRIPT)), check=True, timeout=30)
    text = SCRIPT.read_text(encoding="utf-8")
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    for word in ("pip install", "venv", "docker", "curl", "wget", "--index-url"):
        assert word not in code, word


def test_without_python_it_is_a_usage_error(tmp_path: Path) -> None:
    result = _run(tmp_path / "out", _env(os.environ["PATH"]))
    assert result.returncode == 2
    assert result.stderr.strip() == ("gpu-validate: set PYTHON to the interpreter with a CUDA torch "
                                     f"(PYTHON=/path/python3 {SCRIPT} [OUT_DIR])")
    assert not (tmp_path / "out").exists()


def test_a_folder_with_results_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("{}")
    result = _run(out, _env(os.environ["PATH"], PYTHON=sys.executable))
    assert result.returncode == 2 and "is not empty" in result.stderr
    assert (out / "summary.json").read_text() == "{}"


@needs_torch
def test_no_nvidia_smi_and_a_cpu_torch_fail_clearly_with_the_evidence(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _run(out, _env(_path_without_nvidia_smi(tmp_path), PYTHON=str(TORCH_PYTHON)))
    assert result.returncode == 3, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("gpu-validate: cannot run here: nvidia-smi not found on PATH (no NVIDIA driver here); "
                           "torch ")
    assert "is a CPU-only build (torch.version.cuda is None)" in last
    files = {p.name for p in out.iterdir()}
    assert files == {"gpu-validate-evidence.tar.gz", "summary.json", "torch-build.json"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "cannot-run" and "nvidia-smi not found" in summary["reason"]
    assert [s["step"] for s in summary["steps"]] == ["torch build"], "nothing ran on a machine without a GPU"
    build = json.loads((out / "torch-build.json").read_text())
    assert build["torch"].startswith("2.") and build["cuda"] is None and build["cuda_available"] is False
    members = _members(out)
    assert {"evidence/dev-shm.txt", "evidence/host.txt", "evidence/torch-build.json", "evidence/summary.json",
            "evidence/gpu-validate.log"} <= members
    assert not any("venv" in m for m in members)


@needs_torch
def test_evidence_is_collected_before_the_torch_check_fails(tmp_path: Path) -> None:
    out = tmp_path / "out"
    fake = _fake_nvidia_smi(tmp_path)
    path = os.pathsep.join([str(fake), _path_without_nvidia_smi(tmp_path)])
    result = _run(out, _env(path, PYTHON=str(TORCH_PYTHON), ENVGUARD_PYTHON=sys.executable))
    assert result.returncode == 3, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("gpu-validate: cannot run here: torch ") and "CPU-only build" in last
    summary = json.loads((out / "summary.json").read_text())
    assert [s["step"] for s in summary["steps"]] == [
        "nvidia-smi -q", "nvidia-smi topo -m", "nvidia-smi", "nvidia-smi --query-gpu", "torch build"]
    assert all(s["exit"] == 0 for s in summary["steps"])
    files = {p.name for p in out.iterdir()}
    assert "gpu-validate-evidence.tar.gz" in files and files - {"gpu-validate-evidence.tar.gz"} <= KEY_FILES
    assert len(files) <= 9
    with tarfile.open(out / "gpu-validate-evidence.tar.gz") as tar:
        q = tar.extractfile("evidence/nvidia-smi-q.txt")
        assert q is not None and q.read().decode() == Q.read_text(encoding="utf-8")
        topo = tar.extractfile("evidence/nvidia-smi-topo-m.txt")
        assert topo is not None and topo.read() == b"GPU0 X\n"
    assert {"evidence/nvidia-smi.txt", "evidence/nvidia-smi-query-gpu.csv"} <= _members(out)


def test_out_defaults_to_the_out_variable(tmp_path: Path) -> None:
    import venv

    venv.create(tmp_path / "bare", with_pip=False)
    out = tmp_path / "device-out"
    env = _env(_path_without_nvidia_smi(tmp_path), PYTHON=str(tmp_path / "bare" / "bin" / "python"),
               ENVGUARD_PYTHON=sys.executable, OUT=str(out))
    result = subprocess.run(("bash", str(SCRIPT)), capture_output=True, text=True, env=env, timeout=300,
                            check=False, cwd=str(tmp_path))
    assert result.returncode == 3
    assert "cannot import torch" in result.stderr.strip().splitlines()[-1]
    assert (out / "gpu-validate-evidence.tar.gz").is_file() and (out / "summary.json").is_file()
