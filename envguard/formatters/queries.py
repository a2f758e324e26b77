"""Render `envguard explain` and `envguard matrix` results as text (rich) or one JSON envelope."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

from envguard.formatters.base import RESULT_VERSION, finish
from envguard.query import BuildCandidate, CudaAnswer, TorchCandidate
from envguard.rules.signatures import CONFIRMED, NO_FACTS, NOT_AN_ENVIRONMENT_PROBLEM, Explanation


def _console(color: bool, width: int) -> tuple[Any, io.StringIO]:
    """A rich console into a buffer; ``width`` <= 0 (a pipe or file): nothing is wrapped."""
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=width if width > 0 else 10_000,
                      color_system="standard" if color else None, highlight=False, emoji=False,
                      soft_wrap=width <= 0)
    return console, buffer


def explain_text(result: Explanation, *, color: bool = False, width: int = 100) -> str:
    """One block per recognised message: code, cause, what to check, and the verdict against the facts."""
    from rich.markup import escape

    console, buffer = _console(color, width)
    if not result.verdicts:
        console.print(f"envguard explain: no known error message in the {result.lines_read} line(s) given. "
                      "The catalogue (matrices/errors.toml) covers driver, architecture, cuDNN, CUDA library, "
                      "NCCL, NVML and Python-wheel errors.")
        return finish(buffer)
    confirmed = sum(1 for v in result.verdicts if v.status == CONFIRMED)
    where = f" on the facts of {result.facts_origin}" if result.facts_origin else ""
    tail = f"; {confirmed} cause(s) confirmed{where}" if result.facts_origin else " (not checked against facts)"
    console.print(f"[bold]envguard explain: {len(result.verdicts)} known message(s){escape(tail)}[/]")
    for verdict in result.verdicts:
        sig = verdict.match.signature
        console.print()
        console.print(f"[bold]{sig.code}[/] ({sig.severity}) — {escape(verdict.match.line[:200])}")
        console.print(f"  cause: {escape(sig.cause)}")
        console.print(f"  check: {escape(sig.check)}")
        if verdict.status == NOT_AN_ENVIRONMENT_PROBLEM:
            console.print("  [green]not an environment problem[/]: the driver, CUDA and framework builds are "
                          "not what this message is about")
        elif verdict.status != NO_FACTS:
            style = "bold red" if verdict.status == CONFIRMED else "yellow"
            console.print(f"  [{style}]{verdict.status}[/]"
                          + (f": {escape(verdict.finding.message)}" if verdict.finding else
                             " by the facts checked:"))
            for item in verdict.facts:
                console.print(f"    {escape(item.fact)}: {escape(item.value)}  [dim]({escape(item.source)})[/]")
            if verdict.finding and verdict.finding.fix:
                console.print(f"  [bold]fix:[/] {escape(verdict.finding.fix)}")
        console.print(f"  [dim]source: {escape(sig.prov.source)}[/]")
    return finish(buffer)


def explain_json(result: Explanation, exit_code: int) -> str:
    """The explain envelope."""
    doc = {
        "envguard_result_version": RESULT_VERSION,
        "command": "explain",
        "facts_origin": result.facts_origin,
        "matches": [
            {
                "signature": v.match.signature.id,
                "code": v.match.signature.code,
                "severity": v.match.signature.severity,
                "line": v.match.line,
                "groups": dict(v.match.groups),
                "cause": v.match.signature.cause,
                "check": v.match.signature.check,
                "source": v.match.signature.prov.source,
                "verdict": v.status,
                "finding": v.finding.message if v.finding else None,
                "facts": [{"fact": e.fact, "value": e.value, "source": e.source} for e in v.facts],
            }
            for v in result.verdicts
        ],
        "exit_code": exit_code,
    }
    return json.dumps(doc, indent=2) + "\n"


def _mark(value: bool | None) -> str:
    return {True: "yes", False: "no", None: "?"}[value]


@dataclass(frozen=True, slots=True)
class _Row:
    version: str
    build: str
    gpu: bool
    runs: bool | None
    python: str
    notes: tuple[str, ...]
    install: str | None


def _builds_text(framework: str, rows: list[_Row], constraints: str, *, gpu_asked: bool, show_all: bool,
                 color: bool, width: int) -> str:
    """Header (GPU and CPU builds counted apart), a table, then each build's install command on its own
    unwrapped line, so a command or URL is never broken however narrow the terminal."""
    from rich.markup import escape
    from rich.table import Table

    console, buffer = _console(color, width)
    shown = [r for r in rows if show_all or (r.runs is not False and not (gpu_asked and not r.gpu))]
    gpu_runs = sum(1 for r in rows if r.runs and r.gpu)
    cpu_runs = sum(1 for r in rows if r.runs and not r.gpu)
    counted = f"{gpu_runs} GPU build(s)" + (f" and {cpu_runs} CPU build(s)" if cpu_runs else "")
    if gpu_asked:
        counted = f"{gpu_runs} GPU build(s)" + (f" (and {cpu_runs} CPU build(s), not on the GPU)" if cpu_runs else "")
    console.print(f"[bold]envguard matrix {framework}: {counted} run with {escape(constraints)}[/]"
                  + ("" if show_all else " (? = the matrices do not know; --all lists the rest)"), soft_wrap=True)
    if not shown:
        return finish(buffer)
    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
    for column in ("#", framework, "build", "runs", "python", "why not / unknown"):
        table.add_column(column, overflow="fold")
    for number, row in enumerate(shown, 1):
        table.add_row(str(number), row.version, row.build, _mark(row.runs), row.python, escape("; ".join(row.notes)))
    console.print(table)
    console.print()
    console.print("[bold]install[/] (#: command)")
    for number, row in enumerate(shown, 1):
        command = row.install or "not recorded in the matrix"
        console.print(f"{number:>3}: {escape(command)}", soft_wrap=True, highlight=False)
    return finish(buffer)


def torch_text(rows: tuple[TorchCandidate, ...], constraints: str, *, show_all: bool, color: bool = False,
               width: int = 100) -> str:
    """Releases and variants, newest first: those that run (and unknowns, marked ?) or all with --all; the
    install commands below the table, one per line and never wrapped."""
    gpu_asked = "cc " in constraints
    generic = [_Row(r.release.version, r.variant.tag, r.variant.cuda is not None, r.runs, str(r.release.python),
                    r.notes, r.install) for r in rows]
    return _builds_text("torch", generic, constraints, gpu_asked=gpu_asked, show_all=show_all, color=color,
                        width=width)


def builds_text(framework: str, rows: tuple[BuildCandidate, ...], constraints: str, *, gpu_asked: bool,
                show_all: bool, color: bool = False, width: int = 100) -> str:
    """`envguard matrix tensorflow|jax|paddle` as text (same layout as matrix torch)."""
    generic = [_Row(r.version, r.build, r.cuda is not None, r.runs, r.python, r.notes, r.install) for r in rows]
    return _builds_text(framework, generic, constraints, gpu_asked=gpu_asked, show_all=show_all, color=color,
                        width=width)


def builds_json(framework: str, rows: tuple[BuildCandidate, ...], constraints: dict[str, str | None],
                exit_code: int) -> str:
    """The matrix-FRAMEWORK envelope (every candidate, with its verdicts)."""
    doc = {
        "envguard_result_version": RESULT_VERSION,
        "command": f"matrix {framework}",
        "constraints": constraints,
        "candidates": [
            {framework: r.version, "build": r.build, "cuda": r.cuda, "runs": r.runs, "driver_ok": r.driver_ok,
             "gpu_ok": r.gpu_ok, "python_ok": r.python_ok, "os_ok": r.os_ok, "python": r.python,
             "notes": list(r.notes), "install": r.install, "source": r.source}
            for r in rows
        ],
        "exit_code": exit_code,
    }
    return json.dumps(doc, indent=2) + "\n"


def torch_json(rows: tuple[TorchCandidate, ...], constraints: dict[str, str | None], exit_code: int) -> str:
    """The matrix-torch envelope (every candidate, with its verdicts)."""
    doc = {
        "envguard_result_version": RESULT_VERSION,
        "command": "matrix torch",
        "constraints": constraints,
        "candidates": [
            {"torch": r.release.version, "variant": r.variant.tag, "cuda": r.variant.cuda, "runs": r.runs,
             "driver_ok": r.driver_ok, "gpu_ok": r.gpu_ok, "python_ok": r.python_ok, "python": str(r.release.python),
             "notes": list(r.notes), "install": r.install, "source": r.variant.prov.source}
            for r in rows
        ],
        "exit_code": exit_code,
    }
    return json.dumps(doc, indent=2) + "\n"


def cuda_text(answer: CudaAnswer) -> str:
    """The newest CUDA a driver runs."""
    lines = [f"envguard matrix cuda: driver {answer.driver} ({answer.system})"]
    newest = answer.newest
    compatible = dict(answer.compatible_majors)
    if newest is not None and newest is not answer.newest_native:
        how = (f"it runs as a CUDA {newest.cuda.major}.x application by minor-version compatibility (driver >= "
               f"{compatible[newest.cuda.major]})" if newest.cuda.major in compatible else
               f"whether it runs at all is unknown too (no CUDA {newest.cuda.major}.x compatibility floor is "
               f"recorded for {answer.system})")
        lines.append(f"  newest CUDA envguard knows: CUDA {newest.label} — its own driver floor on {answer.system} is "
                     f"not recorded, so whether driver {answer.driver} runs it at its full feature level is unknown; "
                     f"{how}")
    if answer.newest_native is not None:
        row = answer.newest_native
        lines.append(f"  newest toolkit at its full feature level: CUDA {row.label} (needs "
                     f"{row.linux_driver if answer.system != 'windows' else row.windows_driver})")
    else:
        lines.append("  no CUDA toolkit in the matrix with a recorded driver runs on a driver this old")
    if answer.unknown_floor:
        listed = [f"CUDA {r.label}" for r in answer.unknown_floor if r.cuda.major not in answer.unknown_majors]
        for major in answer.unknown_majors:
            rows = [r for r in answer.unknown_floor if r.cuda.major == major]
            listed.append(f"every CUDA {major}.x release ({len(rows)}: {rows[-1].label} to {rows[0].label})")
        lines.append("  driver floor unknown (not recorded in cuda-driver.toml): " + ", ".join(listed))
    for major, floor in answer.compatible_majors:
        lines.append(f"  runs CUDA {major}.x applications (minor-version compatibility: driver >= {floor}); from a "
                     "newer minor than the driver's own, features that need a newer driver and PTX JIT are unavailable")
    for major in answer.unknown_majors:
        lines.append(f"  CUDA {major}.x on {answer.system}: no minor-version-compatibility floor is recorded, so "
                     f"whether this driver runs CUDA {major}.x applications is unknown")
    if not answer.compatible_majors:
        lines.append("  meets no minor-version-compatibility floor (CUDA 11+ needs >= 450.80.02 on Linux)")
    lines.append("  source: https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html ; "
                 "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html")
    return "\n".join(lines) + "\n"


def cuda_json(answer: CudaAnswer, exit_code: int = 0) -> str:
    """The matrix-cuda envelope."""
    native, newest = answer.newest_native, answer.newest
    doc = {
        "envguard_result_version": RESULT_VERSION,
        "command": "matrix cuda",
        "driver": answer.driver,
        "system": answer.system,
        "newest": {"cuda": str(newest.cuda), "label": newest.label,
                   "full_feature_level": answer.native(newest)} if newest else None,
        "newest_native": {"cuda": str(native.cuda), "label": native.label} if native else None,
        "driver_floor_unknown": [{"cuda": str(r.cuda), "label": r.label} for r in answer.unknown_floor],
        "minor_version_compatible_majors": [{"major": m, "floor": f} for m, f in answer.compatible_majors],
        "minor_version_floor_unknown_majors": list(answer.unknown_majors),
        "exit_code": exit_code,
    }
    return json.dumps(doc, indent=2) + "\n"
