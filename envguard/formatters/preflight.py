"""Render `envguard preflight`: the per-node JSON result, JUnit XML, the Markdown summary, GitHub annotations
and the short text verdict."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from envguard.formatters.base import RESULT_VERSION
from envguard.formatters.json import envelope as check_envelope
from envguard.formatters.json import finding_dict
from envguard.formatters.lockfiles import verify_dict
from envguard.formatters.markdown import MarkdownFormatter
from envguard.formatters.smoke import smoke_envelope, smoke_markdown, smoke_suite
from envguard.preflight import PreflightResult
from envguard.smoke.base import SmokeStatus


def preflight_dict(result: PreflightResult) -> dict[str, Any]:
    """preflight.json: one node's whole result (what `envguard fleet report` reads)."""
    report = result.report
    smoke_code = 4 if result.smoke is not None and result.smoke.failed else 0
    return {
        "envguard_result_version": RESULT_VERSION,
        "command": "preflight",
        "node": result.node,
        "exit_code": result.exit_code,
        "fail_on": result.fail_on.label,
        "steps": [{"step": s.step, "status": s.status, "detail": s.detail, "duration_s": round(s.duration_s, 3)}
                  for s in result.steps],
        "skipped": [{"step": s.step, "reason": s.detail} for s in result.steps if s.status == "skipped"],
        "check": (check_envelope(report, command="check", exit_code=report.exit_code(result.fail_on))
                  if report is not None else None),
        "verify": verify_dict(result.verify, 0 if result.verify.ok else 1) if result.verify is not None else None,
        "smoke": smoke_envelope(result.smoke, None, smoke_code) if result.smoke is not None else None,
        "fingerprint": result.fingerprint.to_dict() if result.fingerprint is not None else None,
        "duration_s": round(result.wall_s, 3),
    }


def preflight_json(result: PreflightResult) -> str:
    """One JSON object and a newline."""
    return json.dumps(preflight_dict(result), indent=2) + "\n"


def preflight_junit(result: PreflightResult) -> str:
    """JUnit XML: a suite per step; a test case per finding, per drift and per smoke case."""
    suites = ET.Element("testsuites", name=f"envguard preflight {result.node}")
    for step in result.steps:
        if step.status != "ran":
            suite = ET.SubElement(suites, "testsuite", name=f"envguard.{step.step.split()[0]}", tests="1",
                                  failures="0", errors="1" if step.status == "error" else "0",
                                  skipped="1" if step.status == "skipped" else "0", time=f"{step.duration_s:.3f}")
            case = ET.SubElement(suite, "testcase", classname=f"envguard.{step.step.split()[0]}", name=step.step)
            ET.SubElement(case, "error" if step.status == "error" else "skipped", message=step.detail)
    report = result.report
    if report is not None:
        bad = [f for f in report.findings if f.severity >= result.fail_on]
        suite = ET.SubElement(suites, "testsuite", name="envguard.check", tests=str(max(len(report.findings), 1)),
                              failures=str(len(bad)), errors="0", skipped="0")
        if not report.findings:
            ET.SubElement(suite, "testcase", classname="envguard.check", name="no findings")
        for f in report.findings:
            case = ET.SubElement(suite, "testcase", classname=f"envguard.check.{f.severity.label}",
                                 name=f"{f.code}: {f.subject or ''}".rstrip(": "))
            body = json.dumps(finding_dict(f), indent=2)
            if f.severity >= result.fail_on:
                fail = ET.SubElement(case, "failure", message=f.message, type=f.code)
                fail.text = body
            else:
                out = ET.SubElement(case, "system-out")
                out.text = body
    v = result.verify
    if v is not None:
        suite = ET.SubElement(suites, "testsuite", name="envguard.verify", tests=str(max(len(v.drifts), 1)),
                              failures=str(len(v.drifts)), errors="0", skipped="0")
        if v.ok:
            ET.SubElement(suite, "testcase", classname="envguard.verify", name=f"matches {v.lock_name}")
        for d in v.drifts:
            case = ET.SubElement(suite, "testcase", classname=f"envguard.verify.{d.kind}", name=d.name)
            ET.SubElement(case, "failure", message=d.detail, type=d.kind)
    if result.smoke is not None:
        suites.append(smoke_suite(result.smoke))
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def preflight_verdict(result: PreflightResult) -> str:
    """One line: OK/FAILED and what each step found."""
    parts = []
    for s in result.steps:
        if s.status == "skipped":
            parts.append(f"{s.step} skipped: {s.detail}")
        elif s.status == "error":
            parts.append(f"{s.step} could not run: {s.detail}")
    if result.report is not None:
        r = result.report
        parts.insert(0, f"check: {len(r.findings)} finding(s), worst "
                        f"{r.worst.label if r.worst is not None else 'none'}")
    if result.verify is not None:
        parts.append("verify: " + ("matches the lock" if result.verify.ok else
                                   f"{len(result.verify.drifts)} drift(s)"))
    if result.smoke is not None:
        bad = [x.case for x in result.smoke.results if x.status.bad]
        passed = sum(1 for x in result.smoke.results if x.status is SmokeStatus.PASSED)
        skipped = sum(1 for x in result.smoke.results if x.status is SmokeStatus.SKIPPED)
        ok = "nothing was tested" if result.smoke.nothing_tested else f"{passed} case(s) ok"
        parts.append("smoke: " + (f"failed {', '.join(bad)}" if bad else ok)
                     + (f", {skipped} skipped" if skipped else ""))
    head = "OK" if result.exit_code == 0 else "FAILED"
    return f"envguard preflight on {result.node}: {head} (exit {result.exit_code}) — " + "; ".join(parts)


def preflight_markdown(result: PreflightResult) -> str:
    """The CI step summary: verdict, then each step's own Markdown."""
    lines = [f"# {preflight_verdict(result)}", ""]
    for s in result.steps:
        if s.status != "ran":
            lines.append(f"- **{s.step}**: {s.status} — {s.detail}")
    if result.report is not None:
        lines += ["", MarkdownFormatter().format(result.report, command="preflight: check",
                                                 exit_code=result.report.exit_code(result.fail_on))]
    if result.verify is not None:
        v = result.verify
        lines += ["", f"## verify: {'matches' if v.ok else 'drifted from'} `{v.lock_name}`", ""]
        lines += [f"- `{d.kind}` **{d.name}**: {d.detail}" for d in v.drifts] or ["No drift."]
    if result.smoke is not None:
        lines += ["", smoke_markdown(result.smoke, None)]  # NOTE: the fingerprint once, below
    if result.fingerprint is not None:
        lines += ["", f"Fingerprint: `{result.fingerprint.label}`"]
    return "\n".join(lines).rstrip("\n") + "\n"


def _escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_annotations(result: PreflightResult) -> list[str]:
    """GitHub Actions workflow commands (::error / ::warning / ::notice) for findings, drift and smoke failures."""
    out = []
    level = {"error": "error", "warning": "warning", "info": "notice"}
    if result.report is not None:
        for f in result.report.findings:
            out.append(f"::{level[f.severity.label]} title=envguard {f.code}::{_escape(f.message)}"
                       + (_escape(f"\nFix: {f.fix}") if f.fix else ""))
    if result.verify is not None:
        out += [f"::error title=envguard verify {d.kind}::{_escape(d.detail)}" for d in result.verify.drifts]
    if result.smoke is not None:
        out += [f"::error title=envguard smoke {r.case}::{_escape(r.detail or r.status.value)}"
                for r in result.smoke.results if r.status.bad]
        if result.smoke.nothing_tested:
            out.append("::error title=envguard smoke::nothing was tested (every case was skipped)")
    out += [f"::error title=envguard preflight {s.step}::{_escape(s.detail)}"
            for s in result.steps if s.status == "error"]
    out += [f"::notice title=envguard preflight {s.step}::{_escape(s.detail)}"
            for s in result.steps if s.status == "skipped"]
    return out
