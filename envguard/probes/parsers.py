r"""Pure text parsers for NVIDIA tool output.

Every function here takes text (or a number, or a file name) that a probe has already read
and returns plain data: no I/O, no subprocesses, no printing. The inputs come from real
machines and from people pasting output into bug reports, so the parsers accept shell prompts,
Markdown ``> `` quoting, partial tables and the layouts of every nvidia-smi generation from the
79-column legacy table to the R610 ``KMD Version:`` header. None of them raises on odd input:
they return ``None`` or an empty result instead.

Every parser runs in time linear in its input (issue 17): lines are cut at :data:`MAX_LINE_CHARS` before
any pattern sees them, no pattern lets two unbounded repetitions compete for the same characters (a
lazy ``.*?`` before ``\s*$``, ``^\s*`` in a MULTILINE search), and numbers are bounded before ``int()``
(Python refuses to convert strings of more than 4,300 digits). ``tests/probes/test_linear_time.py``
times each parser on adversarial inputs of 1k/16k/256k characters.

Covered outputs:

- ``nvidia-smi`` default table (:func:`parse_nvidia_smi_table`) and its failure messages
  (:func:`classify_nvidia_smi_failure`, :func:`nvml_library_version_from_failure`);
- ``nvidia-smi --query-gpu=... --format=csv[,nounits]`` (:func:`parse_csv_table`,
  :func:`gpus_from_query_csv`, :func:`driver_from_query_csv`);
- ``nvidia-smi -q`` (:func:`parse_nvidia_smi_q`), ``nvidia-smi --version``
  (:func:`parse_nvidia_smi_version`) and ``nvidia-smi -L`` (:func:`parse_nvidia_smi_list`);
- ``/proc/driver/nvidia/version`` (:func:`parse_proc_driver_version`);
- ``nvcc --version`` (:func:`parse_nvcc_version`) and the toolkit's ``version.json``
  (:func:`parse_cuda_version_json`);
- cuDNN and NCCL headers (:func:`parse_cudnn_version_header`, :func:`parse_nccl_header`);
- integer version codes (:func:`decode_cuda_driver_int`, :func:`decode_cudnn_int`,
  :func:`decode_nccl_int`) and shared-library file names (:func:`version_from_soname`,
  :func:`soname_major`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

from envguard._regex import LazyPattern, lazy
from envguard.snapshot import GpuInfo

__all__ = [
    "QUERY_GPU_FIELDS",
    "QUERY_GPU_FIELDS_LEGACY",
    "SmiTable",
    "classify_nvidia_smi_failure",
    "decode_cuda_driver_int",
    "decode_cudnn_int",
    "decode_nccl_int",
    "driver_from_query_csv",
    "gpus_from_query_csv",
    "nvml_library_version_from_failure",
    "parse_csv_table",
    "parse_cuda_version_json",
    "parse_cudnn_version_header",
    "parse_nccl_header",
    "parse_nvcc_version",
    "parse_nvidia_smi_list",
    "parse_nvidia_smi_q",
    "parse_nvidia_smi_table",
    "parse_nvidia_smi_version",
    "parse_proc_driver_version",
    "soname_major",
    "version_from_soname",
]

#: Fields envguard asks ``nvidia-smi --query-gpu`` for (``--format=csv,nounits``).
QUERY_GPU_FIELDS: Final[tuple[str, ...]] = (
    "index",
    "name",
    "uuid",
    "compute_cap",
    "memory.total",
    "mig.mode.current",
    "persistence_mode",
    "pcie.link.gen.current",
    "pcie.link.gen.max",
    "pcie.link.width.current",
    "pcie.link.width.max",
    "pci.bus_id",
    "driver_version",
)

#: The same fields without ``compute_cap``, which drivers before ~510 reject with
#: ``Field "compute_cap" is not a valid field to query.``
QUERY_GPU_FIELDS_LEGACY: Final[tuple[str, ...]] = tuple(f for f in QUERY_GPU_FIELDS if f != "compute_cap")

# ---- shared helpers -------------------------------------------------------------------------

#: Longest line a parser looks at; the rest of a longer line is ignored (the widest real line, the header of
#: `--query-gpu` with every field, is 6.5k characters).
MAX_LINE_CHARS: Final = 1 << 16
#: Most digits of a number converted with ``int()`` (versions, indices, MiB counts).
_MAX_DIGITS: Final = 15

_VERSION_RE: Final = lazy(r"^\d+(?:\.\d+)+$")
_CUDA_VERSION_RE: Final = lazy(r"^\d+\.\d+$")
_COMPUTE_CAP_RE: Final = lazy(r"^\d+\.\d+$")
_BUS_ID_RE: Final = lazy(r"\b([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\b")
_QUOTE_RE: Final = lazy(r"^\s*>(?: |$)")
#: A typed command line: optional prompt ending in $, # or >, then the nvidia-smi command (searched, not
#: matched: ``^\s*(?:.*?[$#>]\s*)?`` was quadratic on a line of spaces).
_COMMAND_RE: Final = lazy(r"(?:^\s*|[$#>]\s*)nvidia-smi(?:\.exe)?(?:\s|$)")
#: Values nvidia-smi writes when it has no answer (compared case-insensitively, brackets removed).
_NO_VALUE: Final = frozenset(
    {
        "",
        "n/a",
        "na",
        "not supported",
        "unknown error",
        "insufficient permissions",
        "requested functionality has been deprecated",
        "gpu is lost",
        "not available",
        "err!",
    }
)
_VALUE_UNIT_RE: Final = lazy(
    r"^(-?\d+(?:\.\d+)?)\s*(?:MiB|GiB|KiB|MB|GB|KB|B|W|%|MHz|GHz|us|ms|s|C|KB/s|MB/s|x)$"
)


def _unquote(line: str) -> str:
    """Remove one Markdown quote marker (``> ``) from the start of ``line``."""
    match = _QUOTE_RE.match(line)
    return line[match.end() :] if match else line


def _lines(text: str) -> list[str]:
    """``text`` split into lines (each cut at :data:`MAX_LINE_CHARS`), Markdown quoting and trailing
    whitespace removed."""
    return [_unquote(line[:MAX_LINE_CHARS]).rstrip() for line in text.splitlines()]


def _no_value(value: str | None) -> bool:
    """Whether ``value`` is one of nvidia-smi's "no answer" markers (``N/A``, ``[Not Supported]``)."""
    if value is None:
        return True
    stripped = value.strip()
    if stripped.startswith("[") and stripped.endswith("]"):
        return True
    return stripped.lower() in _NO_VALUE


def _clean(value: str | None) -> str | None:
    """A stripped value, or None for the "no answer" markers."""
    if value is None or _no_value(value):
        return None
    return value.strip()


_INT_RE: Final = lazy(rf"^\s*(\d{{1,{_MAX_DIGITS}}})(?:\.0+)?(?:\s*[A-Za-z%/]+)?\s*$")


def _int(value: str | None) -> int | None:
    """The leading integer of ``value`` ("16x" -> 16, "81559 MiB" -> 81559), or None."""
    if value is None:
        return None
    match = _INT_RE.match(value[:MAX_LINE_CHARS])
    return int(match.group(1)) if match else None


def _version(value: str | None) -> str | None:
    """``value`` when it looks like a dotted version ("550.90.07", "12.4"), else None."""
    if value is None:
        return None
    stripped = value.strip()
    return stripped if _VERSION_RE.match(stripped) else None


def _cuda_version(value: str | None) -> str | None:
    """``value`` when it is a "major.minor" CUDA version (not "ERR!" or "N/A"), else None."""
    if value is None:
        return None
    stripped = value.strip()
    return stripped if _CUDA_VERSION_RE.match(stripped) else None


def _is_command(line: str) -> bool:
    """Whether ``line`` is a typed ``nvidia-smi ...`` command (with or without a prompt)."""
    return bool(_COMMAND_RE.search(line))


# ---- nvidia-smi --query-gpu CSV -------------------------------------------------------------

def _csv_key(header: str) -> str:
    r"""A CSV header cell without its unit: "memory.total [MiB]" -> "memory.total".

    The unit is the last ``[...]`` group; found with ``rfind``/``find`` (``\s*\[[^\]]*\]\s*$`` searched
    from every ``[`` was quadratic).
    """
    key = header.strip()
    if not key.endswith("]"):
        return key
    opening = key.find("[", key.rfind("]", 0, len(key) - 1) + 1)
    return key[:opening].strip() if 0 <= opening < len(key) - 1 else key


def _csv_value(value: str) -> str | None:
    """A CSV cell without its unit ("16280 MiB" -> "16280"); None for N/A-style markers."""
    cleaned = _clean(value)
    if cleaned is None:
        return None
    match = _VALUE_UNIT_RE.match(cleaned)
    return match.group(1) if match else cleaned


def _split_csv_line(line: str) -> list[str]:
    """One CSV line split into cells (nvidia-smi separates them with ", " and never quotes)."""
    return [cell.strip() for cell in line.split(",")]


def parse_csv_table(text: str) -> list[dict[str, str | None]]:
    """Rows of ``nvidia-smi --format=csv`` output as dicts keyed by field name.

    Leading blank lines and a typed command line (``$ nvidia-smi --query-gpu=...``) are
    skipped; units are removed from header keys ("memory.total [MiB]" -> "memory.total") and
    from values ("16280 MiB" -> "16280"); ``N/A``, ``[N/A]``, ``[Not Supported]``,
    ``[Requested functionality has been deprecated]`` and empty cells become None. Rows whose
    cell count differs from the header (a truncated paste) are skipped; parsing stops at the next
    typed command line. Text that is an error message instead of CSV gives ``[]``.
    """
    header: list[str] | None = None
    rows: list[dict[str, str | None]] = []
    for line in _lines(text):
        if not line.strip():
            continue
        if _is_command(line):
            if header is None:
                continue
            break
        if header is None:
            if classify_nvidia_smi_failure(line) is not None:
                return []
            header = [_csv_key(cell) for cell in _split_csv_line(line)]
            if not any(header):
                return []
            continue
        cells = _split_csv_line(line)
        if len(cells) != len(header):
            continue
        rows.append({key: _csv_value(cell) for key, cell in zip(header, cells, strict=True)})
    return rows


def _gpu_from_csv_row(row: Mapping[str, str | None], position: int, source: str) -> GpuInfo | None:
    """One GpuInfo from a ``--query-gpu`` row, or None when the row names no GPU."""
    name = row.get("name")
    if not name:
        return None
    index = _int(row.get("index"))
    compute_cap = row.get("compute_cap")
    return GpuInfo(
        index=position if index is None else index,
        name=name,
        source=source,
        uuid=row.get("uuid"),
        compute_capability=compute_cap if compute_cap and _COMPUTE_CAP_RE.match(compute_cap) else None,
        memory_total_mib=_int(row.get("memory.total")),
        mig_mode=row.get("mig.mode.current"),
        persistence_mode=row.get("persistence_mode"),
        pcie_link_gen=_int(row.get("pcie.link.gen.current")),
        pcie_link_gen_max=_int(row.get("pcie.link.gen.max")),
        pcie_link_width=_int(row.get("pcie.link.width.current")),
        pcie_link_width_max=_int(row.get("pcie.link.width.max")),
        pci_bus_id=row.get("pci.bus_id"),
    )


def gpus_from_query_csv(text: str, source: str = "nvidia-smi --query-gpu") -> tuple[GpuInfo, ...]:
    """GPUs from ``nvidia-smi --query-gpu=<QUERY_GPU_FIELDS> --format=csv[,nounits]`` output.

    Any subset of :data:`QUERY_GPU_FIELDS` works; rows without a ``name`` are skipped (a GPU
    needs one). Without an ``index`` column a GPU's index is its row position.
    """
    gpus = (_gpu_from_csv_row(row, i, source) for i, row in enumerate(parse_csv_table(text)))
    return tuple(gpu for gpu in gpus if gpu is not None)


def driver_from_query_csv(text: str) -> str | None:
    """The first ``driver_version`` value of ``--query-gpu`` CSV output, or None."""
    for row in parse_csv_table(text):
        version = _version(row.get("driver_version"))
        if version is not None:
            return version
    return None


# ---- nvidia-smi default table ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SmiTable:
    """What the default ``nvidia-smi`` table tells."""

    #: Version of the nvidia-smi binary (differs from the driver on WSL2 and in snaps).
    smi_version: str | None
    #: "Driver Version:" (on R610+ the "KMD Version:"); on WSL2 the Windows driver.
    driver_version: str | None
    #: "CUDA Version:" (R610+: "CUDA UMD Version:"); None for "ERR!" or when absent.
    cuda_version: str | None
    #: One entry per GPU row block, source "nvidia-smi table".
    gpus: tuple[GpuInfo, ...]
    #: Rows of the "MIG devices:" table (0 when there is none).
    mig_device_count: int
    #: "WDDM" / "TCC" / "MCDM" on Windows (first GPU), None elsewhere.
    driver_model: str | None


_SMI_HEADER_RE: Final = lazy(r"^\|\s*NVIDIA-SMI\s+(\S+)(?P<rest>.*)$")
_DRIVER_RE: Final = lazy(r"(?:Driver|KMD)\s+Version:\s*(\S+)")
_CUDA_RE: Final = lazy(r"CUDA(?:\s+UMD)?\s+Version:\s*(\S+)")
_GPU_CELL_RE: Final = lazy(r"^\s*(\d{1,9})\s+(.*)$")
_GPU_CELL_TAILS: Final = frozenset({"On", "Off", "WDDM", "TCC", "MCDM", "N/A"})
_MEMORY_RE: Final = lazy(rf"(?<!\d)(\d{{1,{_MAX_DIGITS}}})\s*MiB\s*/\s*(\d{{1,{_MAX_DIGITS}}})\s*MiB")
_MIG_ROW_RE: Final = lazy(r"^\s*\d+\s+\d+\s+\d+\s+\d+\s*$")
_DRIVER_MODELS: Final = frozenset({"WDDM", "TCC", "MCDM"})


def _cells(row: str) -> list[str]:
    """The cells of one ``| a | b | c |`` table row."""
    inner = row.strip()
    inner = inner.removeprefix("|").removesuffix("|")
    return inner.split("|")


@dataclass(slots=True)
class _GpuRows:
    """Mutable accumulator for one GPU's row block while reading the table."""

    index: int
    name: str
    tail: str | None
    bus_id: str | None
    rows_seen: int = 1
    memory_total_mib: int | None = None
    mig_mode: str | None = None


def _header_fields(rest: str) -> tuple[str | None, str | None]:
    """Driver and CUDA version from the part of the header line after "NVIDIA-SMI x"."""
    driver = _DRIVER_RE.search(rest)
    cuda = _CUDA_RE.search(rest)
    return (
        _version(driver.group(1).rstrip("|")) if driver else None,
        _cuda_version(cuda.group(1).rstrip("|")) if cuda else None,
    )


def _start_gpu(cells: list[str]) -> _GpuRows | None:
    """A new GPU block when ``cells`` is a GPU's first row (index, name, bus id), else None."""
    if len(cells) < 2:
        return None
    bus = _BUS_ID_RE.search(cells[1])
    first = _GPU_CELL_RE.match(cells[0])
    if bus is None or first is None:
        return None
    rest = first.group(2).rstrip()
    parts = rest.rsplit(None, 1)
    name, tail = (parts[0], parts[1]) if len(parts) == 2 and parts[1] in _GPU_CELL_TAILS else (rest, None)
    if not name:
        return None
    return _GpuRows(index=int(first.group(1)), name=name.strip(), tail=tail, bus_id=bus.group(1))


def _finish_gpu(block: _GpuRows, windows: bool) -> GpuInfo:
    """The GpuInfo for a finished block."""
    persistence = None if windows or block.tail in _DRIVER_MODELS else block.tail
    return GpuInfo(
        index=block.index,
        name=block.name,
        source="nvidia-smi table",
        memory_total_mib=block.memory_total_mib,
        mig_mode=block.mig_mode,
        persistence_mode=persistence if persistence in ("On", "Off") else None,
        pci_bus_id=block.bus_id,
    )


class _TableReader:
    """Reads the table lines after the ``NVIDIA-SMI`` header, one line at a time."""

    def __init__(self) -> None:
        self.section = "gpus"
        self.windows = False
        self.has_mig_row = False
        self.gpus: list[GpuInfo] = []
        self.block: _GpuRows | None = None
        self.mig_devices = 0
        self.driver_model: str | None = None

    def close_block(self) -> None:
        """Finish the GPU block being read, if any."""
        if self.block is not None:
            self.gpus.append(_finish_gpu(self.block, self.windows))
            self.block = None

    def feed(self, line: str) -> None:
        """Read one line."""
        row = line.strip()
        if not row.startswith(("|", "+")):
            self.close_block()
            if row and self.section == "gpus" and self.gpus:
                self.section = "other"
        elif "MIG devices:" in row:
            self.close_block()
            self.section = "mig"
        elif "Processes:" in row:
            self.close_block()
            self.section = "processes"
        elif self.section == "mig":
            if row.startswith("|") and _MIG_ROW_RE.match(_cells(row)[0]):
                self.mig_devices += 1
        elif self.section == "gpus":
            self.feed_gpu_row(row)

    def feed_gpu_row(self, row: str) -> None:
        """Read one line of the GPU table (header rows, GPU rows, borders)."""
        if row.startswith(("+", "|=", "|-")):
            self.close_block()
            return
        if "Driver-Model" in row or "TCC/WDDM" in row:
            self.windows = True
        if "MIG M." in row:
            self.has_mig_row = True
        cells = _cells(row)
        new_block = _start_gpu(cells)
        if new_block is not None:
            self.close_block()
            self.block = new_block
            if self.driver_model is None and new_block.tail in _DRIVER_MODELS:
                self.driver_model = new_block.tail
            return
        block = self.block
        if block is None:
            return
        block.rows_seen += 1
        memory = _MEMORY_RE.search(row)
        if memory is not None and block.memory_total_mib is None:
            block.memory_total_mib = int(memory.group(2))
        if block.rows_seen == 3 and self.has_mig_row:
            block.mig_mode = _clean(cells[-1])


def parse_nvidia_smi_table(text: str) -> SmiTable | None:
    """The default ``nvidia-smi`` table, in every layout from the 79-column legacy table to R610.

    Accepts text around the table (prompts, a date line, other command output), Markdown
    ``> `` quoting, Windows and WSL2 variants and tables cut short. Returns None when no
    ``| NVIDIA-SMI <version> ...`` header line is present. Only the first table is read.
    """
    lines = _lines(text)
    for i, line in enumerate(lines):
        header = _SMI_HEADER_RE.match(line.strip())
        if header is None:
            continue
        driver_version, cuda_version = _header_fields(header.group("rest"))
        reader = _TableReader()
        for rest in lines[i + 1 :]:
            if _SMI_HEADER_RE.match(rest.strip()):
                break
            reader.feed(rest)
        reader.close_block()
        return SmiTable(
            smi_version=_version(header.group(1)),
            driver_version=driver_version,
            cuda_version=cuda_version,
            gpus=tuple(reader.gpus),
            mig_device_count=reader.mig_devices,
            driver_model=reader.driver_model,
        )
    return None


# ---- nvidia-smi failures --------------------------------------------------------------------

_FAILURES: Final[tuple[tuple[str, LazyPattern[str]], ...]] = (
    ("driver-library-mismatch", lazy(r"Driver/library version mismatch", re.IGNORECASE)),
    (
        "driver-not-loaded",
        lazy(r"couldn't communicate with the NVIDIA driver|Driver Not Loaded", re.IGNORECASE),
    ),
    ("no-devices", lazy(r"No devices were found", re.IGNORECASE)),
    (
        "nvml-library-not-found",
        lazy(
            r"NVML Shared Library Not Found"
            r"|libnvidia-ml\.so[\w.]*:?\s*(?:was\s+)?not found"
            r"|couldn't find libnvidia-ml\.so"
            r"|libnvidia-ml\.so[\w.]*: cannot open shared object file",
            re.IGNORECASE,
        ),
    ),
    ("invalid-field", lazy(r"is not a valid field to query", re.IGNORECASE)),
)
_NVML_LIB_RE: Final = lazy(r"NVML library version:\s*(\d+(?:\.\d+)+)")


def classify_nvidia_smi_failure(text: str) -> tuple[str, str] | None:
    """The cause of an nvidia-smi failure: ``(code, the matching line)``, or None.

    Codes: ``driver-not-loaded``, ``driver-library-mismatch``, ``no-devices``,
    ``nvml-library-not-found``, ``invalid-field``. The first matching line wins.
    """
    for line in _lines(text):
        for code, pattern in _FAILURES:
            if pattern.search(line):
                return code, line.strip()
    return None


def nvml_library_version_from_failure(text: str) -> str | None:
    """The ``NVML library version: 550.144`` nvidia-smi prints after a version mismatch."""
    match = _NVML_LIB_RE.search(text)
    return match.group(1) if match else None


# ---- nvidia-smi -q --------------------------------------------------------------------------

_Q_GPU_RE: Final = lazy(r"^GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$")


def _q_key_value(raw: str) -> tuple[str, str] | None:
    r"""``(key, value)`` of a ``    Key      : value`` line of ``-q``, or None.

    The key is what precedes the line's first colon, which must follow whitespace (``Bus Id : 0000:01:00.0``).
    Plain string operations: ``^(\s*)([^:]*?\S)\s+:`` was quadratic on a line of spaces.
    """
    colon = raw.find(":")
    if colon <= 0 or not raw[colon - 1].isspace():
        return None
    key = raw[:colon].strip()
    if not key:
        return None
    value = raw[colon + 1 :]
    return key, (value[1:] if value[:1].isspace() else value).strip()


def _q_entries(lines: list[str]) -> Iterator[tuple[int, tuple[str, ...], str | None]]:
    """``(gpu number or -1, section path + key, value)`` for each key/value line of ``-q``."""
    gpu = -1
    stack: list[tuple[int, str]] = []
    for raw in lines:
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        line = raw.strip()
        gpu_line = _Q_GPU_RE.match(line) if indent == 0 else None
        if gpu_line is not None:
            gpu += 1
            stack = []
            yield gpu, ("GPU",), gpu_line.group(1)
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        entry = _q_key_value(raw)
        if entry is None:
            stack.append((indent, line))
            continue
        path = (*(name for _, name in stack), entry[0])
        yield gpu, path, entry[1]


def parse_nvidia_smi_q(text: str) -> tuple[str | None, str | None, tuple[GpuInfo, ...]]:
    """``(driver version, CUDA version, GPUs)`` from ``nvidia-smi -q`` output.

    GPUs carry name, uuid, persistence mode ("Enabled"/"Disabled"), MIG mode (MIG Mode ->
    Current), FB memory total, PCIe generation and link width (current and max) and bus id;
    their index is their order in the output. Source "nvidia-smi -q".
    """
    driver: str | None = None
    cuda: str | None = None
    per_gpu: list[dict[tuple[str, ...], str | None]] = []
    for gpu, path, value in _q_entries(_lines(text)):
        if gpu < 0:
            if path in (("Driver Version",), ("KMD Version",)) and driver is None:
                driver = _version(value)
            elif path in (("CUDA Version",), ("CUDA UMD Version",)) and cuda is None:
                cuda = _cuda_version(value)
            continue
        while len(per_gpu) <= gpu:
            per_gpu.append({})
        per_gpu[gpu].setdefault(path, value)
    gpus: list[GpuInfo] = []
    for index, fields in enumerate(per_gpu):
        name = _clean(fields.get(("Product Name",)))
        if name is None:
            continue
        link = ("PCI", "GPU Link Info")
        gen_max = fields.get((*link, "PCIe Generation", "Max")) or fields.get(
            (*link, "PCIe Generation", "Device Max")
        )
        gpus.append(
            GpuInfo(
                index=index,
                name=name,
                source="nvidia-smi -q",
                uuid=_clean(fields.get(("GPU UUID",))),
                memory_total_mib=_int(fields.get(("FB Memory Usage", "Total"))),
                mig_mode=_clean(fields.get(("MIG Mode", "Current"))),
                persistence_mode=_clean(fields.get(("Persistence Mode",))),
                pcie_link_gen=_int(fields.get((*link, "PCIe Generation", "Current"))),
                pcie_link_gen_max=_int(gen_max),
                pcie_link_width=_int(fields.get((*link, "Link Width", "Current"))),
                pcie_link_width_max=_int(fields.get((*link, "Link Width", "Max"))),
                pci_bus_id=_clean(fields.get(("PCI", "Bus Id"))) or fields.get(("GPU",)),
            )
        )
    return driver, cuda, tuple(gpus)


# ---- nvidia-smi --version / -L --------------------------------------------------------------

_SMI_VERSION_KEY_RE: Final = lazy(r"[A-Za-z][A-Za-z -]*")
#: The name starts with ``\S`` and ``(?<=\S)`` lets the ``\s+`` before "(UUID:" start only where a run of
#: spaces begins: no two repetitions compete for the same spaces (``(.+?)\s+`` was quadratic).
_LIST_RE: Final = lazy(r"^GPU\s+(\d{1,9}):\s+(\S.*?)(?<=\S)\s+\(UUID:\s*([^)\s]+)\)\s*$")


def parse_nvidia_smi_version(text: str) -> tuple[str | None, str | None, str | None]:
    """``(smi version, driver version, CUDA version)`` from ``nvidia-smi --version``.

    On R610+ "DRIVER version" and "CUDA version" read ``Deprecated, see "KMD version"
    instead``; the "KMD version" and "CUDA UMD version" lines are used then.
    """
    found: dict[str, str] = {}
    for line in _lines(text):
        key, colon, value = line.partition(":")
        key = key.strip()
        if colon and _SMI_VERSION_KEY_RE.fullmatch(key):
            found.setdefault(key.lower(), value.strip())
    driver = _version(found.get("driver version")) or _version(found.get("kmd version"))
    cuda = _cuda_version(found.get("cuda version")) or _cuda_version(found.get("cuda umd version"))
    return _version(found.get("nvidia-smi version")), driver, cuda


def parse_nvidia_smi_list(text: str) -> tuple[GpuInfo, ...]:
    """GPUs (index, name, uuid) from ``nvidia-smi -L``; MIG device lines are skipped."""
    gpus: list[GpuInfo] = []
    for line in _lines(text):
        match = _LIST_RE.match(line.strip())
        if match:
            gpus.append(
                GpuInfo(
                    index=int(match.group(1)),
                    name=match.group(2),
                    source="nvidia-smi -L",
                    uuid=match.group(3),
                )
            )
    return tuple(gpus)


# ---- /proc/driver/nvidia/version ------------------------------------------------------------

_NVRM_RE: Final = lazy(r"NVRM version:\s*(?P<rest>.*)$", re.MULTILINE)
_NVRM_VERSION_RE: Final = lazy(r"Kernel Module(?:\s+for\s+\S+)?\s+(\d+\.\d+(?:\.\d+)*)\b")


def parse_proc_driver_version(text: str) -> tuple[str, str] | None:
    """``(version, "open" | "proprietary")`` from ``/proc/driver/nvidia/version``.

    Handles ``NVIDIA UNIX Open Kernel Module for x86_64  565.57.01 ...`` (open),
    ``NVIDIA UNIX x86_64 Kernel Module  384.98 ...`` (proprietary) and Jetson L4T lines (whose
    version is an L4T release such as ``35.3.1``). Other lines before it are ignored.
    """
    for match in _NVRM_RE.finditer(text):
        rest = match.group("rest")
        version = _NVRM_VERSION_RE.search(rest)
        if version is None:
            continue
        flavor = "open" if re.search(r"\bOpen Kernel Module\b", rest) else "proprietary"
        return version.group(1), flavor
    return None


# ---- CUDA toolkit ---------------------------------------------------------------------------

_NVCC_RE: Final = lazy(
    r"Cuda compilation tools,\s*release\s+(\d+\.\d+)(?:\s*,\s*V(\d+(?:\.\d+)+))?", re.IGNORECASE
)


def parse_nvcc_version(text: str) -> tuple[str, str | None] | None:
    """``(release, full version)`` from ``nvcc --version``: ("13.0", "13.0.88").

    The full version comes from the ``V13.0.88`` token and is None when it is missing.
    """
    match = _NVCC_RE.search(text)
    if match is None:
        return None
    return match.group(1), match.group(2)


def parse_cuda_version_json(text: str) -> tuple[str, str] | None:
    """``(major.minor, full)`` from a CUDA toolkit ``version.json``: ("12.4", "12.4.1").

    Uses the ``cuda`` entry, else ``cuda_cudart``, else ``cuda_nvcc``. Runfile installs write
    a date as the last part ("11.8.20220929"); it is returned as is.
    """
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    for key in ("cuda", "cuda_cudart", "cuda_nvcc"):
        entry = data.get(key)
        if not isinstance(entry, dict):
            continue
        version = entry.get("version")
        if isinstance(version, str) and _VERSION_RE.match(version.strip()):
            full = version.strip()
            major, minor = full.split(".")[:2]
            return f"{major}.{minor}", full
    return None


# ---- cuDNN / NCCL headers -------------------------------------------------------------------


def _define(text: str, name: str) -> int | None:
    """The integer value of ``#define <name> <int>`` in ``text``, or None."""
    # NOTE: [^\S\n] (whitespace but not a line break): ``^\s*`` in a MULTILINE search ran over every following
    # blank line from every line start (quadratic on a file of blank lines).
    match = re.search(rf"^[^\S\n]*#[^\S\n]*define[^\S\n]+{name}[^\S\n]+\(?(\d{{1,9}})\)?[^\S\n]*(?://.*|/\*.*)?$",
                      text, re.MULTILINE)
    return int(match.group(1)) if match else None


def parse_cudnn_version_header(text: str, *, patch_required: bool = True) -> str | None:
    """The cuDNN version "major.minor.patch" from the ``CUDNN_MAJOR/MINOR/PATCHLEVEL`` defines.

    Works on ``cudnn_version.h`` (cuDNN 8+), ``cudnn.h`` (cuDNN 7 and older) and on
    ``grep CUDNN_MAJOR -A 2`` output. None unless all three are present; with ``patch_required=False``,
    "major.minor" from ``grep CUDNN_MAJOR -A 1`` output, which people paste as often.
    """
    parts = [_define(text, name) for name in ("CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL")]
    if not patch_required and parts[2] is None and parts[0] is not None and parts[1] is not None:
        return f"{parts[0]}.{parts[1]}"
    if any(part is None for part in parts):
        return None
    return ".".join(str(part) for part in parts)


def parse_nccl_header(text: str) -> str | None:
    """The NCCL version "major.minor.patch" from the ``NCCL_MAJOR/MINOR/PATCH`` defines of nccl.h."""
    parts = [_define(text, name) for name in ("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH")]
    if any(part is None for part in parts):
        return None
    return ".".join(str(part) for part in parts)


# ---- integer version codes ------------------------------------------------------------------


#: Largest version code decoded; beyond it (or below 0) the code is not a version.
_MAX_CODE: Final = 10**12


def decode_cuda_driver_int(value: int) -> str | None:
    """A CUDA version integer (``cudaDriverGetVersion``, NVML) as text: 12040 -> "12.4"; None out of range."""
    if not 0 <= value < _MAX_CODE:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


def decode_cudnn_int(value: int) -> str | None:
    """A cuDNN version integer as text: 90100 -> "9.1.0", 8902 -> "8.9.2"; None out of range.

    cuDNN 9 encodes ``major*10000 + minor*100 + patch``; earlier releases ``major*1000 + minor*100
    + patch``.
    """
    if not 0 <= value < _MAX_CODE:
        return None
    if value >= 90000:
        return f"{value // 10000}.{(value % 10000) // 100}.{value % 100}"
    return f"{value // 1000}.{(value % 1000) // 100}.{value % 100}"


def decode_nccl_int(value: int) -> str | None:
    """An NCCL version code as text: 22105 -> "2.21.5" (since 2.9), 2708 -> "2.7.8" (older); None out of range."""
    if not 0 <= value < _MAX_CODE:
        return None
    if value >= 10000:
        return f"{value // 10000}.{(value % 10000) // 100}.{value % 100}"
    return f"{value // 1000}.{(value % 1000) // 100}.{value % 100}"


# ---- shared-library file names --------------------------------------------------------------

_SONAME_RE: Final = lazy(r"\.so\.(\d+(?:\.\d+)*)$")


def _basename(filename: str) -> str:
    """The last component of a POSIX or Windows path."""
    return re.split(r"[\\/]", filename.strip())[-1]


def version_from_soname(filename: str) -> str | None:
    """The full version in a library file name: "libcudnn.so.8.9.2" -> "8.9.2".

    A name carrying only the major ("libcudnn.so.9", "libcuda.so.1") or none gives None.
    """
    match = _SONAME_RE.search(_basename(filename))
    if match is None or "." not in match.group(1):
        return None
    return match.group(1)


def soname_major(filename: str) -> int | None:
    """The major version in a library file name: "libcudnn.so.9" -> 9, "libcudnn.so" -> None."""
    match = _SONAME_RE.search(_basename(filename))
    if match is None:
        return None
    major = match.group(1).split(".")[0]
    return int(major) if len(major) <= _MAX_DIGITS else None
