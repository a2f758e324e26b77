"""`envguard fleet report`: grouping, findings by node count, outliers, bad input per file, text/JSON/HTML, and
the HTML page in a real headless browser."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import struct
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from envguard import _subprocess
from envguard.cli import main
from envguard.findings import Finding, Report, Severity
from envguard.fingerprints import fingerprint_of
from envguard.fleet import (
    INCOMPLETE,
    READS_RESULT_VERSION,
    SKIPPED,
    UNREADABLE,
    parse_result,
    read_results,
)
from envguard.formatters.base import RESULT_VERSION
from envguard.formatters.fleet import fleet_html
from envguard.formatters.json import envelope
from envguard.formatters.preflight import preflight_dict
from envguard.formatters.smoke import smoke_envelope
from envguard.preflight import PreflightResult, StepOutcome
from envguard.smoke.base import SmokeResult, SmokeRun, SmokeStatus
from envguard.snapshot import ComponentVersion, Snapshot
from tests.fakes import gpu, make_snapshot, torch_build

H100 = "NVIDIA H100 80GB HBM3"
A100 = "NVIDIA A100-SXM4-80GB"


def snap(driver: str = "550.90.07", cudnn: str | None = "9.1.0", gpu_name: str = H100) -> Snapshot:
    s = make_snapshot(driver=driver, cuda_driver="12.4", gpus=[gpu(gpu_name, "9.0" if gpu_name == H100 else "8.0")],
                      frameworks=[torch_build("2.5.1+cu124", "12.4", "9.1.0")])
    if cudnn is None:
        return s
    return dataclasses.replace(s, cudnn=(ComponentVersion(cudnn, "wheel nvidia-cudnn-cu12"),))


def finding(code: str = "toolkit-mismatch", severity: Severity = Severity.WARNING, subject: str = "torch") -> Finding:
    return Finding(code, severity, f"{code} on this node", (), "fix it", subject=subject)


def run(tflops: float | None = 700.0, gpu_name: str = H100, perf_status: SmokeStatus = SmokeStatus.PASSED,
        amp: SmokeStatus = SmokeStatus.PASSED) -> SmokeRun:
    metrics = {} if tflops is None else {"tflops_bf16": tflops, "tflops_fp32": tflops / 14, "d2d_GBps": 2800.0,
                                         "pct_of_peak_tflops_bf16": 100 * tflops / 989.4}
    detail = f"{gpu_name} (sm_90, 132 SMs): matmul 2048x2048 TFLOP/s bf16 {tflops}" if tflops else ""
    return SmokeRun(1, "/venv/bin/python", (
        SmokeResult("amp", amp, 1.0, "" if amp is SmokeStatus.PASSED else "loss is NaN", device="cuda:0"),
        SmokeResult("perf", perf_status, 2.0, detail, metrics, device="cuda:0"),
    ), 3.0)


def check_doc(s: Snapshot, findings: tuple[Finding, ...] = (), hostname: str | None = None) -> dict[str, Any]:
    report = Report(s, findings)
    doc = envelope(report, command="check", exit_code=report.exit_code(Severity.ERROR))
    if hostname is not None:
        doc["snapshot"]["host"]["hostname"] = hostname
    return doc


def smoke_doc(r: SmokeRun, s: Snapshot | None = None) -> dict[str, Any]:
    return smoke_envelope(r, fingerprint_of(s or snap(), r), 4 if r.failed else 0)


def preflight_doc(node: str, s: Snapshot | None = None, r: SmokeRun | None = None,
                  findings: tuple[Finding, ...] = ()) -> dict[str, Any]:
    s = s or snap()
    report = Report(s, findings)
    steps = (StepOutcome("check", "ran"), *((StepOutcome("smoke 1", "ran"),) if r else ()))
    result = PreflightResult(node, steps, report, None, r, fingerprint_of(s, r), Severity.ERROR, 12.5)
    return preflight_dict(result)


def write(folder: Path, name: str, doc: Any) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, indent=2), encoding="utf-8")
    return path


def cli(*args: str) -> tuple[int, str, Any]:
    result = CliRunner().invoke(main, ["fleet", "report", *args])
    doc = None
    if "--format" in args and args[args.index("--format") + 1] == "json" and "-o" not in args:
        doc = json.loads(result.output)
    return result.exit_code, result.output, doc


def uniform_fleet(folder: Path, n: int = 3) -> None:
    for i, tflops in zip(range(n), (700.0, 690.0, 712.0, 705.0), strict=False):
        write(folder, f"node{i}/preflight.json", preflight_doc(f"gpu-node-{i}", r=run(tflops)))


# ---- the fleet ---------------------------------------------------------------------------------


def test_result_version_matches_the_formatters() -> None:
    assert READS_RESULT_VERSION == RESULT_VERSION


def test_uniform_fleet_exits_0(tmp_path: Path) -> None:
    uniform_fleet(tmp_path)
    code, out, _ = cli(str(tmp_path), "--no-color")
    assert code == 0, out
    assert out.startswith("envguard fleet report: OK — 3 node(s) from 3 file(s), 1 fingerprint(s), 0 outlier")
    assert "majority: driver 550.90.07 (3 of 3), cuDNN 9.1.0 (3 of 3)" in out
    assert "gpu-node-0" in out and "Problems" not in out and "Outliers" not in out


def test_groups_and_driver_cudnn_outliers(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        write(tmp_path, f"{name}.json", preflight_doc(name))
    write(tmp_path, "d.json", preflight_doc("d", snap(driver="535.54.03")))
    write(tmp_path, "e.json", preflight_doc("e", snap(cudnn="8.9.7")))
    code, _, doc = cli(str(tmp_path), "--format", "json")
    assert code == 1
    assert doc["command"] == "fleet report" and doc["exit_code"] == 1
    assert [g["members"] for g in doc["groups"]] == [["a", "b", "c"], ["d"], ["e"]]
    assert doc["groups"][1]["differences"] == [{"component": "driver", "majority": "550.90.07", "this": "535.54.03"}]
    kinds = {(o["node"], o["kind"]) for o in doc["outliers"]}
    assert kinds == {("d", "fingerprint"), ("d", "driver"), ("e", "fingerprint"), ("e", "cudnn")}
    driver = next(o for o in doc["outliers"] if o["kind"] == "driver")
    assert driver["value"] == "535.54.03" and driver["expected"] == "550.90.07"
    assert "the majority (4 of 5 nodes) has 550.90.07" in driver["reason"]
    assert doc["majority"] == {"driver": "550.90.07", "cudnn": "9.1.0"}
    assert doc["summary"]["outlier_nodes"] == 2 and doc["summary"]["fingerprints"] == 3
    code, text, _ = cli(str(tmp_path), "--no-color")
    assert code == 1 and "driver: 550.90.07 → 535.54.03" in text and "cuDNN 8.9.7, the majority" in text
    assert "[largest] 3 node(s)" in text and "[outlier] 1 node(s)" in text


def test_an_even_split_has_no_majority(tmp_path: Path) -> None:
    write(tmp_path, "a.json", preflight_doc("a"))
    write(tmp_path, "b.json", preflight_doc("b", snap(driver="535.54.03")))
    code, _, doc = cli(str(tmp_path), "--format", "json")
    assert code == 1
    assert doc["majority"]["driver"] is None
    drivers = [o for o in doc["outliers"] if o["kind"] == "driver"]
    assert {o["node"] for o in drivers} == {"a", "b"}
    assert all("split with no majority" in o["reason"] for o in drivers)
    assert all("no fingerprint has a majority" in o["reason"] for o in doc["outliers"] if o["kind"] == "fingerprint")


def test_findings_are_listed_by_node_count(tmp_path: Path) -> None:
    warn = finding()
    err = finding("driver-too-old", Severity.ERROR, "driver")
    write(tmp_path, "a.json", preflight_doc("a", findings=(warn,)))
    write(tmp_path, "b.json", preflight_doc("b", findings=(warn, err)))
    write(tmp_path, "c.json", preflight_doc("c", findings=(warn,), r=run(amp=SmokeStatus.FAILED)))
    write(tmp_path, "d.json", check_doc(snap(), (warn,), hostname="d-host"))
    code, _, doc = cli(str(tmp_path), "--format", "json")
    counts = [(f["code"], f["subject"], f["count"], f["nodes"]) for f in doc["findings"]]
    assert counts == [("toolkit-mismatch", "torch", 4, ["a", "b", "c", "d-host"]),
                      ("driver-too-old", "driver", 1, ["b"]), ("smoke-failed", "amp", 1, ["c"])]
    assert doc["findings"][2]["message"] == "smoke case amp failed: loss is NaN"
    assert doc["summary"]["error_findings"] == 2
    assert code == 1  # uniform environments, but error findings


def test_warnings_alone_keep_exit_0(tmp_path: Path) -> None:
    for name in ("a", "b"):
        write(tmp_path, f"{name}.json", preflight_doc(name, findings=(finding(),)))
    assert cli(str(tmp_path))[0] == 0


def test_verify_drift_is_an_error_finding(tmp_path: Path) -> None:
    doc = preflight_doc("a")
    doc["verify"] = {"envguard_result_version": 1, "command": "verify", "lock": "envguard.lock.json", "ok": False,
                     "drift": [{"kind": "different", "name": "torch", "locked": "2.5.1", "installed": "2.4.0",
                                "detail": "x"}], "exit_code": 1}
    write(tmp_path, "a.json", doc)
    code, _, out = cli(str(tmp_path), "--format", "json")
    assert code == 1
    assert out["findings"][0]["code"] == "verify-drift" and "torch" in out["findings"][0]["message"]


def test_perf_outlier_against_gpu_model_peers(tmp_path: Path) -> None:
    for name, tflops in (("h1", 700.0), ("h2", 705.0), ("h3", 690.0), ("h4", 420.0)):
        write(tmp_path, f"{name}.json", preflight_doc(name, r=run(tflops)))
    # A100s are slower than H100s but are only compared with each other
    for name, tflops in (("a1", 280.0), ("a2", 275.0)):
        write(tmp_path, f"{name}.json", preflight_doc(name, snap(gpu_name=A100), run(tflops, A100)))
    code, _, doc = cli(str(tmp_path), "--format", "json")
    assert code == 1
    perf = [o for o in doc["outliers"] if o["kind"] == "perf"]
    assert [o["node"] for o in perf] == ["h4"]
    assert perf[0]["value"] == "420.0" and perf[0]["expected"] == "700.0"
    assert perf[0]["reason"] == ("bf16 matmul TFLOP/s 420.0 is 60% of the peer median 700.0; fp32 matmul TFLOP/s "
                                 "30.0 is 60% of the peer median 50.0 (3 other NVIDIA H100 80GB HBM3 node(s); "
                                 "threshold 80%)")
    assert doc["perf"]["metric"] == "tflops_bf16" and doc["perf"]["threshold"] == 0.8
    by_node = {p["node"]: p for p in doc["perf"]["nodes"]}
    assert by_node["a2"]["gpu"] == A100 and by_node["a2"]["ratio"] == pytest.approx(275 / 280)
    assert by_node["h4"]["metrics"]["tflops_bf16"] == 420.0
    # a lower threshold names no perf outlier
    code, text, doc = cli(str(tmp_path), "--format", "json", "--perf-threshold", "50")
    assert not [o for o in doc["outliers"] if o["kind"] == "perf"]
    code, text, _ = cli(str(tmp_path), "--no-color")
    assert "Perf: bf16 matmul TFLOP/s" in text and "60%" in text


def test_check_and_smoke_files_of_one_node_are_merged(tmp_path: Path) -> None:
    write(tmp_path, "n1/check.json", check_doc(snap()))
    write(tmp_path, "n1/smoke.json", smoke_doc(run(700.0)))
    write(tmp_path, "n2/check.json", check_doc(snap()))
    write(tmp_path, "n2/smoke.json", smoke_doc(run(698.0)))
    write(tmp_path, "lonely-smoke.json", smoke_doc(run(300.0)))
    code, _, doc = cli(str(tmp_path), "--format", "json")
    nodes = {n["node"]: n for n in doc["nodes"]}
    assert nodes["n1"]["kind"] == "check+smoke" and nodes["n1"]["files"] == ["n1/check.json", "n1/smoke.json"]
    assert nodes["lonely-smoke"]["driver"] is None and nodes["lonely-smoke"]["gpu"] == H100  # from the perf detail
    problems = {(p["file"], p["kind"]) for p in doc["problems"]}
    assert ("lonely-smoke.json", INCOMPLETE) in problems and ("n1/smoke.json", SKIPPED) in problems
    assert [o["node"] for o in doc["outliers"] if o["kind"] == "perf"] == ["lonely-smoke"]
    assert code == 1


def test_duplicate_node_names_are_kept_apart(tmp_path: Path) -> None:
    write(tmp_path, "x.json", preflight_doc("same"))
    write(tmp_path, "y.json", preflight_doc("same"))
    _, _, doc = cli(str(tmp_path), "--format", "json")
    assert [n["node"] for n in doc["nodes"]] == ["same [x.json]", "same [y.json]"]
    assert all("also in" in p["message"] for p in doc["problems"])


# ---- the multi-node DDP smoke (<node>/ddp/smoke.json, as the fleet launchers write it) --------------------

WEIGHTS = "8703d50102767daf2bd4daa24ebe31c0fbc8abf69d30b67fc868162f72c67c9e"


def ddp_doc(status: SmokeStatus = SmokeStatus.PASSED, weights: str = WEIGHTS, world: int = 2) -> dict[str, Any]:
    detail = f"gloo, world {world}, 1 step(s): parameters identical across ranks" if status is SmokeStatus.PASSED \
        else "distributed run failed (gloo, rank 0): peer closed the connection"
    r = SmokeRun(1, "/venv/bin/python", (SmokeResult(
        "ddp", status, 9.0, detail, {"world_size": float(world)},
        {"weights[float32,cpu]": weights} if status is SmokeStatus.PASSED else {}, device="cpu"),), 9.0)
    return smoke_doc(r)


def ddp_fleet(folder: Path, nodes: int = 2, **ddp: Any) -> None:
    for i in range(1, nodes + 1):
        write(folder, f"node{i}/preflight.json", preflight_doc(f"node{i}", r=run(700.0 + i)))
        write(folder, f"node{i}/ddp/smoke.json", ddp_doc(**ddp))


def test_each_node_s_ddp_result_joins_the_node(tmp_path: Path) -> None:
    ddp_fleet(tmp_path)
    code, out, doc = cli(str(tmp_path), "--format", "json")
    assert code == 0, out
    assert [n["node"] for n in doc["nodes"]] == ["node1", "node2"]  # two nodes, not four
    for n in doc["nodes"]:
        assert n["files"] == [f"{n['node']}/preflight.json", f"{n['node']}/ddp/smoke.json"]
        assert n["ddp"] == {"status": "passed", "detail": "gloo, world 2, 1 step(s): parameters identical across "
                            "ranks", "world_size": 2, "weights": WEIGHTS, "digests": {"weights[float32,cpu]": WEIGHTS},
                            "file": f"{n['node']}/ddp/smoke.json"}
    assert doc["summary"]["nodes"] == 2 and doc["problems"] == []
    code, text, _ = cli(str(tmp_path), "--no-color")
    assert "Multi-node DDP smoke" in text and f"{WEIGHTS[:16]}…" in text
    assert re.search(r"node1\s+passed\s+2\s+8703d50102767daf", text)


def test_ddp_results_are_found_only_under_a_node_folder(tmp_path: Path) -> None:
    from envguard.fleet import result_paths

    ddp_fleet(tmp_path)
    write(tmp_path, "node1/deeper/other/x.json", preflight_doc("x"))  # not a result place
    # preflight writes fingerprint.json beside preflight.json, which holds the same fingerprint: not read
    write(tmp_path, "node1/fingerprint.json", fingerprint_of(snap()).to_dict())
    assert [p.relative_to(tmp_path).as_posix() for p in result_paths(tmp_path)] == [
        "node1/ddp/smoke.json", "node1/preflight.json", "node2/ddp/smoke.json", "node2/preflight.json"]


def test_a_failed_or_missing_ddp_part_is_an_error_on_that_node(tmp_path: Path) -> None:
    ddp_fleet(tmp_path, 3)
    write(tmp_path, "node2/ddp/smoke.json", ddp_doc(SmokeStatus.FAILED))
    write(tmp_path, "node3/ddp/smoke.json", "")  # the step was killed before envguard wrote its result
    code, out, doc = cli(str(tmp_path), "--format", "json")
    assert code == 1, out
    nodes = {n["node"]: n for n in doc["nodes"]}
    assert [nodes[n]["ddp"]["status"] for n in ("node1", "node2", "node3")] == ["passed", "failed", "missing"]
    found = {(f["code"], tuple(f["nodes"])) for f in doc["findings"]}
    assert ("smoke-failed", ("node2",)) in found and ("ddp-no-result", ("node3",)) in found
    (problem,) = [p for p in doc["problems"] if p["file"] == "node3/ddp/smoke.json"]
    assert problem["kind"] == UNREADABLE and problem["node"] == "node3"
    assert "wrote no result (killed, or it died before the end" in problem["message"]
    _, text, _ = cli(str(tmp_path), "--no-color")
    assert "no DDP smoke result from node3" in " ".join(text.split())


def test_nodes_whose_ddp_weights_differ_are_outliers(tmp_path: Path) -> None:
    ddp_fleet(tmp_path, 3)
    write(tmp_path, "node3/ddp/smoke.json", ddp_doc(weights="f" * 64))
    code, _out, doc = cli(str(tmp_path), "--format", "json")
    assert code == 1
    (outlier,) = doc["outliers"]
    assert outlier["node"] == "node3" and outlier["kind"] == "ddp"
    assert outlier["reason"] == f"DDP weights digest {'f' * 16}, the majority (2 of 3 nodes) has {WEIGHTS[:16]}"


def test_a_ddp_part_joins_the_node_of_its_folder_whatever_the_node_is_called(tmp_path: Path) -> None:
    write(tmp_path, "gpu-a01/preflight.json", preflight_doc("gpu-a01.cluster.example"))
    write(tmp_path, "gpu-a01/ddp/smoke.json", ddp_doc())
    write(tmp_path, "gpu-a02/ddp/smoke.json", ddp_doc())  # no preflight: the DDP part is a node of its own
    _, _, doc = cli(str(tmp_path), "--format", "json")
    nodes = {n["node"]: n for n in doc["nodes"]}
    assert sorted(nodes) == ["gpu-a01.cluster.example", "gpu-a02"]
    assert nodes["gpu-a01.cluster.example"]["ddp"]["status"] == "passed"
    assert nodes["gpu-a02"]["kind"] == "ddp" and nodes["gpu-a02"]["fingerprint"] is None


def test_html_shows_each_node_s_ddp(tmp_path: Path) -> None:
    ddp_fleet(tmp_path)
    write(tmp_path, "node2/ddp/smoke.json", ddp_doc(SmokeStatus.FAILED))
    page = fleet_html(read_results(sorted(tmp_path.rglob("*.json")), root=tmp_path), 1)
    section = page.split('<section id="ddp">')[1].split("</section>")[0]
    assert "<h2>Multi-node DDP smoke</h2>" in section
    assert section.count("<tr>") == 3  # the header and one row per node
    assert f"<code>{WEIGHTS[:16]}…</code>" in section and 'class="sev-error">failed<' in section
    nodes = page.split('<section id="nodes">')[1].split("</section>")[0]
    assert "<th>DDP</th>" in nodes and f"passed, world 2, weights {WEIGHTS[:16]}…" in nodes


# ---- bad input ---------------------------------------------------------------------------------


def test_each_bad_file_is_reported_and_the_report_goes_on(tmp_path: Path) -> None:
    uniform_fleet(tmp_path, 2)
    good = json.dumps(preflight_doc("n"), indent=2)
    newer = preflight_doc("newer")
    newer["envguard_result_version"] = 2
    older = check_doc(snap())
    older["envguard_result_version"] = 0
    write(tmp_path, "newer.json", newer)
    write(tmp_path, "older.json", older)
    write(tmp_path, "truncated.json", good[: len(good) // 2])
    write(tmp_path, "garbage.json", "nvidia-smi: command not found\n")
    write(tmp_path, "binary.json", "")
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00junk")
    write(tmp_path, "empty.json", "")
    write(tmp_path, "list.json", [1, 2])
    write(tmp_path, "lock.json", {"envguard_result_version": 1, "command": "lock", "exit_code": 0})
    write(tmp_path, "failed.json", {"envguard_result_version": 1, "command": "check", "error": "no such file",
                                    "exit_code": 3})
    write(tmp_path, "loose/fingerprint.json", fingerprint_of(snap()).to_dict())  # no preflight.json beside it
    bad_snapshot = preflight_doc("bad-snapshot")
    bad_snapshot["check"]["snapshot"]["schema_version"] = 99
    write(tmp_path, "bad-snapshot.json", bad_snapshot)
    no_check = preflight_doc("no-check")
    no_check["check"] = None
    no_check["steps"][0] = {"step": "check", "status": "error", "detail": "interpreter /x is missing",
                            "duration_s": 0.1}
    write(tmp_path, "no-check.json", no_check)
    no_driver = preflight_doc("no-driver")
    no_driver["check"]["snapshot"]["driver"]["version"] = None
    write(tmp_path, "no-driver.json", no_driver)
    (tmp_path / "notes.txt").write_text("not json, not read")

    code, _, doc = cli(str(tmp_path), "--format", "json")
    problems = {p["file"]: (p["kind"], p["message"]) for p in doc["problems"]}
    assert problems["newer.json"] == (UNREADABLE, "written by a newer envguard (result version 2; this envguard "
                                                  "reads 1): upgrade envguard where you run the fleet report")
    assert problems["older.json"][1].startswith("written by an older envguard (result version 0")
    assert problems["truncated.json"][0] == UNREADABLE and "truncated JSON" in problems["truncated.json"][1]
    assert problems["garbage.json"][1] == "not JSON: Expecting value (line 1, column 1)"
    assert "not UTF-8" in problems["binary.json"][1]
    assert problems["empty.json"][1] == "empty file"
    assert "a JSON list, not an object" in problems["list.json"][1]
    assert problems["lock.json"][1] == "an `envguard lock` result, not a node result (preflight, check or smoke)"
    assert problems["failed.json"][1] == "envguard check could not run on the node: no such file"
    assert problems["loose/fingerprint.json"][0] == SKIPPED
    assert problems["bad-snapshot.json"][0] == INCOMPLETE
    assert "schema_version 99 is not supported" in problems["bad-snapshot.json"][1]
    assert problems["no-check.json"] == (INCOMPLETE, "step check could not run: interpreter /x is missing; driver, "
                                                     "cuDNN and GPU model unknown")
    assert problems["no-driver.json"] == (INCOMPLETE, "driver version unknown: left out of the driver comparison")
    assert "notes.txt" not in problems
    # the readable nodes are all there, the incomplete ones included
    names = [n["node"] for n in doc["nodes"]]
    assert names == ["bad-snapshot", "gpu-node-0", "gpu-node-1", "no-check", "no-driver"]
    assert doc["summary"]["files"] == 15
    assert code in (0, 1)
    code, text, _ = cli(str(tmp_path), "--no-color")
    assert "Problems per file" in text and re.search(r"truncated\.json +unreadable +truncated JSON", text)


def test_nothing_readable_exits_3(tmp_path: Path) -> None:
    code, out, _ = cli(str(tmp_path))
    assert code == 3 and "NO RESULTS" in out and "no *.json files" in out
    write(tmp_path, "a.json", "{\"envguard_result_version\": 1, \"comm")
    write(tmp_path, "b.json", {"envguard_result_version": 7, "command": "check"})
    code, _, doc = cli(str(tmp_path), "--format", "json")
    assert code == 3 and doc["exit_code"] == 3 and doc["nodes"] == [] and len(doc["problems"]) == 2
    code, html, _ = cli(str(tmp_path), "--format", "html")
    assert code == 3 and "NO RESULTS" in html and "truncated JSON" in html


def test_not_a_folder_exits_3(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["fleet", "report", str(tmp_path / "missing"), "--format", "json"])
    assert result.exit_code == 3
    assert "is not a folder" in result.output


def test_a_malformed_document_never_raises() -> None:
    base = preflight_doc("n", r=run())
    variants: list[Any] = [None, "x", 1, [], {}]
    odd: tuple[Any, ...] = (None, "x", 1, [], {}, [1], {"a": 1}, True, [None], [{"code": 1}])
    for key in base:
        for value in odd:
            variants.append({**base, key: value})
    for key in base["check"]:
        for value in odd:
            variants.append({**base, "check": {**base["check"], key: value}})
    bad_perf: list[Any] = [{"case": "perf", "status": "passed", "metrics": {"tflops_bf16": "x"}, "detail": 5}]
    for key in base["smoke"]:
        for value in (*odd, bad_perf):
            variants.append({**base, "smoke": {**base["smoke"], key: value}})
    for doc in variants:
        node, problems = parse_result(doc, "f.json", "f")
        assert node is not None or problems


def test_read_results_on_paths(tmp_path: Path) -> None:
    a = write(tmp_path, "a.json", preflight_doc("a"))
    b = write(tmp_path, "b.json", "{")
    report = read_results([a, b], root=tmp_path)
    assert [n.node for n in report.nodes] == ["a"] and report.problems[0].file == "b.json"
    assert report.ok and report.files == 2


# ---- output ------------------------------------------------------------------------------------


def _fleet_for_page(folder: Path) -> None:
    for name, tflops in (("h1", 700.0), ("h2", 705.0), ("h3", 690.0), ("h4", 420.0)):
        write(folder, f"{name}.json", preflight_doc(name, r=run(tflops), findings=(finding(),)))
    write(folder, "a1.json", preflight_doc("a1", snap(gpu_name=A100), run(280.0, A100)))
    write(folder, "a2.json", preflight_doc("a2", snap(gpu_name=A100, driver="535.54.03"), run(275.0, A100)))
    write(folder, 'evil<script>&"x.json', preflight_doc('<b>evil</b>&"node', r=run(702.0)))
    write(folder, "truncated.json", "{\"envguard_result_version\": 1")


def test_html_is_self_contained_and_escaped(tmp_path: Path) -> None:
    _fleet_for_page(tmp_path)
    out = tmp_path / "out" / "fleet.html"
    out.parent.mkdir()
    code, msg, _ = cli(str(tmp_path), "--format", "html", "-o", str(out))
    assert code == 1 and "wrote the fleet report" in msg
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<script" not in page.lower() and "<b>evil" not in page
    assert "&lt;b&gt;evil&lt;/b&gt;&amp;&quot;node" in page
    assert not re.search(r"""(src|href)\s*=|@import|url\(""", page)
    assert re.findall(r"https?://[^\s\"']+", page) == ["http://www.w3.org/2000/svg"]  # the SVG namespace only
    assert page.count('<rect class="bar') == 7 and page.count('class="bar outlier"') == 1
    assert 'data-node="h4"' in page and "truncated JSON" in page
    # refuses to overwrite, then --force
    assert cli(str(tmp_path), "--format", "html", "-o", str(out))[0] == 3
    assert cli(str(tmp_path), "--format", "html", "-o", str(out), "--force")[0] == 1


def test_html_without_perf_says_so(tmp_path: Path) -> None:
    write(tmp_path, "a.json", check_doc(snap()))
    code, page, _ = cli(str(tmp_path), "--format", "html")
    assert code == 0 and "No node reported a passing perf smoke case" in page and "<svg" not in page


# ---- the page in a real browser ------------------------------------------------------------------


def _unavailable(reason: str) -> None:
    if sys.platform == "linux" and os.geteuid() == 0:
        pytest.fail(f"{reason}; run scripts/test-env first (the README test command does)")
    pytest.skip(reason)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.slow
def test_html_renders_in_headless_chromium(tmp_path: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        _unavailable("Debian's chromium is not installed")
    assert browser is not None
    results = tmp_path / "results"
    results.mkdir()
    _fleet_for_page(results)
    page = tmp_path / "fleet.html"
    page.write_text(fleet_html(read_results(sorted(results.glob("*.json")), root=results), 1), encoding="utf-8")
    flags = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,900")
    shot = tmp_path / "fleet.png"
    done = _subprocess.run((browser, *flags, f"--screenshot={shot}", page.as_uri()), timeout=120)
    assert done.ok or shot.exists(), done.describe_failure()
    data = shot.read_bytes()
    assert _png_size(data) == (1200, 900)
    assert len(data) > 20_000, "the screenshot is (nearly) blank"
    dom = _subprocess.run((browser, *flags, "--dump-dom", page.as_uri()), timeout=120)
    assert dom.ok, dom.describe_failure()
    assert dom.stdout.count('<rect class="bar') == 7 and 'class="bar outlier"' in dom.stdout
    for node in ("h1", "h4", "a2", "&lt;b&gt;evil&lt;/b&gt;"):
        assert node in dom.stdout
    keep = os.environ.get("ENVGUARD_KEEP_SCREENSHOT")
    if keep:
        shutil.copyfile(shot, keep)
