"""The local Docker engine, through the docker SDK: build an image, inspect one, run a script in one."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from envguard.errors import EnvguardError
from envguard.image_facts import EngineFacts, ImageFacts

logger = logging.getLogger(__name__)


class EngineError(EnvguardError):
    """No Docker engine answers, or it refused what was asked."""


@dataclass(frozen=True, slots=True)
class BuildResult:
    """A built image and the tail of its build log."""

    tag: str
    image_id: str
    log_tail: tuple[str, ...]
    duration_s: float


def connect(timeout_s: float = 60.0) -> Any:
    """A docker SDK client for the engine DOCKER_HOST (or the default socket) names.

    :raises EngineError: when no engine answers.
    """
    try:
        import docker
        import docker.errors

        client = docker.from_env(timeout=int(max(timeout_s, 1)))
        client.ping()
    except ImportError:
        raise EngineError("the docker SDK is not installed (pip install docker)") from None
    except Exception as exc:  # reason: the SDK raises requests/urllib3/OS errors alike
        raise EngineError(f"no Docker engine answers ({_short(exc)}); is dockerd running, or DOCKER_HOST set?") \
            from None
    return client


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[-1] if text else type(exc).__name__)[:300]


def engine_facts(client: Any) -> EngineFacts:
    """``docker info``: runtimes and CDI devices."""
    info: Mapping[str, Any] = client.info()
    return EngineFacts(
        server_version=str(info.get("ServerVersion", "")),
        runtimes=tuple(sorted((info.get("Runtimes") or {}).keys())),
        default_runtime=str(info.get("DefaultRuntime", "")),
        cdi_spec_dirs=tuple(info.get("CDISpecDirs") or ()),
        cdi_devices=tuple(sorted(str(d.get("ID", "")) for d in info.get("DiscoveredDevices") or ()
                                 if isinstance(d, Mapping))),
    )


def inspect_image(client: Any, ref: str) -> ImageFacts:
    """``docker image inspect`` as facts (no registry access: the image must be local).

    :raises EngineError: when the engine does not have the image.
    """
    import docker.errors

    try:
        image = client.images.get(ref)
    except docker.errors.ImageNotFound:
        raise EngineError(f"image {ref!r} is not on this engine (docker pull it or build it first)") from None
    except docker.errors.APIError as exc:
        raise EngineError(f"cannot inspect image {ref!r}: {_short(exc)}") from None
    config = image.attrs.get("Config") or {}
    env = {}
    for item in config.get("Env") or ():
        key, _, value = str(item).partition("=")
        env[key] = value
    return ImageFacts(ref=ref, id=str(image.id), env=env, labels=dict(config.get("Labels") or {}),
                      os=str(image.attrs.get("Os", "")), architecture=str(image.attrs.get("Architecture", "")),
                      user=str(config.get("User") or ""))


def run_in_image(client: Any, ref: str, command: list[str], *, entrypoint: list[str] | None = None,
                 timeout_s: float = 120.0) -> tuple[int, str, str]:
    """Run ``command`` in a fresh, network-less container of ``ref``; (exit status, stdout, stderr).

    :raises EngineError: when the container cannot start or the timeout passes.
    """
    import docker.errors

    try:
        container = client.containers.create(ref, entrypoint=entrypoint, command=command, network_disabled=True,
                                             detach=True)
    except docker.errors.APIError as exc:
        raise EngineError(f"cannot start a container of {ref!r}: {_short(exc)}") from None
    try:
        container.start()
        try:
            status = container.wait(timeout=timeout_s)
        except Exception:  # reason: the SDK's timeout surfaces as a requests exception
            container.kill()
            raise EngineError(f"{command[0]} in {ref!r} did not finish within {timeout_s:.0f}s") from None
        out = container.logs(stdout=True, stderr=False).decode("utf-8", "replace")
        err = container.logs(stdout=False, stderr=True).decode("utf-8", "replace")
        return int(status.get("StatusCode", 1)), str(out), str(err)
    finally:
        try:
            container.remove(force=True)
        except docker.errors.APIError:
            logger.debug("could not remove container %s", container.id)


def run_script(client: Any, ref: str, source: str, *, timeout_s: float) -> str:
    """Run a Python script in a fresh container of ``ref`` (no network) and return its stdout.

    The first of $VIRTUAL_ENV/bin/python, /opt/venv/bin/python, python3, python in the image runs it.

    :raises EngineError: when no interpreter is found, the script fails or the timeout passes.
    """
    finder = ('for py in "$VIRTUAL_ENV/bin/python" /opt/venv/bin/python python3 python; do '
              'if command -v "$py" >/dev/null 2>&1; then exec "$py" -c "$0"; fi; done; '
              'echo "no Python interpreter in the image" >&2; exit 127')
    status, out, err = run_in_image(client, ref, [source], entrypoint=["/bin/sh", "-c", finder], timeout_s=timeout_s)
    if status != 0:
        tail = (err.strip().splitlines() or ["no output"])[-1]
        raise EngineError(f"the inspection script failed in {ref!r}: {tail}")
    return out


def build(client: Any, context_dir: str, *, tag: str, buildargs: Mapping[str, str] | None = None,
          dockerfile: str = "Dockerfile", timeout_s: float = 1800.0) -> BuildResult:
    """Build ``context_dir`` with the engine (no pull of a newer base: the local base wins).

    :raises EngineError: when the build fails; the message carries the failing step's last log lines.
    """
    import docker.errors

    start = time.monotonic()
    lines: list[str] = []
    try:
        for chunk in client.api.build(path=context_dir, dockerfile=dockerfile, tag=tag, buildargs=dict(buildargs or {}),
                                      rm=True, forcerm=True, decode=True, pull=False, timeout=int(timeout_s)):
            if "stream" in chunk:
                lines.extend(ln for ln in str(chunk["stream"]).splitlines() if ln.strip())
            if "error" in chunk:
                detail = "\n  ".join([*lines[-8:], str(chunk["error"]).strip()])
                raise EngineError(f"docker build of {context_dir} failed:\n  {detail}")
            if time.monotonic() - start > timeout_s:
                raise EngineError(f"docker build of {context_dir} took longer than {timeout_s:.0f}s")
    except docker.errors.APIError as exc:
        raise EngineError(f"docker build of {context_dir} failed: {_short(exc)}") from None
    image = client.images.get(tag)
    return BuildResult(tag, str(image.id), tuple(lines[-5:]), time.monotonic() - start)
