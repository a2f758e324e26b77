"""Installed distributions of the target interpreter, with install origin and RECORD integrity."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from typing import Any

from envguard import _json
from envguard.errors import TargetPythonError
from envguard.installed_facts import InstalledDistribution, RecordCheck, SiteScan
from envguard.probes.base import INSTALLED_TIMEOUT_FACTOR, ProbeContext
from envguard.probes.inspection import child_env
from envguard.probes.target import not_python
from envguard.resources import script_source


def installed_distributions(
    ctx: ProbeContext, *, records: bool = False, only: Iterable[str] = (), timeout_s: float | None = None,
) -> tuple[str, tuple[InstalledDistribution, ...]]:
    """(Python version, distributions) of ``ctx.target_python``; hash RECORD files when ``records``.

    ``timeout_s`` defaults to ``ctx.timeout_s`` times :data:`INSTALLED_TIMEOUT_FACTOR`.

    :raises TargetPythonError: when the interpreter is missing or does not answer.
    """
    version, dists, _scan = installed_state(ctx, records=records, only=only, timeout_s=timeout_s)
    return version, dists


def installed_state(
    ctx: ProbeContext, *, records: bool = False, scan: bool = False, only: Iterable[str] = (),
    timeout_s: float | None = None,
) -> tuple[str, tuple[InstalledDistribution, ...], SiteScan | None]:
    """installed_distributions, plus (``scan`` or ``records``) what lies beside them in site-packages; ``scan``
    alone lists files without hashing them or checking bytecode.

    :raises TargetPythonError: when the interpreter is missing or does not answer.
    """
    exe = ctx.target_python
    if os.sep in exe and not os.path.exists(exe):
        raise TargetPythonError(f"target interpreter {exe} does not exist")
    argv = [exe, "-c", script_source("envguard.probes", "_installed.py")]
    if records or scan:
        argv.append("--records" if records else "--scan")
        names = sorted(set(only))
        if names:
            argv.append("--only=" + ",".join(names))
    with tempfile.TemporaryDirectory(prefix="envguard-") as cwd:
        result = ctx.run(tuple(argv), timeout=timeout_s or ctx.timeout_s * INSTALLED_TIMEOUT_FACTOR, cwd=cwd,
                         env=child_env(ctx.env))
    if not result.ok:
        raise TargetPythonError(not_python(exe, result))
    try:
        doc = _json.require(_json.loads(result.stdout.strip().splitlines()[-1]), dict, "the distribution list")
        return str(doc.get("python", "")), decode_installed(doc), decode_scan(doc.get("scan"))
    except (ValueError, IndexError) as exc:  # NOTE: JSONDecodeError and _json.DocumentError are ValueErrors
        raise TargetPythonError(f"target interpreter {exe} printed no distribution list ({exc}); it printed: "
                                f"{result.printed()}") from None
    except (KeyError, TypeError, AttributeError) as exc:
        detail = f"no {exc}" if isinstance(exc, KeyError) else str(exc)
        raise TargetPythonError(f"{exe} printed a distribution list of the wrong shape ({detail[:120]})") from None


def decode_scan(raw: Any) -> SiteScan | None:
    """The script's "scan" object as a SiteScan (pure); None when it did not scan."""
    if not isinstance(raw, Mapping):
        return None
    try:
        pth = tuple((str(p.get("path", "")), p.get("owner") if isinstance(p.get("owner"), str) else None)
                    for p in raw.get("pth") or () if isinstance(p, Mapping))
        return SiteScan(tuple(str(x) for x in raw.get("unrecorded") or ()), int(raw.get("unrecorded_count", 0)),
                        pth, tuple(str(x) for x in raw.get("bytecode") or ()), int(raw.get("bytecode_count", 0)))
    except (TypeError, ValueError):
        return None


def decode_installed(doc: Mapping[str, Any]) -> tuple[InstalledDistribution, ...]:
    """The script's JSON as typed records (pure)."""
    out = []
    for d in doc.get("distributions") or ():
        rec = d.get("record")
        record = None
        if isinstance(rec, Mapping):
            record = RecordCheck(
                checked=int(rec.get("checked", 0)), mismatched=tuple(rec.get("mismatched") or ()),
                missing=tuple(rec.get("missing") or ()), mismatched_count=int(rec.get("mismatched_count", 0)),
                missing_count=int(rec.get("missing_count", 0)), error=rec.get("error"),
                files_digest=rec.get("files_digest") if isinstance(rec.get("files_digest"), str) else None,
            )
        out.append(InstalledDistribution(
            name=str(d["name"]), version=str(d.get("version", "")), installer=d.get("installer"),
            direct_url=d.get("direct_url"), editable=bool(d.get("editable")), record=record,
        ))
    return tuple(sorted(out, key=lambda d: d.name.lower()))
