"""Library rules: cudnn-mismatch, nccl-mismatch, cuda-libs-missing, mixed-cuda-wheels, toolkit-mismatch."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from packaging.version import Version

from envguard.findings import Evidence, Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import (
    applicable_requirements,
    build_evidence,
    cuda_builds,
    ev,
    interpreter_source,
    series,
    system_of,
    torch_variant,
    version,
)
from envguard.snapshot import (
    CUDNN_REQUIRED_KEY,
    CUPY_WHEEL_KEY,
    CudaToolkit,
    FrameworkBuild,
    SharedLibrary,
    Snapshot,
    Unavailable,
    normalize_name,
    stated_parts,
)

#: NVIDIA wheels named without a -cuNN suffix from CUDA 13 on (their version's major is the CUDA major).
UNSUFFIXED_CUDA_WHEELS = frozenset({
    "nvidia-cuda-runtime", "nvidia-cublas", "nvidia-cuda-nvrtc", "nvidia-nvjitlink", "nvidia-cufft",
    "nvidia-curand", "nvidia-cusolver", "nvidia-cusparse", "nvidia-cuda-cupti", "nvidia-cuda-nvcc",
    "nvidia-nvtx", "nvidia-npp", "nvidia-nvjpeg", "nvidia-cufile", "nvidia-cuda-crt", "nvidia-cuda-cccl",
})
_SUFFIX = re.compile(r"^(nvidia-[a-z0-9-]+?)-cu(\d+)$")


def wheel_cuda_major(name: str, dist_version: str) -> tuple[str, int] | None:
    """``("nvidia-cudnn", 12)`` for nvidia-cudnn-cu12; ``("nvidia-cublas", 13)`` for nvidia-cublas 13.1."""
    key = normalize_name(name)
    match = _SUFFIX.match(key)
    if match:
        return match.group(1), int(match.group(2))
    if key in UNSUFFIXED_CUDA_WHEELS:
        v = version(dist_version)
        if v is not None and v.major >= 13:
            return key, v.major
    return None


def _same_or_newer_minor(found: str, needed: str) -> bool:
    """cuDNN's rule: the same major, and a minor at least the one built against."""
    f, n = version(found), version(needed)
    if f is None or n is None:
        return True
    return f.major == n.major and (f.major, f.minor) >= (n.major, n.minor)


class WheelPinRule:
    """The NVIDIA wheels a framework's metadata pins must be installed at a compatible version."""

    id = "wheel-pins"
    summary = "nvidia-* wheels pinned by framework metadata are installed and compatible"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield cuda-libs-missing / cudnn-mismatch / nccl-mismatch findings from Requires-Dist pins."""
        packages = snapshot.package_map()
        for build in cuda_builds(snapshot):
            pins = applicable_requirements(snapshot, build.distribution, "nvidia-")
            if build.name == "tensorflow":
                # tensorflow[and-cuda] (2.14+) pins its NVIDIA wheels behind an extra; judge them when
                # that extra was evidently installed (some of its wheels are present).
                extra = applicable_requirements(snapshot, build.distribution, "nvidia-", extra="and-cuda")
                if any(normalize_name(p.requirement.name) in packages for p in extra):
                    pins = extra
            for pin in pins:
                req = pin.requirement
                name = normalize_name(req.name)
                have = packages.get(name)
                if have is None:
                    yield Finding(
                        "cuda-libs-missing", Severity.ERROR,
                        f"{build.name} {build.version} needs {req.name}{req.specifier}, which is not installed, "
                        "so its CUDA libraries cannot load.",
                        (build_evidence(build, snapshot), ev("requires", str(req), f"{pin.owner} Requires-Dist"),
                         ev(req.name, "not installed", interpreter_source(snapshot, "distributions"))),
                        f"pip install '{req.name}{req.specifier}'", None, build.name,
                    )
                    continue
                if not req.specifier or req.specifier.contains(have.version, prereleases=True):
                    continue
                pinned = next((s.version for s in req.specifier if s.operator in ("==", ">=")), None)
                if name.startswith("nvidia-cudnn") and pinned and _same_or_newer_minor(have.version, pinned):
                    continue  # a newer cuDNN minor of the same major is compatible (cuDNN's own rule)
                have_v, pinned_v = version(have.version), version(pinned)
                newer = have_v is not None and pinned_v is not None and have_v >= pinned_v
                if name.startswith("nvidia-nccl") and newer:
                    continue  # a newer NCCL 2.x keeps the symbols older builds use
                code = ("cudnn-mismatch" if name.startswith("nvidia-cudnn")
                        else "nccl-mismatch" if name.startswith("nvidia-nccl") else "cuda-libs-missing")
                yield Finding(
                    code, Severity.ERROR,
                    f"{build.name} {build.version} was built against {req.name}{req.specifier}, but "
                    f"{req.name} {have.version} is installed"
                    + (" (older: symbols it needs are missing)." if code == "nccl-mismatch" else "."),
                    (build_evidence(build, snapshot), ev("requires", str(req), f"{pin.owner} Requires-Dist"),
                     ev(req.name, have.version, interpreter_source(snapshot, "distributions"))),
                    f"pip install '{req.name}{req.specifier}'  # or find what else pins {req.name}: "
                    f"pip show {req.name} / pipdeptree -r -p {req.name}",
                    None, build.name,
                )


#: torch's Linux wheels pin their cuDNN/NCCL wheels exactly (Requires-Dist "nvidia-cudnn-cu12==9.1.0.70"); the pins
#: per release and variant are torch.toml's cudnn/nccl (from generate_binary_build_matrix.py).
_TORCH_PINS_SOURCE = "https://github.com/pytorch/test-infra/blob/main/tools/scripts/generate_binary_build_matrix.py"


class ReportedWheelPinRule:
    """A report's pip lines: the cuDNN/NCCL wheels beside a torch CUDA wheel are the ones torch.toml says it pins.

    A probed environment has torch's own Requires-Dist (WheelPinRule); a pasted ``pip list`` / ``pip freeze`` /
    collect_env has only names and versions, so the release's pins come from the matrix."""

    id = "reported-wheel-pins"
    summary = "nvidia-cudnn/nccl wheels a report lists beside torch are the versions that torch release pins"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield cudnn-mismatch / nccl-mismatch findings."""
        if not snapshot.from_report or system_of(snapshot) in ("windows", "darwin"):
            return  # Windows and macOS torch wheels carry no nvidia-* dependencies
        packages = snapshot.package_map()
        for build in cuda_builds(snapshot):
            dist = packages.get(normalize_name(build.distribution))
            if build.name != "torch" or build.channel or build.conda_build or (dist is not None and dist.requires):
                continue  # conda's pytorch links conda's cudnn/nccl; a probed torch has its own pins
            release, variant = torch_variant(build, matrices)
            cuda = version(variant.cuda) if variant is not None and variant.cuda else None
            if release is None or variant is None or cuda is None:
                continue
            for lib, pinned, code in (("cudnn", variant.cudnn, "cudnn-mismatch"),
                                      ("nccl", variant.nccl, "nccl-mismatch")):
                wheel = f"nvidia-{lib}-cu{cuda.major}"
                have = packages.get(wheel)
                if have is None or not pinned:
                    continue
                have_v, pin_v = version(have.version), version(pinned)
                if have_v is None or pin_v is None:
                    continue
                if lib == "cudnn":
                    if _same_or_newer_minor(have.version, pinned):
                        continue
                    why = ("another cuDNN major: the libcudnn soname torch loads is not there" if have_v.major !=
                           pin_v.major else "an older cuDNN minor than the build needs")
                elif have_v.release[:2] >= pin_v.release[:2]:
                    continue  # a newer NCCL 2.x keeps the symbols older builds use
                else:
                    why = "an older NCCL: functions the build calls are missing"
                yield Finding(
                    code, Severity.ERROR,
                    f"torch {build.version} ({variant.tag} wheel) pins {wheel}=={pinned}, but the report lists "
                    f"{wheel} {have.version}: {why}.",
                    (build_evidence(build, snapshot),
                     ev("pinned", f"{wheel}=={pinned}", f"torch.toml {release.version} {variant.tag}"),
                     ev(wheel, have.version, have.source or snapshot.origin)),
                    f"pip install '{wheel}=={pinned}'  # then find what installed {have.version}: "
                    f"pipdeptree -r -p {wheel}",
                    _TORCH_PINS_SOURCE, build.name,
                )


#: "This CuPy wheel (precompiled binary) package requires CUDA 9.0. You need to install CUDA Toolkit 9.0 to use these
#: packages." (the cupy-cuda90 package's description); CuPy's install guide of each release lists its wheels per CUDA
#: ("(For CUDA 9.2) $ pip install cupy-cuda92", v4.5.0); cupy-cuda11x is for CUDA 11.2-11.8, cupy-cuda12x for 12.x.
_CUPY_SOURCE = "https://docs.cupy.dev/en/v4.5.0/install.html ; https://docs.cupy.dev/en/stable/install.html"


class CupyWheelRule:
    """A CuPy wheel loads the CUDA toolkit libraries of the CUDA its name gives: the report's CUDA must be that one."""

    id = "cupy-wheel"
    summary = "the CuPy wheel a report names is built for the CUDA the report's machine or image provides"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield a cuda-libs-missing finding."""
        said = snapshot.environment.get(CUPY_WHEEL_KEY)
        if said is None:
            return
        tag, where = stated_parts(said)
        per_major = tag.endswith("x")
        want = version(tag[:-1] if per_major else f"{tag[:-1]}.{tag[-1]}")
        toolkits = [(v, t.version, t.source) for t in snapshot.toolkit_list() if (v := version(t.version)) is not None]
        image = snapshot.environment.get("CUDA_VERSION")
        if not toolkits and image and (iv := version(image)) is not None:
            toolkits = [(iv, image, "report: container image CUDA")]
        if want is None or not toolkits:
            return
        if per_major or want.major >= 11:
            # CUDA 11+ keeps one soname per major (libcudart.so.11.0): any minor of the same major loads
            if any(v.major == want.major for v, _t, _s in toolkits):
                return
            packages = snapshot.package_map()
            if per_major and any(n.startswith("nvidia-cuda-runtime") for n in packages):
                return  # CuPy 13+ can load the CUDA runtime from pip's nvidia-* wheels instead of a toolkit
            needs = f"CUDA {want.major}.x"
        else:
            if any(v.release[:2] == want.release[:2] for v, _t, _s in toolkits):
                return
            needs = f"CUDA {want.major}.{want.minor} exactly (before CUDA 11 each minor has its own libcudart.so.X.Y)"
        hv, have, source = max(toolkits, key=lambda row: row[0])
        wheel = f"cupy-cuda{hv.major}x" if hv.release[:2] >= (11, 2) else f"cupy-cuda{hv.major}{hv.minor}"
        yield Finding(
            "cuda-libs-missing", Severity.ERROR,
            f"cupy-cuda{tag} is built for {needs} and loads that toolkit's libraries, but the CUDA here is {have}, "
            "so CuPy cannot load its CUDA runtime.",
            (ev("CuPy wheel", f"cupy-cuda{tag}", where), ev("CUDA", have, source)),
            f"pip uninstall cupy-cuda{tag} && pip install {wheel} (the wheel for CUDA {have}), or install the CUDA "
            "toolkit the wheel names",
            _CUPY_SOURCE, "cupy",
        )


class LoaderPathRule:
    """LD_LIBRARY_PATH entries beat a wheel's RUNPATH: an old cuDNN/NCCL there shadows the bundled one."""

    id = "loader-path"
    summary = "libraries on LD_LIBRARY_PATH do not shadow the ones frameworks were built against"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield cudnn-mismatch / nccl-mismatch findings for shadowing libraries."""
        if system_of(snapshot) != "linux":
            return
        shadow = [lib for lib in snapshot.libraries if lib.source == "LD_LIBRARY_PATH"]
        if not shadow:
            return
        for build in cuda_builds(snapshot):
            cudnn, nccl = self._expected(build, matrices)
            for lib in shadow:
                if lib.name == "cudnn" and cudnn:
                    yield from self._judge(build, lib, cudnn, "cudnn-mismatch", "cuDNN", snapshot)
                elif lib.name == "nccl" and nccl and lib.version:
                    lv, nv = version(lib.version), version(nccl)
                    if lv is not None and nv is not None and lv < nv:
                        yield self._finding(build, lib, nccl, "nccl-mismatch", "NCCL", snapshot)

    @staticmethod
    def _expected(build: FrameworkBuild, matrices: Matrices) -> tuple[str | None, str | None]:
        cudnn, nccl = build.cudnn, build.nccl
        if build.name == "torch" and (cudnn is None or nccl is None):
            _, variant = torch_variant(build, matrices)
            if variant is not None:
                cudnn, nccl = cudnn or variant.cudnn, nccl or variant.nccl
        return cudnn, nccl

    def _judge(
        self, build: FrameworkBuild, lib: SharedLibrary, needed: str, code: str, label: str, snapshot: Snapshot
    ) -> Iterator[Finding]:
        needed_v = version(needed)
        if needed_v is None:
            return
        major = lib.soname_major
        if lib.version is not None:
            if not _same_or_newer_minor(lib.version, needed):
                yield self._finding(build, lib, needed, code, label, snapshot)
        elif major is not None and major != needed_v.major:
            # Different soname major: the loader keeps looking, so this one is not loaded instead.
            return

    @staticmethod
    def _finding(
        build: FrameworkBuild, lib: SharedLibrary, needed: str, code: str, label: str, snapshot: Snapshot
    ) -> Finding:
        folder = os.path.dirname(lib.path)
        return Finding(
            code, Severity.ERROR,
            f"{label} {lib.version or lib.soname} in {folder} (on LD_LIBRARY_PATH) is loaded before the {label} "
            f"{needed} that {build.name} {build.version} was built against, and it is older.",
            (build_evidence(build, snapshot), ev(f"{label} needed", needed, build.source),
             ev(f"{label} first on the loader path", f"{lib.version or '?'} ({lib.path})", "LD_LIBRARY_PATH"),
             ev("LD_LIBRARY_PATH", snapshot.environment.get("LD_LIBRARY_PATH", "?"), "environment")),
            f"remove {folder} from LD_LIBRARY_PATH (the wheel brings its own {label}), or install {label} "
            f">= {needed} there",
            None, build.name,
        )


class SystemLibrariesRule:
    """Builds that dlopen system CUDA/cuDNN (TensorFlow < 2.14, or without [and-cuda]) need them findable."""

    id = "system-libs"
    summary = "CUDA and cuDNN libraries that a build loads from the system are findable"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield cuda-libs-missing / cudnn-mismatch findings for TensorFlow."""
        tf = snapshot.framework("tensorflow")
        if tf is None or tf.accelerator != "cuda":
            return
        release = matrices.tensorflow.release(tf.version)
        system = system_of(snapshot)
        both = release is not None and release.windows_native_gpu
        if system not in ("linux", "windows", "darwin") and snapshot.from_report and both:
            # NOTE: a report that names no OS: up to 2.10 TensorFlow's Linux and Windows GPU builds load the same
            # CUDA and cuDNN, so either file is what it needs ("either" below names both)
            system = "either"
        elif system != "linux" and not (system == "windows" and both):
            return
        cuda = tf.cuda or (release.cuda if release else None)
        cudnn = tf.cudnn or (release.cudnn if release else None)
        if release is not None and release.cudnn and cudnn and "." not in cudnn \
                and release.cudnn.startswith(cudnn + "."):
            cudnn = release.cudnn  # build_info says only "9"; the tested configuration says "9.3"
        libs = snapshot.libraries
        yield from _cusolver_soname(snapshot, tf, cuda, system, release.prov.source if release else None)
        for family, needed in (("cudart", cuda), ("cudnn", cudnn)):
            nv = version(needed)
            if nv is None:
                continue
            matching = [lib for lib in libs if lib.name == family and lib.soname_major == nv.major]
            if family == "cudart" and nv.major == 11:
                matching = [lib for lib in matching if lib.soname.endswith(".so.11.0")]
            label = "CUDA runtime" if family == "cudart" else "cuDNN"
            if not matching and snapshot.from_report and not any(lib.name == family for lib in libs):
                # A pasted report that lists no such library says nothing about the loader path, unless it names
                # the system CUDA toolkit: then the CUDA runtime it provides is that toolkit's major.
                toolkits = snapshot.toolkit_list()
                if family != "cudart" or not toolkits or any(
                        (tv := version(tk.version)) is not None and same_cuda_runtime(tv, nv) for tk in toolkits):
                    continue
            if not matching:
                found = sorted({lib.soname for lib in libs if lib.name == family})
                yield Finding(
                    "cuda-libs-missing", Severity.ERROR,
                    f"TensorFlow {tf.version} loads the {label} {needed} libraries at run time, but no "
                    f"{runtime_file(family, nv, system)} is on the loader path"
                    + (f" (the CUDA toolkit the report names, {snapshot.toolkit_list()[0].version}, provides "
                       f"{runtime_file(family, version(snapshot.toolkit_list()[0].version) or nv, system)})"
                       if family == "cudart" and snapshot.toolkit_list() and not libs else "")
                    + ", so it will skip the GPU.",
                    (build_evidence(tf, snapshot), ev(f"{label} needed", needed, tf.source),
                     _found_evidence(snapshot, family, found)),
                    "pip install 'tensorflow[and-cuda]'  # TF >= 2.14 brings its own CUDA wheels"
                    if (version(tf.version) or version("0")) >= version("2.14") else  # type: ignore[operator] # reason: literal
                    f"install CUDA {cuda} and cuDNN {cudnn} and put their "
                    + ("bin folders on PATH" if system == "windows" else "lib64 folders on LD_LIBRARY_PATH"
                       + (" (bin folders on PATH on Windows)" if system == "either" else "")),
                    release.prov.source if release else None, "tensorflow",
                )
                other = [lib for lib in libs if lib.name == "cudnn" and lib.soname_major is not None]
                if family == "cudnn" and other:
                    # NOTE: the report shows a cuDNN of another major (cudnn.h's 7.6 beside TF 2.7's 8.1): the
                    # libraries are not merely off the loader path, the wrong cuDNN is installed
                    shown = other[0]
                    yield Finding(
                        "cudnn-mismatch", Severity.ERROR,
                        f"TensorFlow {tf.version} was built with cuDNN {needed}, but the cuDNN the report shows is "
                        f"{shown.version or shown.soname}: another major, whose libraries it does not load.",
                        (build_evidence(tf, snapshot), ev("cuDNN needed", needed, tf.source),
                         ev("cuDNN shown", f"{shown.version or '?'} ({shown.soname})", shown.source)),
                        f"install cuDNN {needed} for CUDA {cuda} on the loader path"
                        + (" (pip install 'tensorflow[and-cuda]' brings it)"
                           if (version(tf.version) or version("0")) >= version("2.14") else ""),  # type: ignore[operator] # reason: literal
                        release.prov.source if release else None, "tensorflow",
                    )
            elif family == "cudnn" and needed and "." in needed:
                first = matching[0]
                if first.version and not _same_or_newer_minor(first.version, needed):
                    yield Finding(
                        "cudnn-mismatch", Severity.ERROR,
                        f"TensorFlow {tf.version} was built with cuDNN {needed}, but the cuDNN that loads first "
                        f"is {first.version} ({first.path}); cuDNN needs the same major and an equal or newer minor.",
                        (build_evidence(tf, snapshot),
                         ev("cuDNN loaded", f"{first.version} ({first.path})", first.source)),
                        f"install cuDNN >= {needed} on the loader path, or remove the older one from it "
                        f"(with TF >= 2.14: pip install "
                        f"'nvidia-cudnn-cu{cuda.split('.')[0] if cuda else '12'}>={needed}')",
                        release.prov.source if release else None, "tensorflow",
                    )


#: Within CUDA 11 one library changed its soname: CUDA 11.0 ships cuSOLVER 10.5 (libcusolver.so.10, cusolver64_10.dll),
#: CUDA 11.1 and later cuSOLVER 11 (libcusolver.so.11). NVIDIA's component versions: version_11.0.2.json lists
#: "libcusolver" 10.5.0.218; the CUDA 11.2 release notes list cuSOLVER 11.1.0.135; the nvidia channel's libcusolver for
#: cuda-11.3.0 is 11.1.1.58. So a TensorFlow built with CUDA 11.2 (2.5-2.11) asks for libcusolver.so.11, which a CUDA
#: 11.0 toolkit lacks, and TensorFlow 2.4 (CUDA 11.0) asks for libcusolver.so.10, which CUDA 11.1+ lacks
#: (tensorflow#43947, #45263, #44777).
CUSOLVER_SONAME_SOURCE = ("https://developer.download.nvidia.com/compute/cuda/repos/ubuntu1804/sbsa/"
                          "version_11.0.2.json ; "
                          "https://docs.nvidia.com/cuda/archive/11.2.1/cuda-toolkit-release-notes/index.html ; "
                          "https://anaconda.org/nvidia/libcusolver/labels ; https://github.com/tensorflow/tensorflow/issues/43947")


def cusolver_major(cuda: Version) -> int | None:
    """The libcusolver soname major of CUDA 11.x (10 in 11.0, 11 from 11.1); None outside CUDA 11."""
    if cuda.major != MINOR_VERSIONED_RUNTIME_BEFORE:
        return None
    return 10 if cuda.minor == 0 else 11


def _cusolver_soname(snapshot: Snapshot, tf: FrameworkBuild, needed: str | None, system: str,
                     reference: str | None) -> Iterator[Finding]:
    """A report's CUDA 11 toolkit whose cuSOLVER soname is not the one the TensorFlow build loads."""
    nv = version(needed)
    toolkits = snapshot.toolkit_list()
    # NOTE: in a container TensorFlow loads the image's CUDA, not the toolkit a report names for its host
    if not snapshot.from_report or nv is None or len(toolkits) != 1 or snapshot.host.container is not None \
            or any(lib.name == "cusolver" for lib in snapshot.libraries):
        return
    have = version(toolkits[0].version)
    want, got = cusolver_major(nv), cusolver_major(have) if have is not None else None
    if want is None or got is None or want == got:
        return
    yield Finding(
        "cuda-libs-missing", Severity.ERROR,
        f"TensorFlow {tf.version} was built with CUDA {needed} and loads "
        f"{runtime_file('cusolver', Version(str(want)), system)}, but the CUDA {toolkits[0].version} toolkit the "
        f"report names ships cuSOLVER {got} ({runtime_file('cusolver', Version(str(got)), system)}): the CUDA "
        "runtime loads, the solver library does not, so TensorFlow skips the GPU.",
        (build_evidence(tf, snapshot), ev("CUDA toolkit", toolkits[0].version, toolkits[0].source),
         ev("cuSOLVER soname", "libcusolver.so.10 in CUDA 11.0, libcusolver.so.11 from CUDA 11.1",
            CUSOLVER_SONAME_SOURCE)),
        f"install the CUDA {needed} toolkit the build was tested with (or a TensorFlow built for CUDA "
        f"{toolkits[0].version}) and put its lib64 folder on LD_LIBRARY_PATH",
        reference, "tensorflow",
    )


#: Before CUDA 11 the runtime's soname / DLL carries the minor (libcudart.so.10.1, cudart64_101.dll): a build for
#: 10.1 cannot load 10.2's. From CUDA 11 a major shares one (libcudart.so.11.0, cudart64_110.dll; libcudart.so.12)
#: (https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html ;
#: https://github.com/tensorflow/tensorflow/pull/43716: "libcudart soname in CUDA 11.x is versioned as 11.0").
MINOR_VERSIONED_RUNTIME_BEFORE = 11


def same_cuda_runtime(have: Version, needed: Version) -> bool:
    """Whether a CUDA toolkit ``have`` provides the runtime library a build for ``needed`` loads."""
    if have.major != needed.major:
        return False
    return needed.major >= MINOR_VERSIONED_RUNTIME_BEFORE or have.minor == needed.minor


def runtime_file(family: str, cuda: Version, system: str) -> str:
    """The library file a build for CUDA ``cuda`` loads: libcudart.so.10.1 / cudart64_101.dll / libcudart.so.11.0;
    for ``system`` "either" (a report naming no OS), the Linux file and the Windows one."""
    if system == "either":
        return f"{runtime_file(family, cuda, 'linux')} (on Windows {runtime_file(family, cuda, 'windows')})"
    if family != "cudart":
        return f"lib{family}.so.{cuda.major}" if system != "windows" else f"{family}64_{cuda.major}.dll"
    if cuda.major < MINOR_VERSIONED_RUNTIME_BEFORE:
        if system == "windows":
            return f"cudart64_{cuda.major}{cuda.minor}.dll"
        return f"libcudart.so.{cuda.major}.{cuda.minor}"
    if cuda.major == MINOR_VERSIONED_RUNTIME_BEFORE:
        return "libcudart.so.11.0" if system != "windows" else "cudart64_110.dll"
    return f"libcudart.so.{cuda.major}" if system != "windows" else f"cudart64_{cuda.major}.dll"


class MixedWheelsRule:
    """NVIDIA wheels for different CUDA majors installed side by side."""

    id = "mixed-wheels"
    summary = "one CUDA major across nvidia-* wheels"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield mixed-cuda-wheels (warning) and, for NCCL/cuDNN twins, nccl-/cudnn-mismatch (error)."""
        if isinstance(snapshot.packages, tuple):
            dists = snapshot.packages
        else:
            return
        by_major: dict[int, list[str]] = {}
        by_component: dict[str, list[tuple[int, str]]] = {}
        for dist in dists:
            parsed = wheel_cuda_major(dist.name, dist.version)
            if parsed is None:
                continue
            component, major = parsed
            by_major.setdefault(major, []).append(f"{dist.name} {dist.version}")
            by_component.setdefault(component, []).append((major, f"{dist.name} {dist.version}"))
        if len(by_major) < 2:
            return
        listing = "; ".join(f"CUDA {m}: {', '.join(sorted(n))}" for m, n in sorted(by_major.items()))
        yield Finding(
            "mixed-cuda-wheels", Severity.WARNING,
            f"NVIDIA wheels for CUDA {' and '.join(str(m) for m in sorted(by_major))} are installed side by side; "
            "whichever a framework loads first decides which libraries the other gets.",
            (ev("nvidia wheels", listing, interpreter_source(snapshot, "distributions")),),
            "keep the wheels of the CUDA major your frameworks were built for: `pip uninstall` the others, "
            "or give each framework its own environment",
            None, "nvidia-wheels",
        )
        for component in ("nvidia-nccl", "nvidia-cudnn"):
            twins = by_component.get(component, [])
            if len({m for m, _ in twins}) > 1:
                code = "nccl-mismatch" if component == "nvidia-nccl" else "cudnn-mismatch"
                yield Finding(
                    code, Severity.ERROR,
                    f"{' and '.join(n for _, n in sorted(twins))} are both installed; they unpack into the same "
                    f"nvidia/{component[7:]}/ folder, so one overwrote the other's library.",
                    (ev(component, ", ".join(n for _, n in twins), interpreter_source(snapshot, "distributions")),),
                    "pip uninstall the one for the CUDA major your framework was not built for, then "
                    "`pip install --force-reinstall` the other",
                    None, "nvidia-wheels",
                )


class ToolkitRule:
    """The nvcc on PATH should match the framework's CUDA major (only matters for building extensions)."""

    id = "toolkit"
    summary = "the CUDA toolkit used to build extensions matches each framework's CUDA major"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield toolkit-mismatch warnings."""
        active = self._active(snapshot)
        if active is None:
            return
        tk = version(active.version)
        for build in cuda_builds(snapshot):
            if build.name != "torch" or not build.cuda:
                continue
            bv = version(build.cuda)
            if tk is None or bv is None or tk.major == bv.major:
                continue
            yield Finding(
                "toolkit-mismatch", Severity.WARNING,
                f"The CUDA toolkit that builds extensions ({active.version}, {active.source}) differs from the "
                f"CUDA {build.cuda} that {build.name} {series(build.version)} was built with: compiling CUDA "
                "extensions (flash-attn, apex, custom ops) will fail or misbehave; the wheels themselves are fine.",
                (ev("toolkit", f"{active.version} ({active.nvcc_path or active.path})", active.source),
                 build_evidence(build, snapshot)),
                f"install CUDA toolkit {bv.major}.x (e.g. pip install 'nvidia-cuda-nvcc-cu{bv.major}' or the "
                f"runfile) and point CUDA_HOME at it before building extensions",
                None, build.name,
            )

    @staticmethod
    def _active(snapshot: Snapshot) -> CudaToolkit | None:
        toolkits = snapshot.toolkit_list()
        home = snapshot.environment.get("CUDA_HOME") or snapshot.environment.get("CUDA_PATH")
        if home:
            hit = next((t for t in toolkits if t.path and os.path.realpath(t.path) == os.path.realpath(home)), None)
            if hit is not None:
                return hit
        return next((t for t in toolkits if "nvcc on PATH" in t.source), None)


def _found_evidence(snapshot: Snapshot, family: str, found: list[str]) -> Evidence:
    """What was found of a library family: on this machine, the loader's view; in a report, what the report lists
    (and the toolkit it names, which is what says which runtime the system provides)."""
    if not snapshot.from_report:
        return ev(f"lib{family} found", ", ".join(found) or "none", "ldconfig, LD_LIBRARY_PATH, wheels")
    toolkits = snapshot.toolkit_list()
    if found or not toolkits:
        return ev(f"lib{family} in the report", ", ".join(found) or "none listed", "report")
    return ev("CUDA toolkit the report names", toolkits[0].version, toolkits[0].source)


#: cuDNN's rule, as frameworks print it: "CuDNN library needs to have matching major version and equal or higher
#: minor version" (TensorFlow's cuda_dnn.cc, the tail of "Loaded runtime CuDNN library: X but source was compiled
#: with: Y").
_CUDNN_RULE = "https://github.com/tensorflow/tensorflow/blob/v2.8.0/tensorflow/stream_executor/cuda/cuda_dnn.cc"


class RequiredCudnnRule:
    """A stated cuDNN requirement ("8.1 is required but only 8.0.5 is loaded") against the cuDNN the report shows."""

    id = "cudnn-required"
    summary = "the cuDNN that loads meets the version the report says is required"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield cudnn-mismatch when the loaded cuDNN's major differs or its minor is older."""
        said = snapshot.environment.get(CUDNN_REQUIRED_KEY)
        if said is None or isinstance(snapshot.cudnn, Unavailable) or not snapshot.cudnn:
            return
        need_text, where = stated_parts(said)
        if _same_or_newer_minor(snapshot.cudnn[0].version, need_text):
            return
        yield Finding(
            "cudnn-mismatch", Severity.ERROR,
            f"cuDNN {need_text} is required but the cuDNN that loads is {snapshot.cudnn[0].version}: cuDNN needs the "
            f"same major and an equal or newer minor.",
            (ev("cuDNN required", need_text, where), ev("cuDNN loaded", snapshot.cudnn[0].version,
                                                        snapshot.cudnn[0].source)),
            f"install cuDNN >= {need_text} (same major) on the loader path, or a framework build made with "
            f"{snapshot.cudnn[0].version}",
            _CUDNN_RULE, None,
        )
