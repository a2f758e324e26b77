"""Snapshot round trip and version dispatch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envguard.errors import SnapshotError
from envguard.snapshot import (
    SNAPSHOT_SCHEMA,
    DriverInfo,
    FrameworkBuild,
    RuntimeReport,
    Snapshot,
    Unavailable,
    normalize_name,
)
from tests.fakes import gpu, make_snapshot, torch_build

SNAPSHOTS = Path(__file__).parent / "data" / "snapshots"


def test_round_trip_keeps_every_fact() -> None:
    runtime = RuntimeReport(gpu_available=False, arch_list=("sm_80",), warnings=("CUDA initialization: too old",))
    snap = make_snapshot(driver=DriverInfo("550.90.07", "12.4", "NVML", "550.90.07", "12.550.90.07", "open"),
                         gpus=[gpu("NVIDIA H100 80GB HBM3", "9.0")],
                         frameworks=[torch_build("2.5.1+cu124", "12.4", runtime=runtime),
                                     FrameworkBuild("jax", "jaxlib", "0.4.30", "cuda", "12", None,
                                                    runtime=Unavailable("timeout", ("import",), "timeout"))],
                         environment={"CUDA_VISIBLE_DEVICES": "0"})
    data = json.loads(json.dumps(snap.to_dict()))
    assert Snapshot.from_dict(data) == snap


def test_saved_fixture_files_load() -> None:
    for path in SNAPSHOTS.glob("*.json"):
        snap = Snapshot.from_dict(json.loads(path.read_text()))
        assert snap.schema_version == SNAPSHOT_SCHEMA


def test_unavailable_is_tagged_in_json() -> None:
    data = make_snapshot().to_dict()
    assert data["driver"]["unavailable"] is True
    assert data["driver"]["code"] == "no-driver"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(schema_version=2), "schema_version 2 is not supported"),
        (lambda d: d.pop("schema_version"), "no schema_version"),
        (lambda d: d.pop("host"), "missing field 'host'"),
        (lambda d: d["host"].update(cpu_count="many"), "expected an integer"),
        (lambda d: d.update(frameworks={"torch": 1}), "expected a list"),
        (lambda d: d["python"].update(virtualenv="yes"), "expected true/false"),
    ],
)
def test_rejects_bad_documents(mutate: object, message: str) -> None:
    data = make_snapshot().to_dict()
    assert callable(mutate)
    mutate(data)
    with pytest.raises(SnapshotError, match=message):
        Snapshot.from_dict(data)


def test_normalize_name() -> None:
    assert normalize_name("Nvidia_CUDNN.cu12") == "nvidia-cudnn-cu12"
    assert normalize_name("torch") == "torch"
