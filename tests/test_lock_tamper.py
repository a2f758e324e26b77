"""verify sees tampering (issue 17 item 9) and its printed fix repairs (issue 12 item 6): real venvs, real pip,
a lock from --from-current that records each package's file digest, then the attacks the fuzz run used."""

from __future__ import annotations

import json
import os
import py_compile
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from envguard import _subprocess
from envguard.cli import main

pytestmark = pytest.mark.slow


def _run(*argv: str, env: dict[str, str] | None = None) -> _subprocess.CommandResult:
    return _subprocess.run(tuple(argv), timeout=300, env=env)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture()
def locked_venv(wheelhouse: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", str(venv)).ok
    python = venv / "bin" / "python"
    result = _run(str(python), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(wheelhouse),
                  "click==8.1.7", "six")
    assert result.ok, result.stderr[-2000:]
    lock_dir = tmp_path / "lock"
    code, _out, err = invoke("lock", "--from-current", "--python", str(venv), "--no-index", "--find-links",
                             str(wheelhouse), "--format", "json,pip", "-o", str(lock_dir))
    assert code == 0, err
    site = next((venv / "lib").glob("python3.*/site-packages"))
    return python, lock_dir, site


def _verify(lock_dir: Path, python: Path, *extra: str) -> tuple[int, dict[str, object]]:
    code, out, _err = invoke("verify", str(lock_dir), "--python", str(python), "--format", "json", *extra)
    return code, json.loads(out)


def _kinds(report: dict[str, object]) -> set[tuple[str, str]]:
    drift = report["drift"]
    assert isinstance(drift, list)
    return {(d["kind"], Path(d["name"]).name if d["kind"] in ("unrecorded", "pth", "bytecode") else d["name"])
            for d in drift}


def test_lock_records_file_digests_and_a_clean_venv_verifies(locked_venv: tuple[Path, Path, Path]) -> None:
    python, lock_dir, _site = locked_venv
    doc = json.loads((lock_dir / "envguard.lock.json").read_text())
    assert all(p["files"].startswith("sha256:") for p in doc["packages"])
    code, report = _verify(lock_dir, python)
    assert code == 0, report


def test_verify_sees_every_kind_of_tampering_and_the_printed_fix_repairs_it(
        locked_venv: tuple[Path, Path, Path], wheelhouse: Path) -> None:
    python, lock_dir, site = locked_venv
    # 1. a new file inside a locked package
    (site / "click" / "evil.py").write_text("import os\n")
    # 2. a new .pth (run at every interpreter start)
    (site / "zz-evil.pth").write_text("import os\n")
    # 3. a file edited together with its RECORD line (the RECORD check alone passes)
    record = next(site.glob("six-*.dist-info")) / "RECORD"
    six_py = site / "six.py"
    six_py.write_text(six_py.read_text() + "\n# edited\n")
    import base64
    import hashlib

    digest = base64.urlsafe_b64encode(hashlib.sha256(six_py.read_bytes()).digest()).rstrip(b"=").decode()
    lines = [f"six.py,sha256={digest},{six_py.stat().st_size}" if ln.startswith("six.py,") else ln
             for ln in record.read_text().splitlines()]
    record.write_text("\n".join(lines) + "\n")
    # 4. bytecode that is not its source's (RECORD lists __pycache__ files without hashes)
    pyc = next((site / "click" / "__pycache__").glob("exceptions.cpython-*.pyc"))
    fake = site.parent / "exceptions.py"
    fake.write_text((site / "click" / "exceptions.py").read_text() + "\nEVIL = 1\n")
    py_compile.compile(str(fake), cfile=str(pyc), dfile=str(site / "click" / "exceptions.py"))
    fake.unlink()

    code, report = _verify(lock_dir, python)
    assert code == 1
    assert _kinds(report) == {("unrecorded", "evil.py"), ("pth", "zz-evil.pth"), ("files", "six"),
                              ("bytecode", pyc.name)}

    # --no-files still sees the structure: the RECORD digest, unrecorded files, .pth files.
    code, report = _verify(lock_dir, python, "--no-files")
    assert code == 1
    assert {("unrecorded", "evil.py"), ("pth", "zz-evil.pth"), ("files", "six")} <= _kinds(report)

    # The printed fix, run as printed (pip told where the wheels are by its own environment variables).
    fixes = report["fix"]
    assert isinstance(fixes, list) and fixes
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse)}
    for command in fixes:
        result = _run(*shlex.split(command), env=env)
        assert result.ok, (command, result.stderr[-2000:])
    code, report = _verify(lock_dir, python)
    assert code == 0, report


def test_printed_fix_removes_extras_and_restores_versions(locked_venv: tuple[Path, Path, Path],
                                                          wheelhouse: Path) -> None:
    python, lock_dir, _site = locked_venv
    assert _run(str(python), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(wheelhouse),
                "click==8.1.6", "packaging").ok
    code, out, _err = invoke("verify", str(lock_dir), "--python", str(python))
    assert code == 1
    fixes = [ln.strip() for ln in out.splitlines() if ln.startswith("    ")]
    assert fixes[0].endswith("-m pip uninstall -y packaging")
    assert f"-r {lock_dir / 'requirements.lock.txt'}" in fixes[1] and "--force-reinstall" in fixes[1]
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse)}
    for command in fixes:
        assert _run(*shlex.split(command), env=env).ok, command
    assert invoke("verify", str(lock_dir), "--python", str(python))[0] == 0


def test_verify_refuses_a_lock_whose_fingerprint_was_deleted(locked_venv: tuple[Path, Path, Path]) -> None:
    python, lock_dir, _site = locked_venv
    path = lock_dir / "envguard.lock.json"
    doc = json.loads(path.read_text())
    del doc["fingerprint"]
    doc["packages"][0]["version"] = "8.1.6"  # a hand edit
    path.write_text(json.dumps(doc))
    code, _out, err = invoke("verify", str(lock_dir), "--python", str(python))
    assert code == 3 and "has no fingerprint" in err and "--allow-unsigned" in err
    code, _out, _err = invoke("verify", str(lock_dir), "--python", str(python), "--allow-unsigned")
    assert code == 1  # read, and the edit shows as drift


def test_record_files_from_the_wheels_match_what_pip_installs(wheelhouse: Path, tmp_path: Path) -> None:
    """--record-files reads each wheel's RECORD at lock time; the digest must equal the installed RECORD's."""
    lock_dir = tmp_path / "lock"
    code, _out, err = invoke("lock", "click==8.1.7", "six", "--python", "3.11", "--no-index", "--find-links",
                             str(wheelhouse), "--record-files", "--format", "json,pip", "-o", str(lock_dir))
    assert code == 0, err
    doc = json.loads((lock_dir / "envguard.lock.json").read_text())
    assert all(p["files"].startswith("sha256:") for p in doc["packages"])
    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", str(venv)).ok
    python = venv / "bin" / "python"
    result = _run(str(python), "-m", "pip", "install", "-q", "--require-hashes", "--no-deps", "--no-index",
                  "--find-links", str(wheelhouse), "-r", str(lock_dir / "requirements.lock.txt"))
    assert result.ok, result.stderr[-2000:]
    code, report = _verify(lock_dir, python)
    assert code == 0, report


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_sync_installs_exactly_the_lock_and_verifies(installer: str, wheelhouse: Path, tmp_path: Path) -> None:
    lock_dir = tmp_path / "lock"
    code, _out, err = invoke("lock", "click==8.1.7", "six", "--python", "3.11", "--no-index", "--find-links",
                             str(wheelhouse), "--format", "json", "-o", str(lock_dir))
    assert code == 0, err
    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", str(venv)).ok
    python = venv / "bin" / "python"
    # Drift to repair: another click, an extra package, six missing.
    assert _run(str(python), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(wheelhouse),
                "click==8.1.6", "packaging").ok
    code, out, err = invoke("sync", str(lock_dir), "--python", str(venv), "--installer", installer, "--no-index",
                            "--find-links", str(wheelhouse), "--format", "json")
    assert code == 0, (out, err)
    doc = json.loads(out)
    assert doc["ok"] is True and doc["installer"] == installer and doc["command"] == "sync"
    frozen = _run(str(python), "-m", "pip", "freeze").stdout if installer == "pip" else ""
    if installer == "pip":
        assert "click==8.1.7" in frozen and "six==" in frozen and "packaging" not in frozen
        assert doc["removed"] == ["packaging", "setuptools"] or doc["removed"] == ["packaging"]
    assert invoke("verify", str(lock_dir), "--python", str(python))[0] == 0


def test_a_virtualenv_made_environment_verifies_and_a_changed_virtualenv_pth_does_not(
        wheelhouse: Path, tmp_path: Path) -> None:
    """virtualenv 20.x writes `_virtualenv.pth` (`import _virtualenv`) into every environment it creates: no
    package's RECORD lists it, and it is not drift. The same name with other content is."""
    venv = tmp_path / "ve"
    made = _run(sys.executable, "-m", "virtualenv", "-q", "--no-periodic-update", str(venv))
    assert made.ok, made.stderr[-2000:]
    site = next((venv / "lib").glob("python3.*/site-packages"))
    assert (site / "_virtualenv.pth").read_text().strip() == "import _virtualenv"
    python = venv / "bin" / "python"
    assert _run(str(python), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(wheelhouse), "six").ok
    lock_dir = tmp_path / "lock"
    code, _out, err = invoke("lock", "--from-current", "--python", str(venv), "--no-index", "--find-links",
                             str(wheelhouse), "--format", "json,pip", "-o", str(lock_dir))
    assert code == 0, err
    code, report = _verify(lock_dir, python)
    assert code == 0, report
    notes = report["notes"]
    assert isinstance(notes, list)
    assert any("_virtualenv.pth: accepted" in n for n in notes), report
    (site / "_virtualenv.pth").write_text("import _virtualenv; import os\n")
    code, report = _verify(lock_dir, python)
    assert code == 1
    assert ("pth", "_virtualenv.pth") in _kinds(report)
