"""`envguard check` and `envguard snapshot`: probe (or read a snapshot, a pasted report, an image) and judge."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from envguard.commands._probe import ProbeOptions, start_inspection, take_snapshot
from envguard.errors import InputError, TargetPythonError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from envguard.findings import Report
    from envguard.knowledge import Matrices
    from envguard.snapshot import Snapshot

# NOTE: the rules (and the matrices' row types they pull in) are imported inside the functions that judge:
# `check` starts probing first and imports them while the target interpreter runs (issue 10).


def load_matrices(env: Mapping[str, str] | None = None) -> Matrices:
    """The matrices (``ENVGUARD_MATRICES`` honoured), imported on first use."""
    from envguard.knowledge import load_matrices as load

    return load(env=None if env is None else dict(env))


#: ``YYYY-MM-DD``: the day the staleness check compares the matrices' ``retrieved`` dates with (tests pin it).
TODAY_ENV = "ENVGUARD_TODAY"


def today(env: Mapping[str, str] | None = None) -> tuple[dt.date, str]:
    """Today (``ENVGUARD_TODAY`` when set, else the system clock) and where that came from.

    :raises InputError: when ``ENVGUARD_TODAY`` is not a date.
    """
    text = (os.environ if env is None else env).get(TODAY_ENV, "").strip()
    if not text:
        return dt.date.today(), "system clock"
    try:
        return dt.date.fromisoformat(text), TODAY_ENV
    except ValueError:
        raise InputError(f"{TODAY_ENV}={text!r} is not a date (YYYY-MM-DD)") from None


def with_staleness(report: Report, matrices: Matrices, env: Mapping[str, str] | None = None) -> Report:
    """The report plus an unknown-version (info) finding when the newest matrix is over 180 days old."""
    from envguard.rules.staleness import stale_matrices

    day, where = today(env)
    finding = stale_matrices(matrices.headers(), day, where)
    if finding is None or finding in report.findings:
        return report
    return dataclasses.replace(report, findings=tuple(sorted((*report.findings, finding), key=lambda f: -f.severity)))


def check(
    options: ProbeOptions,
    *,
    snapshot_file: str | None = None,
    matrices: Matrices | None = None,
    env: Mapping[str, str] | None = None,
) -> Report:
    """Probe (or read a saved snapshot) and judge it against the matrices."""
    environ = os.environ if env is None else env
    notes: tuple[str, ...] = ()
    if snapshot_file is not None:
        from envguard.commands._io import read_snapshot
        from envguard.rules import run_rules

        mats = matrices if matrices is not None else load_matrices(environ)
        snapshot = read_snapshot(snapshot_file)
    else:
        # NOTE: probing mostly waits on subprocesses (the target interpreter above all): start it, then import
        # the rules and parse the matrices every check consults meanwhile.
        started = start_inspection(options, environ)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="envguard-probing") as pool:
            probing = pool.submit(take_snapshot, options, env, inspection=started)
            from envguard.rules import run_rules

            mats = matrices if matrices is not None else load_matrices(environ)
            _ = (mats.cuda_driver, mats.torch, mats.tensorflow, mats.gpu_arch)
            snapshot, notes = probing.result()
    return with_staleness(run_rules(snapshot, mats, notes=notes), mats, env)


def check_report(text: str, name: str, matrices: Matrices | None = None) -> Report:
    """Diagnose a pasted report (collect_env, TF template, nvidia-smi, pip lines, logs, envguard JSON).

    :raises SnapshotError: when the text holds no environment fact.
    """
    from envguard.findings import Severity
    from envguard.reports import parse_environments
    from envguard.rules import run_rules

    mats = matrices if matrices is not None else load_matrices()
    envs = parse_environments(text, name, mats)
    if len(envs) == 1:
        return with_staleness(run_rules(envs[0].snapshot, mats, notes=envs[0].notes), mats)
    # Several environments ("works with A, fails with B"): each is judged on its own and every finding says
    # which one it concerns; the report's snapshot is the environment with the most errors (the failing one).
    reports = [run_rules(env.snapshot, mats, notes=env.notes) for env in envs]
    findings = tuple(sorted(
        (dataclasses.replace(f, message=f"[{env.label}] {f.message}") for env, rep in zip(envs, reports, strict=True)
         for f in rep.findings), key=lambda f: -f.severity))
    worst = max(range(len(reports)), key=lambda i: (reports[i].count(Severity.ERROR), i))
    notes = tuple(dict.fromkeys(n for rep in reports for n in rep.notes))
    return with_staleness(dataclasses.replace(reports[worst], findings=findings, notes=notes), mats)


def judge(snapshot: Snapshot, matrices: Matrices | None = None) -> Report:
    """Judge an already-loaded snapshot."""
    from envguard.rules import run_rules

    mats = matrices if matrices is not None else load_matrices()
    return with_staleness(run_rules(snapshot, mats), mats)


def snapshot_json(snapshot: Snapshot) -> str:
    """The canonical snapshot file text."""
    return json.dumps(snapshot.to_dict(), indent=2, sort_keys=True) + "\n"


def check_image(ref: str, *, timeout_s: float = 120.0, env: Mapping[str, str] | None = None,
                matrices: Matrices | None = None) -> Report:
    """Judge a local container image against this host's driver and Docker engine.

    Python and frameworks come from the in-target script run inside a network-less container, the CUDA
    libraries from the image's ``ldconfig -p`` and wheels, the driver and GPUs from this host.
    """
    from envguard import _json, engine
    from envguard._version import __version__
    from envguard.lock.render import check_image_ref
    from envguard.probes.base import ProbeContext
    from envguard.probes.collect import collect_machine
    from envguard.probes.cuda import libraries_in_image
    from envguard.probes.target import decode_target_report
    from envguard.resources import script_source
    from envguard.rules import ALL_RULES, run_rules
    from envguard.rules.image import image_findings
    from envguard.snapshot import CudaToolkit, Snapshot, Unavailable

    check_image_ref(ref)
    environ = dict(os.environ if env is None else env)
    mats = matrices if matrices is not None else load_matrices(environ)
    client = engine.connect()
    image = engine.inspect_image(client, ref)
    facts = engine.engine_facts(client)
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="envguard-image") as pool:
        f_host = pool.submit(collect_machine, ProbeContext(env=environ, target_python=sys.executable))
        f_ld = pool.submit(engine.run_in_image, client, ref, ["-p"], entrypoint=["ldconfig"], timeout_s=timeout_s)
        out = engine.run_script(client, ref, script_source("envguard.probes", "_inspect_target.py"),
                                timeout_s=timeout_s)
        host, driver, gpus, notes = f_host.result()
        try:
            ld_status, ld_out, _ld_err = f_ld.result()
        except engine.EngineError as exc:
            ld_status, ld_out = 1, ""
            notes += (f"ldconfig in the image: {exc}",)
    try:
        doc = _json.loads(out.strip().splitlines()[-1])
        target = decode_target_report(doc, f"the interpreter in {ref}")
    except (ValueError, IndexError) as exc:
        raise TargetPythonError(f"the inspection script printed no report in {ref}: {exc}") from None
    cuda_version = image.env.get("CUDA_VERSION")
    toolkits: tuple[CudaToolkit, ...] | Unavailable
    if cuda_version:
        parts = cuda_version.split(".")
        toolkits = (CudaToolkit(".".join(parts[:2]), "/usr/local/cuda", "image env CUDA_VERSION",
                                build=cuda_version),)
    else:
        toolkits = Unavailable("the image sets no CUDA_VERSION", ("image env",))
    libraries = libraries_in_image(ld_out if ld_status == 0 else "", target.wheel_files)
    snapshot = Snapshot(
        host=host, driver=driver, gpus=gpus, python=target.python, packages=target.packages,
        frameworks=target.frameworks, cuda_toolkits=toolkits, libraries=libraries,
        cudnn=Unavailable("not read inside images"), nccl=Unavailable("not read inside images"),
        environment={k: v for k, v in sorted(image.env.items()) if k.startswith(("NVIDIA_", "CUDA_", "NV_"))},
        origin=f"image {ref}", envguard_version=__version__,
    )
    report = run_rules(snapshot, mats, ALL_RULES, notes=notes)
    extra = tuple(f for f in image_findings(image, facts, snapshot) if f not in report.findings)
    findings = tuple(sorted((*report.findings, *extra), key=lambda f: -f.severity))
    notes_out = (*report.notes, f"image {ref} ({image.id[:19]}), engine {facts.server_version}: runtimes "
                 f"{', '.join(facts.runtimes) or 'none'}")
    return with_staleness(dataclasses.replace(report, findings=findings, notes=notes_out), mats, environ)
