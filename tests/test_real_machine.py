"""The real `envguard check` on the machine running the tests: the report must agree with the machine."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from importlib import metadata
from pathlib import Path

import pytest

from envguard import _subprocess

pytestmark = pytest.mark.slow


def _envguard(*args: str) -> _subprocess.CommandResult:
    return _subprocess.run((sys.executable, "-m", "envguard", *args), timeout=120)


def _has_driver() -> bool:
    return Path("/proc/driver/nvidia/version").exists() or shutil.which("nvidia-smi") is not None


@pytest.fixture(scope="module")
def report() -> dict[str, object]:
    result = _envguard("check", "--format", "json", "--python", sys.executable)
    assert result.returncode in (0, 1), result.stderr
    doc = json.loads(result.stdout)
    assert isinstance(doc, dict)
    return doc


def test_toolkit_reported_by_nvcc_is_found(report: dict[str, object]) -> None:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("no nvcc on PATH on this machine")
    out = _subprocess.run((nvcc, "--version"), timeout=30).stdout
    release = re.search(r"release (\d+\.\d+), V([\d.]+)", out)
    assert release is not None, out
    snapshot = report["snapshot"]
    assert isinstance(snapshot, dict)
    toolkits = snapshot["cuda_toolkits"]
    assert isinstance(toolkits, list), toolkits
    on_path = [t for t in toolkits if "nvcc on PATH" in t["source"]]
    assert len(on_path) == 1
    assert on_path[0]["version"] == release.group(1)
    assert on_path[0]["build"] == release.group(2)


def test_driver_and_gpus_match_the_machine(report: dict[str, object]) -> None:
    snapshot = report["snapshot"]
    assert isinstance(snapshot, dict)
    if _has_driver():
        assert "version" in snapshot["driver"], snapshot["driver"]
        return
    assert snapshot["driver"]["unavailable"] is True
    assert snapshot["driver"]["code"] == "no-driver"
    assert snapshot["gpus"]["unavailable"] is True
    text = _envguard("check", "--python", sys.executable, "--no-color").stdout
    assert re.search(r"NVIDIA driver\s+none — no NVIDIA driver", text), text


def test_no_error_findings_and_exit_zero(report: dict[str, object]) -> None:
    if _has_driver():
        pytest.skip("judged against a real GPU machine elsewhere")
    summary = report["summary"]
    assert isinstance(summary, dict)
    assert summary["errors"] == 0, report["findings"]
    assert report["exit_code"] == 0


def test_frameworks_match_installed_distributions(report: dict[str, object]) -> None:
    snapshot = report["snapshot"]
    assert isinstance(snapshot, dict)
    frameworks = {f["name"]: f for f in snapshot["frameworks"]}
    try:
        torch_version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        assert "torch" not in frameworks
        return
    torch = frameworks["torch"]
    assert torch["version"].startswith(torch_version.split("+")[0])
    if "+cpu" in torch["version"]:
        assert torch["accelerator"] == "cpu"
        assert torch["cuda"] is None
    python = snapshot["python"]
    assert python["executable"] == sys.executable or os.path.samefile(python["executable"], sys.executable)


def test_check_does_not_import_frameworks() -> None:
    """The default path must not import torch/tensorflow/jax in envguard's own process."""
    # NOTE: read at exit from an atexit handler: `python -m envguard` leaves with os._exit after running them
    code = ("import atexit, sys, runpy; sys.argv = ['envguard', 'check', '--format', 'json']\n"
            "def report():\n"
            "    bad = [m for m in ('torch', 'tensorflow', 'jax') if m in sys.modules]\n"
            "    sys.stderr.write('IMPORTED=' + ','.join(bad))\n"
            "atexit.register(report)\n"
            "runpy.run_module('envguard', run_name='__main__')\n")
    result = _subprocess.run((sys.executable, "-c", code), timeout=120)
    assert "IMPORTED=" in result.stderr
    assert result.stderr.strip().endswith("IMPORTED="), result.stderr[-300:]


def test_snapshot_then_check_round_trip(tmp_path: Path) -> None:
    target = tmp_path / "snap.json"
    assert _envguard("snapshot", "-o", str(target)).returncode == 0
    assert json.loads(target.read_text())["schema_version"] == 1
    assert _envguard("snapshot", "-o", str(target)).returncode == 3  # refuses to overwrite
    judged = _envguard("check", "--snapshot", str(target), "--format", "json")
    assert json.loads(judged.stdout)["command"] == "check"


def test_deep_runs_frameworks_in_subprocesses(report: dict[str, object]) -> None:
    result = _envguard("check", "--deep", "--format", "json", "--python", sys.executable)
    doc = json.loads(result.stdout)
    for fw in doc["snapshot"]["frameworks"]:
        if fw["name"] == "torch":
            runtime = fw["runtime"]
            assert runtime is not None and not runtime.get("unavailable"), runtime
            if not _has_driver():
                assert runtime["gpu_available"] is False


def test_bad_matrices_folder_is_exit_3(tmp_path: Path) -> None:
    env = dict(os.environ, ENVGUARD_MATRICES=str(tmp_path))
    result = _subprocess.run((sys.executable, "-m", "envguard", "check"), timeout=120, env=env)
    assert result.returncode == 3
    assert "cannot read matrix" in result.stderr
    assert "Traceback" not in result.stderr


def test_relative_python_path_and_venv_folder(tmp_path: Path) -> None:
    """`--python .venv/bin/python` and `--python .venv` work although the target runs in a temporary cwd."""
    import venv

    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=False)
    for target in ("env/bin/python", "env"):
        result = _subprocess.run((sys.executable, "-m", "envguard", "check", "--format", "json", "--python", target),
                                 timeout=120, cwd=str(tmp_path))
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["snapshot"]["python"]["virtualenv"] is True
