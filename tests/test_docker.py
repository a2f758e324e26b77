"""Docker, for real: build the Dockerfile `envguard lock` writes and envguard's own Dockerfile.gpu with the local
engine, run envguard inside the containers, and judge images with `envguard check --image`.

No registry is reachable in CI: the base is envguard-test/debian:bookworm, which scripts/test-env imports from a
debootstrap tree, and Python packages come from a wheelhouse downloaded on the host (--no-index --find-links).
As root (CI), a missing engine or base image is a failure, because scripts/test-env should have set them up;
otherwise these tests skip with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from envguard import _subprocess
from envguard.cli import main
from envguard.knowledge import load_matrices

pytestmark = [pytest.mark.slow, pytest.mark.docker]

ROOT = Path(__file__).resolve().parent.parent
BASE = os.environ.get("ENVGUARD_TEST_BASE_IMAGE", "envguard-test/debian:bookworm")


def _unavailable(reason: str) -> None:
    if sys.platform == "linux" and os.geteuid() == 0:
        pytest.fail(f"{reason}; run scripts/test-env first (the README test command does)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    try:
        import docker

        engine = docker.from_env(timeout=300)
        engine.ping()
    except Exception as exc:  # reason: any connection failure means "no engine"
        _unavailable(f"no Docker engine answers ({type(exc).__name__})")
    try:
        engine.images.get(BASE)
    except Exception:  # reason: ImageNotFound or an API error alike
        _unavailable(f"base image {BASE} is missing")
    yield engine
    engine.close()


def _run(*argv: str, timeout: float = 600) -> _subprocess.CommandResult:
    return _subprocess.run(tuple(argv), timeout=timeout)


@pytest.fixture(scope="module")
def envguard_wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """envguard's own wheel and its runtime dependencies."""
    house = tmp_path_factory.mktemp("envguard-wheels")
    built = _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(house), str(ROOT))
    assert built.ok, built.stderr[-2000:]
    (wheel,) = house.glob("envguard-*.whl")
    got = _run(sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", str(house), str(wheel))
    assert got.ok, got.stderr[-2000:]
    return house


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _container(client: Any, image: str, command: list[str], **kwargs: Any) -> tuple[int, str]:
    container = client.containers.run(image, command, detach=True, **kwargs)
    try:
        status = container.wait(timeout=300)
        return int(status["StatusCode"]), container.logs(stdout=True, stderr=False).decode()
    finally:
        container.remove(force=True)


def test_locked_image_builds_installs_exactly_the_lock_and_checks_itself(
    client: Any, envguard_wheelhouse: Path, tmp_path: Path,
) -> None:
    out = tmp_path / "lock"
    tag = f"envguard-test/locked:{os.getpid()}"
    code, stdout, err = invoke("lock", "envguard", "--python", "3.11", "--cuda", "cpu", "--no-index",
                               "--find-links", str(envguard_wheelhouse), "-o", str(out), "--base-image", BASE,
                               "--wheelhouse", str(envguard_wheelhouse), "--build", "--tag", tag)
    assert code == 0, err
    assert f"built image {tag}" in stdout
    lock = json.loads((out / "envguard.lock.json").read_text())
    try:
        attrs = client.images.get(tag).attrs["Config"]
        assert attrs["Labels"]["io.envguard.fingerprint"] == lock["fingerprint"]
        assert attrs["Labels"]["io.envguard.python"] == "3.11"
        assert attrs["User"] == "app"
        assert attrs["Healthcheck"]["Test"] == ["CMD", "envguard", "-q", "check", "--fail-on", "error"]

        status, logs = _container(client, tag, ["envguard", "check", "--format", "json"])
        assert status == 0, logs
        report = json.loads(logs)
        assert report["snapshot"]["python"]["executable"].startswith("/opt/venv/")
        assert report["summary"]["errors"] == 0

        # The image holds exactly the lock: verify inside the container against the lock file.
        status, logs = _container(client, tag, ["envguard", "verify", "/lock", "--format", "json"],
                                  volumes={str(out): {"bind": "/lock", "mode": "ro"}})
        assert status == 0, logs
        assert json.loads(logs)["ok"] is True

        code, stdout, err = invoke("check", "--image", tag, "--format", "json")
        assert code == 0, err
        judged = json.loads(stdout)
        assert judged["snapshot"]["origin"] == f"image {tag}"
        inside = {p["name"].lower() for p in judged["snapshot"]["packages"]}
        assert inside >= {p["name"].lower() for p in lock["packages"]}
    finally:
        client.images.remove(tag, force=True)


def test_check_image_reports_an_engine_without_gpu_runtime(client: Any, tmp_path: Path) -> None:
    """A CUDA image (env as the nvidia/cuda 12.8.1 images set it, from cuda-images.toml) on an engine with only
    runc: containers could never see a GPU."""
    row = load_matrices().cuda_images.image("12.8.1")
    assert row is not None and row.require_cuda is not None
    clauses = " ".join(f"brand={b},driver>={d},driver<{d + 1}" for d in row.compat_branches for b in row.brands)
    require = f"cuda>={row.require_cuda} {clauses}"
    (tmp_path / "Dockerfile").write_text(
        f"FROM {BASE}\nENV CUDA_VERSION={row.cuda} NVIDIA_REQUIRE_CUDA=\"{require}\"\n"
        "ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility\n")
    tag = f"envguard-test/fake-cuda:{os.getpid()}"
    client.images.build(path=str(tmp_path), tag=tag, rm=True)
    try:
        code, stdout, err = invoke("check", "--image", tag, "--format", "json", "--fail-on", "warning")
        assert code == 1, err
        doc = json.loads(stdout)
        (finding,) = [f for f in doc["findings"] if f["code"] == "gpu-runtime-missing"]
        assert finding["severity"] == "warning"  # this host has no NVIDIA driver either
        assert any(e["fact"] == "runtimes" and "runc" in e["value"] for e in finding["evidence"])
        assert doc["snapshot"]["cuda_toolkits"][0]["version"] == "12.8"
        assert doc["snapshot"]["environment"]["NVIDIA_REQUIRE_CUDA"] == require
    finally:
        client.images.remove(tag, force=True)


def test_check_image_bad_input(client: Any) -> None:
    code, _o, err = invoke("check", "--image", "envguard-test/does-not-exist:1")
    assert code == 3 and "is not on this engine" in err
    code, _o, err = invoke("check", "--image", "bad ref;rm")
    assert code == 3 and "not a Docker image reference" in err


def test_dockerfile_gpu_builds_offline_and_runs_envguard(client: Any, envguard_wheelhouse: Path,
                                                         tmp_path: Path) -> None:
    """envguard's own image, built the way the README says, against the local base and a wheelhouse."""
    context = tmp_path / "context"
    context.mkdir()
    for name in ("pyproject.toml", "README.md", "Dockerfile.gpu", ".dockerignore"):
        shutil.copy2(ROOT / name, context / name)
    for name in ("envguard", "matrices", "templates"):
        shutil.copytree(ROOT / name, context / name, ignore=shutil.ignore_patterns("__pycache__"))
    house = context / "wheelhouse"
    got = _run(sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", str(house), "hatchling",
               "torch==2.13.0", *(str(w) for w in envguard_wheelhouse.glob("*.whl")))
    assert got.ok, got.stderr[-2000:]
    for own in house.glob("envguard-*.whl"):
        own.unlink()  # the image builds envguard from the copied source, as Dockerfile.gpu says
    tag = f"envguard-test/gpu:{os.getpid()}"
    client.images.build(path=str(context), dockerfile="Dockerfile.gpu", tag=tag, rm=True, pull=False,
                        buildargs={"BASE_IMAGE": BASE, "TORCH_SPEC": "torch==2.13.0", "PIP_OFFLINE": "1"})
    try:
        status, logs = _container(client, tag, ["check", "--format", "json"])
        assert status == 0, logs
        report = json.loads(logs)
        assert [f["name"] for f in report["snapshot"]["frameworks"]] == ["torch"]
        assert report["snapshot"]["frameworks"][0]["version"].startswith("2.13.0")
        attrs = client.images.get(tag).attrs["Config"]
        assert attrs["Entrypoint"] == ["envguard"] and attrs["User"] == "envguard"
    finally:
        client.images.remove(tag, force=True)
