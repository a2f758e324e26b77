"""ruff, mypy --strict and the import-layer contracts run as part of the tests."""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

import pytest

from envguard import _subprocess

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [ROOT / "envguard" / "probes" / "_inspect_target.py", ROOT / "envguard" / "probes" / "_deep_framework.py"]


def _tool(name: str) -> str:
    exe = Path(sys.executable).parent / name
    found = str(exe) if exe.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return found


@pytest.mark.lint
def test_ruff() -> None:
    argv = (_tool("ruff"), "check", "envguard", "tests", "benchmarks", "scripts")
    result = _subprocess.run(argv, timeout=300, cwd=str(ROOT))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.lint
def test_mypy_strict() -> None:
    result = _subprocess.run((_tool("mypy"),), timeout=600, cwd=str(ROOT))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.lint
def test_import_layers() -> None:
    result = _subprocess.run((_tool("lint-imports"),), timeout=300, cwd=str(ROOT))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_in_target_scripts_are_py38_and_standalone(script: Path) -> None:
    """They run inside other interpreters: 3.8 syntax, stdlib only, nothing from envguard."""
    tree = ast.parse(script.read_text(), feature_version=(3, 8))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.module is None or not node.module.startswith("envguard"), node.module
        if isinstance(node, ast.Import):
            assert not any(a.name.startswith("envguard") for a in node.names)
        assert not isinstance(node, ast.Subscript) or not (
            isinstance(node.value, ast.Name) and node.value.id in {"list", "dict", "tuple", "set"}
        ), "builtin generics fail at runtime on 3.8"


def test_subprocess_only_in_its_module() -> None:
    for path in (ROOT / "envguard").rglob("*.py"):
        if path.name == "_subprocess.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert "subprocess" not in names, path


def _readme_test_command() -> str:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in block.splitlines()
                if line.strip().startswith(("python3 -m venv", "scripts/test-env && python3 -m venv"))]
    assert len(commands) == 2, "the Quick start has exactly two commands"
    return commands[1]


def test_ci_runs_the_readme_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert _readme_test_command() in ci.splitlines()



@pytest.mark.slow
def test_wheel_ships_matrices_templates_and_in_target_scripts(tmp_path: Path) -> None:
    """The data live beside the package in a checkout; the wheel must carry them as envguard/_data."""
    import zipfile

    result = _subprocess.run((sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)),
                             timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    (wheel,) = tmp_path.glob("envguard-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for matrix in (ROOT / "matrices").glob("*.toml"):
        assert f"envguard/_data/matrices/{matrix.name}" in names
    for template in (ROOT / "templates").glob("*.tmpl"):
        assert f"envguard/_data/templates/{template.name}" in names
    for script in ("probes/_inspect_target.py", "probes/_deep_framework.py", "probes/_installed.py",
                   "smoke/_payload.py"):
        assert f"envguard/{script}" in names


@pytest.mark.lint
def test_no_package_registry_hostnames_in_committed_files() -> None:
    """Committed files use the installer's default index; a hostname would pin everyone to one registry."""
    import re

    listed = _subprocess.run(("git", "-C", str(ROOT), "ls-files"), timeout=60)
    if not listed.ok:
        pytest.skip("not a git checkout")
    pattern = re.compile(r"pypi\.org|pythonhosted\.org|pypi\.python\.org")
    offenders = []
    for name in listed.stdout.splitlines():
        path = ROOT / name
        if path.suffix in (".png", ".whl", ".gz") or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        # NOTE: the tests that enforce this rule spell the pattern as a regex, never as a hostname.
        if pattern.search(text.replace(r"pypi\.org", "").replace(r"pythonhosted\.org", "")):
            offenders.append(name)
    assert offenders == []
