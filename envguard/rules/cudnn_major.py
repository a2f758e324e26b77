"""A cuDNN library of one major missing beside the cuDNN of another major that the report's environment has.

cuDNN's sonames carry its major (libcudnn.so.8, libcudnn_ops_infer.so.8, libcudnn_ops.so.9; cudnn64_8.dll,
cudnn_ops_infer64_8.dll on Windows), and NVIDIA's compatibility chapter says "API compatibility is not guaranteed
across major versions of cuDNN": a library built against cuDNN 8 looks for the .so.8 files and never loads a cuDNN
9, and the reverse. So when a report shows a loader failing on a cuDNN library of major N, and the report's
environment has cuDNN of another major M (a cuDNN version the report states, or the cuDNN a pip torch build bundles,
torch.toml), a component of that environment was built for the other cuDNN: ctranslate2 before 4.5 (cuDNN 8; its
4.5.0 release moved to cuDNN 9) beside torch >= 2.4 (cuDNN 9) is the common case (whisperX#954), as are
onnxruntime-gpu and TensorFlow builds made for cuDNN 8. That is a cudnn-mismatch, next to the catalogue's
cuda-libs-missing for the file itself. When the majors agree the file is missing from the loader path, which the
catalogue's finding already says; nothing is added.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envguard.findings import Evidence, Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import build_evidence, cuda_builds, ev, torch_variant, version
from envguard.snapshot import CUDNN_MAJOR_KEY, TORCH_INDEX_KEY, Snapshot, Unavailable, stated_parts

#: A cuDNN library file with its major: libcudnn_ops_infer.so.8, libcudnn.so.9, cudnn64_8.dll, cudnn_cnn64_9.dll.
_CUDNN_FILE = re.compile(r"(?<![A-Za-z0-9_])(?P<file>libcudnn(?:_[a-z]{2,12}){0,2}\.so\.(?P<so>\d{1,2})|"
                         r"cudnn(?:_[a-z]{2,12}){0,2}64_(?P<dll>\d{1,2})\.dll)\b", re.IGNORECASE)
SOURCE = ("https://docs.nvidia.com/deeplearning/cudnn/latest/developer/forward-compatibility.html ; "
          "https://github.com/OpenNMT/CTranslate2/releases/tag/v4.5.0 ; https://github.com/m-bain/whisperX/issues/954")


class CudnnMajorRule:
    """A missing cuDNN library of one major in a report whose environment has cuDNN of another major."""

    id = "cudnn-major"
    summary = "a cuDNN library the report shows missing has the major of the environment's cuDNN"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """At most one cudnn-mismatch finding, for the first missing cuDNN file whose major differs."""
        if not snapshot.from_report:
            return
        if not isinstance(snapshot.packages, Unavailable) and any(
                d.name in ("onnxruntime-gpu", "onnxruntime") for d in snapshot.packages):
            return  # NOTE: rules.ort judges ONNX Runtime's cuDNN major from its own release table
        have = _environment_cudnn(snapshot, matrices)
        if have is None:
            return
        cudnn, evidence = have
        have_major = version(cudnn)
        if have_major is None:
            return
        for match in matrices.errors.match(snapshot.observed_errors):
            if match.signature.code != "cuda-libs-missing":
                continue
            named = _CUDNN_FILE.search(match.line)
            if named is None:
                continue
            needed = int(named.group("so") or named.group("dll"))
            cuda = next((b.cuda for b in cuda_builds(snapshot) if b.cuda), None) or next(
                (t.version for t in snapshot.toolkit_list()), None) or "12"
            wheel = f"nvidia-cudnn-cu{cuda.split('.')[0]}"
            if needed == have_major.major:
                continue
            shown = cudnn if "." in cudnn else f"{cudnn}.x"
            yield Finding(
                "cudnn-mismatch", Severity.ERROR,
                f"The report shows {named.group('file')} (cuDNN {needed}) failing to load, and the environment's "
                f"cuDNN is {shown} (cuDNN {have_major.major}): a component was built for cuDNN {needed}, which "
                f"does not load cuDNN {have_major.major}'s libraries (cuDNN guarantees no compatibility across "
                "majors).",
                (ev("cuDNN library missing", match.line[:160], snapshot.origin), *evidence),
                f"install the component's release built for cuDNN {have_major.major} (ctranslate2 >= 4.5 and "
                f"onnxruntime-gpu >= 1.19 are built for cuDNN 9), or install cuDNN {needed} beside it on the "
                f"loader path (pip install '{wheel}=={needed}.*' and add its lib folder)",
                SOURCE, "cudnn",
            )
            return


def _environment_cudnn(snapshot: Snapshot, matrices: Matrices) -> tuple[str, tuple[Evidence, ...]] | None:
    """The cuDNN the report's environment has: a stated cuDNN version, else a pip torch build's bundled one."""
    if not isinstance(snapshot.cudnn, Unavailable) and snapshot.cudnn:
        found = snapshot.cudnn[0]
        return found.version, (ev("cuDNN", found.version, found.source),)
    for build in cuda_builds(snapshot):
        if build.name != "torch" or build.channel is not None or build.conda_build is not None:
            continue
        cudnn = build.cudnn
        if cudnn is None:
            _, variant = torch_variant(build, matrices)
            cudnn = variant.cudnn if variant is not None else None
        if cudnn is not None:
            where = f"torch.toml: {build.version} cu{(build.cuda or '').replace('.', '')}"
            return cudnn, (build_evidence(build, snapshot), ev("cuDNN bundled with torch", cudnn,
                                                          build.source if build.cudnn else where))
    bundled = _index_cudnn(snapshot, matrices)
    if bundled is not None:
        return bundled
    if CUDNN_MAJOR_KEY in snapshot.environment:
        # NOTE: "cuda 11.0, cudnn7": a major is all this rule compares
        major, where = stated_parts(snapshot.environment[CUDNN_MAJOR_KEY])
        return major, (ev("cuDNN (its major as the report states it)", f"{major}.x", where),)
    return None


def _index_cudnn(snapshot: Snapshot, matrices: Matrices) -> tuple[str, tuple[Evidence, ...]] | None:
    """The cuDNN major every torch build on the PyTorch index the report's pip command names bundles
    ("--index-url .../whl/nightly/cu129"), when the report names no torch version and torch.toml records the cuDNN of
    every release with that variant, all of one major; None otherwise (cu121 and cu118 carried cuDNN 8 and 9)."""
    tag, where = stated_parts(snapshot.environment.get(TORCH_INDEX_KEY, ""))
    if not tag.startswith("cu") or any(b.name == "torch" for b in snapshot.frameworks):
        return None
    rows = [(r.version, v.cudnn) for r in matrices.torch.releases for v in r.variants if v.tag == tag]
    majors = {cudnn.split(".")[0] if cudnn else None for _, cudnn in rows}
    if len(majors) != 1 or None in majors:
        return None
    major = majors.pop()
    assert major is not None
    series = ", ".join(version for version, _ in rows)
    return major, (ev("cuDNN bundled with torch from that index",
                      f"cuDNN {major} in every torch {tag} build (torch.toml: {series})", where or snapshot.origin),)
