"""`envguard preflight`: the combined gate. Pure parts on built results; the CLI end to end on real venvs, a
real lock and (once) the real smoke suite."""

from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from envguard import _subprocess
from envguard.cli import main
from envguard.findings import Finding, Report, Severity
from envguard.fingerprints import fingerprint_of
from envguard.formatters.preflight import (
    github_annotations,
    preflight_dict,
    preflight_json,
    preflight_junit,
    preflight_markdown,
    preflight_verdict,
)
from envguard.lock.spec import LockedPackage, LockSpec, LockTarget
from envguard.lock.verify import Drift, VerifyResult
from envguard.preflight import PreflightResult, StepOutcome, combined_exit, fits, plan_steps
from envguard.smoke.base import SmokeResult, SmokeRun, SmokeStatus
from tests.fakes import make_snapshot

SNAP = make_snapshot()
ERR = Finding("driver-too-old", Severity.ERROR, "driver 470 cannot run cu124", (), "upgrade the driver",
              "cuda-driver.toml", "torch")
WARN = Finding("mixed-cuda-wheels", Severity.WARNING, "cu11 and cu12 wheels", (), None, None, "wheels")
LOCK = LockSpec(LockTarget("3.11", "linux-x86_64", None, "cpu"),
                (LockedPackage("six", "1.16.0", ("sha256:" + "0" * 64,)),))


def _result(*, findings: tuple[Finding, ...] = (), drifts: tuple[Drift, ...] | None = None,
            smoke: tuple[SmokeStatus, ...] | None = None, steps: tuple[StepOutcome, ...] = (),
            fail_on: Severity = Severity.ERROR) -> PreflightResult:
    report = Report(SNAP, findings, {}, ())
    verify = None if drifts is None else VerifyResult(LOCK, "envguard.lock.json", "3.11.7", "/v/bin/python", drifts,
                                                      (), 1, 3)
    run = None if smoke is None else SmokeRun(1, "/v/bin/python", tuple(
        SmokeResult(f"case{i}", s, 0.5, detail="boom" if s.bad else "") for i, s in enumerate(smoke)), 1.0)
    return PreflightResult("node-a", steps or (StepOutcome("check", "ran"),), report, verify, run,
                           fingerprint_of(SNAP), fail_on, 2.0)


def test_combined_exit_code_order() -> None:
    assert combined_exit(_result()) == 0
    assert combined_exit(_result(findings=(WARN,))) == 0
    assert combined_exit(_result(findings=(WARN,), fail_on=Severity.WARNING)) == 1
    assert combined_exit(_result(findings=(ERR,))) == 1
    drift = (Drift("different", "torch", "2.5.1", "2.6.0", "torch is 2.6.0"),)
    assert combined_exit(_result(drifts=drift)) == 1
    assert combined_exit(_result(drifts=())) == 0
    assert combined_exit(_result(findings=(ERR,), smoke=(SmokeStatus.PASSED, SmokeStatus.FAILED))) == 4
    assert combined_exit(_result(smoke=(SmokeStatus.TIMEOUT,),
                                 steps=(StepOutcome("verify", "error", "bad lock"),))) == 3


def test_a_smoke_step_that_tested_nothing_fails_the_gate() -> None:
    skipped = _result(smoke=(SmokeStatus.SKIPPED, SmokeStatus.SKIPPED),
                      steps=(StepOutcome("check", "ran"), StepOutcome("smoke 1", "ran")))
    assert skipped.exit_code == 4
    assert "smoke: nothing was tested, 2 skipped" in preflight_verdict(skipped)
    assert preflight_dict(skipped)["smoke"]["exit_code"] == 4
    assert "::error title=envguard smoke::nothing was tested (every case was skipped)" in github_annotations(skipped)
    some = _result(smoke=(SmokeStatus.PASSED, SmokeStatus.SKIPPED))
    assert some.exit_code == 0
    assert "smoke: 1 case(s) ok, 1 skipped" in preflight_verdict(some), "skipped cases are not counted as ok"


def test_budget_and_steps() -> None:
    assert plan_steps(verify=True, smoke_level=1, deep=False) == ["check", "verify", "smoke 1"]
    assert plan_steps(verify=False, smoke_level=0, deep=True) == ["check --deep"]
    assert fits("smoke 1", 0.0, None) is None
    assert fits("check", 0.0, 5.0) is None
    reason = fits("smoke 2", 10.0, 30.0)
    assert reason is not None and "needs about 60 s, 20 s of the 30 s budget left" in reason


def test_junit_has_a_case_per_finding_drift_and_smoke_case() -> None:
    drift = (Drift("missing", "click", "8.1.7", None, "click==8.1.7 is not installed"),
             Drift("files", "six", "1.16.0", "1.16.0", "1 file changed"))
    result = _result(findings=(ERR, WARN), drifts=drift, smoke=(SmokeStatus.PASSED, SmokeStatus.FAILED),
                     steps=(StepOutcome("check", "ran"), StepOutcome("verify", "ran"), StepOutcome("smoke 1", "ran")))
    root = ET.fromstring(preflight_junit(result).split("?>", 1)[1])
    suites = {s.get("name"): s for s in root}
    assert set(suites) == {"envguard.check", "envguard.verify", "envguard.smoke"}
    check = suites["envguard.check"]
    assert check.get("tests") == "2" and check.get("failures") == "1"
    names = [c.get("name") for c in check]
    assert names == ["driver-too-old: torch", "mixed-cuda-wheels: wheels"]
    assert check[0].find("failure") is not None and check[1].find("failure") is None
    assert [c.get("name") for c in suites["envguard.verify"]] == ["click", "six"]
    assert all(c.find("failure") is not None for c in suites["envguard.verify"])
    smoke = suites["envguard.smoke"]
    assert [c.get("name") for c in smoke] == ["case0", "case1"] and smoke.get("failures") == "1"


def test_skipped_and_errored_steps_are_reported_everywhere() -> None:
    steps = (StepOutcome("check", "ran"), StepOutcome("verify", "error", "lock.json: schema_version 9"),
             StepOutcome("smoke 1", "skipped", fits("smoke 1", 2.0, 5.0) or ""))
    result = _result(steps=steps)
    assert result.exit_code == 3
    doc = preflight_dict(result)
    assert doc["command"] == "preflight" and doc["node"] == "node-a" and doc["exit_code"] == 3
    assert doc["skipped"] == [{"step": "smoke 1", "reason": steps[2].detail}]
    assert doc["check"]["command"] == "check" and doc["verify"] is None and doc["smoke"] is None
    assert doc["fingerprint"]["digest"] == fingerprint_of(SNAP).digest
    root = ET.fromstring(preflight_junit(result).split("?>", 1)[1])
    by_name = {s.get("name"): s for s in root}
    assert by_name["envguard.verify"].get("errors") == "1"
    assert by_name["envguard.smoke"].get("skipped") == "1"
    verdict = preflight_verdict(result)
    assert verdict.startswith("envguard preflight on node-a: FAILED (exit 3)")
    assert "verify could not run: lock.json: schema_version 9" in verdict
    md = preflight_markdown(result)
    assert "- **smoke 1**: skipped — needs about 30 s" in md
    assert "smoke 1 skipped: needs about 30 s" in verdict
    assert "skipped: skipped" not in md + verdict + preflight_json(result)
    notes = github_annotations(result)
    assert "::error title=envguard preflight verify::lock.json: schema_version 9" in notes
    assert any(n.startswith("::notice title=envguard preflight smoke 1::") for n in notes)


def test_annotations_escape_newlines_and_percent() -> None:
    f = Finding("driver-too-old", Severity.ERROR, "50% of\nnodes", (), "upgrade", None, "torch")
    (line,) = github_annotations(_result(findings=(f,)))
    assert line == "::error title=envguard driver-too-old::50%25 of%0Anodes%0AFix: upgrade"


# ---- end to end ------------------------------------------------------------------------------


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner(env=env).invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture()
def venv_and_lock(wheelhouse: Path, tmp_path: Path) -> tuple[Path, Path]:
    venv = tmp_path / "venv"
    assert _subprocess.run((sys.executable, "-m", "venv", str(venv)), timeout=120).ok
    installed = _subprocess.run((str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index",
                                 "--find-links", str(wheelhouse), "click==8.1.7", "six"), timeout=300)
    assert installed.ok, installed.stderr
    lock = tmp_path / "lock"
    code, _o, err = invoke("lock", "--from-current", "--python", str(venv), "--no-index", "--find-links",
                           str(wheelhouse), "--format", "json", "-o", str(lock))
    assert code == 0, err
    return venv, lock


@pytest.mark.slow
def test_preflight_passes_then_catches_drift(venv_and_lock: tuple[Path, Path], tmp_path: Path) -> None:
    venv, lock = venv_and_lock
    out = tmp_path / "out"
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    code, stdout, err = invoke("preflight", "--python", str(venv), "--lock", str(lock), "--smoke-level", "0",
                               "--out", str(out), env=env)
    assert code == 0, (stdout, err)
    assert "envguard preflight on" in stdout and ": OK (exit 0)" in stdout
    assert sorted(p.name for p in out.iterdir()) == ["fingerprint.json", "junit.xml", "preflight.json", "summary.md"]
    doc = json.loads((out / "preflight.json").read_text())
    assert doc["verify"]["ok"] is True and [s["step"] for s in doc["steps"]] == ["check", "verify"]
    assert summary.read_text().startswith("earlier step\n# envguard preflight on")

    code, _o, err = invoke("preflight", "--python", str(venv), "--lock", str(lock), "--smoke-level", "0",
                           "--out", str(out))
    assert code == 3 and "--force" in err

    assert _subprocess.run((str(venv / "bin" / "python"), "-m", "pip", "uninstall", "-q", "-y", "click"),
                           timeout=120).ok
    code, stdout, _e = invoke("preflight", "--python", str(venv), "--lock", str(lock), "--smoke-level", "0",
                              "--out", str(out), "--force", env=env)
    assert code == 1
    assert "::error title=envguard verify missing::click==8.1.7 is not installed" in stdout.splitlines()
    root = ET.fromstring((out / "junit.xml").read_text().split("?>", 1)[1])
    verify = next(s for s in root if s.get("name") == "envguard.verify")
    assert verify.get("failures") == "1"


@pytest.mark.slow
def test_preflight_records_a_step_that_cannot_run_and_goes_on(tmp_path: Path) -> None:
    bad = tmp_path / "envguard.lock.json"
    bad.write_text('{"schema_version": 7}')
    code, stdout, _e = invoke("preflight", "--lock", str(bad), "--smoke-level", "0", "--out", str(tmp_path / "o"),
                              "--format", "json")
    assert code == 3
    doc = json.loads(stdout)
    assert [(s["step"], s["status"]) for s in doc["steps"]] == [("check", "ran"), ("verify", "error")]
    assert "schema_version 7 is not supported" in doc["steps"][1]["detail"]
    assert doc["check"]["snapshot"]["python"]["executable"]


def test_preflight_json_stdout_stays_one_object_under_github_actions(tmp_path: Path) -> None:
    code, stdout, err = invoke("preflight", "--python", str(tmp_path / "nope"), "--smoke-level", "0", "--out",
                               str(tmp_path / "o"), "--format", "json", env={"GITHUB_ACTIONS": "true"})
    assert code == 3
    assert json.loads(stdout)["steps"][0]["status"] == "error"
    assert err.startswith("::error title=envguard preflight check::")


def test_preflight_out_below_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    code, stdout, err = invoke("preflight", "--python", str(tmp_path / "nope"), "--smoke-level", "0", "--out",
                               str(tmp_path / "f" / "sub"))
    assert code == 3 and stdout == ""
    assert err.startswith("envguard: error: cannot create --out ") and err.count("\n") == 1


@pytest.mark.slow
def test_preflight_finds_the_lock_in_the_working_directory(venv_and_lock: tuple[Path, Path], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    venv, lock = venv_and_lock
    monkeypatch.chdir(lock)
    code, stdout, _e = invoke("preflight", "--python", str(venv), "--smoke-level", "0", "--out",
                              str(tmp_path / "o"), "--format", "json")
    assert code == 0, stdout
    assert json.loads(stdout)["verify"]["lock"] == "envguard.lock.json"
    code, stdout, _e = invoke("preflight", "--python", str(venv), "--smoke-level", "0", "--no-verify", "--out",
                              str(tmp_path / "o2"), "--format", "json")
    assert code == 0 and json.loads(stdout)["verify"] is None


@pytest.mark.slow
def test_preflight_runs_the_real_smoke_suite_within_a_budget(tmp_path: Path) -> None:
    """This checkout's venv has torch 2.13 (CPU): level 1 runs for real; a tight budget skips it and says so."""
    out = tmp_path / "o"
    code, stdout, err = invoke("preflight", "--no-verify", "--smoke-level", "1", "--device", "cpu", "--out", str(out),
                               "--format", "json")
    doc = json.loads(stdout)
    assert code in (0, 1), (err, doc["steps"])  # 1 only if this machine's own check has an error finding
    assert doc["smoke"] is not None and doc["smoke"]["results"]
    assert all(r["status"] in ("passed", "skipped") for r in doc["smoke"]["results"]), doc["smoke"]["results"]
    root = ET.fromstring((out / "junit.xml").read_text().split("?>", 1)[1])
    assert "envguard.smoke" in {s.get("name") for s in root}
    assert json.loads((out / "fingerprint.json").read_text())["components"]

    code, stdout, _e = invoke("preflight", "--no-verify", "--smoke-level", "2", "--budget", "5", "--out",
                              str(tmp_path / "o2"), "--format", "json")
    doc = json.loads(stdout)
    assert doc["smoke"] is None
    assert doc["skipped"][0]["step"] == "smoke 2" and "budget" in doc["skipped"][0]["reason"]
    assert os.path.exists(tmp_path / "o2" / "preflight.json")


@pytest.mark.slow
def test_preflight_refuses_existing_results_before_running_anything(tmp_path: Path) -> None:
    out = tmp_path / "o"
    out.mkdir()
    (out / "junit.xml").write_text("old results\n")
    code, _o, err = invoke("preflight", "--no-verify", "--smoke-level", "2", "--out", str(out))
    assert code == 3 and "nothing was run or written" in err
    assert (out / "junit.xml").read_text() == "old results\n"


def test_the_node_is_named_by_slurm_under_slurm() -> None:
    from envguard.preflight import node_name

    # several slurmd daemons can share one host (and its hostname); Slurm's node name is unique
    assert node_name({"SLURMD_NODENAME": "node2"}, "vm") == "node2"
    assert node_name({"SLURMD_NODENAME": " "}, "vm") == "vm"
    assert node_name({}, "gpu-a01.cluster") == "gpu-a01.cluster"
