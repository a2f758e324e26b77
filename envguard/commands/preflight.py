"""`envguard preflight`: check, verify and smoke as one CI gate with one exit code and its result files."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from envguard.commands._io import append_line, exist_message, write_files
from envguard.commands._probe import ProbeOptions
from envguard.commands.check import check
from envguard.commands.lock import verify
from envguard.commands.smoke import fingerprint_json, smoke
from envguard.errors import InputError
from envguard.probes.base import INSTALLED_TIMEOUT_FACTOR

if TYPE_CHECKING:
    from collections.abc import Mapping

    from envguard.preflight import PreflightResult


@dataclass(frozen=True, slots=True)
class PreflightOptions:
    """What `envguard preflight` was asked to do."""

    target_python: str
    lock: str | None = None
    #: Look for ./envguard.lock.json when no --lock is given.
    find_lock: bool = True
    smoke_level: int = 1
    deep: bool = False
    budget_s: float | None = None
    fail_on: str = "error"
    timeout_s: float = 10.0
    smoke_timeout_s: float | None = None
    device: str = "auto"
    verify_files: bool = True


def preflight(options: PreflightOptions, env: Mapping[str, str] | None = None) -> PreflightResult:
    """check, then verify (when a lock is given or found), then smoke; a step that cannot run is recorded,
    not raised, so the gate always reports every step."""
    import socket
    import time

    from envguard.errors import EnvguardError
    from envguard.findings import Severity
    from envguard.fingerprints import fingerprint_of
    from envguard.lock.spec import LOCK_JSON
    from envguard.preflight import PreflightResult as _Result
    from envguard.preflight import StepOutcome, fits, node_name, plan_steps
    from envguard.smoke import DistOptions, select_cases

    environ = dict(os.environ if env is None else env)
    start = time.monotonic()
    lock = options.lock
    if lock is None and options.find_lock and Path(LOCK_JSON).is_file():
        lock = LOCK_JSON
    steps: list[StepOutcome] = []
    report = verify_result = run = fingerprint = None
    for step in plan_steps(verify=lock is not None, smoke_level=options.smoke_level, deep=options.deep):
        elapsed = time.monotonic() - start
        reason = fits(step, elapsed, options.budget_s)
        if reason is not None:
            steps.append(StepOutcome(step, "skipped", reason))
            continue
        t0 = time.monotonic()
        try:
            if step.startswith("check"):
                report = check(ProbeOptions(options.target_python, options.deep, options.timeout_s), env=environ)
            elif step == "verify":
                assert lock is not None  # reason: plan_steps adds verify only with a lock
                verify_result = verify(lock, options.target_python, records=options.verify_files, env=environ,
                                       timeout_s=options.timeout_s * INSTALLED_TIMEOUT_FACTOR)
            else:
                level = options.smoke_level
                run, fingerprint = smoke(ProbeOptions(options.target_python, timeout_s=options.timeout_s),
                                         level=level, cases=select_cases(level), timeout_s=options.smoke_timeout_s,
                                         device=options.device, dist=DistOptions(), env=environ)
        except EnvguardError as exc:
            steps.append(StepOutcome(step, "error", str(exc), time.monotonic() - t0))
            continue
        steps.append(StepOutcome(step, "ran", "", time.monotonic() - t0))
    if fingerprint is None and report is not None:
        fingerprint = fingerprint_of(report.snapshot)
    return _Result(node=node_name(environ, socket.gethostname()), steps=tuple(steps), report=report,
                   verify=verify_result, smoke=run,
                   fingerprint=fingerprint, fail_on=Severity.parse(options.fail_on),
                   wall_s=time.monotonic() - start)


PREFLIGHT_FILES = ("preflight.json", "junit.xml", "summary.md", "fingerprint.json")


def check_preflight_out(out_dir: str, *, force: bool) -> None:
    """Refuse early (before the steps run) when --out holds earlier results and --force is not given.

    :raises InputError: when --out is a file or would be overwritten.
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out_dir} is not a folder")
    existing = [str(out / n) for n in PREFLIGHT_FILES if os.path.lexists(out / n)]
    if existing and not force:
        raise InputError(exist_message(existing, "nothing was run or written"))


def write_preflight(result: PreflightResult, out_dir: str, *, force: bool,
                    env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Write preflight.json, junit.xml, summary.md and fingerprint.json into ``out_dir`` (atomically; refuses to
    overwrite without ``force``), and append the summary to $GITHUB_STEP_SUMMARY when it is set."""
    from envguard.formatters.preflight import preflight_json, preflight_junit, preflight_markdown

    environ = os.environ if env is None else env
    files = {"preflight.json": preflight_json(result), "junit.xml": preflight_junit(result),
             "summary.md": preflight_markdown(result)}
    if result.fingerprint is not None:
        files["fingerprint.json"] = fingerprint_json(result.fingerprint)
    written = write_files(out_dir, list(files.items()), force=force, option="--out")
    summary = environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            append_line(summary, files["summary.md"])
        except InputError as exc:
            raise InputError(f"GITHUB_STEP_SUMMARY: {exc}") from None
    return written
