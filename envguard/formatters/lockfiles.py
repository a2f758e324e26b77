"""Render `envguard lock` and `envguard verify` results as text or one JSON envelope."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from envguard.formatters.base import RESULT_VERSION

if TYPE_CHECKING:
    from envguard.lock.render import LockOutcome
    from envguard.lock.verify import VerifyResult


def lock_text(outcome: LockOutcome, *, dry_run: bool) -> str:
    """What was locked, why this build, and what was (or would be) written."""
    spec = outcome.spec
    t = spec.target
    build = (f"{t.variant or 'CUDA'} build, CUDA {t.cuda}" if t.cuda
             else "CPU build" if t.variant == "cpu" else "no CUDA build")
    count = f"{len(spec.packages)} package{'s' if len(spec.packages) != 1 else ''}"
    lines = [f"envguard lock: {count} for Python {t.python} on {t.platform} ({build}), "
             f"resolved by {spec.resolver}"]
    lines += [f"  why: {r}" for r in outcome.reasons]
    if t.driver_floor:
        lines.append(f"  needs NVIDIA driver >= {t.driver_floor} on the machine that runs it")
    lines += [f"  index: {i.url} ({i.reason})" for i in spec.indexes]
    lines += [f"  skipped {name}: {reason}" for name, reason in spec.skipped]
    lines.append(f"  fingerprint: {spec.fingerprint}")
    if dry_run:
        lines.append("dry run: would write " + ", ".join(f.name for f in outcome.files)
                     + (f" and {len(outcome.wheels)} wheel(s) into wheelhouse/" if outcome.wheels else ""))
        for f in outcome.files:
            lines.append(f"--- {f.name} ---")
            lines.append(f.text.rstrip("\n"))
    else:
        lines += [f"  wrote {path}" for path in outcome.written]
        if outcome.wheels:
            lines.append(f"  copied {len(outcome.wheels)} locked file(s) into wheelhouse/")
    if outcome.image is not None:
        lines.append(f"  built image {outcome.image.tag} ({outcome.image.image_id[:19]}) "
                     f"in {outcome.image.duration_s:.0f}s")
    return "\n".join(lines) + "\n"


def lock_json(outcome: LockOutcome, *, dry_run: bool, exit_code: int) -> str:
    """The lock envelope: the lock document, files and where they went."""
    doc: dict[str, Any] = {
        "envguard_result_version": RESULT_VERSION,
        "command": "lock",
        "dry_run": dry_run,
        "lock": outcome.spec.to_dict(),
        "reasons": list(outcome.reasons),
        "plan": outcome.plan,
        "files": [{"name": f.name, "written": not dry_run} for f in outcome.files],
        "written": list(outcome.written),
        "wheels": list(outcome.wheels),
        "image": None if outcome.image is None else {"tag": outcome.image.tag, "id": outcome.image.image_id},
        "exit_code": exit_code,
    }
    return json.dumps(doc, indent=2) + "\n"


def verify_text(result: VerifyResult) -> str:
    """Verdict first, then one line per drift."""
    spec = result.lock
    head = ("envguard verify: OK — matches " if result.ok else
            f"envguard verify: DRIFT — {len(result.drifts)} difference(s) from ")
    lines = [f"{head}{result.lock_name} ({spec.fingerprint[:19]}…): {result.packages_checked} locked packages, "
             f"{result.files_checked} installed files hashed, "
             f"interpreter {result.interpreter} (Python {result.python})"]
    for d in result.drifts:
        lines.append(f"  {d.kind:<9} {d.name}: {d.detail}")
    lines += [f"  note: {n}" for n in result.notes]
    if not result.ok:
        lines.append("  fix (or re-lock with `envguard lock` if the change was intended):")
        lines += [f"    {c}" for c in result.fixes]
    return "\n".join(lines) + "\n"


def verify_dict(result: VerifyResult, exit_code: int) -> dict[str, Any]:
    """The verify envelope as data (also embedded in preflight.json)."""
    return {
        "envguard_result_version": RESULT_VERSION,
        "command": "verify",
        "lock": result.lock_name,
        "fingerprint": result.lock.fingerprint,
        "interpreter": result.interpreter,
        "python": result.python,
        "ok": result.ok,
        "drift": [{"kind": d.kind, "name": d.name, "locked": d.locked, "installed": d.installed, "detail": d.detail}
                  for d in result.drifts],
        "notes": list(result.notes),
        "fix": list(result.fixes),
        "packages_checked": result.packages_checked,
        "files_checked": result.files_checked,
        "exit_code": exit_code,
    }


def verify_json(result: VerifyResult, exit_code: int) -> str:
    """The verify envelope."""
    return json.dumps(verify_dict(result, exit_code), indent=2) + "\n"


def verify_fix(result: VerifyResult) -> str:
    """The command that restores the lock: its requirements file where the lock lies, and the extras by name."""
    import os
    import shlex

    folder = os.path.dirname(result.lock_name)
    requirements = shlex.quote(os.path.join(folder, "requirements.lock.txt") if folder else "requirements.lock.txt")
    fix = f"pip install --require-hashes --no-deps -r {requirements}"
    extras = sorted({d.name for d in result.drifts if d.kind == "extra"})
    if extras:
        fix += f", then pip uninstall -y {' '.join(shlex.quote(e) for e in extras)}"
    return fix + "; or re-lock with `envguard lock` if the change was intended"
