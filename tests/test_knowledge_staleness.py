"""Issue 15: staleness made visible: --version shows every matrix's retrieved date, check says when they are old."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from envguard.cli import main
from envguard.commands.check import today
from envguard.errors import InputError
from envguard.knowledge import MATRIX_NAMES, load_matrices
from envguard.rules.staleness import STALE_AFTER_DAYS, stale_matrices

SHIPPED = Path(__file__).resolve().parent.parent / "matrices"
CI_MACHINE = Path(__file__).parent / "data" / "snapshots" / "ci-machine-cpu-torch-toolkit-13.0.json"


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_headers_read_without_parsing_the_tables() -> None:
    matrices = load_matrices()
    headers = matrices.headers()
    assert [h.name for h in headers] == list(MATRIX_NAMES)
    assert matrices.loaded() == {}  # no table was parsed
    _ = matrices.torch
    assert matrices.headers() == headers  # a loaded table's own meta agrees with its header
    assert all(h.retrieved >= dt.date(2026, 11, 1) for h in headers)


def test_version_lists_every_matrix_with_its_retrieved_date() -> None:
    code, out, _ = run("--version")
    assert code == 0 and out.startswith("envguard, version ")
    for meta in load_matrices().headers():
        assert f"{meta.name}.toml" in out
        line = next(ln for ln in out.splitlines() if f" {meta.name}.toml " in ln)
        assert f"retrieved {meta.retrieved.isoformat()}" in line


def test_version_with_a_broken_matrix_folder_is_one_line(tmp_path: Path) -> None:
    code, out, _ = run("--version", env={"ENVGUARD_MATRICES": str(tmp_path)})
    assert code == 3 and "no matrix files in" in out
    code, out, _ = run("--version", env={"ENVGUARD_MATRICES": str(tmp_path / "absent")})
    assert code == 3 and "cannot read the matrices" in out and "Traceback" not in out
    (tmp_path / "torch.toml").write_text("schema_version = 1\nretrieved = banana\n")
    code, out, _ = run("--version", env={"ENVGUARD_MATRICES": str(tmp_path)})
    assert code == 3 and "cannot read the matrices" in out and "Traceback" not in out


def test_stale_after_180_days() -> None:
    headers = load_matrices().headers()
    newest = max(h.retrieved for h in headers)
    assert stale_matrices(headers, newest + dt.timedelta(days=STALE_AFTER_DAYS), "test") is None
    finding = stale_matrices(headers, newest + dt.timedelta(days=STALE_AFTER_DAYS + 1), "test")
    assert finding is not None and finding.code == "unknown-version" and finding.severity.name == "INFO"
    assert f"last refreshed on {newest.isoformat()}, 181 days before" in finding.message
    assert any(e.fact == "today" and e.source == "test" for e in finding.evidence)


def test_today_is_injectable() -> None:
    assert today({"ENVGUARD_TODAY": "2027-07-01"}) == (dt.date(2027, 7, 1), "ENVGUARD_TODAY")
    assert today({})[1] == "system clock"
    with pytest.raises(InputError, match="is not a date"):
        today({"ENVGUARD_TODAY": "next tuesday"})


def test_check_says_when_the_matrices_are_stale() -> None:
    code, out, _ = run("check", "--snapshot", str(CI_MACHINE), "--format", "json",
                       env={"ENVGUARD_TODAY": "2027-07-01"})
    assert code == 0  # info findings do not fail the check
    doc = json.loads(out)
    stale = [f for f in doc["findings"] if f["code"] == "unknown-version" and "last refreshed" in f["message"]]
    assert len(stale) == 1 and stale[0]["severity"] == "info"
    assert all("retrieved 20" in v for v in doc["matrices"].values())  # each consulted matrix and its date
    code, out, _ = run("check", "--snapshot", str(CI_MACHINE), "--format", "json",
                       env={"ENVGUARD_TODAY": "2026-12-01"})
    assert code == 0 and not any("last refreshed" in f["message"] for f in json.loads(out)["findings"])
    code, out, _ = run("check", "--snapshot", str(CI_MACHINE), env={"ENVGUARD_TODAY": "2027-07-01"})
    assert code == 0 and "last refreshed" in out and "retrieved 20" in out  # text: the finding and the matrices footer


def test_check_with_a_bad_today_is_one_line() -> None:
    code, _, err = run("check", "--snapshot", str(CI_MACHINE), env={"ENVGUARD_TODAY": "yesterday"})
    assert code == 3 and "ENVGUARD_TODAY" in err and "Traceback" not in err


def test_stale_report_from_old_headers(tmp_path: Path) -> None:
    root = tmp_path / "m"
    shutil.copytree(SHIPPED, root)
    for path in root.glob("*.toml"):
        text = path.read_text()
        start = text.index("retrieved = ")
        end = text.index("\n", start)
        path.write_text(text[:start] + "retrieved = 2020-01-01" + text[end:])
    finding = stale_matrices(load_matrices(root).headers(), dt.date(2026, 12, 1), "test")
    assert finding is not None and "2020-01-01" in finding.message
