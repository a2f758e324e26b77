"""Render `envguard fleet report`: text (rich), one JSON envelope, and a self-contained HTML page with an SVG
chart of per-node perf (inline CSS, no scripts, no external resources)."""

from __future__ import annotations

import html
import io
import json
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from envguard._version import __version__
from envguard.fleet import INCOMPLETE, METRIC_LABELS, SKIPPED, DdpRun, FleetReport, NodePerf, Problem
from envguard.formatters.base import RESULT_VERSION, finish

#: Problems that share a message are listed once, with their files, beyond this many.
_COLLAPSE = 3


def fleet_verdict(report: FleetReport, exit_code: int) -> str:
    """One line: OK/FAIL and the counts."""
    if not report.readable:
        where = f" in {report.source}" if report.source else ""
        if not report.files:
            return f"envguard fleet report: NO RESULTS — no result files{where}"
        return f"envguard fleet report: NO RESULTS — none of the {report.files} file(s){where} could be read"
    outlier_nodes = len({o.node for o in report.outliers})
    bad_files = len({p.file for p in report.problems if p.kind != SKIPPED})
    status = "OK" if exit_code == 0 else "FAIL"
    text = (f"envguard fleet report: {status} — {len(report.nodes)} node(s) from {report.files} file(s), "
            f"{len(report.groups)} fingerprint(s), {outlier_nodes} outlier node(s), "
            f"{report.error_findings} error finding(s)")
    return text + (f", problems in {bad_files} file(s)" if bad_files else "")


def _majority_line(report: FleetReport) -> str:
    parts = []
    for kind, label in (("driver", "driver"), ("cudnn", "cuDNN")):
        value = report.majority.get(kind)
        known = [getattr(n, kind) for n in report.nodes if getattr(n, kind) is not None]
        if value is not None:
            parts.append(f"{label} {value} ({sum(1 for v in known if v == value)} of {len(known)})")
        elif known:
            parts.append(f"{label}: no majority")
    return "majority: " + ", ".join(parts) if parts else ""


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _grouped_problems(problems: Sequence[Problem]) -> list[tuple[str, str, list[str]]]:
    """(kind, message, files): messages shared by many files are listed once."""
    counts = Counter((p.kind, p.message) for p in problems)
    out: list[tuple[str, str, list[str]]] = []
    done: set[tuple[str, str]] = set()
    for p in problems:
        key = (p.kind, p.message)
        if counts[key] > _COLLAPSE:
            if key not in done:
                done.add(key)
                out.append((p.kind, p.message, [q.file for q in problems if (q.kind, q.message) == key]))
        else:
            out.append((p.kind, p.message, [p.file]))
    return out


def _ddp_cell(run: DdpRun | None) -> str:
    """One node's DDP smoke in a few words: "passed, world 2, weights 8703d50102767daf…"."""
    if run is None:
        return ""
    parts = [run.status] + ([f"world {run.world_size}"] if run.world_size is not None else [])
    if run.weights:
        parts.append(f"weights {run.weights[:16]}…")
    return ", ".join(parts)


def _ddp_rows(report: FleetReport) -> list[tuple[str, DdpRun]]:
    return [(n.node, n.ddp) for n in report.nodes if n.ddp is not None]


def _files(files: Sequence[str], limit: int = 6) -> str:
    return ", ".join(files[:limit]) + (f" (+{len(files) - limit} more)" if len(files) > limit else "")


def fleet_text(report: FleetReport, exit_code: int, *, color: bool = False, width: int = 110) -> str:
    """Verdict, majority facts, fingerprint groups, outliers, findings by node count, perf and problems."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=width,
                      color_system="standard" if color else None, highlight=False, emoji=False)

    def table(*columns: str) -> Table:
        t = Table(box=None, pad_edge=False, header_style="bold", show_edge=False)
        for c in columns:
            t.add_column(c, overflow="fold")
        return t

    style = "bold green" if exit_code == 0 else "bold red"
    console.print(f"[{style}]{escape(fleet_verdict(report, exit_code))}[/]")
    if report.readable and (line := _majority_line(report)):
        console.print(escape(line))
    if report.groups:
        console.print()
        console.print("[bold]Fingerprint groups[/]")
        for i, group in enumerate(report.groups):
            label = "largest" if i == 0 else "outlier" if len(group.members) == 1 else "minority"
            console.print(f"  {escape(f'[{label}]')} {len(group.members)} node(s), sha256 {group.digest[:16]}…: "
                          + escape(_files(group.members, 12)))
            for d in group.differences:
                console.print(f"      {escape(d.component)}: {escape(d.left if d.left is not None else '(absent)')}"
                              f" → {escape(d.right if d.right is not None else '(absent)')}")
    if report.outliers:
        console.print()
        console.print("[bold]Outliers[/]")
        t = table("node", "kind", "reason")
        for o in report.outliers:
            t.add_row(escape(o.node), o.kind, escape(o.reason))
        console.print(t)
    if report.findings:
        console.print()
        console.print("[bold]Findings by number of nodes[/]")
        t = table("nodes", "severity", "code", "message", "on")
        for f in report.findings:
            code = f.code + (f" ({f.subject})" if f.subject else "")
            sev = {"error": "bold red", "warning": "yellow"}.get(f.severity.label, "")
            t.add_row(str(len(f.nodes)), f"[{sev}]{f.severity.label}[/]" if sev else f.severity.label, escape(code),
                      escape(f.message), escape(_files(f.nodes)))
        console.print(t)
    if ddp_rows := _ddp_rows(report):
        console.print()
        console.print("[bold]Multi-node DDP smoke[/] (one run across the nodes: every node ends with the same weights)")
        t = table("node", "status", "world", "weights sha256", "detail")
        for node, run in ddp_rows:
            tone = "green" if run.status == "passed" else "bold red"
            t.add_row(escape(node), f"[{tone}]{escape(run.status)}[/]",
                      str(run.world_size) if run.world_size is not None else "",
                      f"{run.weights[:16]}…" if run.weights else "", escape(run.detail))
        console.print(t)
    if report.perf and report.perf_metric:
        metric = report.perf_metric
        console.print()
        console.print(f"[bold]Perf: {METRIC_LABELS[metric]}[/] (outlier below {report.perf_threshold:.0%} of the "
                      "median of its GPU-model peers)")
        slow = {o.node for o in report.outliers if o.kind == "perf"}
        t = table("node", "gpu", METRIC_LABELS[metric], "peer median", "vs peers", "% of peak")
        for p in report.perf:
            ratio = p.ratio(metric)
            pct = p.metrics.get(f"pct_of_peak_{metric}")
            mark = "[bold red]" if p.node in slow else ""
            t.add_row(f"{mark}{escape(p.node)}{'[/]' if mark else ''}", escape(p.gpu), _fmt(p.metrics.get(metric)),
                      _fmt(p.peer_medians.get(metric)), f"{ratio:.0%}" if ratio is not None else "",
                      f"{pct:.0f}%" if pct is not None else "")
        console.print(t)
    if report.problems:
        console.print()
        console.print("[bold]Problems per file[/]" + (" (the rest of the report is still complete)"
                                                       if report.readable else ""))
        t = table("file(s)", "kind", "problem")
        for kind, message, files in _grouped_problems(report.problems):
            tone = "yellow" if kind == INCOMPLETE else "dim" if kind == SKIPPED else "red"
            t.add_row(escape(_files(files)), f"[{tone}]{kind}[/]", escape(message))
        console.print(t)
    return finish(buffer)


def fleet_dict(report: FleetReport, exit_code: int) -> dict[str, Any]:
    """The fleet report envelope."""
    metric = report.perf_metric
    return {
        "envguard_result_version": RESULT_VERSION,
        "command": "fleet report",
        "source": report.source,
        "summary": {
            "files": report.files, "nodes": len(report.nodes), "fingerprints": len(report.groups),
            "outlier_nodes": len({o.node for o in report.outliers}), "error_findings": report.error_findings,
            "problem_files": len({p.file for p in report.problems if p.kind != SKIPPED}),
            "uniform": report.uniform, "ok": report.ok,
        },
        "majority": dict(report.majority),
        "groups": [
            {"digest": g.digest, "members": list(g.members),
             "differences": [{"component": d.component, "majority": d.left, "this": d.right} for d in g.differences]}
            for g in report.groups
        ],
        "outliers": [{"node": o.node, "kind": o.kind, "reason": o.reason, "value": o.value, "expected": o.expected}
                     for o in report.outliers],
        "findings": [{"code": f.code, "severity": f.severity.label, "subject": f.subject, "origin": f.origin,
                      "message": f.message, "count": len(f.nodes), "nodes": list(f.nodes)} for f in report.findings],
        "perf": {
            "metric": metric, "label": METRIC_LABELS.get(metric or "", None), "threshold": report.perf_threshold,
            "nodes": [{"node": p.node, "gpu": p.gpu, "metrics": dict(p.metrics), "peer_medians": dict(p.peer_medians),
                       "ratio": p.ratio(metric) if metric else None} for p in report.perf],
        },
        "nodes": [
            {"node": n.node, "files": list(n.files), "kind": n.kind, "driver": n.driver, "cudnn": n.cudnn,
             "gpu": n.gpu, "fingerprint": n.fingerprint.digest if n.fingerprint else None,
             "findings": len(n.findings), "exit_code": n.exit_code,
             "ddp": {"status": n.ddp.status, "detail": n.ddp.detail, "world_size": n.ddp.world_size,
                     "weights": n.ddp.weights, "digests": dict(n.ddp.digests), "file": n.ddp.file}
             if n.ddp is not None else None,
             "envguard_version": n.snapshot.envguard_version if n.snapshot is not None else None}
            for n in report.nodes
        ],
        "problems": [{"file": p.file, "kind": p.kind, "message": p.message, "node": p.node} for p in report.problems],
        "exit_code": exit_code,
    }


def fleet_json(report: FleetReport, exit_code: int) -> str:
    """One JSON object and a newline."""
    return json.dumps(fleet_dict(report, exit_code), indent=2) + "\n"


# ---- HTML ------------------------------------------------------------------------------------------

_CSS = """
:root { --fg: #1f2933; --muted: #616e7c; --line: #d9e2ec; --ok: #2f855a; --bad: #c53030; --warn: #b7791f;
        --bar: #2b6cb0; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg);
       margin: 0 auto; padding: 24px 32px 48px; max-width: 1180px; background: #fff; }
h1 { font-size: 22px; margin: 0 0 6px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.verdict { font-size: 15px; font-weight: 600; padding: 8px 12px; border-radius: 6px; display: inline-block; }
.verdict.ok { background: #e6f4ea; color: var(--ok); }
.verdict.fail { background: #fdecea; color: var(--bad); }
.muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 10px 4px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; }
.sev-error, .kind-unreadable { color: var(--bad); font-weight: 600; }
.sev-warning, .kind-incomplete { color: var(--warn); font-weight: 600; }
.sev-info, .kind-skipped { color: var(--muted); }
.ok { color: var(--ok); font-weight: 600; }
svg text { font: 12px system-ui, "DejaVu Sans", sans-serif; fill: var(--fg); }
svg .group { font-weight: 600; }
footer { margin-top: 36px; color: var(--muted); font-size: 12px; }
"""

_E = html.escape


def _nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    exp = 10.0 ** math.floor(math.log10(value))
    return next(m * exp for m in (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0) if m * exp >= value)


def perf_svg(report: FleetReport) -> str:
    """A horizontal bar per node (grouped by GPU model) of the charted perf metric; outliers in red, with a
    dashed tick at the threshold fraction of each node's peer median."""
    metric = report.perf_metric
    rows = [p for p in report.perf if metric and metric in p.metrics]
    if not metric or not rows:
        return ""
    slow = {o.node for o in report.outliers if o.kind == "perf"}
    width, left, right, row_h, top = 1100, 300, 190, 26, 34
    plot = width - left - right
    gpus: list[str] = []
    for p in rows:
        if p.gpu not in gpus:
            gpus.append(p.gpu)
    height = top + (len(rows) + len(gpus)) * row_h + 16
    scale_max = _nice_max(max(max(p.metrics[metric], p.peer_medians.get(metric, 0.0)) for p in rows))
    label = METRIC_LABELS[metric]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="perf-chart" role="img" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" aria-label="{_E(label)} per node">',
           f"<title>{_E(label)} per node</title>"]
    for i in range(6):
        value = scale_max * i / 5
        x = left + plot * i / 5
        out.append(f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{height - 10}" stroke="#e4e7eb"/>')
        out.append(f'<text x="{x:.1f}" y="{top - 12}" text-anchor="middle" fill="#616e7c">{value:g}</text>')
    y = top
    for gpu in gpus:
        members = [p for p in rows if p.gpu == gpu]
        out.append(f'<text class="group" x="8" y="{y + 17}">{_E(gpu)} ({len(members)} node(s))</text>')
        y += row_h
        for p in members:
            value = p.metrics[metric]
            bar = max(plot * value / scale_max, 1.0)
            is_slow = p.node in slow
            ratio = p.ratio(metric)
            note = f"{value:.1f}" + (f" ({ratio:.0%} of peers)" if ratio is not None else "")
            fill = "#c53030" if is_slow else "#2b6cb0"
            out.append(f'<text x="{left - 10}" y="{y + 17}" text-anchor="end">{_E(p.node)}</text>')
            out.append(f'<rect class="bar{" outlier" if is_slow else ""}" data-node="{_E(p.node)}" x="{left}" '
                       f'y="{y + 4}" width="{bar:.1f}" height="{row_h - 8}" rx="3" fill="{fill}">'
                       f"<title>{_E(p.node)} ({_E(gpu)}): {_E(note)}</title></rect>")
            median = p.peer_medians.get(metric)
            label_x = left + bar + 6
            if median:
                tx = left + plot * median * report.perf_threshold / scale_max
                label_x = max(label_x, tx + 6)
                out.append(f'<line class="threshold" x1="{tx:.1f}" y1="{y + 1}" x2="{tx:.1f}" y2="{y + row_h - 1}" '
                           f'stroke="#1f2933" stroke-width="1.5" stroke-dasharray="3 2"><title>'
                           f"{report.perf_threshold:.0%} of the peer median {median:.1f}</title></line>")
            colour = ' fill="#c53030"' if is_slow else ""
            out.append(f'<text x="{label_x:.1f}" y="{y + 17}"{colour}>{_E(note)}</text>')
            y += row_h
    out.append("</svg>")
    return "\n".join(out)


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[int] = ()) -> str:
    """Rows are already-escaped HTML cells."""
    head = "".join(f"<th>{_E(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def fleet_html(report: FleetReport, exit_code: int) -> str:
    """A self-contained page: verdict, perf chart, outliers, groups, findings, nodes and problems."""
    verdict = fleet_verdict(report, exit_code)
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>envguard fleet report{' — ' + _E(report.source) if report.source else ''}</title>",
             f"<style>{_CSS}</style>", "</head>", "<body>", "<header>", "<h1>envguard fleet report</h1>",
             f'<p class="verdict {"ok" if exit_code == 0 else "fail"}" id="verdict">{_E(verdict)}</p>']
    if report.readable and (line := _majority_line(report)):
        parts.append(f'<p class="muted">{_E(line)}</p>')
    parts.append("</header>")
    metric = report.perf_metric
    parts.append('<section id="perf">')
    if metric and report.perf:
        parts.append(f"<h2>Per-node perf: {_E(METRIC_LABELS[metric])}</h2>")
        parts.append(f'<p class="muted">Bars in red are below {report.perf_threshold:.0%} of the median of their '
                     "GPU-model peers (the other nodes with the same GPU); the dashed tick marks that threshold.</p>")
        parts.append(perf_svg(report))
    else:
        parts.append("<h2>Per-node perf</h2><p class=\"muted\">No node reported a passing perf smoke case "
                     "(run <code>envguard preflight</code> or <code>envguard smoke</code> on GPU nodes).</p>")
    parts.append("</section>")
    parts.append('<section id="outliers"><h2>Outliers</h2>')
    if report.outliers:
        parts.append(_table(("node", "kind", "reason"),
                            [(_E(o.node), _E(o.kind), _E(o.reason)) for o in report.outliers]))
    else:
        parts.append('<p class="muted">None.</p>')
    parts.append("</section>")
    parts.append('<section id="groups"><h2>Fingerprint groups</h2>')
    if report.groups:
        rows = []
        for i, g in enumerate(report.groups):
            diffs = "<br>".join(f"<code>{_E(d.component)}</code>: {_E(d.left if d.left is not None else '(absent)')}"
                                f" → {_E(d.right if d.right is not None else '(absent)')}" for d in g.differences)
            rows.append((str(len(g.members)), f"<code>{_E(g.digest[:16])}…</code>" + (" (largest)" if i == 0 else ""),
                         _E(", ".join(g.members)), diffs))
        parts.append(_table(("nodes", "sha256", "members", "differs from the largest group"), rows, (0,)))
    else:
        parts.append('<p class="muted">No node had a fingerprint.</p>')
    parts.append("</section>")
    parts.append('<section id="findings"><h2>Findings by number of nodes</h2>')
    if report.findings:
        parts.append(_table(("nodes", "severity", "code", "message", "on"), [
            (str(len(f.nodes)), f'<span class="sev-{_E(f.severity.label)}">{_E(f.severity.label)}</span>',
             f"<code>{_E(f.code)}</code>" + (f" ({_E(f.subject)})" if f.subject else ""), _E(f.message),
             _E(_files(f.nodes, 12))) for f in report.findings], (0,)))
    else:
        parts.append('<p class="muted">None.</p>')
    parts.append("</section>")
    if report.nodes:
        parts.append('<section id="nodes"><h2>Nodes</h2>')
        perf: dict[str, NodePerf] = {p.node: p for p in report.perf}
        parts.append(_table(("node", "driver", "cuDNN", "GPU", "fingerprint", "findings",
                             METRIC_LABELS[metric] if metric else "perf", "DDP", "file"), [
            (_E(n.node), _E(n.driver or "?"), _E(n.cudnn or "?"), _E(n.gpu or "?"),
             f"<code>{_E(n.fingerprint.digest[:12])}</code>" if n.fingerprint else "?", str(len(n.findings)),
             _fmt(perf[n.node].metrics.get(metric)) if metric and n.node in perf else "",
             _E(_ddp_cell(n.ddp)), _E(", ".join(n.files))) for n in report.nodes], (5, 6)))
        parts.append("</section>")
    if ddp_rows := _ddp_rows(report):
        parts.append('<section id="ddp"><h2>Multi-node DDP smoke</h2>')
        parts.append('<p class="muted">One DDP run across the nodes: every node that finished it holds the same '
                     "weights.</p>")
        parts.append(_table(("node", "status", "world", "weights sha256", "detail"), [
            (_E(node), f'<span class="{"ok" if run.status == "passed" else "sev-error"}">{_E(run.status)}</span>',
             str(run.world_size) if run.world_size is not None else "",
             f"<code>{_E(run.weights[:16])}…</code>" if run.weights else "", _E(run.detail))
            for node, run in ddp_rows], (2,)))
        parts.append("</section>")
    parts.append('<section id="problems"><h2>Problems per file</h2>')
    if report.problems:
        parts.append(_table(("file(s)", "kind", "problem"), [
            (_E(_files(files, 12)), f'<span class="kind-{_E(kind)}">{_E(kind)}</span>', _E(message))
            for kind, message, files in _grouped_problems(report.problems)]))
    else:
        parts.append('<p class="muted">None: every file was read.</p>')
    parts.append("</section>")
    parts.append(f"<footer>envguard {_E(__version__)} · exit code {exit_code} · perf threshold "
                 f"{report.perf_threshold:.0%} of the GPU-model peer median</footer>")
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"
