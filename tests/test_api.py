"""The Python API for training scripts: envguard.fingerprint() and envguard.record()."""

from __future__ import annotations

import json
import logging
import sys
import types
from pathlib import Path

import pytest

import envguard
from envguard.errors import EnvguardError

pytestmark = pytest.mark.slow  # it probes this machine (subprocesses)


def test_fingerprint_and_record_to_file_and_logger(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    fp = envguard.fingerprint()
    assert len(fp.digest) == 64 and "python" in fp.components
    log = tmp_path / "runs" / "env.jsonl"
    log.parent.mkdir()
    assert envguard.record(log).digest == fp.digest
    envguard.record(str(log))
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 2 and lines[0]["digest"] == fp.digest and "time" in lines[0]
    logger = logging.getLogger("training")
    with caplog.at_level(logging.INFO, logger="training"):
        envguard.record(logger)
    assert any("envguard fingerprint" in r.getMessage() and fp.digest in r.getMessage() for r in caplog.records)


def test_trackers(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, object]] = []
    fake = types.ModuleType("mlflow")
    fake.set_tag = lambda k, v: calls.append(("tag", (k, v)))  # type: ignore[attr-defined] # reason: stand-in module
    fake.log_dict = lambda d, name: calls.append(("dict", name))  # type: ignore[attr-defined] # reason: stand-in
    monkeypatch.setitem(sys.modules, "mlflow", fake)
    fp = envguard.record(mlflow=True)
    assert calls == [("tag", ("envguard.fingerprint", fp.digest)), ("dict", "envguard-fingerprint.json")]
    monkeypatch.setitem(sys.modules, "wandb", None)  # "not installed"
    with pytest.raises(EnvguardError, match="needs wandb"):
        envguard.record(wandb=True)


def test_api_names_are_not_shadowed_by_submodules() -> None:
    """Importing a submodule sets it as a package attribute: none may be named like an API function."""
    import envguard.api
    import envguard.commands.smoke
    import envguard.fingerprints  # imported for its side effect on the package

    for name in envguard.__all__:
        assert not isinstance(getattr(envguard, name), types.ModuleType), name
    package = Path(envguard.__file__).parent
    assert not any((package / f"{name}.py").exists() or (package / name).is_dir() for name in envguard.__all__)
