"""`envguard smoke` end to end in a real interpreter with CPU torch: faults are reported, the suite goes on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

import pytest

from envguard import _subprocess

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
TORCH_PYTHON = ROOT / ".venv" / "bin" / "python"
needs_torch = pytest.mark.skipif(
    not TORCH_PYTHON.exists() or _subprocess.run(
        (str(TORCH_PYTHON), "-c", "import importlib.util,sys; sys.exit(importlib.util.find_spec('torch') is None)"),
        timeout=60).returncode != 0,
    reason="the project .venv with torch is not there",
)


def smoke(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> tuple[int, dict[str, object]]:
    argv = (sys.executable, "-m", "envguard", "smoke", "--format", "json", *args)
    result = _subprocess.run(argv, timeout=timeout, env=dict(os.environ, **(env or {})))
    assert result.stdout.strip(), result.stderr
    return result.returncode, json.loads(result.stdout)


def statuses(doc: dict[str, object]) -> dict[str, str]:
    results = doc["results"]
    assert isinstance(results, list)
    return {r["case"]: r["status"] for r in results}


def test_missing_torch_skips_with_the_reason(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    venv.create(bare, with_pip=False)
    code, doc = smoke("--python", str(bare / "bin" / "python"), "--level", "1", "--only", "amp,gradcheck")
    assert code == 4, "a run in which every case was skipped tested nothing"
    assert doc["nothing_tested"] is True and doc["exit_code"] == 4
    assert statuses(doc) == {"amp": "skipped", "gradcheck": "skipped"}
    results = doc["results"]
    assert isinstance(results, list) and "torch is not installed" in results[0]["detail"]
    text = _subprocess.run((sys.executable, "-m", "envguard", "smoke", "--python", str(bare / "bin" / "python"),
                            "--level", "1", "--only", "amp"), timeout=120)
    assert text.returncode == 4
    assert "envguard smoke: FAIL — nothing was tested (every case was skipped)" in text.stdout


def test_an_empty_selection_tests_nothing(tmp_path: Path) -> None:
    code, doc = smoke("--level", "1", "--only", "amp", "--skip", "amp")
    assert code == 4 and doc["results"] == [] and doc["nothing_tested"] is True


def _marked(token: str) -> list[int]:
    """PIDs of the processes whose environment carries ``token``."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/environ", "rb") as fh:
                    if token.encode() in fh.read():
                        pids.append(int(entry))
            except OSError:
                continue
    return pids


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _payloads(token: str) -> list[int]:
    """The marked processes running the smoke payload: the case process and its forked DataLoader workers."""
    return [pid for pid in _marked(token) if "envguard_smoke_payload" in _cmdline(pid)]


def _process_table(token: str) -> str:
    """What is running with ``token`` (for a failure message: which stage the suite was stuck in)."""
    return "; ".join(f"{pid}: {_cmdline(pid)[:120]}" for pid in _marked(token)) or "nothing"


@needs_torch
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_kills_every_case_process_and_exits_128_plus_signal(tmp_path: Path, sig: signal.Signals) -> None:
    """Ctrl-C as a terminal sends it (to the whole foreground process group) while DataLoader workers run."""
    token = f"ENVGUARD_TEST_TOKEN=interrupt-{os.getpid()}-{sig.value}"
    junit = tmp_path / "smoke.xml"
    env = dict(os.environ, ENVGUARD_SMOKE_INJECT="workerhang:dataloader", ENVGUARD_TEST_TOKEN=token.split("=")[1])
    # NOTE: stderr goes to a file, not a pipe nobody reads while the test waits (a full pipe would stall envguard).
    stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115 - closed in the finally
    proc = subprocess.Popen(
        (sys.executable, "-m", "envguard", "smoke", "--python", str(TORCH_PYTHON), "--level", "1", "--device", "cpu",
         "--only", "dataloader", "--junit", str(junit)),
        env=env, stdout=subprocess.DEVNULL, stderr=stderr, text=True, start_new_session=True)

    def err_text() -> str:
        stderr.seek(0)
        return stderr.read()

    try:
        # NOTE: the payload and at least one of its DataLoader workers (each hangs in its first item), named by
        # their command line: envguard's watchdog and probes carry the token too, so a count alone can be met
        # before any worker runs. A loaded CI machine may take long to get there; only the wait is generous.
        deadline = time.monotonic() + 240
        while len(_payloads(token)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.3)
        if proc.poll() is not None:
            pytest.fail(f"envguard smoke ended (exit {proc.returncode}) before its DataLoader workers hung: "
                        f"{err_text()[-2000:]}")
        assert len(_payloads(token)) >= 2, f"the DataLoader workers never started; running: {_process_table(token)}"
        time.sleep(1.0)
        os.killpg(proc.pid, sig)
        proc.wait(timeout=60)
        err = err_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        stderr.close()
    assert proc.returncode == 128 + sig.value, err  # 130 for Ctrl-C, 143 for SIGTERM
    assert "envguard: interrupted" in err and "Traceback" not in err
    deadline = time.monotonic() + 10
    while _marked(token) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _marked(token) == [], f"a case process or DataLoader worker outlived envguard: {_process_table(token)}"
    assert list(tmp_path.iterdir()) == [], "no partial files"


@needs_torch
def test_segfault_and_hang_are_reported_and_the_rest_runs() -> None:
    code, doc = smoke("--python", str(TORCH_PYTHON), "--level", "1", "--only", "amp,gradcheck,determinism",
                      "--timeout", "20", env={"ENVGUARD_SMOKE_INJECT": "segfault:amp"})
    assert code == 4
    assert statuses(doc) == {"amp": "error", "determinism": "passed", "gradcheck": "passed"}
    code, doc = smoke("--python", str(TORCH_PYTHON), "--level", "1", "--only", "gradcheck,amp", "--timeout", "15",
                      env={"ENVGUARD_SMOKE_INJECT": "hang:gradcheck"})
    assert code == 4
    assert statuses(doc) == {"amp": "passed", "gradcheck": "timeout"}


@needs_torch
def test_a_killed_ddp_rank_fails_within_the_timeout() -> None:
    code, doc = smoke("--python", str(TORCH_PYTHON), "--level", "2", "--only", "ddp", "--timeout", "90",
                      env={"ENVGUARD_SMOKE_INJECT": "exit:ddp", "ENVGUARD_SMOKE_DIST_TIMEOUT": "20"})
    assert code == 4
    assert statuses(doc)["ddp"] in ("failed", "error", "timeout")
    results = doc["results"]
    assert isinstance(results, list) and results[0]["duration_s"] < 90


@needs_torch
def test_two_runs_give_the_same_fingerprint(tmp_path: Path) -> None:
    cases = "--only", "determinism,gradcheck,amp"
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        code, _doc = smoke("--python", str(TORCH_PYTHON), "--level", "1", *cases, "--fingerprint-out", str(out))
        assert code == 0
    result = _subprocess.run((sys.executable, "-m", "envguard", "fingerprint", "diff", str(first), str(second)),
                             timeout=60)
    assert result.returncode == 0, result.stdout
    assert "identical" in result.stdout


@needs_torch
def test_junit_file(tmp_path: Path) -> None:
    junit = tmp_path / "smoke.xml"
    code, _doc = smoke("--python", str(TORCH_PYTHON), "--level", "1", "--only", "gradcheck,perf", "--junit", str(junit))
    assert code == 0
    text = junit.read_text()
    assert 'name="gradcheck"' in text and "<skipped" in text
