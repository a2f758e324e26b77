"""query_nvml with a fake pynvml module built from a real capture, and the real pynvml on this machine.

The fake answers what NVML would have answered on the machine of the real capture
tests/data/captures/nvidia-smi-q/h100-80gb-hbm3-driver-590.48.01-cuda-13.1.txt (1x H100 80GB HBM3,
driver 590.48.01, CUDA 13.1, persistence Enabled, MIG Disabled, PCIe gen 5 x16, bus 00000000:00:09.0).
Its compute capability (9.0) comes from the same machine's --query-gpu capture
(nvidia-smi-query-gpu/h100-80gb-hbm3-driver-590.48.01-all-fields.csv). The NVML library version string
("13.590.48.01", NVML's "<CUDA major>.<driver version>" form) is constructed: no capture holds it.
Errors are the real exception classes of the installed pynvml (nvidia-ml-py).
"""

# ruff: noqa: N802  # reason: the fake module keeps pynvml's function names

from __future__ import annotations

import dataclasses
import inspect
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pynvml
import pytest

from envguard.probes import nvml as nvml_module
from envguard.probes import parsers
from envguard.probes.nvml import NvmlReport, query_nvml
from envguard.snapshot import Unavailable
from tests.fakes import H100_590, capture

H100_Q = "nvidia-smi-q/h100-80gb-hbm3-driver-590.48.01-cuda-13.1.txt"
H100_CSV = "nvidia-smi-query-gpu/h100-80gb-hbm3-driver-590.48.01-all-fields.csv"
MIB = 1024 * 1024


@dataclass(frozen=True)
class FakeGpu:
    """One GPU as pynvml's getters return it."""

    name: str | bytes
    uuid: str
    cc: tuple[int, int]
    memory_total_bytes: int
    mig: tuple[int, int]
    persistence: int
    pcie_gen: int
    pcie_gen_max: int
    pcie_width: int
    pcie_width_max: int
    bus_id: str | bytes


#: Values read off the H100 -q capture (and its --query-gpu twin for the compute capability).
H100 = FakeGpu(
    name="NVIDIA H100 80GB HBM3",
    uuid="GPU-00000000-0000-0000-0000-000000000000",
    cc=(9, 0),
    memory_total_bytes=81559 * MIB,
    mig=(0, 0),  # NVML_DEVICE_MIG_DISABLE current, pending
    persistence=1,  # NVML_FEATURE_ENABLED
    pcie_gen=5,
    pcie_gen_max=5,
    pcie_width=16,
    pcie_width_max=16,
    bus_id="00000000:00:09.0",
)

#: The GpuInfo query_nvml must build from H100.
H100_INFO = dataclasses.replace(H100_590, source="NVML")


#: "Clocks Event Reasons" lines of nvidia-smi -q → the nvml.h bits, as the real pynvml names them.
Q_REASON_BITS = {
    "Idle": pynvml.nvmlClocksEventReasonGpuIdle,
    "Applications Clocks Setting": pynvml.nvmlClocksEventReasonApplicationsClocksSetting,
    "SW Power Cap": pynvml.nvmlClocksEventReasonSwPowerCap,
    "HW Slowdown": pynvml.nvmlClocksEventReasonHwSlowdown,
    "HW Thermal Slowdown": pynvml.nvmlClocksEventReasonHwThermalSlowdown,
    "HW Power Brake Slowdown": pynvml.nvmlClocksEventReasonHwPowerBrakeSlowdown,
    "Sync Boost": pynvml.nvmlClocksEventReasonSyncBoost,
    "SW Thermal Slowdown": pynvml.nvmlClocksEventReasonSwThermalSlowdown,
    "Display Clock Setting": pynvml.nvmlClocksEventReasonDisplayClockSetting,
}


def capture_clock_mask(q_text: str) -> int:
    """The clock-event mask an nvidia-smi -q capture shows (its "Clocks Event Reasons" section)."""
    mask, inside = 0, False
    for line in q_text.splitlines():
        if line.strip() == "Clocks Event Reasons":
            inside = True
            continue
        if inside:
            name, sep, value = line.partition(":")
            if not sep or name.strip() not in Q_REASON_BITS:
                break
            if value.strip() == "Active":
                mask |= Q_REASON_BITS[name.strip()]
    return mask


def nvml_error(code: int) -> Exception:
    """An exception exactly as pynvml raises it: NVMLError(code) returns the matching subclass."""
    exc: Exception = pynvml.NVMLError(code)
    return exc


@dataclass
class FakeNvml:
    """A pynvml-like module: the functions envguard calls, answering from FakeGpu values."""

    driver: str | bytes = "590.48.01"
    cuda_int: int = 13010
    nvml_version: str = "13.590.48.01"
    gpus: tuple[FakeGpu, ...] = (H100,)
    init_error: Exception | None = None
    #: Getter name -> exception it raises (NOT_SUPPORTED and friends).
    failing: dict[str, Exception] = field(default_factory=dict)
    #: When set, nvmlInit blocks until the event is set (a hung driver).
    init_gate: threading.Event | None = None
    #: Clock-event masks the reason getters answer, one per call (the last one repeats); by default the
    #: capture's own "Clocks Event Reasons" section (an idle GPU).
    clock_masks: list[int] = field(default_factory=lambda: [capture_clock_mask(capture(H100_Q))])
    calls: list[str] = field(default_factory=list)

    NVMLError = pynvml.NVMLError

    def _enter(self, name: str) -> None:
        self.calls.append(name)
        if name in self.failing:
            raise self.failing[name]

    def nvmlInit(self) -> None:
        self.calls.append("nvmlInit")
        if self.init_gate is not None:
            self.init_gate.wait(10.0)
        if self.init_error is not None:
            raise self.init_error

    def nvmlShutdown(self) -> None:
        self._enter("nvmlShutdown")

    def _mask(self) -> int:
        return self.clock_masks.pop(0) if len(self.clock_masks) > 1 else self.clock_masks[0]

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle: object) -> int:
        self._enter("nvmlDeviceGetCurrentClocksEventReasons")
        return self._mask()

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle: object) -> int:
        self._enter("nvmlDeviceGetCurrentClocksThrottleReasons")
        return self._mask()

    def nvmlSystemGetDriverVersion(self) -> str | bytes:
        self._enter("nvmlSystemGetDriverVersion")
        return self.driver

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        self._enter("nvmlSystemGetCudaDriverVersion_v2")
        return self.cuda_int

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        self._enter("nvmlSystemGetCudaDriverVersion")
        return self.cuda_int

    def nvmlSystemGetNVMLVersion(self) -> str:
        self._enter("nvmlSystemGetNVMLVersion")
        return self.nvml_version

    def nvmlDeviceGetCount(self) -> int:
        self._enter("nvmlDeviceGetCount")
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> FakeGpu:
        self._enter("nvmlDeviceGetHandleByIndex")
        return self.gpus[index]

    def nvmlDeviceGetName(self, handle: FakeGpu) -> str | bytes:
        self._enter("nvmlDeviceGetName")
        return handle.name

    def nvmlDeviceGetUUID(self, handle: FakeGpu) -> str:
        self._enter("nvmlDeviceGetUUID")
        return handle.uuid

    def nvmlDeviceGetCudaComputeCapability(self, handle: FakeGpu) -> tuple[int, int]:
        self._enter("nvmlDeviceGetCudaComputeCapability")
        return handle.cc

    def nvmlDeviceGetMemoryInfo(self, handle: FakeGpu) -> Any:
        self._enter("nvmlDeviceGetMemoryInfo")
        return SimpleNamespace(total=handle.memory_total_bytes, free=handle.memory_total_bytes, used=0)

    def nvmlDeviceGetMigMode(self, handle: FakeGpu) -> list[int]:
        self._enter("nvmlDeviceGetMigMode")
        return list(handle.mig)

    def nvmlDeviceGetPersistenceMode(self, handle: FakeGpu) -> int:
        self._enter("nvmlDeviceGetPersistenceMode")
        return handle.persistence

    def nvmlDeviceGetPciInfo(self, handle: FakeGpu) -> Any:
        self._enter("nvmlDeviceGetPciInfo")
        return SimpleNamespace(busId=handle.bus_id, domain=0, bus=0, device=9)

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: FakeGpu) -> int:
        self._enter("nvmlDeviceGetCurrPcieLinkGeneration")
        return handle.pcie_gen

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: FakeGpu) -> int:
        self._enter("nvmlDeviceGetMaxPcieLinkGeneration")
        return handle.pcie_gen_max

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: FakeGpu) -> int:
        self._enter("nvmlDeviceGetCurrPcieLinkWidth")
        return handle.pcie_width

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: FakeGpu) -> int:
        self._enter("nvmlDeviceGetMaxPcieLinkWidth")
        return handle.pcie_width_max


# ---- the fake matches the captures and the real module --------------------------------------


def test_fake_h100_values_match_the_real_captures() -> None:
    driver, cuda, gpus = parsers.parse_nvidia_smi_q(capture(H100_Q))
    assert (driver, cuda) == ("590.48.01", "13.1")
    (q,) = gpus
    assert q.name == H100.name
    assert q.uuid == H100.uuid
    assert q.memory_total_mib == H100.memory_total_bytes // MIB
    assert (q.pcie_link_gen, q.pcie_link_gen_max) == (H100.pcie_gen, H100.pcie_gen_max)
    assert (q.pcie_link_width, q.pcie_link_width_max) == (H100.pcie_width, H100.pcie_width_max)
    assert (q.mig_mode, q.persistence_mode, q.pci_bus_id) == ("Disabled", "Enabled", H100.bus_id)
    (csv,) = parsers.gpus_from_query_csv(capture(H100_CSV))
    assert csv.compute_capability == f"{H100.cc[0]}.{H100.cc[1]}"
    assert parsers.decode_cuda_driver_int(FakeNvml().cuda_int) == cuda


def test_fake_has_every_function_envguard_calls_and_the_real_pynvml_has_them_too() -> None:
    used = set(re.findall(r"\bnvml[A-Z]\w*", inspect.getsource(nvml_module)))
    fake = {n for n in dir(FakeNvml) if re.match(r"nvml[A-Z]", n)}
    assert len(used) == 21
    assert used == fake
    assert fake <= set(dir(pynvml)), sorted(fake - set(dir(pynvml)))


# ---- a working NVML -------------------------------------------------------------------------


def test_h100_report_from_nvml() -> None:
    lib = FakeNvml()
    report = query_nvml(5.0, lib=lib)
    assert report == NvmlReport(
        driver_version="590.48.01", cuda_driver_int=13010, nvml_version="13.590.48.01", gpus=(H100_INFO,)
    )
    assert lib.calls[0] == "nvmlInit"
    assert lib.calls[-1] == "nvmlShutdown"
    # the _v2 getter answered, so the legacy one was not needed
    assert "nvmlSystemGetCudaDriverVersion" not in lib.calls


def test_bytes_answers_of_older_pynvml_are_decoded() -> None:
    gpu = dataclasses.replace(H100, name=b"NVIDIA H100 80GB HBM3", bus_id=b"00000000:00:09.0")
    report = query_nvml(5.0, lib=FakeNvml(driver=b"590.48.01", gpus=(gpu,)))
    assert isinstance(report, NvmlReport)
    assert report.driver_version == "590.48.01"
    assert report.gpus == (H100_INFO,)


def test_two_gpus_with_mig_enabled_and_persistence_off() -> None:
    second = dataclasses.replace(H100, mig=(1, 1), persistence=0, bus_id="00000000:00:0A.0",
                                 uuid="GPU-11111111-1111-1111-1111-111111111111")
    report = query_nvml(5.0, lib=FakeNvml(gpus=(H100, second)))
    assert isinstance(report, NvmlReport)
    assert [g.index for g in report.gpus] == [0, 1]
    assert report.gpus[1].mig_mode == "Enabled"
    assert report.gpus[1].persistence_mode == "Disabled"
    assert report.gpus[1].pci_bus_id == "00000000:00:0A.0"
    assert report.gpus[1].uuid == "GPU-11111111-1111-1111-1111-111111111111"


def test_zero_gpus_is_a_report_not_an_error() -> None:
    report = query_nvml(5.0, lib=FakeNvml(gpus=()))
    assert report == NvmlReport("590.48.01", 13010, "13.590.48.01", ())


# ---- getters that are not supported ---------------------------------------------------------

NOT_SUPPORTED = pynvml.NVML_ERROR_NOT_SUPPORTED


@pytest.mark.parametrize(
    ("getter", "field_name"),
    [
        ("nvmlDeviceGetMigMode", "mig_mode"),  # GeForce / pre-Ampere: NOT_SUPPORTED
        ("nvmlDeviceGetPersistenceMode", "persistence_mode"),  # Windows / WSL2
        ("nvmlDeviceGetCudaComputeCapability", "compute_capability"),
        ("nvmlDeviceGetMemoryInfo", "memory_total_mib"),
        ("nvmlDeviceGetUUID", "uuid"),
        ("nvmlDeviceGetPciInfo", "pci_bus_id"),
        ("nvmlDeviceGetCurrPcieLinkGeneration", "pcie_link_gen"),
        ("nvmlDeviceGetMaxPcieLinkGeneration", "pcie_link_gen_max"),
        ("nvmlDeviceGetCurrPcieLinkWidth", "pcie_link_width"),
        ("nvmlDeviceGetMaxPcieLinkWidth", "pcie_link_width_max"),
    ],
)
def test_unsupported_getter_gives_none_for_that_field_only(getter: str, field_name: str) -> None:
    lib = FakeNvml(failing={getter: nvml_error(NOT_SUPPORTED)})
    report = query_nvml(5.0, lib=lib)
    assert isinstance(report, NvmlReport)
    unknown: dict[str, Any] = {field_name: None}
    assert report.gpus == (dataclasses.replace(H100_INFO, **unknown),)
    assert report.driver_version == "590.48.01"
    assert report.cuda_driver_int == 13010
    assert lib.calls[-1] == "nvmlShutdown"


def test_cuda_version_falls_back_to_the_v1_getter() -> None:
    lib = FakeNvml(failing={"nvmlSystemGetCudaDriverVersion_v2": nvml_error(pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)})
    report = query_nvml(5.0, lib=lib)
    assert isinstance(report, NvmlReport)
    assert report.cuda_driver_int == 13010
    assert "nvmlSystemGetCudaDriverVersion" in lib.calls


def test_no_cuda_version_and_no_nvml_version() -> None:
    err = nvml_error(NOT_SUPPORTED)
    lib = FakeNvml(failing={"nvmlSystemGetCudaDriverVersion_v2": err, "nvmlSystemGetCudaDriverVersion": err,
                            "nvmlSystemGetNVMLVersion": err})
    report = query_nvml(5.0, lib=lib)
    assert report == NvmlReport("590.48.01", None, None, (H100_INFO,))


def test_required_getter_failing_is_an_nvml_error_and_nvml_is_shut_down() -> None:
    lib = FakeNvml(failing={"nvmlDeviceGetName": nvml_error(pynvml.NVML_ERROR_GPU_IS_LOST)})
    report = query_nvml(5.0, lib=lib)
    assert report == Unavailable("NVML error: GPU is lost", ("NVML",), "nvml-error")
    assert lib.calls[-1] == "nvmlShutdown"


# ---- nvmlInit failures ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "cls_name", "expected_code", "reason_part"),
    [
        (pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH, "NVMLError_LibRmVersionMismatch", "driver-library-mismatch",
         "Driver/library version mismatch"),
        (pynvml.NVML_ERROR_DRIVER_NOT_LOADED, "NVMLError_DriverNotLoaded", "driver-not-loaded",
         "the NVIDIA kernel driver is not loaded"),
        (pynvml.NVML_ERROR_LIBRARY_NOT_FOUND, "NVMLError_LibraryNotFound", "nvml-library-not-found",
         "libnvidia-ml.so.1"),
    ],
)
def test_init_errors_map_to_facts(code: int, cls_name: str, expected_code: str, reason_part: str) -> None:
    exc = nvml_error(code)
    assert type(exc) is getattr(pynvml, cls_name)  # the real subclass, as pynvml raises it
    lib = FakeNvml(init_error=exc)
    result = query_nvml(5.0, lib=lib)
    assert isinstance(result, Unavailable)
    assert result.code == expected_code
    assert result.tried == ("NVML",)
    assert reason_part in result.reason
    assert lib.calls == ["nvmlInit"]  # nothing else is asked of a library that did not start


def test_unknown_nvml_error_keeps_pynvml_message() -> None:
    result = query_nvml(5.0, lib=FakeNvml(init_error=nvml_error(pynvml.NVML_ERROR_UNKNOWN)))
    assert result == Unavailable("NVML error: Unknown Error", ("NVML",), "nvml-error")


def test_non_nvml_exception_is_a_fact_not_a_crash() -> None:
    result = query_nvml(5.0, lib=FakeNvml(init_error=OSError("libnvidia-ml.so.1: wrong ELF class")))
    assert result == Unavailable(
        "NVML query failed: OSError: libnvidia-ml.so.1: wrong ELF class", ("NVML",), "nvml-error"
    )


# ---- a hung driver --------------------------------------------------------------------------


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """An event that releases a hung fake nvmlInit when the test ends."""
    event = threading.Event()
    yield event
    event.set()


def test_hung_nvml_init_times_out(gate: threading.Event) -> None:
    lib = FakeNvml(init_gate=gate)
    start = time.monotonic()
    result = query_nvml(0.3, lib=lib)
    elapsed = time.monotonic() - start
    assert isinstance(result, Unavailable)
    assert result.code == "timeout"
    assert result.tried == ("NVML",)
    assert 0.25 <= elapsed < 2.0
    assert lib.calls == ["nvmlInit"]


def test_hung_nvml_worker_finishes_once_released(gate: threading.Event) -> None:
    lib = FakeNvml(init_gate=gate)
    assert isinstance(query_nvml(0.2, lib=lib), Unavailable)
    gate.set()
    deadline = time.monotonic() + 5.0
    while "nvmlShutdown" not in lib.calls and time.monotonic() < deadline:
        time.sleep(0.01)
    assert lib.calls[-1] == "nvmlShutdown"


def test_timeout_reason_names_a_sub_second_timeout(gate: threading.Event) -> None:
    result = query_nvml(0.5, lib=FakeNvml(init_gate=gate))
    assert isinstance(result, Unavailable)
    assert "0.5s" in result.reason


# ---- the real pynvml on this machine --------------------------------------------------------


@pytest.mark.skipif(os.path.exists("/proc/driver/nvidia/version"), reason="an NVIDIA driver is loaded here")
def test_real_pynvml_without_a_driver() -> None:
    result = query_nvml(5.0)
    assert result == Unavailable(
        "the NVML library (libnvidia-ml.so.1) was not found",
        ("NVML",),
        "nvml-library-not-found",
    )


@pytest.mark.skipif(os.path.exists("/proc/driver/nvidia/version"), reason="an NVIDIA driver is loaded here")
def test_library_precheck_says_what_real_pynvml_says() -> None:
    """Without libnvidia-ml.so.1 the probe answers before importing pynvml; the fact is the one real pynvml's
    nvmlInit gives (the module passed in skips the precheck)."""
    assert query_nvml(5.0) == query_nvml(5.0, lib=pynvml)


# ---- clock-event reasons --------------------------------------------------------------------

FUNCTION_NOT_FOUND = pynvml.NVML_ERROR_FUNCTION_NOT_FOUND
IDLE = pynvml.nvmlClocksEventReasonGpuIdle
POWER_CAP = pynvml.nvmlClocksEventReasonSwPowerCap
HW_THERMAL = pynvml.nvmlClocksEventReasonHwThermalSlowdown


def _sample(lib: Any, seconds: float = 0.15) -> Any:
    from envguard.probes.nvml import ThrottleSampler

    sampler = ThrottleSampler(interval_s=0.01, lib=lib).start()
    time.sleep(seconds)
    return sampler.stop()


def test_the_captures_show_idle_gpus_and_the_fake_answers_that() -> None:
    assert capture_clock_mask(capture(H100_Q)) == IDLE
    for name in ("a10-driver-535.129.03-cuda-12.2.txt", "titan-v-driver-560.35.03-cuda-12.6-persistence-disabled.txt"):
        assert capture_clock_mask(capture(f"nvidia-smi-q/{name}")) == IDLE
    from envguard.probes.nvml import throttle_mask

    assert throttle_mask(FakeNvml()) == IDLE


def test_sampler_inits_nvml_once_and_tells_slowdowns_from_the_power_cap() -> None:
    lib = FakeNvml(clock_masks=[IDLE, IDLE | HW_THERMAL, POWER_CAP, IDLE])
    events = _sample(lib)
    assert events.known and events.mask == IDLE | HW_THERMAL | POWER_CAP
    assert events.slowdowns == ("hardware thermal slowdown",)
    assert events.power_capped
    assert lib.calls.count("nvmlInit") == 1
    assert lib.calls.count("nvmlShutdown") == 1 and lib.calls[-1] == "nvmlShutdown"
    assert lib.calls.count("nvmlDeviceGetCurrentClocksEventReasons") >= 4, "sampled many times under one init"
    assert "nvmlDeviceGetCurrentClocksThrottleReasons" not in lib.calls


def test_power_cap_alone_is_information_not_a_slowdown() -> None:
    events = _sample(FakeNvml(clock_masks=[POWER_CAP]))
    assert events.slowdowns == () and events.power_capped and bool(events)
    idle = _sample(FakeNvml())
    assert idle.known and idle.slowdowns == () and not idle.power_capped
    assert not idle, "an idle GPU has nothing to report"


def test_drivers_before_r535_fall_back_to_the_throttle_getter() -> None:
    lib = FakeNvml(clock_masks=[HW_THERMAL],
                   failing={"nvmlDeviceGetCurrentClocksEventReasons": nvml_error(FUNCTION_NOT_FOUND)})
    events = _sample(lib)
    assert events.mask == HW_THERMAL and events.slowdowns == ("hardware thermal slowdown",)
    assert lib.calls.count("nvmlDeviceGetCurrentClocksEventReasons") == 1, "a missing getter is dropped for good"
    assert lib.calls.count("nvmlDeviceGetCurrentClocksThrottleReasons") >= 2
    from envguard.probes.nvml import throttle_mask

    assert throttle_mask(FakeNvml(clock_masks=[POWER_CAP], failing={
        "nvmlDeviceGetCurrentClocksEventReasons": nvml_error(FUNCTION_NOT_FOUND)})) == POWER_CAP


def test_neither_getter_is_unknown_not_no_slowdown() -> None:
    lib = FakeNvml(failing={"nvmlDeviceGetCurrentClocksEventReasons": nvml_error(FUNCTION_NOT_FOUND),
                            "nvmlDeviceGetCurrentClocksThrottleReasons": nvml_error(FUNCTION_NOT_FOUND)})
    events = _sample(lib)
    assert events.mask is None and not events.known and bool(events)
    assert "neither nvmlDeviceGetCurrentClocksEventReasons nor nvmlDeviceGetCurrentClocksThrottleReasons" in (
        events.source)
    assert lib.calls[-1] == "nvmlShutdown"
    from envguard.probes.nvml import throttle_mask

    assert throttle_mask(FakeNvml(failing=dict(lib.failing))) is None


def test_another_nvml_error_is_unknown_too() -> None:
    err = nvml_error(pynvml.NVML_ERROR_NOT_SUPPORTED)
    assert type(err) is pynvml.NVMLError_NotSupported
    events = _sample(FakeNvml(failing={"nvmlDeviceGetCurrentClocksEventReasons": err}))
    assert events.mask is None
    assert events.source == "nvmlDeviceGetCurrentClocksEventReasons: Not Supported"


def test_an_old_pynvml_without_the_event_getter_uses_the_throttle_one() -> None:
    class OldPynvml(FakeNvml):
        nvmlDeviceGetCurrentClocksEventReasons = None  # type: ignore[assignment] # noqa: N815 # reason: absent in old pynvml

    events = _sample(OldPynvml(clock_masks=[POWER_CAP]))
    assert events.mask == POWER_CAP


def test_no_driver_is_unknown_with_the_reason() -> None:
    from envguard.probes.nvml import throttle_mask

    lib = FakeNvml(init_error=nvml_error(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND))
    assert throttle_mask(lib) is None
    events = _sample(lib, 0.05)
    assert events.mask is None
    assert events.source == "nvmlInit failed: NVML Shared Library Not Found"
    assert lib.calls == ["nvmlInit", "nvmlInit"]
