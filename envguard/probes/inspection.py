"""The in-target inspection script, run in the target interpreter: the subprocess every `check` waits on.

Kept light on purpose (no snapshot types, no parsers): `check` starts it before importing the rest of the
probes and the rules, which then load while the target interpreter runs. Decoding what it prints is
:func:`envguard.probes.target.inspect_target`.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from envguard._subprocess import CommandResult, CommandRunner
from envguard.resources import script_source

#: The script (standard library only; see its docstring).
SCRIPT = "_inspect_target.py"


def child_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment for scripts run in the target interpreter (no PYTHONSTARTUP, UTF-8 output)."""
    out = dict(env)
    out.pop("PYTHONSTARTUP", None)
    out["PYTHONIOENCODING"] = "utf-8"
    return out


def run_inspection(run: CommandRunner, exe: str, env: Mapping[str, str], timeout_s: float) -> CommandResult:
    """Run the script in ``exe`` with :func:`child_env` of ``env`` (the script drops the working directory from
    its sys.path before its first import: a local "torch/" folder cannot shadow the real package)."""
    return run((exe, "-c", script_source("envguard.probes", SCRIPT)), timeout=timeout_s, env=child_env(env))


@dataclass(frozen=True)
class StartedInspection:
    """An inspection already running for one interpreter and environment (see :func:`start`)."""

    exe: str
    env: Mapping[str, str]
    timeout_s: float
    future: Future[CommandResult]

    def serves(self, exe: str, env: Mapping[str, str], timeout_s: float) -> bool:
        """True when this is the run :func:`run_inspection` would make for these arguments."""
        return (exe, timeout_s) == (self.exe, self.timeout_s) and dict(env) == dict(self.env)

    def result(self) -> CommandResult:
        """What the script printed (waits for it; the run's own timeout bounds the wait)."""
        return self.future.result()


def start(run: CommandRunner, exe: str, env: Mapping[str, str], timeout_s: float) -> StartedInspection:
    """Start :func:`run_inspection` in a background thread and return at once."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="envguard-inspect")
    try:
        future = pool.submit(run_inspection, run, exe, env, timeout_s)
    finally:
        pool.shutdown(wait=False)  # NOTE: the worker ends with its one job
    return StartedInspection(exe, dict(env), timeout_s, future)


__all__ = ["SCRIPT", "StartedInspection", "child_env", "run_inspection", "start"]
