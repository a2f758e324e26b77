"""`envguard smoke` and `envguard fingerprint`: the training suite in the target interpreter, and fingerprints."""

from __future__ import annotations

import dataclasses
import json
import os
from typing import TYPE_CHECKING

from envguard.commands._io import read_text_input
from envguard.commands._probe import ProbeOptions, resolve_python, take_snapshot
from envguard.errors import InputError
from envguard.knowledge import load_matrices

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from envguard.fingerprints import Fingerprint
    from envguard.smoke import DistOptions
    from envguard.smoke.base import SmokeResult, SmokeRun


def smoke(
    probe: ProbeOptions,
    *,
    level: int,
    cases: tuple[str, ...],
    timeout_s: float | None,
    device: str,
    dist: DistOptions,
    on_event: Callable[[str, SmokeResult | None], None] | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[SmokeRun, Fingerprint]:
    """Run the smoke suite in the target interpreter and fingerprint the environment with its results."""
    from envguard import _subprocess
    from envguard.fingerprints import fingerprint_of
    from envguard.probes.nvml import ClockEvents, ThrottleSampler
    from envguard.smoke import SuiteOptions, default_nproc, payload_device, run_suite, visible_gpus
    from envguard.smoke.peaks import annotate as annotate_peaks

    environ = dict(os.environ if env is None else env)
    snapshot, _notes = take_snapshot(probe, environ)
    python = resolve_python(probe.target_python, environ)
    gpus = visible_gpus(len(snapshot.gpu_list()), environ)
    if dist.nproc_per_node is None:
        dist = dataclasses.replace(dist, nproc_per_node=default_nproc(gpus, device))
    options = SuiteOptions(python, level, cases, timeout_s, payload_device(device, gpus), dist, environ)
    sampler: list[ThrottleSampler] = []
    throttled: dict[str, ClockEvents] = {}

    def watch(case: str, result: SmokeResult | None) -> None:
        # NOTE: clock-event reasons are sampled while the GPU-bound perf case runs, not after it.
        if case == "perf" and snapshot.gpu_list():
            if result is None:
                sampler.append(ThrottleSampler().start())
            elif sampler:
                reasons = sampler.pop().stop()
                if reasons:
                    throttled[case] = reasons
        if on_event is not None:
            on_event(case, result)

    run = run_suite(_subprocess.run, options, watch)
    run = annotate_peaks(run, snapshot, load_matrices(env=environ), throttled, environ)
    return run, fingerprint_of(snapshot, run)


def environment_fingerprint(probe: ProbeOptions, env: Mapping[str, str] | None = None) -> Fingerprint:
    """The fingerprint of this machine and the target interpreter (no smoke results)."""
    from envguard.fingerprints import fingerprint_of

    snapshot, _notes = take_snapshot(probe, env)
    return fingerprint_of(snapshot)


def read_fingerprint(path: str) -> Fingerprint:
    """A fingerprint file, or a smoke JSON envelope that carries one.

    :raises InputError: unreadable, not JSON, or not a fingerprint.
    """
    from envguard import _json
    from envguard.fingerprints import Fingerprint

    text, name = read_text_input(path, what="fingerprint")
    try:
        data = _json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno}") from exc
    except _json.DocumentError as exc:
        raise InputError(f"{name} {exc}: not an envguard fingerprint") from None
    return Fingerprint.from_dict(data, name)


def fingerprint_json(fingerprint: Fingerprint) -> str:
    """The fingerprint file text."""
    return json.dumps(fingerprint.to_dict(), indent=2, sort_keys=True) + "\n"
