"""gpu-arch.toml: compute capabilities, GPU product names and GeForce series rules."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from envguard.knowledge._base import (
    META_KEYS,
    PROV_KEYS,
    Collector,
    MatrixMeta,
    Provenance,
    check_unique,
    is_cc,
    norm_gpu,
)

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class ArchRow:
    """One compute capability: family and the CUDA toolkits that can compile for it."""

    cc: str
    family: str
    first_cuda: Version | None
    last_cuda: Version | None
    examples: tuple[str, ...]
    prov: Provenance
    datacenter_forward_compat: bool | None = None
    #: An integrated (Tegra / Jetson) GPU: SASS runs only on the exact compute capability it was built for, never
    #: on a higher minor (the CUDA Programming Guide's binary-compatibility note); None when not recorded.
    integrated: bool | None = None


@dataclass(frozen=True, slots=True)
class GpuRow:
    """A product name and its compute capability."""

    name: str
    cc: str
    datacenter: bool | None
    prov: Provenance


@dataclass(frozen=True, slots=True)
class SeriesRow:
    """A product series and its compute capability; ``pattern`` matches the lower-case alphanumeric name."""

    series: str
    pattern: re.Pattern[str]
    cc: str
    prov: Provenance


@dataclass(frozen=True, slots=True)
class GpuArchMatrix:
    """Compute capabilities and product names."""

    meta: MatrixMeta
    archs: tuple[ArchRow, ...]
    gpus: tuple[GpuRow, ...]
    #: Product-series rules (e.g. every GeForce RTX 40xx is 8.9) for names without a row of their own.
    series: tuple[SeriesRow, ...] = ()

    def arch(self, cc: str) -> ArchRow | None:
        """The row for compute capability ``cc`` ("8.6")."""
        return next((a for a in self.archs if a.cc == cc), None)

    def first_cuda_of_major(self, cc: str) -> Version | None:
        """The first toolkit that compiles for any architecture of ``cc``'s major ("8.6" -> CUDA 11.0, for sm_80).

        Two questions, two answers: SASS runs on any GPU of the same major and an equal or higher minor (not on
        Tegra, see ``integrated``), so a build has *no kernels at all* for an 8.6 GPU only when its toolkit predates
        the whole 8.x family — this one (the arch and release-arch rules' errors). Whether a toolkit emits SASS *for
        this exact architecture* is ``arch(cc).first_cuda`` (CUDA 11.1 for sm_86: tf-toolkit-arch's PTX-JIT
        warning)."""
        major = cc.partition(".")[0]
        firsts = [a.first_cuda for a in self.archs if a.cc.partition(".")[0] == major and a.first_cuda is not None]
        return min(firsts) if firsts else None

    def lookup_name(self, name: str) -> GpuRow | None:
        """Product name (as nvidia-smi or a report prints it, maybe truncated with "...") → row."""
        key = norm_gpu(name)
        truncated = key.endswith("...")
        key = key.rstrip(". ")
        exact = next((g for g in self.gpus if norm_gpu(g.name) == key), None)
        if exact is not None or not key:
            return exact
        if truncated:
            hits = {g.cc: g for g in self.gpus if norm_gpu(g.name).startswith(key)}
            return next(iter(hits.values())) if len(hits) == 1 else None
        compact = re.sub(r"[^a-z0-9]", "", key)
        for rule in self.series:
            if rule.pattern.search(compact):
                return GpuRow(name, rule.cc, False, rule.prov)
        return self._by_example(name, key)

    def _by_example(self, name: str, key: str) -> GpuRow | None:
        """The [[arch]] row one of whose example products the name contains as whole words, vendor words aside
        ("Tesla P100" and "P100-SXM2" hold "Tesla P100", "H100 80GB" holds "H100"); None when none or several
        capabilities match. An example is only a model number or several words ("Jetson Nano"), never one bare word."""
        words = _model_words(key)
        ccs: dict[str, ArchRow] = {}
        for row in self.archs:
            for example in row.examples:
                want = _model_words(norm_gpu(example))
                if not want or "xx" in example.lower() or (len(want) == 1 and not re.search(r"\d", want[0])):
                    continue
                if any(words[i:i + len(want)] == want for i in range(len(words) - len(want) + 1)):
                    ccs[row.cc] = row
        if len(ccs) != 1:
            return None
        row = next(iter(ccs.values()))
        return GpuRow(name, row.cc, None, row.prov)


#: Words that name the vendor or brand rather than the product.
_VENDOR_WORDS = frozenset({"nvidia", "geforce", "tesla"})


def _model_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _VENDOR_WORDS]


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> GpuArchMatrix:
    col.keys(data, META_KEYS | {"arch", "gpu", "series"}, "header")
    archs = []
    for where, row in col.rows(data, "arch"):
        allowed = {"cc", "family", "first_cuda", "last_cuda", "examples", "datacenter_forward_compat", "integrated"}
        col.keys(row, allowed | PROV_KEYS, where)
        cc = col.string(row, "cc", where, required=True)
        if cc is None or not is_cc(cc):
            col.error(where, f"cc must look like '8.6', got {cc!r}")
            continue
        examples = row.get("examples", [])
        if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
            col.error(where, "examples must be a list of strings")
            examples = []
        first, last = col.version(row, "first_cuda", where), col.version(row, "last_cuda", where)
        if first is not None and last is not None and last < first:
            col.error(where, f"last_cuda {last} is before first_cuda {first}")
        archs.append(ArchRow(
            cc, col.string(row, "family", where, required=True) or "", first, last, tuple(examples),
            col.prov(row, where), col.flag(row, "datacenter_forward_compat", where), col.flag(row, "integrated", where),
        ))
    gpus = []
    for where, row in col.rows(data, "gpu"):
        col.keys(row, {"name", "cc", "datacenter"} | PROV_KEYS, where)
        name, cc = col.string(row, "name", where, required=True), col.string(row, "cc", where, required=True)
        if name is None or cc is None:
            continue
        if not any(a.cc == cc for a in archs):
            col.error(where, f"cc {cc!r} of {name!r} has no [[arch]] row")
        gpus.append(GpuRow(name, cc, col.flag(row, "datacenter", where), col.prov(row, where)))
    series = []
    for where, row in col.rows(data, "series"):
        col.keys(row, {"series", "pattern", "cc", "examples"} | PROV_KEYS, where)
        label, raw, cc = (col.string(row, k, where, required=True) for k in ("series", "pattern", "cc"))
        if label is None or raw is None or cc is None:
            continue
        if not any(a.cc == cc for a in archs):
            col.error(where, f"cc {cc!r} of series {label!r} has no [[arch]] row")
        try:
            pattern = re.compile(raw)
        except re.error as exc:
            col.error(where, f"pattern is not a valid regular expression: {exc}")
            continue
        examples = row.get("examples", [])
        for example in examples if isinstance(examples, list) else []:
            if not pattern.search(re.sub(r"[^a-z0-9]", "", norm_gpu(str(example)))):
                col.error(where, f"pattern does not match its example {example!r}")
        series.append(SeriesRow(label, pattern, cc, col.prov(row, where)))
    check_unique([a.cc for a in archs], col, "arch", "cc")
    check_unique([norm_gpu(g.name) for g in gpus], col, "gpu", "name")
    return GpuArchMatrix(meta, tuple(archs), tuple(gpus), tuple(series))


