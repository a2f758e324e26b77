"""Render smoke runs (text, JSON envelope, JUnit XML, Markdown) and fingerprint diffs."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any
from xml.etree import ElementTree as ET

from envguard.fingerprints import Difference, Fingerprint, FleetGroup
from envguard.formatters.base import RESULT_VERSION, finish
from envguard.smoke.base import SmokeRun, SmokeStatus

_STYLE = {
    SmokeStatus.PASSED: "green", SmokeStatus.FAILED: "bold red", SmokeStatus.ERROR: "bold red",
    SmokeStatus.TIMEOUT: "bold red", SmokeStatus.SKIPPED: "yellow",
}


def smoke_verdict(run: SmokeRun) -> str:
    """One line: how many cases passed, failed, were skipped."""
    counts = {s: sum(1 for r in run.results if r.status is s) for s in SmokeStatus}
    bad = counts[SmokeStatus.FAILED] + counts[SmokeStatus.ERROR] + counts[SmokeStatus.TIMEOUT]
    tail = (f"{counts[SmokeStatus.PASSED]} passed, {bad} failed, {counts[SmokeStatus.SKIPPED]} skipped "
            f"(level {run.level}, {run.wall_s:.1f}s)")
    if run.nothing_tested:
        why = "every case was skipped" if run.results else "no case was selected"
        return f"envguard smoke: FAIL — nothing was tested ({why}); {tail}"
    return f"envguard smoke: {'FAIL' if bad else 'OK'} — {tail}"


def _metric_summary(metrics: dict[str, float], limit: int = 4) -> str:
    items = list(metrics.items())[:limit]
    text = ", ".join(f"{k}={v:.3g}" for k, v in items)
    return text + (f" (+{len(metrics) - limit})" if len(metrics) > limit else "")


def smoke_text(run: SmokeRun, fingerprint: Fingerprint | None, *, color: bool = False, width: int = 100) -> str:
    """Verdict, a table of cases, and the fingerprint digest."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=width,
                      color_system="standard" if color else None, highlight=False, emoji=False)
    console.print(f"[bold]{escape(smoke_verdict(run))}[/]")
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("case", "status", "time", "device", "detail / metrics"):
        table.add_column(column, overflow="fold")
    for r in run.results:
        detail = r.detail or _metric_summary(dict(r.metrics))
        if r.detail and r.metrics:
            detail += f"; {_metric_summary(dict(r.metrics))}"
        if r.log and r.status.bad:
            detail += f"; full output: {r.log}"
        table.add_row(r.case, f"[{_STYLE[r.status]}]{r.status.value}[/]", f"{r.duration_s:.1f}s", r.device or "",
                      escape(detail))
    console.print(table)
    if fingerprint is not None:
        console.print(f"fingerprint: {fingerprint.label} (scheme {fingerprint.scheme}, "
                      f"{len(fingerprint.components)} components)")
    return finish(buffer)


def smoke_envelope(run: SmokeRun, fingerprint: Fingerprint | None, exit_code: int) -> dict[str, Any]:
    """The smoke JSON envelope."""
    return {
        "envguard_result_version": RESULT_VERSION,
        "command": "smoke",
        "level": run.level,
        "target_python": run.target_python,
        "wall_s": round(run.wall_s, 3),
        "results": [
            {"case": r.case, "status": r.status.value, "duration_s": round(r.duration_s, 3), "detail": r.detail,
             "metrics": dict(r.metrics), "digests": dict(r.digests), "device": r.device,
             "framework": r.framework, "returncode": r.returncode, "info": dict(r.info), "log": r.log}
            for r in run.results
        ],
        "nothing_tested": run.nothing_tested,
        "fingerprint": fingerprint.to_dict() if fingerprint else None,
        "exit_code": exit_code,
    }


def smoke_json(run: SmokeRun, fingerprint: Fingerprint | None, exit_code: int) -> str:
    """One JSON object."""
    return json.dumps(smoke_envelope(run, fingerprint, exit_code), indent=2) + "\n"


def smoke_junit(run: SmokeRun) -> str:
    """JUnit XML: one test case per smoke case (failed/error/timeout/skipped mapped to JUnit elements)."""
    suites = ET.Element("testsuites")
    suites.append(smoke_suite(run))
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def smoke_suite(run: SmokeRun) -> ET.Element:
    """The ``<testsuite>`` element of a smoke run."""
    bad = sum(1 for r in run.results if r.status in (SmokeStatus.FAILED, SmokeStatus.TIMEOUT))
    errors = sum(1 for r in run.results if r.status is SmokeStatus.ERROR)
    skipped = sum(1 for r in run.results if r.status is SmokeStatus.SKIPPED)
    suite = ET.Element("testsuite", name="envguard.smoke", tests=str(len(run.results)), failures=str(bad),
                       errors=str(errors), skipped=str(skipped), time=f"{run.wall_s:.3f}")
    for r in run.results:
        case = ET.SubElement(suite, "testcase", classname="envguard.smoke", name=r.case, time=f"{r.duration_s:.3f}")
        if r.status in (SmokeStatus.FAILED, SmokeStatus.TIMEOUT):
            ET.SubElement(case, "failure", message=r.detail or r.status.value, type=r.status.value)
        elif r.status is SmokeStatus.ERROR:
            ET.SubElement(case, "error", message=r.detail or "error", type="error")
        elif r.status is SmokeStatus.SKIPPED:
            ET.SubElement(case, "skipped", message=r.detail)
        if r.metrics:
            out = ET.SubElement(case, "system-out")
            out.text = json.dumps(dict(r.metrics), sort_keys=True)
    return suite


def smoke_markdown(run: SmokeRun, fingerprint: Fingerprint | None) -> str:
    """A Markdown summary for CI step summaries."""
    lines = [f"## {smoke_verdict(run)}", "", "| case | status | time | detail |", "| --- | --- | --- | --- |"]
    for r in run.results:
        lines.append(f"| {r.case} | {r.status.value} | {r.duration_s:.1f}s | {(r.detail or '').replace('|', '/')} |")
    if fingerprint is not None:
        lines += ["", f"Fingerprint: `{fingerprint.label}`"]
    return "\n".join(lines) + "\n"


def diff_text(a_name: str, b_name: str, differences: Sequence[Difference]) -> str:
    """Each differing component, old → new."""
    if not differences:
        return f"envguard fingerprint diff: identical ({a_name} = {b_name})\n"
    lines = [f"envguard fingerprint diff: {len(differences)} component(s) differ ({a_name} → {b_name})"]
    for d in differences:
        lines.append(f"  {d.component}: {d.left if d.left is not None else '(absent)'} → "
                     f"{d.right if d.right is not None else '(absent)'}")
        lines.extend(f"      {detail}" for detail in d.details)
    return "\n".join(lines) + "\n"


def fleet_text(groups: Sequence[FleetGroup]) -> str:
    """Groups of nodes by fingerprint, the largest first; outliers name what differs."""
    total = sum(len(g.members) for g in groups)
    lines = [f"envguard fingerprint diff: {total} nodes, {len(groups)} distinct fingerprint(s)"]
    for i, group in enumerate(groups):
        label = "majority" if i == 0 else "outlier" if len(group.members) == 1 else "minority"
        lines.append(f"  [{label}] {len(group.members)} node(s), sha256:{group.digest[:16]}…: "
                     + ", ".join(group.members))
        for d in group.differences:
            lines.append(f"      {d.component}: {d.left if d.left is not None else '(absent)'} → "
                         f"{d.right if d.right is not None else '(absent)'}")
            lines.extend(f"          {detail}" for detail in d.details)
    return "\n".join(lines) + "\n"


def diff_json(groups: Sequence[FleetGroup], exit_code: int) -> str:
    """The diff envelope (two files are a fleet of two)."""
    doc = {
        "envguard_result_version": RESULT_VERSION,
        "command": "fingerprint diff",
        "groups": [
            {"digest": g.digest, "members": list(g.members),
             "differences": [{"component": d.component, "majority": d.left, "this": d.right,
                              "details": list(d.details)} for d in g.differences]}
            for g in groups
        ],
        "exit_code": exit_code,
    }
    return json.dumps(doc, indent=2) + "\n"
