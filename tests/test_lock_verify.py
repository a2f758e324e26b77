"""envguard.lock.verify.compare: every drift kind, their order, what is skipped, and what is only a note."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest

from envguard.installed_facts import InstalledDistribution, RecordCheck
from envguard.lock.spec import LockedPackage, LockSpec, LockTarget
from envguard.lock.verify import DRIFT_KINDS, Drift, VerifyResult, compare
from envguard.snapshot import DriverInfo, Unavailable

H = ("sha256:" + "0" * 64,)
CUDA_TARGET = LockTarget("3.11", "linux-x86_64", "12.4", "cu124", "9.1.0.70", "2.21.5", "525.60.13")
CPU_TARGET = LockTarget("3.11", "linux-x86_64", None, "cpu")
GOOD_DRIVER = DriverInfo("550.54.15", "12.4", "NVML")


def _spec(target: LockTarget = CUDA_TARGET, **kw: Any) -> LockSpec:
    packages = (LockedPackage("torch", "2.5.1+cu124", H, True), LockedPackage("numpy", "2.1.3", H),
                LockedPackage("filelock", "3.16.1", H))
    return dataclasses.replace(LockSpec(target, packages), **kw)


def _installed(**over: str | None) -> list[InstalledDistribution]:
    versions: dict[str, str | None] = {"torch": "2.5.1+cu124", "numpy": "2.1.3", "filelock": "3.16.1", "pip": "24.2"}
    versions.update(over)
    return [InstalledDistribution(n, v) for n, v in versions.items() if v is not None]


def _compare(spec: LockSpec, installed: Sequence[InstalledDistribution], *, python: str = "3.11.7",
             driver: DriverInfo | Unavailable | None = GOOD_DRIVER, ignore: Sequence[str] = ()) -> VerifyResult:
    return compare(spec, installed, python=python, interpreter="/venv/bin/python", driver=driver,
                   lock_name="envguard.lock.json", ignore=ignore)


def test_matching_environment_has_no_drift() -> None:
    result = _compare(_spec(), _installed())
    assert result.ok
    assert result.drifts == () and result.notes == ()
    assert result.packages_checked == 3 and result.files_checked == 0
    assert result.python == "3.11.7" and result.interpreter == "/venv/bin/python"
    assert result.lock_name == "envguard.lock.json"


def test_drift_kinds_order() -> None:
    assert DRIFT_KINDS == ("python", "driver", "variant", "different", "missing", "extra", "files", "unrecorded", "pth",
                           "bytecode")


def test_python_minor_mismatch() -> None:
    result = _compare(_spec(), _installed(), python="3.12.1")
    assert result.drifts == (Drift("python", "python", "3.11", "3.12.1",
                                   "the lock is for Python 3.11, the interpreter is 3.12.1"),)
    assert not result.ok


def test_missing_extra_different_variant_and_their_order() -> None:
    installed = _installed(torch="2.5.1+cu121", numpy="1.26.4", filelock=None, zlib_thing="1.0", Aaa="0.1")
    result = _compare(_spec(), installed, python="3.10.14")
    assert [(d.kind, d.name) for d in result.drifts] == [
        ("python", "python"), ("variant", "torch"), ("different", "numpy"), ("missing", "filelock"),
        ("extra", "Aaa"), ("extra", "zlib_thing"),
    ]
    variant, different, missing = result.drifts[1:4]
    assert (variant.locked, variant.installed) == ("2.5.1+cu124", "2.5.1+cu121")
    assert "different build variant" in variant.detail
    assert different == Drift("different", "numpy", "2.1.3", "1.26.4", "numpy is 1.26.4, the lock has 2.1.3")
    assert missing == Drift("missing", "filelock", "3.16.1", None, "filelock==3.16.1 is not installed")
    assert result.drifts[4] == Drift("extra", "Aaa", None, "0.1", "Aaa 0.1 is installed but not in the lock")


def test_plain_build_instead_of_local_is_a_variant_drift() -> None:
    result = _compare(_spec(), _installed(torch="2.5.1"))
    assert [(d.kind, d.installed) for d in result.drifts] == [("variant", "2.5.1")]


def test_names_are_normalized() -> None:
    installed = [InstalledDistribution("Torch", "2.5.1+cu124"), InstalledDistribution("NumPy", "2.1.3"),
                 InstalledDistribution("FileLock", "3.16.1")]
    assert _compare(_spec(), installed).ok


def test_skip_list_tooling_ignore_and_spec_skipped() -> None:
    installed = _installed(numpy=None, setuptools="75.1.0", wheel="0.44", uv="0.5.1", myproj="0.1", debugpy="1.8")
    spec = _spec(skipped=(("myproj", "editable install"),))
    result = _compare(spec, installed, ignore=["NumPy", "DebugPy"])
    assert result.ok, result.drifts
    # Without --ignore: numpy is missing and debugpy extra; tooling and spec.skipped stay quiet.
    result = _compare(spec, installed)
    assert [(d.kind, d.name) for d in result.drifts] == [("missing", "numpy"), ("extra", "debugpy")]


def test_driver_below_floor_is_drift() -> None:
    old = DriverInfo("520.61.05", "11.8", "nvidia-smi")
    result = _compare(_spec(), _installed(), driver=old)
    assert result.drifts == (Drift("driver", "nvidia-driver", ">=525.60.13", "520.61.05",
                                   "CUDA 12.4 needs driver >= 525.60.13; this machine has 520.61.05 (nvidia-smi)"),)


def test_driver_at_floor_passes() -> None:
    assert _compare(_spec(), _installed(), driver=DriverInfo("525.60.13", "12.0", "NVML")).ok


def test_driver_unavailable_is_a_note_not_drift() -> None:
    result = _compare(_spec(), _installed(), driver=Unavailable("no NVIDIA driver", ("NVML",)))
    assert result.ok
    assert result.notes == ("driver floor 525.60.13 for CUDA 12.4 not checked: no NVIDIA driver",)


def test_driver_not_probed_and_unparseable() -> None:
    assert _compare(_spec(), _installed(), driver=None).notes == (
        "driver floor 525.60.13 for CUDA 12.4 not checked: not probed",)
    result = _compare(_spec(), _installed(), driver=DriverInfo("weird", None, "NVML"))
    assert result.ok
    assert result.notes == ("driver version 'weird' is not comparable with the floor 525.60.13",)


def test_cpu_lock_has_no_driver_check() -> None:
    spec = dataclasses.replace(_spec(CPU_TARGET), packages=(LockedPackage("torch", "2.5.1+cpu", H),))
    for driver in (DriverInfo("390.0", "9.1", "NVML"), Unavailable("no driver"), None):
        result = _compare(spec, [InstalledDistribution("torch", "2.5.1+cpu")], driver=driver)
        assert result.ok and result.notes == ()


def test_record_mismatch_is_files_drift() -> None:
    record = RecordCheck(120, mismatched=("torch/__init__.py", "torch/version.py"), missing=("torch/lib/x.so",),
                         mismatched_count=2, missing_count=1)
    installed = [*_installed(torch=None, numpy=None), InstalledDistribution("torch", "2.5.1+cu124", record=record),
                 InstalledDistribution("numpy", "2.1.3", record=RecordCheck(30))]
    result = _compare(_spec(), installed)
    assert result.files_checked == 150
    assert result.drifts == (Drift(
        "files", "torch", "2.5.1+cu124", "2.5.1+cu124",
        "2 file(s) changed and 1 missing since install (RECORD hashes): torch/__init__.py, torch/version.py, "
        "torch/lib/x.so"),)


def test_record_error_is_a_note() -> None:
    installed = [*_installed(numpy=None), InstalledDistribution("numpy", "2.1.3",
                                                                record=RecordCheck(0, error="no RECORD file"))]
    result = _compare(_spec(), installed)
    assert result.ok
    assert result.notes == ("numpy: RECORD not checked (no RECORD file)",)


def test_editable_install_of_the_locked_version_is_drift() -> None:
    installed = [*_installed(numpy=None),
                 InstalledDistribution("numpy", "2.1.3", direct_url="file:///src/numpy", editable=True)]
    result = _compare(_spec(), installed)
    assert result.drifts == (Drift("different", "numpy", "2.1.3", "2.1.3",
                                   "numpy 2.1.3 was installed from file:///src/numpy, not the locked index file"),)


def test_direct_url_install_of_the_locked_version_is_drift() -> None:
    installed = [*_installed(filelock=None),
                 InstalledDistribution("filelock", "3.16.1", direct_url="https://x.org/filelock-3.16.1.whl")]
    assert [(d.kind, d.name) for d in _compare(_spec(), installed).drifts] == [("different", "filelock")]


@pytest.mark.parametrize(("installed", "kind"), [("2.5.1+cu121", "variant"), ("2.4.1+cu124", "different"),
                                                 ("not-a-version", "different")])
def test_variant_versus_different(installed: str, kind: str) -> None:
    result = _compare(_spec(), _installed(torch=installed))
    assert [d.kind for d in result.drifts] == [kind]


def test_equal_versions_spelled_differently_are_not_drift() -> None:
    spec = dataclasses.replace(_spec(), packages=(*_spec().packages[:2], LockedPackage("filelock", "3.16", H)))
    result = _compare(spec, _installed(filelock="3.16.0"))
    assert result.ok, result.drifts


# ---- issue 12 item 6 / issue 17 item 9: pinned tooling, RECORD digests, what lies beside the packages --------


def test_pinned_installer_tooling_is_compared_unpinned_tooling_is_not() -> None:
    spec = dataclasses.replace(_spec(), packages=(*_spec().packages, LockedPackage("setuptools", "70.0.0", H)))
    result = _compare(spec, _installed(setuptools="69.5.1"))
    assert [(d.kind, d.name) for d in result.drifts] == [("different", "setuptools")]
    assert _compare(_spec(), _installed(setuptools="69.5.1")).ok  # not pinned: left out as before


def test_a_record_edited_with_its_file_is_caught_by_the_locked_digest() -> None:
    locked = "sha256:" + "a" * 64
    spec = dataclasses.replace(_spec(), packages=tuple(dataclasses.replace(p, files=locked) if p.name == "numpy"
                                                       else p for p in _spec().packages))
    intact_record = RecordCheck(checked=10, files_digest="sha256:" + "b" * 64)  # every file matches its RECORD
    installed = [dataclasses.replace(d, record=intact_record) if d.name == "numpy" else d for d in _installed()]
    result = _compare(spec, installed)
    assert [(d.kind, d.name) for d in result.drifts] == [("files", "numpy")]
    assert "no longer lists the files of the locked wheel" in result.drifts[0].detail


def test_scan_reports_unrecorded_files_foreign_pth_and_stale_bytecode() -> None:
    from envguard.installed_facts import SiteScan

    scan = SiteScan(unrecorded=("/sp/numpy/evil.py",), unrecorded_count=1,
                    pth=(("/sp/evil.pth", None), ("/sp/distutils-precedence.pth", "setuptools"),
                         ("/sp/numpy-hook.pth", "numpy")),
                    bytecode=("/sp/numpy/__pycache__/core.cpython-311.pyc",), bytecode_count=1)
    result = compare(_spec(), _installed(), python="3.11.7", interpreter="/venv/bin/python", driver=GOOD_DRIVER,
                     lock_name="/locks/app/envguard.lock.json", scan=scan)
    assert [(d.kind, d.name) for d in result.drifts] == [
        ("unrecorded", "/sp/numpy/evil.py"), ("pth", "/sp/evil.pth"),
        ("bytecode", "/sp/numpy/__pycache__/core.cpython-311.pyc")]
    assert result.fixes == (
        "rm -f -- /sp/evil.pth /sp/numpy/__pycache__/core.cpython-311.pyc /sp/numpy/evil.py",
        "/venv/bin/python -m pip install --require-hashes --no-deps --force-reinstall -r "
        "/locks/app/requirements.lock.txt")


def test_fix_uninstalls_extras_and_names_the_lock_folder() -> None:
    result = compare(_spec(), _installed(numpy="2.0.0", rich="13.0"), python="3.11.7",
                     interpreter="/venv/bin/python", driver=GOOD_DRIVER, lock_name="lock dir/envguard.lock.json")
    assert result.fixes == ("/venv/bin/python -m pip uninstall -y rich",
                            "/venv/bin/python -m pip install --require-hashes --no-deps --force-reinstall -r "
                            "'lock dir/requirements.lock.txt'")


def test_the_virtualenv_owner_is_named_alike_on_both_sides() -> None:
    """The in-target script (standard library only, it cannot import envguard) and verify spell virtualenv's own
    _virtualenv.pth owner with one string: a change to one side must not silently turn it into drift."""
    import re
    from pathlib import Path

    from envguard.lock.verify import VIRTUALENV_OWNER

    script = (Path(__file__).resolve().parent.parent / "envguard" / "probes" / "_installed.py").read_text()
    found = re.search(r'^VIRTUALENV_OWNER = "([^"]+)"$', script, re.MULTILINE)
    assert found is not None and found.group(1) == VIRTUALENV_OWNER
