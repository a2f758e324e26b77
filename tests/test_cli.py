"""The CLI through click's CliRunner: formats, exit codes, and bad input (one line, exit 3, no traceback)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from envguard.cli import main
from envguard.formatters import FORMATTERS, make_formatter
from envguard.knowledge import load_matrices
from envguard.rules import run_rules
from envguard.snapshot import SNAPSHOT_SCHEMA
from tests.fakes import make_snapshot

SNAPSHOTS = Path(__file__).parent / "data" / "snapshots"
BROKEN = SNAPSHOTS / "torch210-cu121-driver470.json"
CI_MACHINE = SNAPSHOTS / "ci-machine-cpu-torch-toolkit-13.0.json"


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_check_saved_snapshot_text() -> None:
    code, out, err = run("check", "--snapshot", str(BROKEN), "--no-color")
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith("envguard check: FAIL — 1 error")
    assert "driver-too-old" in out
    assert "fix:" in out
    assert "\x1b[" not in out  # no colour escapes
    assert err == ""


def test_json_is_one_envelope() -> None:
    code, out, _ = run("check", "--snapshot", str(BROKEN), "--format", "json")
    doc = json.loads(out)  # exactly one JSON document: json.loads fails on trailing text
    assert code == 1
    assert doc["envguard_result_version"] == 1
    assert doc["command"] == "check"
    assert doc["exit_code"] == 1
    assert doc["summary"] == {"errors": 1, "warnings": 0, "infos": 0}
    assert doc["findings"][0]["code"] == "driver-too-old"
    assert doc["findings"][0]["evidence"]
    assert doc["snapshot"]["schema_version"] == SNAPSHOT_SCHEMA


def test_markdown() -> None:
    code, out, _ = run("check", "--snapshot", str(BROKEN), "--format", "markdown")
    assert code == 1
    assert out.startswith("## envguard check: FAIL")
    assert "| NVIDIA driver | 470.182.03" in out
    assert "`driver-too-old`" in out


@pytest.mark.parametrize(("fail_on", "expected"), [("error", 0), ("warning", 0), ("info", 0)])
def test_fail_on_clean_snapshot(fail_on: str, expected: int) -> None:
    code, _, _ = run("check", "--snapshot", str(CI_MACHINE), "--fail-on", fail_on)
    assert code == expected


def test_fail_on_warning_counts_warnings(tmp_path: Path) -> None:
    from tests.fakes import torch_build

    snap = make_snapshot(frameworks=[torch_build("2.13.0+cu130", "13.0")])  # driver-missing: a warning here
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(snap.to_dict()))
    assert run("check", "--snapshot", str(path))[0] == 0
    assert run("check", "--snapshot", str(path), "--fail-on", "warning")[0] == 1


def test_snapshot_from_stdin() -> None:
    code, out, _ = run("check", "--snapshot", "-", "--format", "json", stdin=BROKEN.read_text())
    assert code == 1
    assert json.loads(out)["findings"][0]["code"] == "driver-too-old"


def test_saved_json_envelope_is_accepted_as_snapshot(tmp_path: Path) -> None:
    _, out, _ = run("check", "--snapshot", str(BROKEN), "--format", "json")
    saved = tmp_path / "report.json"
    saved.write_text(out)
    assert run("check", "--snapshot", str(saved))[0] == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"schema_version": 99, "host": {}}', "schema_version 99 is not supported"),
        ('{"schema_version": 1, "host": {"system": "Linux"', "not valid JSON (truncated?)"),
        ("this is not json", "not valid JSON"),
        ('{"hello": 1}', "no schema_version"),
        ("[1, 2]", "must be a JSON object"),
        ('{"schema_version": 1, "host": 5}', "malformed snapshot"),
        (b"\xff\xfe\x00garbage".decode("latin-1"), "not valid JSON"),
    ],
)
def test_bad_snapshot_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    code, out, err = run("check", "--snapshot", str(path))
    assert code == 3
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("envguard: error: ")
    assert "Traceback" not in err + out


def test_bad_input_in_json_mode_still_prints_one_envelope(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{")
    code, out, _ = run("check", "--snapshot", str(path), "--format", "json")
    assert code == 3
    doc = json.loads(out)
    assert doc["exit_code"] == 3
    assert "not valid JSON" in doc["error"]


def test_unreadable_and_missing_paths(tmp_path: Path) -> None:
    code, _, err = run("check", "--snapshot", str(tmp_path / "nope.json"))
    assert code == 3 and "cannot read snapshot" in err
    code, _, err = run("check", "--snapshot", str(tmp_path))
    assert code == 3 and "cannot read snapshot" in err
    if os.geteuid() != 0:  # root reads everything
        locked = tmp_path / "locked.json"
        locked.write_text("{}")
        locked.chmod(0)
        code, _, err = run("check", "--snapshot", str(locked))
        assert code == 3 and "Permission denied" in err


def test_missing_target_interpreter(tmp_path: Path) -> None:
    code, _, err = run("check", "--python", str(tmp_path / "no-python"))
    assert code == 3
    assert "does not exist" in err
    code, _, err = run("snapshot", "--python", "definitely-not-a-python-xyz")
    assert code == 3
    assert "is not on PATH" in err


def test_usage_error_is_exit_2() -> None:
    code, _, err = run("check", "--format", "yaml")
    assert code == 2
    assert "Invalid value" in err


def test_output_file_is_atomic_and_not_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    code, stdout, _ = run("check", "--snapshot", str(BROKEN), "--format", "markdown", "-o", str(out))
    assert code == 1 and stdout == ""
    first = out.read_text()
    assert first.startswith("## envguard check")
    assert oct(out.stat().st_mode & 0o777) != "0o600"
    code, _, err = run("check", "--snapshot", str(CI_MACHINE), "-o", str(out))
    assert code == 3 and "use --force" in err
    assert out.read_text() == first  # nothing lost
    code, _, _ = run("check", "--snapshot", str(CI_MACHINE), "-o", str(out), "--force")
    assert code == 0 and out.read_text() != first
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]  # no temp files left


def test_version_and_help() -> None:
    code, out, _ = run("--version")
    assert code == 0 and out.startswith("envguard, version ")
    code, out, _ = run("check", "--help")
    assert code == 0 and "--fail-on" in out


def test_every_formatter_renders_every_scenario() -> None:
    """pip-audit's exhaustiveness check: each registered format handles clean and failing reports."""
    matrices = load_matrices()
    reports = [run_rules(make_snapshot(), matrices)]
    from envguard.commands._io import read_snapshot

    reports.append(run_rules(read_snapshot(str(BROKEN)), matrices))
    for name in FORMATTERS:
        for color in (False, True):
            for report in reports:
                text = make_formatter(name, color=color).format(report, command="check", exit_code=1)
                assert text.strip()


def test_color_only_when_asked() -> None:
    _, out, _ = run("check", "--snapshot", str(BROKEN), "--color")
    assert "\x1b[" in out


def test_no_color_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from envguard.cli import use_color as _use_color

    monkeypatch.setenv("NO_COLOR", "1")
    assert _use_color(None) is False
    assert _use_color(True) is True


def test_from_rejects_binary_and_empty_files(tmp_path: Path) -> None:
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x7fELF\x00\x00\x01garbage")
    code, _, err = run("check", "--from", str(binary))
    assert code == 3 and "binary file" in err
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n")
    code, _, err = run("check", "--from", str(empty))
    assert code == 3 and "is empty" in err
    prose = tmp_path / "prose.txt"
    prose.write_text("my model does not converge, please help\n")
    code, _, err = run("check", "--from", str(prose))
    assert code == 3 and "no environment facts found" in err


def test_from_stdin_and_json() -> None:
    report = Path(__file__).parent / "data" / "reports" / "009-torch210-cu121-driver470-gke" / "env.txt"
    code, out, _ = run("check", "--from", "-", "--format", "json", stdin=report.read_text())
    assert code == 1
    doc = json.loads(out)
    assert doc["snapshot"]["origin"] == "report <stdin>"
    assert [f["code"] for f in doc["findings"]] == ["driver-too-old"]
