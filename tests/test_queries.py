"""envguard explain and envguard matrix through the CLI, on the shipped matrices."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from envguard.cli import main
from envguard.knowledge import load_matrices
from envguard.query import cuda_for_driver, torch_candidates

REPORTS = Path(__file__).parent / "data" / "reports"
DRIVER_MSG = "RuntimeError: The NVIDIA driver on your system is too old (found version 11040)."


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_explain_without_facts() -> None:
    code, out, _ = run("explain", "--no-check", DRIVER_MSG)
    assert code == 0
    assert "driver-too-old" in out
    assert "cause:" in out and "check:" in out
    assert "confirmed" not in out


def test_explain_confirmed_by_a_report() -> None:
    report = REPORTS / "009-torch210-cu121-driver470-gke" / "env.txt"
    code, out, _ = run("explain", "--from", str(report), "--format", "json", DRIVER_MSG)
    assert code == 1
    doc = json.loads(out)
    (match,) = doc["matches"]
    assert match["code"] == "driver-too-old" and match["verdict"] == "confirmed"
    assert match["groups"] == {"found": "11040"}


def test_explain_ruled_out_by_a_snapshot() -> None:
    snap = Path(__file__).parent / "data" / "snapshots" / "ci-machine-cpu-torch-toolkit-13.0.json"
    code, out, _ = run("explain", "--snapshot", str(snap), "--format", "json", DRIVER_MSG)
    assert code == 0
    (match,) = json.loads(out)["matches"]
    assert match["verdict"] == "not confirmed"
    assert any(f["fact"] == "driver" for f in match["facts"])


def test_explain_a_log_file_and_stdin(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text("epoch 1\nFailed to initialize NVML: Driver/library version mismatch\nbye\n")
    code, out, _ = run("explain", "--no-check", str(log))
    assert code == 0 and "driver-library-mismatch" in out
    code, out, _ = run("explain", "--no-check", "-", stdin=log.read_text())
    assert code == 0 and "driver-library-mismatch" in out


def test_explain_unknown_message_and_usage() -> None:
    code, out, _ = run("explain", "--no-check", "my loss is NaN")
    assert code == 0 and "no known error message" in out
    assert run("explain")[0] == 2


def test_matrix_torch_old_driver_and_gpu() -> None:
    code, out, _ = run("matrix", "torch", "--driver", "470.82.01", "--gpu", "NVIDIA A100-SXM4-80GB",
                       "--python", "3.8", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    runs = [(c["torch"], c["variant"]) for c in doc["candidates"] if c["runs"]]
    assert ("2.4", "cu118") in runs
    assert all(not v.startswith("cu12") for _t, v in runs)  # CUDA 12 needs >= 525.60.13
    assert doc["constraints"]["cc"] == "8.0"


def test_matrix_torch_volta_on_new_builds() -> None:
    rows = torch_candidates(load_matrices(), driver="580.95.05", cc="7.0", python="3.12")
    by_key = {(r.release.version, r.variant.tag): r for r in rows}
    assert by_key[("2.13", "cu130")].gpu_ok is False
    assert by_key[("2.13", "cu126")].runs is True


def test_matrix_bad_input_is_a_usage_error() -> None:
    code, _, err = run("matrix", "torch", "--driver", "banana")
    assert code == 2 and "--driver 'banana' is not a version" in err
    code, _, err = run("matrix", "torch", "--gpu", "Voodoo 5 6000")
    assert code == 2 and "--cc" in err


def test_matrix_cuda() -> None:
    answer = cuda_for_driver(load_matrices(), "535.104.05")
    assert answer.newest_native is not None and answer.newest_native.label == "12.2 Update 2"
    assert [m for m, _ in answer.compatible_majors] == [12, 11]
    code, out, _ = run("matrix", "cuda", "--driver", "470.82.01")
    assert code == 0 and "CUDA 11.4" in out
