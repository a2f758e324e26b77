"""Tests for envguard.probes.parsers on real captured NVIDIA tool output.

The captures under tests/data/captures/ are byte-identical copies of the shared capture set
(provenance in tests/data/captures/README.md). Expected values below were read off each
capture by hand. Inline strings are marked where they are constructed rather than captured.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from envguard.probes import parsers
from envguard.probes.parsers import (
    QUERY_GPU_FIELDS,
    QUERY_GPU_FIELDS_LEGACY,
    SmiTable,
    classify_nvidia_smi_failure,
    decode_cuda_driver_int,
    decode_cudnn_int,
    decode_nccl_int,
    driver_from_query_csv,
    gpus_from_query_csv,
    nvml_library_version_from_failure,
    parse_csv_table,
    parse_cuda_version_json,
    parse_cudnn_version_header,
    parse_nccl_header,
    parse_nvcc_version,
    parse_nvidia_smi_list,
    parse_nvidia_smi_q,
    parse_nvidia_smi_table,
    parse_nvidia_smi_version,
    parse_proc_driver_version,
    soname_major,
    version_from_soname,
)
from envguard.snapshot import GpuInfo
from tests.fakes import H100_590

DATA = Path(__file__).resolve().parent.parent / "data"
CAPTURES = DATA / "captures"


def read(relative: str) -> str:
    """A capture's text (UTF-8, bytes kept as they are)."""
    return (CAPTURES / relative).read_bytes().decode("utf-8")


# ---- nvidia-smi default table ---------------------------------------------------------------


@dataclass(frozen=True)
class TableCase:
    file: str
    smi: str | None
    driver: str | None
    cuda: str | None
    names: tuple[str, ...]
    memory: tuple[int | None, ...]
    mig: tuple[str | None, ...]
    persistence: tuple[str | None, ...]
    bus_ids: tuple[str, ...]
    mig_devices: int = 0
    driver_model: str | None = None


H100_X8_BUS = tuple(f"00000000:{b}:00.0" for b in ("19", "3B", "4C", "5D", "9B", "BB", "CB", "DB"))
RTX4090_X8_BUS = tuple(f"00000000:{b}:00.0" for b in ("01", "25", "41", "61", "81", "A1", "C1", "E1"))

# fmt: off
TABLE_CASES = [
    TableCase(
        "nvidia-smi/h100-80gb-hbm3-x8-driver-550.90.07-cuda-12.4.txt",
        "550.90.07", "550.90.07", "12.4",
        ("NVIDIA H100 80GB HBM3",) * 8, (81559,) * 8, ("Disabled",) * 8, ("On",) * 8, H100_X8_BUS,
    ),
    TableCase(
        "nvidia-smi/h200-141gb-driver-590.48.01-cuda-13.1.txt",
        "590.48.01", "590.48.01", "13.1",
        ("NVIDIA H200",), (143771,), ("Disabled",), ("On",), ("00000000:83:00.0",),
    ),
    TableCase(
        "nvidia-smi/h200-mig-enabled-driver-590.48.01-cuda-13.1.txt",
        "590.48.01", "590.48.01", "13.1",
        ("NVIDIA H200",), (143771,), ("Enabled",), ("On",), ("00000000:83:00.0",),
        mig_devices=5,
    ),
    TableCase(
        "nvidia-smi/h100-80gb-hbm3-mig-enabled-driver-590.48.01-cuda-13.1.txt",
        "590.48.01", "590.48.01", "13.1",
        ("NVIDIA H100 80GB HBM3",), (81559,), ("Enabled",), ("On",), ("00000000:00:09.0",),
        mig_devices=4,
    ),
    TableCase(
        "nvidia-smi/h100-nvl-x2-driver-550.54.14-cuda-12.4.txt",
        "550.54.14", "550.54.14", "12.4",
        ("NVIDIA H100 NVL",) * 2, (95830,) * 2, ("Disabled",) * 2, ("On",) * 2,
        ("00000000:AD:00.0", "00000000:AE:00.0"),
    ),
    TableCase(
        "nvidia-smi/a100-sxm4-80gb-x4-driver-555.42.02-cuda-12.5.txt",
        "555.42.02", "555.42.02", "12.5",
        ("NVIDIA A100-SXM4-80GB",) * 4, (81920,) * 4, ("Disabled",) * 4, ("On",) * 4,
        ("00000000:68:00.0", "00000000:9E:00.0", "00000000:C2:00.0", "00000000:D4:00.0"),
    ),
    TableCase(
        "nvidia-smi/a100-sxm4-40gb-driver-570.124.06-cuda-12.8.txt",
        "570.124.06", "570.124.06", "12.8",
        ("NVIDIA A100-SXM4-40GB",), (40960,), ("Disabled",), ("On",), ("00000000:07:00.0",),
    ),
    TableCase(
        "nvidia-smi/a10-driver-550.127.05-cuda-12.4.txt",
        "550.127.05", "550.127.05", "12.4",
        ("NVIDIA A10",), (23028,), (None,), ("On",), ("00000000:06:00.0",),
    ),
    TableCase(
        "nvidia-smi/l4-driver-550.90.07-cuda-12.4.txt",
        "550.90.07", "550.90.07", "12.4",
        ("NVIDIA L4",), (23034,), (None,), ("On",), ("00000000:01:00.0",),
    ),
    TableCase(
        "nvidia-smi/l40s-driver-595.80-cuda-13.2.txt",
        "595.80", "595.80", "13.2",
        ("NVIDIA L40S",), (46068,), (None,), ("Off",), ("00000000:01:00.0",),
    ),
    TableCase(
        "nvidia-smi/rtx-3090-x2-driver-560.35.03-cuda-12.6.txt",
        "560.35.03", "560.35.03", "12.6",
        ("NVIDIA GeForce RTX 3090",) * 2, (24576,) * 2, (None,) * 2, ("On",) * 2,
        ("00000000:41:00.0", "00000000:81:00.0"),
    ),
    TableCase(
        "nvidia-smi/rtx-4090-x8-driver-550.127.05-cuda-12.4.txt",
        "550.127.05", "550.127.05", "12.4",
        ("NVIDIA GeForce RTX 4090",) * 8, (24564,) * 8, (None,) * 8, ("On",) * 8, RTX4090_X8_BUS,
    ),
    TableCase(
        "nvidia-smi/rtx-4080-super-driver-595.71.05-cuda-13.2-desktop-processes.txt",
        "595.71.05", "595.71.05", "13.2",
        ("NVIDIA GeForce RTX 4080 ...",), (16376,), (None,), ("Off",), ("00000000:01:00.0",),
    ),
    TableCase(
        "nvidia-smi/rtx-5090-driver-595.71.05-cuda-13.2-partial.txt",
        "595.71.05", "595.71.05", "13.2",
        ("NVIDIA GeForce RTX 5090",), (32607,), (None,), ("Off",), ("00000000:C5:00.0",),
    ),
    TableCase(
        "nvidia-smi/rtx-5090-plus-rtx-4090-mixed-driver-580.82.09-cuda-13.0-partial.txt",
        "580.82.09", "580.82.09", "13.0",
        ("NVIDIA GeForce RTX 5090", "NVIDIA GeForce RTX 4090"), (32607, 24564), (None, None),
        ("Off", "Off"), ("00000000:01:00.0", "00000000:02:00.0"),
    ),
    TableCase(
        "nvidia-smi/rtx-2080-super-driver-610.57.04-kmd-cuda-umd-13.3.txt",
        "610.57.04", "610.57.04", "13.3",
        ("NVIDIA GeForce RTX 2080 ...",), (8192,), (None,), ("Off",), ("00000000:0C:00.0",),
    ),
    TableCase(
        "nvidia-smi/tesla-k80-driver-410.104-cuda-10.0-legacy-no-mig-row-partial.txt",
        "410.104", "410.104", "10.0",
        ("Tesla K80",), (11441,), (None,), ("Off",), ("00000000:00:04.0",),
    ),
    TableCase(
        "nvidia-smi/v100-sxm2-16gb-driver-470.182.03-cuda-11.4-legacy-80col-partial.txt",
        "470.182.03", "470.182.03", "11.4",
        ("Tesla V100-SXM2...",), (16160,), (None,), ("Off",), ("00000000:00:04.0",),
    ),
    TableCase(
        "nvidia-smi/titan-v-driver-515.65.01-cuda-11.7-legacy-80col.txt",
        "515.65.01", "515.65.01", "11.7",
        ("NVIDIA TITAN V",), (12288,), (None,), ("On",), ("00000000:AF:00.0",),
    ),
    TableCase(
        "nvidia-smi/geforce-fan-err-driver-525.125.06-cuda-12.0.txt",
        "525.125.06", "525.125.06", "12.0",
        ("NVIDIA GeForce ...",), (23028,), (None,), ("Off",), ("00000000:01:00.0",),
    ),
    TableCase(
        "nvidia-smi/snap-bundled-smi-470.256.02-host-driver-580.95.05-compute-cap-invalid-field-partial.txt",
        "470.256.02", "580.95.05", "13.0",
        ("NVIDIA RTX PRO ...",), (8151,), (None,), ("Off",), ("00000000:01:00.0",),
    ),
    TableCase(
        "nvidia-smi/windows-rtx-2080-super-wddm-driver-591.86-cuda-13.1.txt",
        "591.86", "591.86", "13.1",
        ("NVIDIA GeForce RTX 2080 ...",), (8192,), (None,), (None,), ("00000000:0C:00.0",),
        driver_model="WDDM",
    ),
    TableCase(
        "nvidia-smi/windows-gtx-1080-ti-wddm-driver-531.14-cuda-12.1-quoted-partial.txt",
        "531.14", "531.14", "12.1",
        ("NVIDIA GeForce GTX 1080 Ti",), (11264,), (None,), (None,), ("00000000:09:00.0",),
        driver_model="WDDM",
    ),
    TableCase(
        "nvidia-smi/wsl2-rtx-3070-smi-530.47-driver-531.68-cuda-12.1.txt",
        "530.47", "531.68", "12.1",
        ("NVIDIA GeForce RTX 3070",), (8192,), (None,), ("On",), ("00000000:2B:00.0",),
    ),
    TableCase(
        "nvidia-smi/wsl2-rtx-4070-smi-555.52.01-driver-555.99-cuda-12.5-partial.txt",
        "555.52.01", "555.99", "12.5",
        ("NVIDIA GeForce RTX 4070 ...",), (12282,), (None,), ("On",), ("00000000:01:00.0",),
    ),
    TableCase(
        "nvidia-smi/wsl2-rtx-3060-6gb-cuda-version-err-smi-545.46-driver-546.80-partial.txt",
        "545.46", "546.80", None,
        ("NVIDIA GeForce RTX 3060 ...",), (6144,), (None,), ("On",), ("00000000:01:00.0",),
    ),
    TableCase(
        "nvidia-smi/wsl2-header-only-smi-555.42.06-driver-555.97-cuda-12.5-partial.txt",
        "555.42.06", "555.97", "12.5", (), (), (), (), (),
    ),
    # nvidia-smi tables embedded in jax.print_environment_info() output.
    TableCase(
        "jax/jax-0.3.17-colab-t4-gpu-print_environment_info-partial.txt",
        "460.32.03", "460.32.03", "11.2",
        ("Tesla T4",), (None,), (None,), ("Off",), ("00000000:00:04.0",),
    ),
    TableCase(
        "jax/jax-0.4.32-conda-cpu-fallback-warning-print_environment_info-partial.txt",
        "560.35.03", "560.35.03", "12.6", (), (), (), (), (),
    ),
    TableCase(
        "jax/jax-0.4.33-8x-a10g-cudadevice-print_environment_info-partial.txt",
        "550.127.05", "550.127.05", "12.4", (), (), (), (), (),
    ),
]
# fmt: on


@pytest.mark.parametrize("case", TABLE_CASES, ids=[Path(c.file).stem for c in TABLE_CASES])
def test_nvidia_smi_table(case: TableCase) -> None:
    table = parse_nvidia_smi_table(read(case.file))
    assert table is not None
    assert (table.smi_version, table.driver_version, table.cuda_version) == (case.smi, case.driver, case.cuda)
    assert len(table.gpus) == len(case.names)
    assert tuple(g.index for g in table.gpus) == tuple(range(len(case.names)))
    assert tuple(g.name for g in table.gpus) == case.names
    assert tuple(g.memory_total_mib for g in table.gpus) == case.memory
    assert tuple(g.mig_mode for g in table.gpus) == case.mig
    assert tuple(g.persistence_mode for g in table.gpus) == case.persistence
    assert tuple(g.pci_bus_id for g in table.gpus) == case.bus_ids
    assert all(g.source == "nvidia-smi table" for g in table.gpus)
    assert all(g.uuid is None and g.compute_capability is None for g in table.gpus)
    assert table.mig_device_count == case.mig_devices
    assert table.driver_model == case.driver_model


def test_table_parse_result_is_frozen_dataclass() -> None:
    table = parse_nvidia_smi_table(read("nvidia-smi/h200-141gb-driver-590.48.01-cuda-13.1.txt"))
    assert isinstance(table, SmiTable)
    with pytest.raises(AttributeError):
        table.driver_version = "1"  # type: ignore[misc]


@pytest.mark.parametrize(
    "file",
    [
        "nvidia-smi/mig-devices-table-legacy-80col-partial.txt",  # a MIG table without the header
        "nvidia-smi/failure-couldnt-communicate-with-driver.txt",
        "nvidia-smi/failure-wsl2-couldnt-communicate-failed-to-shut-down-nvml.txt",
        "nvidia-smi/failure-driver-library-version-mismatch-nvml-550.144.txt",
        "nvidia-smi/failure-no-devices-were-found-rtx5090-partial.txt",
        "jax/jax-0.3.17-colab-cpu-print_environment_info.txt",
        "nvidia-smi-q/a10-driver-535.129.03-cuda-12.2.txt",
        "nvidia-smi-misc/version-h100-driver-590.48.01.txt",
    ],
)
def test_nvidia_smi_table_absent(file: str) -> None:
    assert parse_nvidia_smi_table(read(file)) is None


def test_nvidia_smi_table_empty_and_header_variants() -> None:
    assert parse_nvidia_smi_table("") is None
    # Constructed: an R610-style header whose CUDA UMD value is not a version.
    odd = "| NVIDIA-SMI 610.1   KMD Version: 610.1   CUDA UMD Version: N/A |\n"
    table = parse_nvidia_smi_table(odd)
    assert table is not None
    assert (table.smi_version, table.driver_version, table.cuda_version) == ("610.1", "610.1", None)
    assert table.gpus == ()


# ---- failures -------------------------------------------------------------------------------

FAILURE_CASES = [
    (
        "nvidia-smi/failure-couldnt-communicate-with-driver.txt",
        "driver-not-loaded",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.",
        None,
    ),
    (
        "nvidia-smi/failure-wsl2-couldnt-communicate-failed-to-shut-down-nvml.txt",
        "driver-not-loaded",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.",
        None,
    ),
    (
        "nvidia-smi/failure-driver-library-version-mismatch-nvml-550.144.txt",
        "driver-library-mismatch",
        "Failed to initialize NVML: Driver/library version mismatch",
        "550.144",
    ),
    (
        "nvidia-smi/failure-driver-library-version-mismatch-nvml-570.124-no-prompt.txt",
        "driver-library-mismatch",
        "Failed to initialize NVML: Driver/library version mismatch",
        "570.124",
    ),
    (
        "nvidia-smi/failure-no-devices-were-found-rtx5090-partial.txt",
        "no-devices",
        "No devices were found",
        None,
    ),
    (
        "nvidia-smi/snap-bundled-smi-470.256.02-host-driver-580.95.05-compute-cap-invalid-field-partial.txt",
        "invalid-field",
        'Field "compute_cap" is not a valid field to query.',
        None,
    ),
]


@pytest.mark.parametrize(
    ("file", "code", "line", "nvml"), FAILURE_CASES, ids=[Path(c[0]).stem for c in FAILURE_CASES]
)
def test_classify_failure(file: str, code: str, line: str, nvml: str | None) -> None:
    text = read(file)
    assert classify_nvidia_smi_failure(text) == (code, line)
    assert nvml_library_version_from_failure(text) == nvml


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # Constructed from messages nvidia-smi / NVML print; no capture of these is in the set.
        ("Failed to properly shut down NVML: Driver Not Loaded", "driver-not-loaded"),
        ("NVIDIA-SMI has failed because it couldn't find libnvidia-ml.so library", "nvml-library-not-found"),
        ("NVML Shared Library Not Found", "nvml-library-not-found"),
        ("libnvidia-ml.so.1: cannot open shared object file: No such file", "nvml-library-not-found"),
        ("> No devices were found", "no-devices"),
    ],
)
def test_classify_failure_messages(text: str, code: str) -> None:
    result = classify_nvidia_smi_failure(text)
    assert result is not None
    assert result[0] == code


@pytest.mark.parametrize("case", TABLE_CASES[:-3], ids=[Path(c.file).stem for c in TABLE_CASES[:-3]])
def test_healthy_tables_are_not_failures(case: TableCase) -> None:
    expected = None if "snap-bundled" not in case.file else "invalid-field"
    result = classify_nvidia_smi_failure(read(case.file))
    assert (result[0] if result else None) == expected


# ---- nvidia-smi -q --------------------------------------------------------------------------

RTX4090_Q_UUIDS = (
    "GPU-6b7298f4-721f-9e24-a277-9ec909ba76f0",
    "GPU-4962ecf4-ef69-e7c3-fe53-a434de2b7c37",
    "GPU-aa04d287-fc59-c185-ecac-bca95161b6a6",
    "GPU-3f2938fd-980f-a95f-9af3-0575322f251f",
    "GPU-8ac0e92f-a12b-bf3f-c1d6-26aa59396be4",
    "GPU-b0e0b470-6f48-dc15-38ea-5f8ebd163b68",
    "GPU-1a30398f-0c53-cf74-923e-fabf4f405e7e",
    "GPU-df372c44-e2a5-b8a9-3d6c-f25475aaa57f",
)
RTX4090_Q_BUS = tuple(f"00000000:{b}:00.0" for b in ("01", "21", "41", "61", "81", "A1", "C1", "E1"))


def test_q_a10() -> None:
    driver, cuda, gpus = parse_nvidia_smi_q(read("nvidia-smi-q/a10-driver-535.129.03-cuda-12.2.txt"))
    assert (driver, cuda) == ("535.129.03", "12.2")
    assert gpus == (
        GpuInfo(
            index=0,
            name="NVIDIA A10",
            source="nvidia-smi -q",
            uuid="GPU-73d12ef7-f589-f867-4259-c7090ab44736",
            memory_total_mib=23028,
            mig_mode=None,
            persistence_mode="Enabled",
            pcie_link_gen=4,
            pcie_link_gen_max=4,
            pcie_link_width=16,
            pcie_link_width_max=16,
            pci_bus_id="00000000:07:00.0",
        ),
    )


def test_q_h100_590() -> None:
    driver, cuda, gpus = parse_nvidia_smi_q(
        read("nvidia-smi-q/h100-80gb-hbm3-driver-590.48.01-cuda-13.1.txt")
    )
    assert (driver, cuda) == ("590.48.01", "13.1")
    # -q has no compute capability; memory is FB Memory Usage, not BAR1 (131072).
    assert gpus == (dataclasses.replace(H100_590, source="nvidia-smi -q", compute_capability=None),)


def test_q_titan_v_persistence_disabled() -> None:
    driver, cuda, gpus = parse_nvidia_smi_q(
        read("nvidia-smi-q/titan-v-driver-560.35.03-cuda-12.6-persistence-disabled.txt")
    )
    assert (driver, cuda) == ("560.35.03", "12.6")
    assert len(gpus) == 1
    gpu = gpus[0]
    assert (gpu.name, gpu.uuid) == ("NVIDIA TITAN V", "GPU-f4c353ff-b56c-c1de-bcb9-7dad861b589a")
    assert (gpu.persistence_mode, gpu.mig_mode, gpu.memory_total_mib) == ("Disabled", None, 12288)
    assert (gpu.pcie_link_gen, gpu.pcie_link_gen_max) == (1, 3)  # idle GPU downclocks its link
    assert (gpu.pcie_link_width, gpu.pcie_link_width_max) == (16, 16)
    assert gpu.pci_bus_id == "00000000:01:00.0"


def test_q_rtx4090_x8() -> None:
    driver, cuda, gpus = parse_nvidia_smi_q(
        read("nvidia-smi-q/rtx-4090-x8-driver-535.154.05-cuda-12.2-addressing-mode-unknown-error.txt")
    )
    assert (driver, cuda) == ("535.154.05", "12.2")
    assert tuple(g.index for g in gpus) == tuple(range(8))
    assert {g.name for g in gpus} == {"NVIDIA GeForce RTX 4090"}
    assert tuple(g.uuid for g in gpus) == RTX4090_Q_UUIDS
    assert tuple(g.pci_bus_id for g in gpus) == RTX4090_Q_BUS
    assert {(g.memory_total_mib, g.persistence_mode, g.mig_mode) for g in gpus} == {(24564, "Enabled", None)}
    assert {
        (g.pcie_link_gen, g.pcie_link_gen_max, g.pcie_link_width, g.pcie_link_width_max) for g in gpus
    } == {(1, 4, 16, 16)}


def test_q_quoted_and_garbage() -> None:
    text = read("nvidia-smi-q/a10-driver-535.129.03-cuda-12.2.txt")
    quoted = "\n".join("> " + line for line in text.splitlines())
    assert parse_nvidia_smi_q(quoted) == parse_nvidia_smi_q(text)
    assert parse_nvidia_smi_q("") == (None, None, ())
    assert parse_nvidia_smi_q(read("nvidia-smi/h200-141gb-driver-590.48.01-cuda-13.1.txt")) == (
        None,
        None,
        (),
    )


# ---- --query-gpu CSV ------------------------------------------------------------------------


def test_query_fields() -> None:
    assert QUERY_GPU_FIELDS == (
        "index", "name", "uuid", "compute_cap", "memory.total", "mig.mode.current", "persistence_mode",
        "pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.width.current", "pcie.link.width.max",
        "pci.bus_id", "driver_version",
    )  # fmt: skip
    assert tuple(f for f in QUERY_GPU_FIELDS if f != "compute_cap") == QUERY_GPU_FIELDS_LEGACY


def test_csv_h100_all_fields() -> None:
    text = read("nvidia-smi-query-gpu/h100-80gb-hbm3-driver-590.48.01-all-fields.csv")
    rows = parse_csv_table(text)
    assert len(rows) == 1
    row = rows[0]
    assert len(row) == 212  # every field of the header, none dropped
    assert row["memory.total"] == "81559"  # "memory.total [MiB]" / "81559 MiB"
    assert row["power.draw"] == "69.85"  # "power.draw [W]" / "69.85 W"
    assert row["clocks.max.sm"] == "1980"
    assert row["fan.speed"] is None  # [N/A]
    assert row["display_mode"] is None  # [Requested functionality has been deprecated]
    assert row["platform.chassis_serial_number"] is None  # empty cell
    assert row["fabric.health.summary"] is None  # bare N/A
    assert row["timestamp"] == "2026/07/14 08:12:38.696"
    assert row["vbios_version"] == "96.00.A5.00.01"
    assert row["addressing_mode"] == "None"
    assert driver_from_query_csv(text) == "590.48.01"
    assert gpus_from_query_csv(text) == (H100_590,)


def test_csv_p100_units_in_header_only() -> None:
    text = read("nvidia-smi-query-gpu/tesla-p100-pcie-16gb-15-fields-with-units-na.csv")
    rows = parse_csv_table(text)
    assert rows == [
        {
            "name": "Tesla P100-PCIE-16GB",
            "uuid": "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6",
            "fan.speed": None,
            "pstate": "P0",
            "memory.reserved": "103",
            "memory.used": "0",
            "memory.free": "16280",
            "utilization.gpu": "0",
            "utilization.memory": "0",
            "temperature.gpu": "37",
            "power.draw": "28.16",
            "clocks.current.graphics": "405",
            "clocks.current.sm": "405",
            "clocks.current.memory": "715",
            "clocks.current.video": "835",
        }
    ]
    gpus = gpus_from_query_csv(text, source="custom")
    assert len(gpus) == 1
    assert (gpus[0].index, gpus[0].name, gpus[0].source) == (0, "Tesla P100-PCIE-16GB", "custom")
    assert gpus[0].memory_total_mib is None
    assert driver_from_query_csv(text) is None


def test_csv_two_gpus_after_command_line() -> None:
    text = read(
        "nvidia-smi-query-gpu/titan-v-plus-rtx-5880-ada-driver-570.86.15-compute_cap-compute_mode-driver_version-name-index.txt"
    )
    assert [row["name"] for row in parse_csv_table(text)] == [
        "NVIDIA TITAN V",
        "NVIDIA RTX 5880 Ada Generation",
    ]
    gpus = gpus_from_query_csv(text)
    assert [(g.index, g.name, g.compute_capability) for g in gpus] == [
        (0, "NVIDIA TITAN V", "7.0"),
        (1, "NVIDIA RTX 5880 Ada Generation", "8.9"),
    ]
    assert driver_from_query_csv(text) == "570.86.15"


def test_csv_compute_cap_only() -> None:
    text = read("nvidia-smi-query-gpu/ada-sm89-driver-525.89.02-compute_cap.txt")
    assert parse_csv_table(text) == [{"compute_cap": "8.9"}]
    assert gpus_from_query_csv(text) == ()  # no name column: no GPU


def test_csv_header_only() -> None:
    text = read("nvidia-smi-query-gpu/h100-80gb-hbm3-driver-590.48.01-query-compute-apps-no-processes.csv")
    assert parse_csv_table(text) == []


def test_csv_failure_text_is_not_a_table() -> None:
    snap = read(
        "nvidia-smi/snap-bundled-smi-470.256.02-host-driver-580.95.05-compute-cap-invalid-field-partial.txt"
    )
    assert parse_csv_table(snap) == []
    assert gpus_from_query_csv(snap) == ()
    assert parse_csv_table(read("nvidia-smi/failure-couldnt-communicate-with-driver.txt")) == []
    assert driver_from_query_csv(read("nvidia-smi/failure-no-devices-were-found-rtx5090-partial.txt")) is None


def test_csv_envguard_query_nounits() -> None:
    # Constructed in the shape `--query-gpu=<QUERY_GPU_FIELDS> --format=csv,nounits` prints
    # (units stay in the header, values are bare); values taken from the H100/A100 captures.
    text = (
        "index, name, uuid, compute_cap, memory.total [MiB], mig.mode.current, persistence_mode, "
        "pcie.link.gen.current, pcie.link.gen.max, pcie.link.width.current, pcie.link.width.max, "
        "pci.bus_id, driver_version\n"
        "0, NVIDIA H100 80GB HBM3, GPU-00000000-0000-0000-0000-000000000000, 9.0, 81559, Enabled, "
        "Enabled, 5, 5, 16, 16, 00000000:00:09.0, 590.48.01\n"
        "1, NVIDIA A100-SXM4-40GB, GPU-11111111-1111-1111-1111-111111111111, 8.0, 40960, [N/A], "
        "Disabled, 4, 4, 16, 16, 00000000:07:00.0, 590.48.01\n"
    )
    gpus = gpus_from_query_csv(text)
    assert [
        (g.index, g.compute_capability, g.memory_total_mib, g.mig_mode, g.persistence_mode) for g in gpus
    ] == [
        (0, "9.0", 81559, "Enabled", "Enabled"),
        (1, "8.0", 40960, None, "Disabled"),
    ]
    assert gpus[1].pcie_link_gen == 4
    assert driver_from_query_csv(text) == "590.48.01"
    # A truncated last row is dropped, not half-read.
    assert len(gpus_from_query_csv(text + "2, NVIDIA A100")) == 2


# ---- nvidia-smi --version / -L --------------------------------------------------------------


def test_smi_version_output() -> None:
    assert parse_nvidia_smi_version(read("nvidia-smi-misc/version-h100-driver-590.48.01.txt")) == (
        "590.48.01",
        "590.48.01",
        "13.1",
    )
    assert parse_nvidia_smi_version(
        read("nvidia-smi-misc/version-rtx-2080-super-driver-610.57.04-kmd-deprecation.txt")
    ) == ("610.57.04", "610.57.04", "13.3")
    assert parse_nvidia_smi_version("") == (None, None, None)


def test_smi_list_output() -> None:
    mig = parse_nvidia_smi_list(read("nvidia-smi-misc/list-gpus-h100-mig-driver-590.48.01.txt"))
    assert [(g.index, g.name, g.uuid) for g in mig] == [
        (0, "NVIDIA H100 80GB HBM3", "GPU-00000000-0000-0000-0000-000000000000")
    ]
    two = parse_nvidia_smi_list(read("nvidia-smi-misc/list-gpus-titan-v-plus-rtx-5880-ada.txt"))
    assert [(g.index, g.name, g.uuid, g.source) for g in two] == [
        (0, "NVIDIA TITAN V", "GPU-b5169cef-2205-c30e-f2b3-220cfa14bafd", "nvidia-smi -L"),
        (1, "NVIDIA RTX 5880 Ada Generation", "GPU-7518f6b0-991f-ce2b-3d37-c779130d3137", "nvidia-smi -L"),
    ]


# ---- /proc/driver/nvidia/version ------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        ("proc-driver-nvidia-version/open-565.57.01-x86_64-ubuntu24.04.txt", ("565.57.01", "open")),
        ("proc-driver-nvidia-version/open-525.60.11-x86_64-archlinux-no-date.txt", ("525.60.11", "open")),
        ("proc-driver-nvidia-version/open-555.58-gentoo-localized-date-via-hyprctl.txt", ("555.58", "open")),
        ("proc-driver-nvidia-version/open-jetson-l4t-35.3.1-aarch64.txt", ("35.3.1", "open")),
        ("proc-driver-nvidia-version/proprietary-384.98-x86_64-ubuntu.txt", ("384.98", "proprietary")),
    ],
)
def test_proc_driver_version(file: str, expected: tuple[str, str]) -> None:
    assert parse_proc_driver_version(read(file)) == expected


def test_proc_driver_version_absent() -> None:
    assert parse_proc_driver_version("") is None
    assert parse_proc_driver_version("NVRM version: something else entirely") is None
    assert parse_proc_driver_version(read("nvcc/13.0.88-linux-x86_64.txt")) is None


# ---- nvcc / version.json --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        ("nvcc/10.0.130-linux.txt", ("10.0", "10.0.130")),
        ("nvcc/10.1.243-linux-no-build-line.txt", ("10.1", "10.1.243")),
        ("nvcc/10.2.89-linux-x86_64.txt", ("10.2", "10.2.89")),
        ("nvcc/11.0.194-linux.txt", ("11.0", "11.0.194")),
        ("nvcc/11.0.221-linux.txt", ("11.0", "11.0.221")),
        ("nvcc/11.1.105-linux.txt", ("11.1", "11.1.105")),
        ("nvcc/11.5.119-linux.txt", ("11.5", "11.5.119")),
        ("nvcc/12.5.82-linux.txt", ("12.5", "12.5.82")),
        ("nvcc/13.0.88-linux-x86_64.txt", ("13.0", "13.0.88")),
    ],
)
def test_nvcc_version(file: str, expected: tuple[str, str]) -> None:
    assert parse_nvcc_version(read(file)) == expected


def test_nvcc_version_without_v_token() -> None:
    assert parse_nvcc_version("Cuda compilation tools, release 9.2") == ("9.2", None)
    assert parse_nvcc_version("nvcc: command not found") is None


def test_cuda_version_json_fixture() -> None:
    text = (DATA / "synthetic" / "cuda-12.4.1-version.json").read_text(encoding="utf-8")
    assert parse_cuda_version_json(text) == ("12.4", "12.4.1")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # runfile installs write a build date as the last component (seen in public posts)
        ('{"cuda": {"name": "CUDA SDK", "version": "11.8.20220929"}}', ("11.8", "11.8.20220929")),
        ('{"cuda_cudart": {"name": "CUDA Runtime (cudart)", "version": "12.6.77"}}', ("12.6", "12.6.77")),
        ('{"cuda_nvcc": {"name": "CUDA NVCC", "version": "13.0.88"}}', ("13.0", "13.0.88")),
        ('{"cuda": {"version": "garbage"}, "cuda_nvcc": {"version": "12.1.66"}}', ("12.1", "12.1.66")),
        ('{"cuda": {"version": 12}}', None),
        ('{"libcublas": {"version": "12.4.5.8"}}', None),
        ("[1, 2]", None),
        ("{not json", None),
        ("", None),
    ],
)
def test_cuda_version_json_variants(text: str, expected: tuple[str, str] | None) -> None:
    assert parse_cuda_version_json(text) == expected


# ---- cuDNN / NCCL headers -------------------------------------------------------------------

# Constructed: the version block of a cuDNN 8.9 cudnn_version.h, as the header lays it out.
CUDNN_FULL_HEADER = """\
/**
 * \\file: The master cuDNN version file.
 */

#ifndef CUDNN_VERSION_H_
#define CUDNN_VERSION_H_

#define CUDNN_MAJOR 8
#define CUDNN_MINOR 9
#define CUDNN_PATCHLEVEL 7

#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)

#endif /* CUDNN_VERSION_H */
"""

# Constructed: the version block of nccl.h (2.21.5).
NCCL_HEADER = """\
#ifndef NCCL_H_
#define NCCL_H_

#include <cuda_runtime.h>
#include <cuda_fp16.h>

#define NCCL_MAJOR 2
#define NCCL_MINOR 21
#define NCCL_PATCH 5
#define NCCL_SUFFIX ""

#define NCCL_VERSION_CODE 22105
#define NCCL_VERSION(X,Y,Z) (((X) <= 2 && (Y) <= 8) ? (X) * 1000 + (Y) * 100 + (Z) : \\
    (X) * 10000 + (Y) * 100 + (Z))
"""


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        ("cudnn-version-h/cudnn-8.2.1-grep-CUDNN_MAJOR-A2.txt", "8.2.1"),
        ("cudnn-version-h/cudnn-9.6.0-grep-CUDNN_MAJOR-A2.txt", "9.6.0"),
    ],
)
def test_cudnn_header_captures(file: str, expected: str) -> None:
    assert parse_cudnn_version_header(read(file)) == expected


def test_cudnn_and_nccl_headers() -> None:
    assert parse_cudnn_version_header(CUDNN_FULL_HEADER) == "8.9.7"
    assert parse_cudnn_version_header("#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n") is None
    assert parse_cudnn_version_header("") is None
    assert parse_nccl_header(NCCL_HEADER) == "2.21.5"
    assert parse_nccl_header(CUDNN_FULL_HEADER) is None


# ---- integer codes and sonames --------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [(12040, "12.4"), (11080, "11.8"), (13000, "13.0"), (12090, "12.9"), (10010, "10.1")],
)
def test_decode_cuda_driver_int(value: int, expected: str) -> None:
    assert decode_cuda_driver_int(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(90100, "9.1.0"), (90600, "9.6.0"), (91200, "9.12.0"), (8902, "8.9.2"), (7605, "7.6.5")],
)
def test_decode_cudnn_int(value: int, expected: str) -> None:
    assert decode_cudnn_int(value) == expected


@pytest.mark.parametrize(("value", "expected"), [(22105, "2.21.5"), (21903, "2.19.3"), (2708, "2.7.8")])
def test_decode_nccl_int(value: int, expected: str) -> None:
    assert decode_nccl_int(value) == expected


@pytest.mark.parametrize(
    ("filename", "version", "major"),
    [
        ("libcudnn.so.8.9.2", "8.9.2", 8),
        ("libcudart.so.12.4.127", "12.4.127", 12),
        ("libcudnn.so.9", None, 9),
        ("libcuda.so.1", None, 1),
        ("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "550.54.15", 550),
        ("libcublas.so.12.4.5.8", "12.4.5.8", 12),
        ("libcudnn.so", None, None),
        ("libnccl.so.2.21.5", "2.21.5", 2),
        ("cudnn64_9.dll", None, None),
        ("libfoo.so.1.2.debug", None, None),
        ("", None, None),
    ],
)
def test_soname(filename: str, version: str | None, major: int | None) -> None:
    assert version_from_soname(filename) == version
    assert soname_major(filename) == major


# ---- never raise ----------------------------------------------------------------------------

ALL_CAPTURES = sorted(p for p in CAPTURES.rglob("*") if p.is_file() and p.name != "README.md")

TEXT_PARSERS = (
    parse_csv_table,
    gpus_from_query_csv,
    driver_from_query_csv,
    parse_nvidia_smi_table,
    classify_nvidia_smi_failure,
    nvml_library_version_from_failure,
    parse_nvidia_smi_q,
    parse_nvidia_smi_version,
    parse_nvidia_smi_list,
    parse_proc_driver_version,
    parse_nvcc_version,
    parse_cuda_version_json,
    parse_cudnn_version_header,
    parse_nccl_header,
    version_from_soname,
    soname_major,
)


def test_capture_copies_present() -> None:
    assert len(ALL_CAPTURES) == 66
    assert (CAPTURES / "README.md").is_file()


def _mutations(text: str, rng: random.Random) -> list[str]:
    lines = text.splitlines(keepends=True)
    step = max(1, len(lines) // 40)
    out = ["".join(lines[:n]) for n in range(0, len(lines) + 1, step)]
    out += [text[: rng.randrange(len(text) + 1)] for _ in range(10)]
    for _ in range(10):
        chars = list(text)
        for _ in range(max(1, len(chars) // 50)):
            if chars:
                chars[rng.randrange(len(chars))] = rng.choice("|+:,>$#\n\t \x00x9[]N/A.-")
        out.append("".join(chars))
    out.append(text.replace("\n", "\r\n"))
    out.append(text.replace(" ", ""))
    return out


@pytest.mark.parametrize("path", ALL_CAPTURES, ids=[p.stem for p in ALL_CAPTURES])
def test_parsers_never_raise(path: Path) -> None:
    rng = random.Random(path.name)
    text = path.read_bytes().decode("utf-8")
    for mutated in _mutations(text, rng):
        for parse in TEXT_PARSERS:
            parse(mutated)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "|",
        "+",
        "| NVIDIA-SMI",
        "| NVIDIA-SMI |\n|   0  |",
        "GPU 0000:00:00.0\n    :",
        "\x00\xff",
        "[N/A]",
    ],
)
def test_parsers_never_raise_on_fragments(text: str) -> None:
    for parse in TEXT_PARSERS:
        parse(text)
    for value in (0, -1, 1, 10**12):
        decode_cuda_driver_int(value)
        decode_cudnn_int(value)
        decode_nccl_int(value)


def test_public_api_listed() -> None:
    assert set(parsers.__all__) >= {
        "QUERY_GPU_FIELDS",
        "QUERY_GPU_FIELDS_LEGACY",
        "SmiTable",
        "parse_nvidia_smi_table",
        "parse_nvidia_smi_q",
        "gpus_from_query_csv",
    }
