"""Test configuration: markers, the GPU opt-in, and a guard against accidental real probing."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from envguard import _subprocess


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-gpu", action="store_true", default=False, help="run tests that need a real NVIDIA GPU")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-gpu"):
        return
    skip = pytest.mark.skip(reason="needs a real NVIDIA GPU: run with --run-gpu on a GPU host")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def _forbidden(*args: object, **kwargs: object) -> _subprocess.CommandResult:
    raise AssertionError("unit tests must not spawn processes; use tests.fakes.FakeRunner or mark the test slow")


@pytest.fixture(autouse=True)
def _no_real_processes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Unit tests get no real subprocesses; tests marked slow/gpu/lint run the real ones."""
    if not any(m in request.keywords for m in ("slow", "gpu", "lint")):
        monkeypatch.setattr(_subprocess, "run", _forbidden)
    yield


@pytest.fixture(autouse=True)
def _pinned_today(monkeypatch: pytest.MonkeyPatch) -> None:
    """The matrix staleness check compares with ENVGUARD_TODAY: pinned, so no test changes with the calendar."""
    monkeypatch.setenv("ENVGUARD_TODAY", "2026-12-01")


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """click 8.1.7 and 8.1.6, six and packaging wheels, from the installer's default index."""
    house = tmp_path_factory.mktemp("wheelhouse")
    run = _subprocess.run  # NOTE: bound before any test patches it
    for spec in ("click==8.1.7", "click==8.1.6", "six==1.16.0", "packaging==24.1"):
        result = run((sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                      "-d", str(house), spec), timeout=300)
        assert result.ok, result.stderr[-2000:]
    return house
