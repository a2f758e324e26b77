"""Query the driver and GPUs through NVML (pynvml), mapping NVML errors to facts."""

from __future__ import annotations

import logging
import sys
import threading
import warnings
from dataclasses import dataclass
from typing import Any

from envguard.snapshot import GpuInfo, Unavailable

logger = logging.getLogger(__name__)

SOURCE = "NVML"

#: NVML return codes (nvml.h) that describe the machine rather than a bug.
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18
NVML_ERROR_NOT_SUPPORTED = 3

_ERROR_FACTS = {
    NVML_ERROR_DRIVER_NOT_LOADED: ("driver-not-loaded", "the NVIDIA kernel driver is not loaded"),
    NVML_ERROR_LIBRARY_NOT_FOUND: (
        "nvml-library-not-found",
        "the NVML library (libnvidia-ml.so.1) was not found",
    ),
    NVML_ERROR_LIB_RM_VERSION_MISMATCH: (
        "driver-library-mismatch",
        "NVML reports Driver/library version mismatch: the loaded kernel module and the "
        "user-space driver libraries have different versions",
    ),
}


@dataclass(frozen=True, slots=True)
class NvmlReport:
    """What NVML said about the driver and each GPU."""

    driver_version: str
    #: ``nvmlSystemGetCudaDriverVersion`` as an integer (12040 = CUDA 12.4), when available.
    cuda_driver_int: int | None
    nvml_version: str | None
    gpus: tuple[GpuInfo, ...]


def query_nvml(timeout_s: float, lib: Any = None) -> NvmlReport | Unavailable:
    """Ask NVML in a worker thread, giving up after ``timeout_s`` (a hung driver must not hang us).

    ``lib`` is the pynvml module (tests pass a fake with the same interface).
    """
    if lib is None:
        missing = _library_missing()
        if missing is not None:
            return missing
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import pynvml
        except ImportError:
            return Unavailable("pynvml (nvidia-ml-py) is not installed", (SOURCE,), "pynvml-missing")
        lib = pynvml
    box: list[NvmlReport | Unavailable] = []

    def work() -> None:
        try:
            box.append(_query(lib))
        except Exception as exc:  # reason: any NVML failure becomes a fact, never a crash
            box.append(_error_fact(lib, exc))

    worker = threading.Thread(target=work, name="envguard-nvml", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if not box:
        return Unavailable(f"NVML did not answer within {timeout_s:g}s", (SOURCE,), "timeout")
    return box[0]


#: The library pynvml loads on Linux (``_LoadNvmlLibrary``: ``CDLL("libnvidia-ml.so.1")``).
LINUX_LIBRARY = "libnvidia-ml.so.1"


def _library_missing() -> Unavailable | None:
    """The fact pynvml's ``nvmlInit`` would give when ``libnvidia-ml.so.1`` cannot be loaded, found without
    importing pynvml (a 4,000-line module: most of the time of a driver-less check's NVML probe); None when the
    library loads, or off Linux, where pynvml searches other places itself."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        ctypes.CDLL(LINUX_LIBRARY)
    except OSError as exc:
        logger.debug("NVML library not loadable: %s", exc)
        code, reason = _ERROR_FACTS[NVML_ERROR_LIBRARY_NOT_FOUND]
        return Unavailable(reason, (SOURCE,), code)
    return None


def _error_fact(lib: Any, exc: Exception) -> Unavailable:
    error_cls = getattr(lib, "NVMLError", None)
    if error_cls is not None and isinstance(exc, error_cls):
        value = getattr(exc, "value", None)
        known = _ERROR_FACTS.get(value) if isinstance(value, int) else None
        code, reason = known or ("nvml-error", f"NVML error: {exc}")
        return Unavailable(reason, (SOURCE,), code)
    logger.debug("NVML query crashed", exc_info=True)
    return Unavailable(f"NVML query failed: {type(exc).__name__}: {exc}", (SOURCE,), "nvml-error")


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _optional(lib: Any, fn: str, *args: Any) -> Any:
    """Call an NVML getter that may be unsupported on this GPU/driver; None on any NVML error."""
    getter = getattr(lib, fn, None)
    if getter is None:
        return None
    try:
        return getter(*args)
    except Exception:  # reason: NOT_SUPPORTED and friends mean "unknown"
        return None


def _query(lib: Any) -> NvmlReport:
    lib.nvmlInit()
    try:
        driver = _text(lib.nvmlSystemGetDriverVersion())
        cuda_int = _optional(lib, "nvmlSystemGetCudaDriverVersion_v2")
        if cuda_int is None:
            cuda_int = _optional(lib, "nvmlSystemGetCudaDriverVersion")
        nvml_version = _optional(lib, "nvmlSystemGetNVMLVersion")
        gpus = tuple(_gpu(lib, i) for i in range(int(lib.nvmlDeviceGetCount())))
        return NvmlReport(
            driver_version=driver,
            cuda_driver_int=int(cuda_int) if cuda_int is not None else None,
            nvml_version=_text(nvml_version) if nvml_version is not None else None,
            gpus=gpus,
        )
    finally:
        _optional(lib, "nvmlShutdown")


def _gpu(lib: Any, index: int) -> GpuInfo:
    handle = lib.nvmlDeviceGetHandleByIndex(index)
    cc = _optional(lib, "nvmlDeviceGetCudaComputeCapability", handle)
    memory = _optional(lib, "nvmlDeviceGetMemoryInfo", handle)
    mig = _optional(lib, "nvmlDeviceGetMigMode", handle)
    persistence = _optional(lib, "nvmlDeviceGetPersistenceMode", handle)
    pci = _optional(lib, "nvmlDeviceGetPciInfo", handle)
    uuid = _optional(lib, "nvmlDeviceGetUUID", handle)
    return GpuInfo(
        index=index,
        name=_text(lib.nvmlDeviceGetName(handle)),
        source=SOURCE,
        uuid=_text(uuid) if uuid is not None else None,
        compute_capability=f"{cc[0]}.{cc[1]}" if cc is not None else None,
        memory_total_mib=int(memory.total) // (1024 * 1024) if memory is not None else None,
        mig_mode=None if mig is None else ("Enabled" if mig[0] else "Disabled"),
        persistence_mode=None if persistence is None else ("Enabled" if persistence else "Disabled"),
        pcie_link_gen=_int(_optional(lib, "nvmlDeviceGetCurrPcieLinkGeneration", handle)),
        pcie_link_gen_max=_int(_optional(lib, "nvmlDeviceGetMaxPcieLinkGeneration", handle)),
        pcie_link_width=_int(_optional(lib, "nvmlDeviceGetCurrPcieLinkWidth", handle)),
        pcie_link_width_max=_int(_optional(lib, "nvmlDeviceGetMaxPcieLinkWidth", handle)),
        pci_bus_id=_text(pci.busId) if pci is not None and hasattr(pci, "busId") else None,
    )


def _int(value: Any) -> int | None:
    return int(value) if value is not None else None


# ---- clock-event (throttle) reasons, sampled while a GPU workload runs --------------------------

#: NVML_ERROR_FUNCTION_NOT_FOUND (nvml.h): the driver's libnvidia-ml lacks the function (a getter newer
#: than the driver, e.g. nvmlDeviceGetCurrentClocksEventReasons before R535).
NVML_ERROR_FUNCTION_NOT_FOUND = 13

#: Bit values of the clock-event (formerly "throttle") reason masks in nvml.h that mean the GPU slowed down.
#: Idle, application clocks and sync boost are not slowdowns; the software power cap is listed apart.
SLOWDOWN_REASONS = {
    0x8: "hardware slowdown",
    0x20: "software thermal slowdown",
    0x40: "hardware thermal slowdown",
    0x80: "hardware power brake",
}
#: The SwPowerCap bit of nvml.h: the clocks were lowered to stay within the board's power limit. A dense
#: GEMM on an H100/H200 runs against that limit by design: information, not a fault.
SW_POWER_CAP = 0x4
#: Every reason describe_throttle names (kept for callers of the former single table).
THROTTLE_REASONS = {SW_POWER_CAP: "software power cap", **SLOWDOWN_REASONS}

#: The getters of the clock-event mask, newest first: the "Event" name exists from driver R535 on, the
#: "Throttle" one (deprecated since) before it.
_MASK_GETTERS = ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")


@dataclass(frozen=True, slots=True)
class ClockEvents:
    """The clock-event reasons NVML reported while a workload ran (OR of every sample and GPU)."""

    #: The OR of the masks; None when NVML could not tell (no library, no driver, neither getter answered).
    mask: int | None
    #: The getter that answered, or why none did.
    source: str

    @property
    def known(self) -> bool:
        """True when NVML answered."""
        return self.mask is not None

    @property
    def slowdowns(self) -> tuple[str, ...]:
        """Reasons that mean the GPU ran slower than it should (thermal, hardware slowdown, power brake)."""
        return tuple(text for bit, text in SLOWDOWN_REASONS.items() if (self.mask or 0) & bit)

    @property
    def power_capped(self) -> bool:
        """The software power cap was active (normal under a dense GEMM on data-center GPUs)."""
        return bool((self.mask or 0) & SW_POWER_CAP)

    def __bool__(self) -> bool:
        """True when there is something to say: a slowdown, the power cap, or that NVML could not tell."""
        return not self.known or bool(self.slowdowns) or self.power_capped


def _load_pynvml() -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pynvml
    except ImportError:
        return None
    return pynvml


def _is_function_not_found(lib: Any, exc: Exception) -> bool:
    error_cls = getattr(lib, "NVMLError", None)
    return (error_cls is not None and isinstance(exc, error_cls)
            and getattr(exc, "value", None) == NVML_ERROR_FUNCTION_NOT_FOUND)


class _MaskReader:
    """Reads the clock-event mask of every GPU of an initialised NVML: the R535+ getter, else the older one.

    A getter the driver lacks (FUNCTION_NOT_FOUND, or absent from an old pynvml) is dropped for good; any
    other error of a getter makes that sample unknown (None), never "no slowdown".
    """

    def __init__(self, lib: Any) -> None:
        self.lib = lib
        self.handles = [lib.nvmlDeviceGetHandleByIndex(i) for i in range(int(lib.nvmlDeviceGetCount()))]
        self.getters = [name for name in _MASK_GETTERS if getattr(lib, name, None) is not None]
        self.source = "no clock-event getter in pynvml" if not self.getters else ""

    def read(self) -> int | None:
        while self.getters:
            getter = getattr(self.lib, self.getters[0])
            try:
                mask = 0
                for handle in self.handles:
                    mask |= int(getter(handle))
            except Exception as exc:  # reason: NVML errors are facts ("cannot tell"), never a crash
                if _is_function_not_found(self.lib, exc):
                    self.getters.pop(0)
                    continue
                self.source = f"{self.getters[0]}: {exc}"
                return None
            self.source = self.getters[0]
            return mask
        self.source = self.source or "the driver answers neither " + " nor ".join(_MASK_GETTERS)
        return None


def throttle_mask(lib: Any = None) -> int | None:
    """OR of the current clock-event reasons of every GPU, or None when NVML cannot tell."""
    lib = lib if lib is not None else _load_pynvml()
    if lib is None:
        return None
    try:
        lib.nvmlInit()
    except Exception:  # reason: no driver is "cannot tell", not a crash
        return None
    try:
        return _MaskReader(lib).read()
    except Exception:  # reason: a failed query is "cannot tell"
        return None
    finally:
        _optional(lib, "nvmlShutdown")


def describe_throttle(mask: int) -> tuple[str, ...]:
    """The slowdown reasons (and the software power cap) set in a clock-event mask."""
    return tuple(text for bit, text in THROTTLE_REASONS.items() if mask & bit)


class ThrottleSampler:
    """Samples the clock-event mask every ``interval_s`` in a daemon thread until stopped.

    NVML is initialised once for the thread (not once a sample) and shut down when it ends.
    """

    def __init__(self, interval_s: float = 0.5, lib: Any = None) -> None:
        self.interval_s = interval_s
        self.lib = lib
        self.mask: int | None = None
        self.unknown = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="envguard-throttle", daemon=True)

    def _run(self) -> None:
        lib = self.lib if self.lib is not None else _load_pynvml()
        if lib is None:
            self.unknown = "pynvml (nvidia-ml-py) is not installed"
            return
        try:
            lib.nvmlInit()
        except Exception as exc:  # reason: no driver is "cannot tell"
            self.unknown = f"nvmlInit failed: {exc}"
            return
        try:
            reader = _MaskReader(lib)
            while True:
                value = reader.read()
                if value is None:
                    self.unknown = reader.source
                    return
                self.mask = (self.mask or 0) | value
                if self._stop.wait(self.interval_s):
                    return
        except Exception as exc:  # reason: a failed query is "cannot tell"
            self.unknown = f"NVML query failed: {exc}"
        finally:
            _optional(lib, "nvmlShutdown")

    def start(self) -> ThrottleSampler:
        """Begin sampling."""
        self._thread.start()
        return self

    def stop(self) -> ClockEvents:
        """Stop; what was seen (mask None when NVML could not tell from the first sample on)."""
        self._stop.set()
        self._thread.join(timeout=5)
        if self.mask is None:
            return ClockEvents(None, self.unknown or "NVML did not answer")
        return ClockEvents(self.mask, "NVML")
