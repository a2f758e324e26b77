"""scripts/refresh_matrices.py news: the index's releases the matrices lack, and the recorded pins, offline."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "refresh_matrices.py"
ANSWERS = Path(__file__).resolve().parent / "data" / "index"
MATRICES = ROOT / "matrices"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("refresh_matrices_news", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


rm = _load_script()


def _copy_matrices(tmp_path: Path) -> Path:
    target = tmp_path / "m"
    shutil.copytree(MATRICES, target)
    return target


def test_parse_index_versions_drops_local_builds_and_merges_pythons() -> None:
    text = ("# pip index versions torch --python-version 3.11\nAvailable versions: 2.15.0, 2.13.0+cpu, 2.13.0\n"
            "# pip index versions torch --python-version 3.12\nAvailable versions: 2.16.0, 2.15.0\n")
    assert [str(v) for v in rm.parse_index_versions(text)] == ["2.16.0", "2.15.0", "2.13.0"]
    assert rm.parse_index_versions("ERROR: No matching distribution found for torch\n") == ()


def test_news_on_recorded_answers() -> None:
    matrices = rm.load_matrices_dir(MATRICES)
    news = {n.package: n for n in rm.news_from(ANSWERS / "versions", matrices)}
    assert set(news) == set(rm.NEWS_PACKAGES)  # every package was recorded
    # jax.toml's newest row is 0.11.2; the index has 0.12.0 and 0.12.0.1 (plugins alike): they are news.
    for name in ("jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda13-plugin"):
        assert news[name].lacking == ("0.12.0.1", "0.12.0"), name
        assert news[name].known == "jax.toml rows up to 0.11.2"
    assert news["torch"].lacking == () and news["torch"].listed > 20
    assert news["nvidia-cudnn-cu13"].known == "newest seen 9.28.1.4"


def test_a_release_the_matrices_lack_is_news(tmp_path: Path) -> None:
    root = _copy_matrices(tmp_path)
    text = (root / "torch.toml").read_text()
    start = text.index("[[release]]\nversion = \"2.15\"")
    end = text.index("[[release]]\nversion = \"2.14\"")
    (root / "torch.toml").write_text(text[:start] + text[end:])  # a matrix from before torch 2.15
    text = (root / "cudnn.toml").read_text().replace('newest_seen = "9.28.1.4"', 'newest_seen = "9.20.0.48"')
    (root / "cudnn.toml").write_text(text)
    news = {n.package: n for n in rm.news_from(ANSWERS / "versions", rm.load_matrices_dir(root))}
    assert news["torch"].lacking == ("2.15.0",)
    assert news["torch"].known == "torch.toml series 2.14 and older"
    lacking = [Version(v) for v in news["nvidia-cudnn-cu13"].lacking]
    assert lacking and all(v > Version("9.20.0.48") for v in lacking)


def test_recorded_pins_still_match() -> None:
    reports = sorted((ANSWERS / "metadata").glob("*.json"))
    comparisons = rm.compare(rm.derive_files(reports), rm.load_matrices_dir(MATRICES))
    by_key = {(c.package, c.version, c.field): c for c in comparisons}
    assert by_key[("jax-cuda12-plugin", "0.11.2", "cuda12.cudnn")].status == "agree"
    assert by_key[("jax-cuda12-plugin", "0.11.1", "cuda12.cudnn")].matrix == "<10,>=9.8"  # the 0.11.0 row
    assert by_key[("torch", "2.14.1", "cu130.cudnn")].status == "agree"
    assert by_key[("tensorflow", "2.21.0", "and_cuda.nvidia-cudnn-cu12")].status == "agree"
    assert not [c for c in comparisons if c.status in rm.FAILING]


def test_a_changed_pin_differs(tmp_path: Path) -> None:
    root = _copy_matrices(tmp_path)
    text = (root / "jax.toml").read_text().replace('cudnn = ">=9.10.2.21,<10"', 'cudnn = ">=9.8,<10"', 1)
    (root / "jax.toml").write_text(text)
    comparisons = rm.compare(rm.derive_files([ANSWERS / "metadata" / "jax-cuda12-plugin-0.11.2.json"]),
                             rm.load_matrices_dir(root))
    (cudnn,) = [c for c in comparisons if c.field == "cuda12.cudnn"]
    assert cudnn.status == "differ" and cudnn.metadata == "<10.0,>=9.10.2.21"


def test_news_command_offline(capsys: pytest.CaptureFixture[str]) -> None:
    assert rm.main(["news", "--answers", str(ANSWERS)]) == 1  # the index has jax releases the matrices lack
    out = capsys.readouterr().out
    assert re.search(r"jax-cuda12-plugin\s+NEW 0\.12\.0\.1, 0\.12\.0", out)
    assert "recorded pins of known releases:" in out and "torch 2.14.1:" in out
    assert rm.main(["news", "--answers", str(ANSWERS), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert {n["package"] for n in doc["lacking"] if n["lacking"]} == {"jax", "jaxlib", "jax-cuda12-plugin",
                                                                       "jax-cuda13-plugin"}
    assert all(c["status"] in ("agree", "unrecorded") for c in doc["pins"])


def test_news_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert rm.main(["news", "--answers", str(tmp_path)]) == 2
    assert "no versions/ folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        rm.main(["news"])  # --answers or --record is required


def test_pin_specs_and_index_question() -> None:
    matrices = rm.load_matrices_dir(MATRICES)
    specs = rm.pin_specs(ANSWERS / "versions", matrices, 2)
    assert "torch===2.15.0" in specs and "torch===2.14.1" in specs
    assert "jax-cuda12-plugin===0.11.2" in specs  # the newest plugin release a jax.toml row covers
    cmd = rm.index_versions_command("torch", "3.12")
    assert cmd[-6:] == ["versions", "torch", "--python-version", "3.12", "--only-binary=:all:",
                        "--disable-pip-version-check"]
    other = f"3.{sys.version_info.minor + 1}"
    cmd = rm.pip_command("jax-cuda12-plugin===0.11.2", Path("r.json"), other, None, Path("t"))
    assert cmd[cmd.index("--target") + 1] == "t" and "--ignore-requires-python" in cmd
