"""Build rules: cpu-only-build, platform-unsupported, python-unsupported, companion-mismatch, unknown-version."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import (
    CORE_FRAMEWORKS,
    applicable_requirements,
    build_evidence,
    ev,
    interpreter_source,
    platform_of,
    series,
    system_of,
    torch_variant,
    version,
)
from envguard.snapshot import FrameworkBuild, PythonInfo, RuntimeReport, Snapshot

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

_CPU_FIX = {
    "torch": "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu128  "
             "# pick the cuXXX that `envguard matrix`/this report says your driver and GPU support",
    "tensorflow": "pip uninstall -y tensorflow-cpu && pip install 'tensorflow[and-cuda]'",
    "jax": "pip install -U 'jax[cuda12]'  # or jax[cuda13] with driver >= 580",
    "paddle": "pip install paddlepaddle-gpu  # from the index for your CUDA version (paddlepaddle.org.cn)",
}


class CpuOnlyRule:
    """A GPU is present but a framework build cannot use it."""

    id = "cpu-only"
    summary = "frameworks on a GPU machine are GPU builds"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield cpu-only-build findings."""
        gpus = snapshot.gpu_list()
        if not gpus:
            return
        system = system_of(snapshot)
        for build in snapshot.frameworks:
            if build.name not in CORE_FRAMEWORKS or build.accelerator != "cpu" or not build.version_known:
                continue  # UNKNOWN_VERSION: a build a report names without its version (ReportedCpuBuildRule)
            if build.name == "tensorflow" and system == "windows":
                continue  # platform-unsupported says it better: no TF GPU build exists there
            why = {"torch": "its version ends in +cpu / torch.version.cuda is None" if "+cpu" in build.version
                   or not snapshot.from_report else "the report shows it",
                   "tensorflow": f"{build.distribution} has no CUDA support",
                   "jax": "no jax-cuda plugin is installed"}.get(build.name, "it is a CPU build")
            fix = _CPU_FIX[build.name]
            if build.name == "torch":
                release, _ = torch_variant(build, matrices)
                fix = (f"pip install --force-reinstall 'torch=={series(build.version)}.*' --index-url "
                       f"https://download.pytorch.org/whl/<cuXXX>  # a CUDA variant of this release: "
                       + ", ".join(v.tag for v in (release.variants if release else ()) if v.cuda)).rstrip(": ")
            yield Finding(
                "cpu-only-build", Severity.ERROR,
                f"{build.name} {build.version} is a CPU-only build ({why}), so it cannot use "
                f"the {gpus[0].name}{' and other GPUs' if len(gpus) > 1 else ''} "
                + ("the report names." if snapshot.from_report else "on this machine."),
                (build_evidence(build, snapshot), ev("GPUs", ", ".join(g.name for g in gpus), gpus[0].source)),
                fix, None, build.name,
            )


class PlatformRule:
    """Builds that do not exist for this operating system."""

    id = "platform"
    summary = "GPU builds exist for this operating system"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield platform-unsupported findings."""
        system = system_of(snapshot)
        for build in snapshot.frameworks:
            if build.name == "tensorflow" and system == "windows":
                release = matrices.tensorflow.release(build.version)
                if release is not None and release.windows_native_gpu is False:
                    yield Finding(
                        "platform-unsupported", Severity.ERROR,
                        f"TensorFlow {build.version} has no GPU support on native Windows (the last native-"
                        "Windows GPU release was 2.10), so it runs on the CPU whatever CUDA is installed.",
                        (build_evidence(build, snapshot),
                         ev("platform", "native Windows", interpreter_source(snapshot, "sys.platform"))),
                        "use WSL2 (pip install 'tensorflow[and-cuda]' inside it), or pin "
                        "'tensorflow<2.11' with CUDA 11.2 / cuDNN 8.1 on Windows",
                        release.prov.source, build.name,
                    )
            elif build.accelerator == "cuda" and system == "darwin":
                yield Finding(
                    "platform-unsupported", Severity.ERROR,
                    f"{build.name} {build.version} claims a CUDA build, but macOS has no CUDA support.",
                    (build_evidence(build, snapshot),
                     ev("platform", "macOS", interpreter_source(snapshot, "sys.platform"))),
                    f"reinstall {build.distribution} from the default index (CPU / Metal build)", None, build.name,
                )


#: The Python a conda build string was built for: "cpu_py311h410fd25_0", "py3.11_cuda11.8_cudnn8.7.0_0", "py38_cu111".
_CONDA_PY = re.compile(r"(?:^|_)py(\d)\.?(\d{1,2})(?=[_h]|$)")


def _conda_build_for(build: FrameworkBuild, py: Version) -> bool:
    """Whether the build's conda build string names this interpreter's Python (conda-forge builds Pythons that the
    PyPI wheels of the same release do not cover: pytorch 1.13.1 for py311)."""
    found = _CONDA_PY.search(build.conda_build or "")
    return found is not None and (int(found.group(1)), int(found.group(2))) == (py.major, py.minor)


class PythonRule:
    """The Python version must be one the framework release supports."""

    id = "python"
    summary = "Python version inside each framework release's supported range"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield python-unsupported and unknown-version findings."""
        python = snapshot.python
        if not isinstance(python, PythonInfo):
            return
        py = version(python.version)
        for build in snapshot.frameworks:
            if build.name == "torch":
                release = matrices.torch.release(build.version)
                newest = matrices.torch.newest()
            elif build.name == "tensorflow":
                release = matrices.tensorflow.release(build.version)  # type: ignore[assignment] # reason: both have .python/.prov
                newest = matrices.tensorflow.newest()
            elif build.name == "jax":
                release = matrices.jax.release(build.version)  # type: ignore[assignment] # reason: has .python/.prov
                newest = matrices.jax.newest()
            elif build.name == "paddle":
                release = matrices.paddle.release(build.version)  # type: ignore[assignment] # reason: has .python/.prov
                newest = matrices.paddle.newest()
            else:
                continue
            if release is None:
                bv = version(series(build.version))
                if bv is not None and newest is not None and bv > newest:
                    yield _newer_than_matrices(snapshot, build, str(newest))
                continue
            if py is not None and _conda_build_for(build, py):
                continue  # NOTE: a conda build string naming this Python (cpu_py311h...) is a build for it
            if py is None or py.public in release.python or f"{py.major}.{py.minor}" in release.python:
                compile_python = getattr(release, "compile_python", None)
                if py is not None and compile_python is not None and py.public not in compile_python:
                    yield _compile_finding(python, build, release.version, compile_python, release.prov.source,
                                           snapshot)
                continue
            experimental = getattr(release, "python_experimental", None)
            if py is not None and experimental is not None and py.public in experimental:
                # NOTE: wheels for this Python exist (RELEASE.md lists it as experimental): it installs and runs,
                # outside the tested range
                yield Finding(
                    "python-unsupported", Severity.WARNING,
                    f"Python {python.version} is experimental for {build.name} {series(build.version)}: its wheels "
                    f"exist, but the release supports {release.python}.",
                    (ev("python", python.version, python.executable or python.source), build_evidence(build, snapshot),
                     ev("supported", f"{release.python} ({experimental} experimental)",
                        f"{build.name}.toml {release.version}")),
                    f"use a Python matching {release.python} for the tested combination, or a {build.name} "
                    f"release that supports Python {py.major}.{py.minor}",
                    release.prov.source, build.name,
                )
                continue
            yield Finding(
                "python-unsupported", Severity.ERROR,
                f"Python {python.version} is outside what {build.name} {series(build.version)} supports "
                f"({release.python}).",
                (ev("python", python.version, python.executable or python.source), build_evidence(build, snapshot),
                 ev("supported", str(release.python), f"{build.name}.toml {release.version}")),
                f"use a Python matching {release.python} (e.g. `uv venv --python "
                f"{_suggest_python(str(release.python))}`), or a {build.name} release that supports "
                f"Python {py.major}.{py.minor}",
                release.prov.source, build.name,
            )


def _newer_than_matrices(snapshot: Snapshot, build: FrameworkBuild, newest: str) -> Finding:
    """unknown-version (info): a release the matrices lack is judged by what the install says about itself."""
    pins = applicable_requirements(snapshot, build.distribution)
    pinned = [f"{r.name}{'[' + ','.join(sorted(r.extras)) + ']' if r.extras else ''}{r.specifier}"
              for r in (p.requirement for p in pins)
              if r.specifier and (r.name.lower().startswith("nvidia-") or r.name.lower() == "cuda-toolkit")]
    known = []
    if build.cuda and build.accelerator == "cuda":
        known.append(f"CUDA {build.cuda} from {build.source}")
    if pinned:
        known.append(f"{', '.join(pinned)} from its Requires-Dist")
    unknown = ["its supported Python range"]
    runtime_arch = isinstance(build.runtime, RuntimeReport) and bool(build.runtime.arch_list)
    if build.accelerator == "cuda" and not build.arch_list and not runtime_arch:
        unknown.append("its compiled architectures")
    judged = (f"it is judged by what the install says about itself ({'; '.join(known)}), "
              if known else "nothing in the install names its CUDA build, ")
    return Finding(
        "unknown-version", Severity.INFO,
        f"{build.name} {build.version} is newer than envguard's matrices (newest known: {newest}): {judged}"
        f"and {' and '.join(unknown)} {'are' if len(unknown) > 1 else 'is'} unknown, not assumed.",
        (build_evidence(build, snapshot), *(ev("requires", p, f"{build.distribution} Requires-Dist") for p in pinned)),
        "update envguard to get newer matrices; `envguard check --deep` reads the compiled architectures from "
        "the framework itself",
        None, build.name,
    )


def _compile_finding(
    python: PythonInfo, build: FrameworkBuild, series_: str, spec: SpecifierSet, source: str, snapshot: Snapshot
) -> Finding:
    """python-unsupported (warning): the wheels install and run eagerly, but torch.compile refuses this Python."""
    return Finding(
        "python-unsupported", Severity.WARNING,
        f"torch.compile does not run on Python {python.version} with {build.name} {series_} (its Dynamo "
        f"accepts Python {spec}); eager code runs, torch.compile raises.",
        (ev("python", python.version, python.executable or python.source), build_evidence(build, snapshot),
         ev("torch.compile supports", f"Python {spec}", f"torch.toml {series_} compile_python")),
        f"for torch.compile use a Python matching {spec} (e.g. `uv venv --python {_suggest_python(str(spec))}`), "
        "or a newer torch release",
        source, build.name,
    )


def _suggest_python(spec: str) -> str:
    """The newest 3.x minor a specifier admits (for the fix text)."""
    from packaging.specifiers import SpecifierSet

    spec_set = SpecifierSet(spec)
    for minor in range(15, 5, -1):
        if f"3.{minor}" in spec_set or f"3.{minor}.0" in spec_set:
            return f"3.{minor}"
    return spec


def _cuda_xy(cuda: str | None) -> str | None:
    """"10.1.243" and "10.1" are one CUDA release (collect_env prints the full toolkit version)."""
    return ".".join(cuda.split(".")[:2]) if cuda else cuda


class CompanionRule:
    """torchvision/torchaudio and JAX plugins must match their core release and CUDA variant."""

    id = "companion"
    summary = "companion packages match the core framework release and variant"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield companion-mismatch findings."""
        torch = snapshot.framework("torch")
        if torch is not None:
            for name in ("torchvision", "torchaudio"):
                companion = snapshot.framework(name)
                if companion is not None:
                    yield from self._torch_companion(snapshot, torch, companion, matrices)
        yield from self._jax(snapshot)

    def _torch_companion(
        self, snapshot: Snapshot, torch: FrameworkBuild, comp: FrameworkBuild, matrices: Matrices
    ) -> Iterator[Finding]:
        tv = version(torch.version)
        if tv is None:
            return
        evidence = (build_evidence(torch, snapshot), build_evidence(comp, snapshot))
        # 1. The companion's own wheel metadata pins torch: the most direct evidence.
        for pin in applicable_requirements(snapshot, comp.distribution, "torch"):
            if pin.requirement.name.lower() != "torch" or not pin.requirement.specifier:
                continue
            if not pin.requirement.specifier.contains(tv.public, prereleases=True):
                yield Finding(
                    "companion-mismatch", Severity.ERROR,
                    f"{comp.name} {comp.version} requires torch{pin.requirement.specifier}, "
                    f"but torch {torch.version} is installed.",
                    (*evidence,
                     ev(f"{comp.name} requires", str(pin.requirement), f"{comp.distribution} Requires-Dist")),
                    f"pip install '{comp.name}' 'torch=={tv.public}' together from the same index "
                    "(pip resolves the matching pair)",
                    None, comp.name,
                )
                return
        # 2. The release table — not for two nightlies, which pair by build date, not by series: the nightly index
        # served torch 2.10.0.dev20251008 with torchaudio 2.8.0.dev20251008 (pytorch/pytorch#164943).
        release = matrices.torch.release(torch.version)
        expected = (release.torchvision if comp.name == "torchvision" else release.torchaudio) if release else None
        cv = version(comp.version)
        if tv.dev is not None and cv is not None and cv.dev is not None:
            expected = None
            if tv.dev != cv.dev:
                yield Finding(
                    "companion-mismatch", Severity.WARNING,
                    f"{comp.name} {comp.version} and torch {torch.version} are nightlies of different days; "
                    "nightly C++ operators are only built against the same day's torch.",
                    evidence,
                    f"pip install --pre --force-reinstall torch {comp.name} --index-url "
                    "https://download.pytorch.org/whl/nightly/<cpu|cuXXX> (one night's builds together)",
                    None, comp.name,
                )
        if expected and version(expected) is not None:
            have = version(series(comp.version))
            ok = have == version(expected)
            if comp.name == "torchaudio" and tv >= version("2.11") and have is not None:  # type: ignore[operator] # reason: literal parses
                ok = have >= version("2.11")  # type: ignore[operator] # reason: literal parses
            if not ok:
                yield Finding(
                    "companion-mismatch", Severity.ERROR,
                    f"{comp.name} {comp.version} does not belong to torch {series(torch.version)}, "
                    f"whose companion is {comp.name} {expected}.",
                    (*evidence,
                     ev("expected", f"{comp.name} {expected}.x", f"torch.toml {release.version if release else ''}")),
                    f"pip install '{comp.name}=={expected}.*' matching torch {series(torch.version)}",
                    release.prov.source if release else None, comp.name,
                )
                return
        # 3. The CUDA variant (local version) must agree. A companion without a +suffix has the variant of its plain
        # or conda build (reports.companions); torchvision >= 0.16 refuses only another CUDA major ("compiled with
        # different CUDA major versions", deforum-stable-diffusion#348; 0.15 compared the minor too, sd-easy-mode#18).
        if ("+" not in comp.version and comp.name == "torchvision" and cv is not None and cv >= version("0.16")  # type: ignore[operator] # reason: literal parses
                and comp.accelerator == torch.accelerator == "cuda"
                and (comp.cuda or "").split(".")[0] == (torch.cuda or "").split(".")[0]):
            return
        if (comp.accelerator and torch.accelerator and _cuda_xy(comp.cuda) != _cuda_xy(torch.cuda)
                and comp.accelerator != "cpu") or (
            comp.accelerator == "cpu" and torch.accelerator == "cuda"
        ):
            yield Finding(
                "companion-mismatch", Severity.ERROR,
                f"{comp.name} {comp.version} and torch {torch.version} are different CUDA variants "
                f"({comp.cuda or comp.accelerator} vs {torch.cuda or torch.accelerator}); their C++ "
                "operators will fail to load.",
                evidence,
                f"reinstall {comp.name} from the same index as torch (its +{tv.local or 'default'} variant)",
                None, comp.name,
            )

    @staticmethod
    def _jax(snapshot: Snapshot) -> Iterator[Finding]:
        packages = snapshot.package_map()
        jaxlib = packages.get("jaxlib")
        if jaxlib is None:
            return
        for plugin_name in ("jax-cuda12-plugin", "jax-cuda13-plugin", "jax-cuda12-pjrt", "jax-cuda13-pjrt"):
            plugin = packages.get(plugin_name)
            if plugin is None:
                continue
            pv, jv = version(plugin.version), version(jaxlib.version)
            if pv is not None and jv is not None and pv.public != jv.public:
                yield Finding(
                    "companion-mismatch", Severity.ERROR,
                    f"{plugin_name} {plugin.version} does not match jaxlib {jaxlib.version}; JAX requires "
                    "the CUDA plugin and jaxlib to be the same release.",
                    (ev("jaxlib", jaxlib.version, "metadata"), ev(plugin_name, plugin.version, "metadata")),
                    f"pip install -U 'jax[cuda{plugin_name[8:10]}]'  # installs a matching jaxlib and plugin",
                    "https://docs.jax.dev/en/latest/installation.html", "jax",
                )


class FreeThreadedRule:
    """A free-threaded CPython needs a free-threaded wheel, which torch publishes for some platforms only."""

    id = "free-threaded"
    summary = "the framework publishes free-threaded wheels for this platform"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield python-unsupported findings."""
        python = snapshot.python
        if not isinstance(python, PythonInfo) or not python.free_threaded:
            return
        build = snapshot.framework("torch")
        release = matrices.torch.release(build.version) if build is not None else None
        if build is None or release is None or release.free_threaded is None:
            return
        platform = platform_of(snapshot)
        if platform in release.free_threaded:
            return
        where = ", ".join(release.free_threaded) or "no platform"
        yield Finding(
            "python-unsupported", Severity.ERROR,
            f"Python {python.version} is a free-threaded build, but torch {release.version} published "
            f"free-threaded wheels only for {where}, not {platform}: the installed wheel's C extensions are built "
            "for the regular (GIL) interpreter and cannot load.",
            (ev("python", f"{python.version} (free-threaded)", python.source), build_evidence(build, snapshot),
             ev("free-threaded wheels", where, f"torch.toml {release.version} free_threaded")),
            "run it with the regular (GIL) Python of the same version, or use a torch release that publishes "
            f"free-threaded wheels for {platform}",
            release.prov.source, "torch",
        )
