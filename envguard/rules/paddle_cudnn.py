"""cudnn-mismatch for a PaddlePaddle GPU build whose own cuDNN the report does not state, from the CUDA it runs
with and the cuDNN each Paddle build of that CUDA is made with (paddle.toml, Tables.md of each release).

PaddlePaddle compares the cuDNN it loaded with the one it was compiled with only for an *older* one
(gpu_resources.cc: ``if (version < CUDNN_VERSION)`` → "The installed Paddle is compiled with CUDNN ..."); a cuDNN of
a newer major (8.x found by a cuDNN-7 build, which dlopens the unversioned libcudnn.so) loads without a word and
cuDNN calls then fail (CUDNN_STATUS_NOT_INITIALIZED). Its start-up lines still name both sides: "Runtime API
Version: 10.2" (the CUDA runtime it loaded) and "cuDNN Version: 8.1." (the cuDNN it loaded).

The build's CUDA: the one the report states for the Paddle build, else the runtime of the start-up line. Before CUDA
11 the runtime's soname carries the minor (libcudart.so.10.2), so a runtime 10.2 is a CUDA 10.2 build; from 11 on one
soname serves a major (libcudart.so.11.0: Paddle issue 58914 shows a cu112 build on a CUDA 11.3 runtime), so only
the major is known. Judged only when every build that can be the one in use has a recorded cuDNN major, all
different from the loaded one (ERROR); when some of those builds' cuDNN is unknown, a WARNING names the known ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from packaging.version import Version

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import ev, version
from envguard.rules.libraries import MINOR_VERSIONED_RUNTIME_BEFORE
from envguard.rules.loaded import PADDLE_GPU_RESOURCES, _loaded_by
from envguard.snapshot import SharedLibrary, Snapshot, stated_parts

if TYPE_CHECKING:  # NOTE: the paddle table's types only; `check` of a machine without Paddle never imports it
    from envguard.knowledge.paddle import PaddleRelease, PaddleVariant

__all__ = ["GPU_RESOURCES_SINCE", "PADDLE_RUNTIME_KEY", "PaddleCudnnRule"]

#: ``Snapshot.environment`` key the report reader writes Paddle's start-up runtime to (``reports.libraries``):
#: "10.2|gpu_resources.cc|report line 5: ...".
PADDLE_RUNTIME_KEY = "PADDLE_CUDA_RUNTIME"

#: The start-up line's glog prefix names the file that printed it. paddle/phi/backends/gpu/gpu_resources.cc was
#: written in 2022 ("Copyright (c) 2022", PADDLE_GPU_RESOURCES); Paddle 2.2.x (the last, 2.2.2, of January 2022)
#: and 2.1 print it from device_context.cc (PaddlePaddle/PaddleDetection#5206: 2.2.2, device_context.cc:447;
#: PaddlePaddle/Paddle#39090: 2.2.1, device_context.cc:447; PaddlePaddle/Paddle#34938: 2.1, device_context.cc:404;
#: 2.4.1 prints gpu_resources.cc:61, PaddlePaddle/Paddle#49106). So a gpu_resources.cc line is Paddle 2.3 or newer.
GPU_RESOURCES = "gpu_resources.cc"
GPU_RESOURCES_SINCE = Version("2.3")
GPU_RESOURCES_SOURCES = ("https://github.com/PaddlePaddle/PaddleDetection/issues/5206 ; "
                         "https://github.com/PaddlePaddle/Paddle/issues/34938 ; "
                         "https://github.com/PaddlePaddle/Paddle/issues/49106")


def _runtime(snapshot: Snapshot) -> tuple[str, str, str] | None:
    """(CUDA runtime, file that printed it, report line) of Paddle's start-up line, as the reader recorded it."""
    raw = snapshot.environment.get(PADDLE_RUNTIME_KEY)
    if not raw:
        return None
    cuda, where, source = stated_parts(raw, 3)
    return cuda, where, source


def _label(release: PaddleRelease, variant: PaddleVariant) -> str:
    builds = variant.cudnn_builds()
    cudnn = " or ".join(builds) if builds else "not recorded"
    return f"{release.version} {variant.tag}: cuDNN {cudnn}"


class PaddleCudnnRule:
    """The cuDNN a Paddle GPU build loaded has the major that build of its CUDA is made with."""

    id = "paddle-cudnn"
    summary = "the cuDNN PaddlePaddle loads has the major its CUDA build is made with"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield cudnn-mismatch when no Paddle build of the CUDA in use is made with the loaded cuDNN's major."""
        lib = next((x for x in snapshot.libraries if x.name == "cudnn" and _loaded_by(x, "paddle")), None)
        have = version(lib.version) if lib is not None else None
        paddle = snapshot.framework("paddle")
        if lib is None or have is None or (paddle is not None and (paddle.cudnn or paddle.accelerator == "cpu")):
            return  # LoadedLibraryRule judges a build whose cuDNN the report states
        runtime = _runtime(snapshot)
        if paddle is not None and paddle.cuda:
            cuda, cuda_source, same_major = paddle.cuda, paddle.source, False
        elif runtime is not None:
            cuda, cuda_source = runtime[0], runtime[2]
            rv = version(cuda)
            same_major = rv is None or rv.major >= MINOR_VERSIONED_RUNTIME_BEFORE
        else:
            return
        candidates = matrices.paddle.cuda_builds(cuda, same_major=same_major)
        paddle_v = version(paddle.version) if paddle is not None else None
        scope = "every Paddle release's"
        if paddle is not None and paddle_v is not None:
            release = matrices.paddle.release(paddle.version)
            candidates = tuple(c for c in candidates if c[0] is release)
            scope = f"Paddle {paddle.version}'s"
        elif runtime is not None and runtime[1] == GPU_RESOURCES:
            candidates = tuple(c for c in candidates if Version(c[0].version) >= GPU_RESOURCES_SINCE)
            scope = f"every Paddle {GPU_RESOURCES_SINCE}+ release's"
        majors = {Version(c).major for _, v in candidates for c in v.cudnn_builds()}
        if not majors or have.major in majors:
            return
        unknown = [c for c in candidates if not c[1].cudnn_builds()]
        yield self._finding(lib, cuda, cuda_source, same_major, scope, candidates, sorted(majors), bool(unknown),
                            runtime)

    @staticmethod
    def _finding(lib: SharedLibrary, cuda: str, cuda_source: str, same_major: bool, scope: str,
                 candidates: tuple[tuple[PaddleRelease, PaddleVariant], ...], majors: list[int], unknown: bool,
                 runtime: tuple[str, str, str] | None) -> Finding:
        cuda_text = f"CUDA {version(cuda).major if same_major and version(cuda) else cuda}" + (  # type: ignore[union-attr] # reason: checked
            ".x" if same_major else "")
        need = " or ".join(f"{m}.x" for m in majors)
        listing = "; ".join(_label(r, v) for r, v in candidates)
        severity = Severity.WARNING if unknown else Severity.ERROR
        message = (f"PaddlePaddle runs with {cuda_text} and loaded cuDNN {lib.version}, but {scope} {cuda_text} "
                   f"builds are made with cuDNN {need}"
                   + (f" (the start-up line comes from {GPU_RESOURCES}: Paddle {GPU_RESOURCES_SINCE} or newer)"
                      if "+ release" in scope else "")
                   + (" (for some of them paddle.toml records no cuDNN)" if unknown else "")
                   + ": Paddle warns only about a cuDNN older than its build, so one of another major loads "
                     "silently and cuDNN calls then fail (CUDNN_STATUS_NOT_INITIALIZED and similar).")
        evidence = (
            ev("PaddlePaddle CUDA", cuda + (" (runtime; the build's CUDA major)" if same_major else ""), cuda_source),
            ev("cuDNN loaded", lib.version, lib.path),
            ev(f"Paddle builds for {cuda_text}", listing, "matrices/paddle.toml (each release's Tables.md)"),
            *((ev("start-up line printed by", runtime[1], f"{runtime[2]}; {GPU_RESOURCES_SOURCES}"),)
              if runtime is not None and "+ release" in scope else ()),
        )
        return Finding(
            "cudnn-mismatch", severity, message, evidence,
            f"install cuDNN {need} for {cuda_text} and put it first on the loader path (conda: "
            f"LD_LIBRARY_PATH=$CONDA_PREFIX/lib; ldconfig -p | grep cudnn), or install the Paddle build made for "
            f"the CUDA your cuDNN {lib.version} belongs to; python -c 'import paddle; print(paddle.version.cudnn())' "
            "names the build's own cuDNN",
            PADDLE_GPU_RESOURCES, "paddle",
        )
