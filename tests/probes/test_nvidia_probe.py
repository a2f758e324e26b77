"""probe_nvidia: NVML first, /proc/driver/nvidia/version, then nvidia-smi, with real captured tool output.

nvidia-smi answers come from tests/data/captures (provenance in its README):
- the --query-gpu CSV is the real all-fields capture of a 1x H100 80GB HBM3 on driver 590.48.01, cut down
  to the columns envguard asks for (cells kept verbatim; that capture used --format=csv, so values keep
  their units, which the parser accepts as well as nounits);
- the plain table is the real H100 80GB HBM3 table of the same driver (590.48.01, CUDA 13.1);
- failure messages are real captures. Exit statuses are nvidia-smi's documented ones (2 invalid argument,
  6 not found, 9 driver not loaded) and 18 (NVML_ERROR_LIB_RM_VERSION_MISMATCH) for the mismatch.
The NVML side is either a canned NvmlReport/Unavailable or query_nvml over a fake pynvml raising the real
pynvml exception classes.
"""

from __future__ import annotations

import shutil
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pynvml
import pytest

from envguard import _subprocess
from envguard._subprocess import CommandResult
from envguard.probes.base import ProbeContext
from envguard.probes.nvidia import PROC_VERSION, probe_nvidia
from envguard.probes.nvml import NvmlReport, query_nvml
from envguard.probes.parsers import QUERY_GPU_FIELDS, QUERY_GPU_FIELDS_LEGACY
from envguard.snapshot import DriverInfo, GpuInfo, Unavailable
from tests.fakes import CAPTURES, H100_590, FakeRunner, capture

H100_CSV = "nvidia-smi-query-gpu/h100-80gb-hbm3-driver-590.48.01-all-fields.csv"
H100_TABLE = "nvidia-smi/h100-80gb-hbm3-mig-enabled-driver-590.48.01-cuda-13.1.txt"
PROC_565_OPEN = "proc-driver-nvidia-version/open-565.57.01-x86_64-ubuntu24.04.txt"
PROC_525_OPEN = "proc-driver-nvidia-version/open-525.60.11-x86_64-archlinux-no-date.txt"
MISMATCH_550 = "nvidia-smi/failure-driver-library-version-mismatch-nvml-550.144.txt"
MISMATCH_570 = "nvidia-smi/failure-driver-library-version-mismatch-nvml-570.124-no-prompt.txt"
NOT_LOADED = "nvidia-smi/failure-couldnt-communicate-with-driver.txt"
NOT_LOADED_WSL = "nvidia-smi/failure-wsl2-couldnt-communicate-failed-to-shut-down-nvml.txt"
NO_DEVICES = "nvidia-smi/failure-no-devices-were-found-rtx5090-partial.txt"
SNAP_INVALID_FIELD = (
    "nvidia-smi/snap-bundled-smi-470.256.02-host-driver-580.95.05-compute-cap-invalid-field-partial.txt"
)

TRIED = ("NVML", PROC_VERSION, "nvidia-smi")

H100_SMI_GPU = H100_590


def project_csv(text: str, fields: tuple[str, ...]) -> str:
    """The columns ``fields`` (in that order) of a real ``--query-gpu`` CSV capture, cells verbatim."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    header = [cell.strip() for cell in lines[0].split(",")]
    keys = [cell.split(" [")[0] for cell in header]
    columns = [keys.index(f) for f in fields]
    out = []
    for line in lines:
        cells = [cell.strip() for cell in line.split(",")]
        assert len(cells) == len(header)
        out.append(", ".join(cells[i] for i in columns))
    return "\n".join(out) + "\n"


def query_argv(exe: str, fields: tuple[str, ...]) -> tuple[str, ...]:
    return (exe, f"--query-gpu={','.join(fields)}", "--format=csv,nounits")


def failed(stdout: str, returncode: int) -> CommandResult:
    return CommandResult((), returncode, stdout, "", 0.05)


def capture_lines(relpath: str, start: int, stop: int) -> str:
    """Lines [start, stop) of a capture: the part a command printed, without its prompt line."""
    return "\n".join(capture(relpath).splitlines()[start:stop]) + "\n"


@dataclass
class Machine:
    """A fixture machine: a tmp root for /proc, a PATH folder that may hold nvidia-smi."""

    root: Path
    bin: Path

    @property
    def smi(self) -> str:
        return str(self.bin / "nvidia-smi")

    def add_smi(self) -> str:
        path = self.bin / "nvidia-smi"
        path.write_text("#!/bin/sh\necho 'unit tests never run this' >&2\nexit 99\n", encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return str(path)

    def add_proc(self, relpath: str) -> None:
        target = self.root / PROC_VERSION.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CAPTURES / relpath, target)

    def ctx(
        self,
        run: FakeRunner | None,
        nvml: Callable[[float], NvmlReport | Unavailable],
        timeout_s: float = 10.0,
    ) -> ProbeContext:
        return ProbeContext(
            run=run if run is not None else _subprocess.run,
            env={"PATH": str(self.bin)},
            root=self.root,
            nvml=nvml,
            timeout_s=timeout_s,
        )


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    (tmp_path / "root").mkdir()
    (tmp_path / "bin").mkdir()
    return Machine(tmp_path / "root", tmp_path / "bin")


def nvml_answers(value: NvmlReport | Unavailable) -> Callable[[float], NvmlReport | Unavailable]:
    def answer(timeout_s: float) -> NvmlReport | Unavailable:
        return value

    return answer


def nvml_raising(code: int) -> Callable[[float], NvmlReport | Unavailable]:
    """query_nvml over a fake pynvml whose nvmlInit raises the real pynvml error for ``code``."""

    class Lib:
        NVMLError = pynvml.NVMLError

        def nvmlInit(self) -> None:  # noqa: N802 # reason: pynvml's name
            raise pynvml.NVMLError(code)

    def answer(timeout_s: float) -> NvmlReport | Unavailable:
        return query_nvml(timeout_s, lib=Lib())

    return answer


PYNVML_MISSING = Unavailable("pynvml (nvidia-ml-py) is not installed", ("NVML",), "pynvml-missing")
NVML_GPU = GpuInfo(index=0, name="NVIDIA H100 80GB HBM3", source="NVML", compute_capability="9.0")


def smi_responses(
    machine: Machine, table: CommandResult | str | None = None
) -> dict[tuple[str, ...], CommandResult | str]:
    exe = machine.smi
    return {
        query_argv(exe, QUERY_GPU_FIELDS): project_csv(capture(H100_CSV), QUERY_GPU_FIELDS),
        (exe,): capture(H100_TABLE) if table is None else table,
    }


# ---- NVML answers ---------------------------------------------------------------------------


def test_nvml_driver_with_the_kernel_module_from_proc(machine: Machine) -> None:
    machine.add_proc(PROC_565_OPEN)
    machine.add_smi()
    runner = FakeRunner()
    report = NvmlReport("565.57.01", 12070, "12.565.57.01", (NVML_GPU,))
    driver, gpus = probe_nvidia(machine.ctx(runner, nvml_answers(report)))
    assert driver == DriverInfo(
        version="565.57.01", cuda_driver_version="12.7", source="NVML", kernel_module_version="565.57.01",
        nvml_library_version="12.565.57.01", kernel_module_flavor="open",
    )
    assert gpus == (NVML_GPU,)
    assert runner.calls == []  # nvidia-smi is not needed when NVML answers


def test_nvml_without_proc_and_without_cuda_version(machine: Machine) -> None:
    report = NvmlReport("590.48.01", None, None, ())
    driver, gpus = probe_nvidia(machine.ctx(FakeRunner(), nvml_answers(report)))
    assert driver == DriverInfo("590.48.01", None, "NVML")
    assert gpus == ()


def test_nvml_and_proc_disagreeing_are_both_recorded(machine: Machine) -> None:
    machine.add_proc(PROC_525_OPEN)
    driver, _ = probe_nvidia(machine.ctx(FakeRunner(), nvml_answers(NvmlReport("590.48.01", 13010, None, ()))))
    assert isinstance(driver, DriverInfo)
    assert (driver.version, driver.cuda_driver_version) == ("590.48.01", "13.1")
    assert (driver.kernel_module_version, driver.kernel_module_flavor) == ("525.60.11", "open")


# ---- nvidia-smi answers ---------------------------------------------------------------------


def test_project_csv_keeps_the_capture_cells() -> None:
    csv = project_csv(capture(H100_CSV), QUERY_GPU_FIELDS)
    assert csv.splitlines() == [
        "index, name, uuid, compute_cap, memory.total [MiB], mig.mode.current, persistence_mode, "
        "pcie.link.gen.current, pcie.link.gen.max, pcie.link.width.current, pcie.link.width.max, pci.bus_id, "
        "driver_version",
        "0, NVIDIA H100 80GB HBM3, GPU-00000000-0000-0000-0000-000000000000, 9.0, 81559 MiB, Disabled, Enabled, "
        "5, 5, 16, 16, 00000000:00:09.0, 590.48.01",
    ]


def test_nvml_library_missing_nvidia_smi_answers(machine: Machine) -> None:
    exe = machine.add_smi()
    runner = FakeRunner(smi_responses(machine))
    driver, gpus = probe_nvidia(machine.ctx(runner, nvml_raising(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)))
    assert driver == DriverInfo("590.48.01", "13.1", "nvidia-smi")
    assert gpus == (H100_SMI_GPU,)
    assert runner.calls == [query_argv(exe, QUERY_GPU_FIELDS), (exe,)]


def test_nvidia_smi_with_proc_records_the_kernel_module(machine: Machine) -> None:
    machine.add_smi()
    machine.add_proc(PROC_565_OPEN)
    driver, gpus = probe_nvidia(machine.ctx(FakeRunner(smi_responses(machine)), nvml_answers(PYNVML_MISSING)))
    assert driver == DriverInfo("590.48.01", "13.1", "nvidia-smi", "565.57.01", None, "open")
    assert gpus == (H100_SMI_GPU,)


def test_nvidia_smi_table_failing_leaves_cuda_unknown(machine: Machine) -> None:
    machine.add_smi()
    runner = FakeRunner(smi_responses(machine, table=failed("", 255)))
    driver, gpus = probe_nvidia(machine.ctx(runner, nvml_answers(PYNVML_MISSING)))
    assert driver == DriverInfo("590.48.01", None, "nvidia-smi")
    assert gpus == (H100_SMI_GPU,)


def test_old_nvidia_smi_rejecting_compute_cap_is_retried_with_legacy_fields(machine: Machine) -> None:
    exe = machine.add_smi()
    rejection = capture_lines(SNAP_INVALID_FIELD, 1, 2)
    assert rejection == 'Field "compute_cap" is not a valid field to query.\n'
    runner = FakeRunner({
        query_argv(exe, QUERY_GPU_FIELDS): failed(rejection, 2),
        query_argv(exe, QUERY_GPU_FIELDS_LEGACY): project_csv(capture(H100_CSV), QUERY_GPU_FIELDS_LEGACY),
        (exe,): capture(H100_TABLE),
    })
    driver, gpus = probe_nvidia(machine.ctx(runner, nvml_raising(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)))
    assert runner.calls == [query_argv(exe, QUERY_GPU_FIELDS), query_argv(exe, QUERY_GPU_FIELDS_LEGACY), (exe,)]
    assert driver == DriverInfo("590.48.01", "13.1", "nvidia-smi")
    assert gpus == (replace(H100_SMI_GPU, compute_capability=None),)


def test_legacy_retry_failing_too_reports_the_second_failure(machine: Machine) -> None:
    exe = machine.add_smi()
    rejection = capture_lines(SNAP_INVALID_FIELD, 1, 2)
    runner = FakeRunner({
        query_argv(exe, QUERY_GPU_FIELDS): failed(rejection, 2),
        query_argv(exe, QUERY_GPU_FIELDS_LEGACY): failed(capture_lines(NOT_LOADED, 1, 2), 9),
    })
    driver, gpus = probe_nvidia(machine.ctx(runner, nvml_raising(pynvml.NVML_ERROR_DRIVER_NOT_LOADED)))
    assert isinstance(driver, Unavailable)
    assert driver.code == "driver-not-loaded"
    assert driver.reason.endswith(
        "; nvidia-smi: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.)"
    )
    assert isinstance(gpus, Unavailable)
    assert len(runner.calls) == 2


# ---- nothing answers ------------------------------------------------------------------------


@pytest.mark.parametrize(("relpath", "lib_version"), [(MISMATCH_550, "550.144"), (MISMATCH_570, "570.124")])
def test_driver_library_mismatch(machine: Machine, relpath: str, lib_version: str) -> None:
    exe = machine.add_smi()
    runner = FakeRunner({(exe,): failed(capture(relpath), 18)})
    driver, gpus = probe_nvidia(machine.ctx(runner, nvml_raising(pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH)))
    reason = (
        "NVML reports Driver/library version mismatch: the loaded kernel module and the user-space driver "
        "libraries have different versions; nvidia-smi: Failed to initialize NVML: Driver/library version "
        f"mismatch (NVML library version {lib_version})"
    )
    assert driver == Unavailable(reason, TRIED, "driver-library-mismatch")
    assert gpus == Unavailable(reason, TRIED)
    assert runner.calls == [query_argv(exe, QUERY_GPU_FIELDS)]  # no legacy retry, no table


def test_driver_library_mismatch_names_the_loaded_module(machine: Machine) -> None:
    exe = machine.add_smi()
    machine.add_proc(PROC_565_OPEN)
    runner = FakeRunner({(exe,): failed(capture(MISMATCH_550), 18)})
    driver, _ = probe_nvidia(machine.ctx(runner, nvml_raising(pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH)))
    assert isinstance(driver, Unavailable)
    assert driver.code == "driver-library-mismatch"
    assert "(NVML library version 550.144)" in driver.reason
    assert driver.reason.endswith("; loaded kernel module: 565.57.01")


@pytest.mark.parametrize("relpath", [NOT_LOADED, NOT_LOADED_WSL])
def test_driver_not_loaded(machine: Machine, relpath: str) -> None:
    exe = machine.add_smi()
    runner = FakeRunner({(exe,): failed(capture(relpath), 9)})
    driver, gpus = probe_nvidia(machine.ctx(runner, nvml_raising(pynvml.NVML_ERROR_DRIVER_NOT_LOADED)))
    reason = (
        "the NVIDIA driver did not answer (the NVIDIA kernel driver is not loaded; /proc/driver/nvidia/version "
        "is absent; nvidia-smi: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.)"
    )
    assert driver == Unavailable(reason, TRIED, "driver-not-loaded")
    assert gpus == Unavailable("the NVIDIA driver did not answer, so no GPU can be listed", TRIED,
                               "driver-not-loaded")


def _no_devices(machine: Machine) -> tuple[DriverInfo | Unavailable, tuple[GpuInfo, ...] | Unavailable]:
    exe = machine.add_smi()
    machine.add_proc(PROC_565_OPEN)  # the module is loaded; RmInitAdapter failed for the GPU
    answer = capture_lines(NO_DEVICES, 1, 2)
    assert answer == "No devices were found\n"
    runner = FakeRunner({(exe,): failed(answer, 6)})
    return probe_nvidia(machine.ctx(runner, nvml_answers(PYNVML_MISSING)))


def test_no_devices_were_found(machine: Machine) -> None:
    driver, gpus = _no_devices(machine)
    assert driver == DriverInfo("565.57.01", None, PROC_VERSION, "565.57.01", None, "open")
    assert isinstance(gpus, Unavailable)
    assert gpus.reason == (
        "kernel module 565.57.01 is loaded (/proc/driver/nvidia/version) but no user-space tool answered: "
        "pynvml (nvidia-ml-py) is not installed; nvidia-smi: No devices were found"
    )
    assert gpus.tried == TRIED


def test_no_devices_code_is_the_cause_nvidia_smi_named(machine: Machine) -> None:
    _, gpus = _no_devices(machine)
    assert isinstance(gpus, Unavailable)
    assert gpus.code == "no-devices"


def test_nvml_reports_zero_gpus_without_asking_nvidia_smi(machine: Machine) -> None:
    machine.add_smi()
    runner = FakeRunner()
    driver, gpus = probe_nvidia(machine.ctx(runner, nvml_answers(NvmlReport("565.57.01", 12070, None, ()))))
    assert driver == DriverInfo("565.57.01", "12.7", "NVML")
    assert gpus == ()
    assert runner.calls == []


def test_no_driver_at_all(machine: Machine) -> None:
    runner = FakeRunner()
    driver, gpus = probe_nvidia(machine.ctx(runner, nvml_raising(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)))
    assert driver == Unavailable(
        "no NVIDIA driver is installed (the NVML library (libnvidia-ml.so.1) was not found; "
        "/proc/driver/nvidia/version is absent; nvidia-smi not found on PATH)",
        TRIED,
        "no-driver",
    )
    assert gpus == Unavailable("no NVIDIA driver is installed, so no GPU can be listed", TRIED, "no-driver")
    assert runner.calls == []


def test_proc_alone_gives_the_kernel_module(machine: Machine) -> None:
    machine.add_proc(PROC_565_OPEN)
    driver, gpus = probe_nvidia(machine.ctx(FakeRunner(), nvml_raising(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)))
    assert driver == DriverInfo("565.57.01", None, PROC_VERSION, "565.57.01", None, "open")
    assert isinstance(gpus, Unavailable)
    assert gpus.code == "nvml-library-not-found"
    assert gpus.reason.endswith("; nvidia-smi not found on PATH")


# ---- a hung nvidia-smi (real processes) -----------------------------------------------------


@pytest.fixture
def hung_smi(machine: Machine) -> Machine:
    """PATH holds an executable ``nvidia-smi`` that never answers."""
    script = machine.bin / "nvidia-smi"
    script.write_text("#!/bin/sh\nsleep 30\n", encoding="utf-8")
    script.chmod(0o755)
    return machine


@pytest.fixture
def hung_nvml() -> Iterator[Callable[[float], NvmlReport | Unavailable]]:
    """query_nvml over a fake pynvml whose nvmlInit blocks (released when the test ends)."""
    gate = threading.Event()

    class Lib:
        NVMLError = pynvml.NVMLError

        def nvmlInit(self) -> None:  # noqa: N802 # reason: pynvml's name
            gate.wait(30.0)
            raise pynvml.NVMLError(pynvml.NVML_ERROR_UNKNOWN)

    yield lambda timeout_s: query_nvml(timeout_s, lib=Lib())
    gate.set()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script stands in for nvidia-smi")
def test_hung_driver_nvml_and_nvidia_smi_both_time_out(
    hung_smi: Machine, hung_nvml: Callable[[float], NvmlReport | Unavailable]
) -> None:
    ctx = hung_smi.ctx(None, hung_nvml, timeout_s=1.0)
    assert ctx.run is _subprocess.run  # the real runner: a real process is started and killed
    start = time.monotonic()
    driver, gpus = probe_nvidia(ctx)
    elapsed = time.monotonic() - start
    assert 1.9 <= elapsed < 10.0  # NVML's 1 s, then nvidia-smi's 1 s
    assert driver == Unavailable(
        "the NVIDIA driver did not answer (NVML did not answer within 1s; /proc/driver/nvidia/version is "
        "absent; nvidia-smi did not answer within 1s (killed))",
        TRIED,
        "timeout",
    )
    assert gpus == Unavailable("the NVIDIA driver did not answer, so no GPU can be listed", TRIED, "timeout")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script stands in for nvidia-smi")
def test_hung_nvidia_smi_is_killed_within_the_timeout(hung_smi: Machine) -> None:
    start = time.monotonic()
    driver, _ = probe_nvidia(hung_smi.ctx(None, nvml_answers(PYNVML_MISSING), timeout_s=1.0))
    elapsed = time.monotonic() - start
    assert elapsed < 10.0
    assert isinstance(driver, Unavailable)
    assert driver.reason.endswith("; nvidia-smi did not answer within 1s (killed))")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script stands in for nvidia-smi")
def test_hung_nvidia_smi_code_is_timeout_when_nvml_is_not_usable(hung_smi: Machine) -> None:
    driver, _ = probe_nvidia(hung_smi.ctx(None, nvml_answers(PYNVML_MISSING), timeout_s=1.0))
    assert isinstance(driver, Unavailable)
    assert driver.code == "timeout"
