"""arch-unsupported for JAX: a GPU below the lowest compute capability the jaxlib GPU builds support.

jax.toml's [[arch_floor]] rows give the lowest compute capability of the default jaxlib GPU builds per release
(every jaxlib: 3.5, XLA's minimum; from jaxlib 0.4.4: 5.2), and a [[release.cuda]] row's ``min_cc`` a plugin's
own (the CUDA 13 plugin: 7.5). Below it XLA skips the device and JAX falls back to the CPU ("No GPU/TPU found").
A report that names no jaxlib version is judged against the floor every release shares: a GPU below it has no
jaxlib GPU build at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from packaging.version import Version

from envguard.findings import Evidence, Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import build_evidence, ev, gpu_cc, gpu_evidence
from envguard.snapshot import Snapshot

#: JAX's own words that it did not use the GPU (jax/_src/xla_bridge.py), corroborating the finding.
_FELL_BACK = re.compile(r"falling back to (?:the )?cpu|lower than the minimum supported compute capability",
                        re.IGNORECASE)


class JaxArchRule:
    """Every GPU must meet the lowest compute capability of the installed (or, version unknown, of every) jaxlib."""

    id = "jax-arch"
    summary = "each GPU meets the lowest compute capability of the jaxlib GPU builds"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield arch-unsupported for a GPU below the jaxlib floor."""
        build = snapshot.framework("jax")
        gpus = snapshot.gpu_list()
        if build is None or build.accelerator == "cpu" or not gpus:
            return
        known = build.version if build.version_known else None
        floor = matrices.jax.arch_floor(known)
        if floor is None:
            return
        minimum, where, source = floor.min_cc, f"jax.toml arch_floor since jaxlib {floor.since}", floor.prov.source
        release = matrices.jax.release(known) if known else None
        plugin = release.plugin(int(build.cuda)) if release and build.cuda and build.cuda.isdigit() else None
        if plugin is not None and plugin.min_cc and Version(plugin.min_cc) > Version(minimum):
            minimum, where = plugin.min_cc, f"jax.toml {release.version if release else ''} cuda{plugin.major}"
            source = plugin.prov.source
        scope = (f"jaxlib {build.version}" if known else
                 "every jaxlib GPU build (the report names no jaxlib version)")
        fell_back = next((line for line in snapshot.observed_errors if _FELL_BACK.search(line)), None)
        for gpu in gpus:
            cc, cc_source = gpu_cc(gpu, matrices)
            if cc is None or Version(cc) >= Version(minimum):
                continue
            evidence = [gpu_evidence(gpu, cc, cc_source),
                        build_evidence(build, snapshot), ev("lowest supported compute capability", minimum, where)]
            if fell_back is not None:
                evidence.append(Evidence("JAX", fell_back[:160], snapshot.origin))
            yield Finding(
                "arch-unsupported", Severity.ERROR,
                f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) is below compute capability {minimum}, "
                f"the lowest that {scope} supports: XLA skips the device and JAX runs on the CPU.",
                tuple(evidence),
                f"use a GPU of compute capability {minimum} or newer"
                + (" (or an older jaxlib whose floor it meets)" if known and minimum != "3.5" else ""),
                source, "jax",
            )
