"""collect_snapshot: every probe runs; one that crashes becomes Unavailable plus a note, not a failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envguard._subprocess import CommandResult
from envguard.errors import TargetPythonError
from envguard.probes.base import ProbeContext
from envguard.probes.collect import collect_snapshot
from envguard.snapshot import Unavailable
from tests.fakes import FakeRunner

TARGET_DOC = {
    "inspect_version": 1,
    "python": {"executable": "/opt/fake/bin/python", "version": "3.11.7", "implementation": "CPython",
               "platform": "linux",
               "machine": "x86_64", "prefix": "/opt/fake", "base_prefix": "/usr", "virtualenv": True,
               "conda_prefix": None, "free_threaded": False},
    "distributions": [{"name": "torch", "version": "2.5.1+cu124",
                       "requires": ['nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux"']},
                      {"name": "nvidia-cudnn-cu12", "version": "9.1.0.70", "requires": []}],
    "wheel_files": [],
    "frameworks": {"torch": {"dir": "/opt/fake/torch",
                             "version_py": {"__version__": "2.5.1+cu124", "cuda": "12.4", "hip": None}}},
}


@pytest.fixture
def py(tmp_path: Path) -> str:
    """A file standing in for the target interpreter (FakeRunner answers for it)."""
    exe = tmp_path / "python"
    exe.write_text("#!/bin/sh\n")
    return str(exe)


def _ctx(tmp_path: Path, runner: FakeRunner, nvml: object, py: str) -> ProbeContext:
    return ProbeContext(run=runner, env={"PATH": str(tmp_path)}, target_python=py, root=tmp_path,
                        nvml=nvml, timeout_s=1.0)  # type: ignore[arg-type] # reason: deliberately broken fakes


def test_crashing_probe_becomes_unavailable_and_a_note(tmp_path: Path, py: str) -> None:
    def broken_nvml(timeout: float) -> object:
        raise RuntimeError("boom")

    runner = FakeRunner({(py, "-c"): json.dumps(TARGET_DOC)})
    snapshot, notes = collect_snapshot(_ctx(tmp_path, runner, broken_nvml, py))
    assert isinstance(snapshot.driver, Unavailable)
    assert "probe nvidia crashed: RuntimeError: boom" in snapshot.driver.reason
    assert notes == ("probe nvidia crashed: RuntimeError: boom",)
    # The rest of the snapshot is intact.
    torch = snapshot.framework("torch")
    assert torch is not None and torch.cuda == "12.4" and torch.cudnn == "9.1.0.70"
    assert isinstance(snapshot.cudnn, tuple)
    assert [c.source for c in snapshot.cudnn] == ["wheel nvidia-cudnn-cu12"]


def test_target_interpreter_that_fails_is_an_error(tmp_path: Path, py: str) -> None:
    runner = FakeRunner({(py, "-c"): CommandResult((py,), 1, "", "SyntaxError: invalid syntax", 0.1)})
    with pytest.raises(TargetPythonError, match="SyntaxError"):
        collect_snapshot(_ctx(tmp_path, runner, lambda t: Unavailable("no", (), "no-driver"), py))


def test_target_interpreter_that_hangs_is_an_error(tmp_path: Path, py: str) -> None:
    runner = FakeRunner({(py, "-c"): CommandResult((py,), -9, "", "", 30.0, timed_out=True)})
    with pytest.raises(TargetPythonError, match="did not finish"):
        collect_snapshot(_ctx(tmp_path, runner, lambda t: Unavailable("no", (), "no-driver"), py))


# ---- the inspection `check` starts before importing the rules ------------------------------------


def _refuse(argv: tuple[str, ...], **_kw: object) -> CommandResult:
    raise AssertionError(f"ran {argv[:2]} although the inspection was already started")


@pytest.mark.slow
def test_a_started_inspection_is_taken_not_run_again() -> None:
    """The real script in this interpreter, started first; inspect_target picks up that run."""
    import os
    import sys

    from envguard.probes import inspection
    from envguard.probes.base import TARGET_TIMEOUT_FACTOR, default_run
    from envguard.probes.target import inspect_target

    env = dict(os.environ)
    started = inspection.start(default_run, sys.executable, env, 10.0 * TARGET_TIMEOUT_FACTOR)
    ctx = ProbeContext(run=_refuse, env=env, target_python=sys.executable, timeout_s=10.0, inspection=started)
    report = inspect_target(ctx)
    assert report.python.version == ".".join(map(str, sys.version_info[:3]))
    assert any(d.name == "click" for d in report.packages)


def test_an_inspection_started_for_other_arguments_is_not_taken(tmp_path: Path, py: str) -> None:
    """Another interpreter, environment or timeout than the context's: the context's own run answers."""
    import sys

    from envguard.probes import inspection
    from envguard.probes.target import inspect_target

    answer = CommandResult((), 0, json.dumps(TARGET_DOC), "", 0.1)
    started = inspection.start(FakeRunner({(sys.executable, "-c"): answer}), sys.executable, {"PATH": "/usr/bin"},
                               30.0)
    runner = FakeRunner({(py, "-c"): answer, (sys.executable, "-c"): answer})
    for ctx in (ProbeContext(run=runner, env={"PATH": "/usr/bin"}, target_python=py, timeout_s=10.0,
                             inspection=started),
                ProbeContext(run=runner, env={"PATH": "/bin"}, target_python=sys.executable, timeout_s=10.0,
                             inspection=started),
                ProbeContext(run=runner, env={"PATH": "/usr/bin"}, target_python=sys.executable, timeout_s=5.0,
                             inspection=started)):
        assert inspect_target(ctx).python.version == "3.11.7"
    assert len(runner.calls) == 3
    started.result()
