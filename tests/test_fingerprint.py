"""Fingerprints: stable digests, readable diffs, fleet grouping, and the commands."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from envguard.cli import main
from envguard.fingerprints import FINGERPRINT_SCHEME, Fingerprint, diff, fingerprint_of, fleet, make_fingerprint
from envguard.smoke.base import SmokeResult, SmokeRun, SmokeStatus
from envguard.snapshot import ComponentVersion
from tests.fakes import gpu, make_snapshot, torch_build


def snapshot(cudnn: str = "9.1.0", hostname_like: str = "node-a") -> object:
    snap = make_snapshot(driver="550.90.07", cuda_driver="12.4", gpus=[gpu("NVIDIA H100 80GB HBM3", "9.0")],
                         frameworks=[torch_build("2.5.1+cu124", "12.4")],
                         environment={"CUBLAS_WORKSPACE_CONFIG": ":4096:8", "HOSTNAME": hostname_like,
                                      "NCCL_DEBUG": "WARN"})
    import dataclasses

    return dataclasses.replace(snap, cudnn=(ComponentVersion(cudnn, "wheel nvidia-cudnn-cu12"),))


def test_digest_is_pinned_and_ignores_hostnames() -> None:
    a = fingerprint_of(snapshot(hostname_like="node-a"))  # type: ignore[arg-type] # reason: built above
    b = fingerprint_of(snapshot(hostname_like="node-b"))  # type: ignore[arg-type] # reason: built above
    assert a == b
    assert a.scheme == FINGERPRINT_SCHEME
    assert "env.CUBLAS_WORKSPACE_CONFIG" in a.components and "env.NCCL_DEBUG" in a.components
    assert not any("HOSTNAME" in k for k in a.components)
    # conda-lock's lesson: pin the digest of a fixed input, so a silent scheme change fails here.
    assert make_fingerprint({"driver": "550.90.07", "cudnn": "9.1.0"}).digest == (
        "8a9fcef9dc137f7f7cad974e6e6a36388f762535f81d77e99621735135984c99"
    )
    assert make_fingerprint({"cudnn": "9.1.0", "driver": "550.90.07"}) == make_fingerprint(
        {"driver": "550.90.07", "cudnn": "9.1.0"})  # canonical: key order does not matter


def test_diff_names_components() -> None:
    a = fingerprint_of(snapshot("9.1.0"))  # type: ignore[arg-type] # reason: built above
    b = fingerprint_of(snapshot("9.5.1"))  # type: ignore[arg-type] # reason: built above
    (d,) = diff(a, b)
    assert (d.component, d.left, d.right) == ("cudnn", "9.1.0", "9.5.1")


def test_results_enter_the_fingerprint() -> None:
    run = SmokeRun(1, "py", (SmokeResult("determinism", SmokeStatus.PASSED, 1.0,
                                         digests={"weights[float32,cpu]": "aa"}),), 1.0)
    fp = fingerprint_of(snapshot(), run)  # type: ignore[arg-type] # reason: built above
    assert fp.components["result.determinism.weights[float32,cpu]"] == "aa"
    assert fp.components["result.determinism.status"] == "passed"


def test_fleet_groups_and_outliers() -> None:
    same = fingerprint_of(snapshot("9.1.0"))  # type: ignore[arg-type] # reason: built above
    odd = fingerprint_of(snapshot("8.9.7"))  # type: ignore[arg-type] # reason: built above
    groups = fleet([("n1", same), ("n2", same), ("n3", odd), ("n4", same)])
    assert [g.members for g in groups] == [("n1", "n2", "n4"), ("n3",)]
    assert [(d.component, d.left, d.right) for d in groups[1].differences] == [("cudnn", "9.1.0", "8.9.7")]


def _write(path: Path, fp: Fingerprint) -> str:
    path.write_text(json.dumps(fp.to_dict()))
    return str(path)


def test_diff_command(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.json", fingerprint_of(snapshot("9.1.0")))  # type: ignore[arg-type] # reason: built above
    b = _write(tmp_path / "b.json", fingerprint_of(snapshot("9.5.1")))  # type: ignore[arg-type] # reason: built above
    c = _write(tmp_path / "c.json", fingerprint_of(snapshot("9.1.0")))  # type: ignore[arg-type] # reason: built above
    runner = CliRunner()
    result = runner.invoke(main, ["fingerprint", "diff", a, b])
    assert result.exit_code == 5
    assert "cudnn: 9.1.0 → 9.5.1" in result.stdout
    assert runner.invoke(main, ["fingerprint", "diff", a, c]).exit_code == 0
    fleet_out = runner.invoke(main, ["fingerprint", "diff", a, b, c])
    assert fleet_out.exit_code == 5 and "[outlier] 1 node(s)" in fleet_out.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 9, "digest": "x", "components": {}}')
    result = runner.invoke(main, ["fingerprint", "diff", a, str(bad)])
    assert result.exit_code == 3 and "schema_version 9" in result.stderr
