"""Lock writers: render requirements.lock.txt, environment.yml, a Dockerfile and envguard.lock.json
from a LockSpec as text (deterministic: same lock, byte-identical files). They never touch the disk."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from string import Template

from packaging.version import Version

from envguard.errors import LockError
from envguard.knowledge import Matrices
from envguard.knowledge.cuda_images import CudaImage, ImageOs
from envguard.lock.spec import LOCK_JSON, LOCK_SCHEMA, LockSpec
from envguard.resources import data_dir

#: Output formats and the file each writes.
FILES: dict[str, str] = {
    "pip": "requirements.lock.txt",
    "conda": "environment.yml",
    "docker": "Dockerfile",
    "json": LOCK_JSON,
}
_IMAGE_REF = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*"
                        r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?$")


def check_image_ref(ref: str) -> str:
    """A Docker image reference safe to render into a FROM line.

    :raises LockError: otherwise.
    """
    if not _IMAGE_REF.fullmatch(ref):
        raise LockError(f"{ref!r} is not a Docker image reference (e.g. nvidia/cuda:12.4.1-runtime-ubuntu22.04)")
    return ref


@dataclass(frozen=True, slots=True)
class RenderedFile:
    """One output file: its name in the output folder and its text."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class BuiltImage:
    """An image `lock --build` built."""

    tag: str
    image_id: str
    duration_s: float


@dataclass(frozen=True, slots=True)
class LockOutcome:
    """The lock, its rendered files, where they went, and why the build was chosen."""

    spec: LockSpec
    files: tuple[RenderedFile, ...]
    written: tuple[str, ...]
    reasons: tuple[str, ...]
    wheels: tuple[str, ...] = ()
    image: BuiltImage | None = None
    #: The plan that decided the build (`lock --json`'s `plan`).
    plan: dict[str, object] | None = None


@dataclass(frozen=True, slots=True)
class DockerOptions:
    """Choices for the Dockerfile writer."""

    #: Overrides the base image the matrices pick (e.g. a local or mirrored image).
    base_image: str | None = None
    #: Install from a wheelhouse/ folder copied into the build context, with no index access.
    wheelhouse: bool = False
    #: --os: the OS tag of the base image (cuda-images.toml [[os]]).
    os_tag: str | None = None
    #: (image reference, "sha256:…") the engine resolved: FROM pins them by digest.
    digests: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class BaseImage:
    """The chosen base image, the packages that give it the lock's Python, and why."""

    ref: str
    python_packages: tuple[str, ...]
    python_exe: str
    reason: str
    #: The image brings no CUDA: the driver requirement goes into NVIDIA_REQUIRE_CUDA / labels instead.
    slim: bool = False
    #: Install the packages only when the image has no python X.Y (a --base-image).
    conditional: bool = False


def _template(name: str) -> Template:
    return Template((data_dir("templates") / name).read_text(encoding="utf-8"))


def header(spec: LockSpec) -> str:
    """The provenance header every text output opens with (comment lines)."""
    t = spec.target
    if t.cuda:
        cuda_line = f"CUDA {t.cuda} ({t.variant or 'CUDA'} build"
        cuda_line += f", cuDNN {t.cudnn}" if t.cudnn else ""
        cuda_line += f", NCCL {t.nccl}" if t.nccl else ""
        cuda_line += f"); needs NVIDIA driver >= {t.driver_floor}" if t.driver_floor else ")"
    elif t.variant == "cpu":
        cuda_line = "CPU build (no CUDA)"
    else:
        cuda_line = "no CUDA framework build locked"
    request = ", ".join(spec.requirements)
    if len(request) > 160:
        request = f"{len(spec.requirements)} requirements (see {LOCK_JSON})"
    return _template("lock-header.tmpl").substitute(
        envguard_version=spec.envguard_version or "?", python=t.python, platform=t.platform, cuda_line=cuda_line,
        fingerprint=spec.fingerprint, resolver=spec.resolver or "?", matrices=", ".join(spec.matrices) or "none",
        mode="installed packages" if spec.mode == "current" else "requirements", request=request or "none",
    ).rstrip("\n")


def render_pip(spec: LockSpec, _matrices: Matrices, _docker: DockerOptions) -> RenderedFile:
    """requirements.lock.txt: index lines, then ``==`` pins with every ``--hash``."""
    indexes = "\n".join(f"--index-url {i.url}" if i.reason == "--index-url" else
                        f"--extra-index-url {i.url}  # {i.reason}" for i in spec.indexes)
    pins = []
    shared = sorted((p for p in spec.packages if not p.marker), key=lambda p: p.key)
    marked = sorted((p for p in spec.packages if p.marker), key=lambda p: (p.marker or "", p.key))
    section = None
    for p in [*shared, *marked]:
        if p.marker and p.marker != section:
            section = p.marker
            pins.append(f"# Only where {p.marker}:")
        head = f"{p.name}=={p.version}" + (f" ; {p.marker}" if p.marker else "")
        lines = [head] + [f"    --hash={h}" for h in sorted(p.hashes)]
        pins.append(" \\\n".join(lines))
    text = _template("requirements.lock.txt.tmpl").substitute(
        header=header(spec), indexes=indexes + "\n" if indexes else "", pins="\n".join(pins))
    return RenderedFile(FILES["pip"], text.rstrip("\n") + "\n")


def render_conda(spec: LockSpec, _matrices: Matrices, _docker: DockerOptions) -> RenderedFile:
    """environment.yml: Python and cuda-version from conda-forge; the ``pip:`` section includes the hash-locked
    requirements.lock.txt beside it with ``-r`` (its index and hash lines are pip's syntax, which conda-lock
    and conda do not read inline)."""
    conda_pins = f"  - cuda-version={spec.target.cuda}\n" if spec.target.cuda else ""
    pip_lines = [f"    - -r {FILES['pip']}"]
    name = "envguard-" + spec.fingerprint.removeprefix("sha256:")[:12]
    text = _template("environment.yml.tmpl").substitute(
        header=header(spec), name=name, python=spec.target.python, conda_pins=conda_pins,
        pip_lines="\n".join(pip_lines))
    return RenderedFile(FILES["conda"], text.rstrip("\n") + "\n")


def render_json(spec: LockSpec, _matrices: Matrices, _docker: DockerOptions) -> RenderedFile:
    """envguard.lock.json: the versioned machine-readable spec."""
    return RenderedFile(FILES["json"], spec.to_json())


def _os_image(os_: ImageOs) -> str:
    """The plain OS image for a CPU lock ("ubuntu22.04" → "ubuntu:22.04", "debian12" → "debian:12-slim")."""
    if os_.tag.startswith("ubuntu"):
        return "ubuntu:" + os_.tag.removeprefix("ubuntu")
    if os_.tag.startswith("debian"):
        return "debian:" + os_.tag.removeprefix("debian") + "-slim"
    raise LockError(f"no plain image known for OS {os_.tag}")


def _pick_os(candidates: list[ImageOs], python: str) -> ImageOs | None:
    """Prefer an OS whose default python3 is the lock's Python; then the newest."""
    usable = [o for o in candidates if o.python(python) is not None and o.family == "apt"]
    if not usable:
        return None
    return max(usable, key=lambda o: (o.python_default == python, o.tag))


def choose_base_image(spec: LockSpec, matrices: Matrices, docker: DockerOptions) -> BaseImage:
    """The nvidia/cuda image (CUDA builds) or plain OS image (CPU) for the lock's CUDA, cuDNN and Python.

    :raises LockError: when no image in the matrices has the lock's CUDA and Python.
    """
    python = spec.target.python
    images = matrices.cuda_images
    if docker.base_image:
        ref = check_image_ref(docker.base_image)
        return BaseImage(ref, ("python3", "python3-venv"), f"python{python}",
                         f"{ref} (--base-image); its python{python} is used, or its OS's python3 installed when it "
                         f"has none (checked to be Python {python} at build time)", conditional=True)
    oses_all = [o for o in images.oses if docker.os_tag in (None, o.tag)]
    if spec.target.cuda and wheels_bring_cuda(spec) and docker.os_tag in (None, "debian12"):
        ref = f"python:{python}-slim" + ("-bookworm" if docker.os_tag == "debian12" else "")
        return BaseImage(ref, (), f"python{python}",
                         f"{ref} (Docker's official Python image, https://hub.docker.com/_/python): the locked "
                         f"wheels bring CUDA {spec.target.cuda}'s libraries, so no CUDA base image is needed; "
                         "the NVIDIA container toolkit adds the driver (NVIDIA_REQUIRE_CUDA below)", slim=True)
    if spec.target.cuda is None:
        os_ = _pick_os(oses_all, python)
        if os_ is None:
            raise LockError(f"no OS in cuda-images.toml [[os]] ships Python {python} in its own repositories; "
                            "lock for another Python or pass --base-image")
        entry = os_.python(python)
        assert entry is not None  # reason: _pick_os keeps only OSes that have it
        return BaseImage(_os_image(os_), (entry.package, entry.venv_package), _exe(entry.package),
                         f"{_os_image(os_)}: CPU lock; {os_.tag} ships Python {python} as {entry.package}")
    want = Version(spec.target.cuda)
    row: CudaImage | None = next((i for i in images.images
                                  if (i.cuda.major, i.cuda.minor) == (want.major, want.minor)), None)
    if row is None:
        raise LockError(f"cuda-images.toml has no nvidia/cuda image for CUDA {spec.target.cuda}; "
                        "pass --base-image")
    oses = [o for o in oses_all if o.tag in row.os]
    os_ = _pick_os(oses, python)
    if os_ is None:
        offered = "; ".join(f"{o.tag}: {', '.join(p.version for p in o.pythons)}" for o in oses) or "none known"
        raise LockError(f"no nvidia/cuda {row.cuda} image OS ships Python {python} in its own repositories "
                        f"(cuda-images.toml: {offered}); lock for one of those Pythons or pass --base-image")
    entry = os_.python(python)
    assert entry is not None  # reason: _pick_os keeps only OSes that have it
    # NOTE: pip wheels that bring cuDNN (nvidia-cudnn-*) make the image's own cuDNN dead weight.
    pip_cudnn = any(p.key.startswith("nvidia-cudnn") for p in spec.packages)
    if pip_cudnn or not row.cudnn_flavor:
        flavor = "runtime"
        why = "cuDNN comes from the locked nvidia-cudnn wheel" if pip_cudnn else "the image has no cuDNN flavour"
    else:
        flavor = f"{row.cudnn_flavor}-runtime"
        why = f"cuDNN {row.cudnn} from the image"
    ref = f"nvidia/cuda:{row.cuda}-{flavor}-{os_.tag}"
    rc = "" if os_.python_default == python else " (not its default python3)"
    return BaseImage(ref, (entry.package, entry.venv_package), _exe(entry.package),
                     f"{ref}: CUDA {row.cuda} for the {spec.target.variant or 'CUDA'} build; {why}; "
                     f"{os_.tag} ships Python {python} as {entry.package}{rc}")


def wheels_bring_cuda(spec: LockSpec) -> bool:
    """True when the lock installs NVIDIA's CUDA runtime as a wheel (torch, tensorflow[and-cuda], jax[cudaN])."""
    return any(re.fullmatch(r"nvidia-cuda-runtime(-cu\d+)?", p.key) for p in spec.packages)


def _exe(package: str) -> str:
    return "python3" if package == "python3" else package


def render_docker(spec: LockSpec, matrices: Matrices, docker: DockerOptions) -> RenderedFile:
    """Dockerfile: pinned base and Python, non-root user, hash-checked install, fingerprint labels, health check."""
    base = choose_base_image(spec, matrices, docker)
    has_envguard = spec.package("envguard") is not None
    healthcheck = (
        'HEALTHCHECK --interval=10m --timeout=60s CMD ["envguard", "-q", "check", "--fail-on", "error"]'
        if has_envguard else
        "# No HEALTHCHECK: envguard is not in this lock. Add envguard to the request (from your index or a\n"
        "# --find-links folder) and the image checks itself with `envguard check`."
    )
    digest = dict(docker.digests).get(base.ref)
    ref = f"{base.ref}@{digest}" if digest and "@" not in base.ref else base.ref
    pinned = "" if "@" in ref else ("\n# Not pinned by digest: no Docker engine resolved it here; pull it and "
                                    "re-lock to pin it.")
    apt = ("RUN apt-get update \\\n    && apt-get install -y --no-install-recommends "
           f"{' '.join(base.python_packages)} ca-certificates \\\n    && rm -rf /var/lib/apt/lists/*\n")
    if not base.python_packages:
        apt = ""
    elif base.conditional:
        apt = (f"RUN command -v {base.python_exe} >/dev/null 2>&1 || (apt-get update \\\n"
               f"    && apt-get install -y --no-install-recommends {' '.join(base.python_packages)} ca-certificates "
               "\\\n    && rm -rf /var/lib/apt/lists/*)\n")
    t = spec.target
    gpu_env = ""
    if base.slim and t.cuda:
        gpu_env = ("ENV NVIDIA_VISIBLE_DEVICES=all \\\n    NVIDIA_DRIVER_CAPABILITIES=compute,utility \\\n"
                   f'    NVIDIA_REQUIRE_CUDA="cuda>={t.cuda}"\n')
    floor_label = f' \\\n      io.envguard.driver-floor="{t.driver_floor}"' if t.driver_floor else ""
    text = _template("Dockerfile.tmpl").substitute(
        header=header(spec), base_reason=base.reason + pinned, base_image=ref, apt_install=apt, gpu_env=gpu_env,
        floor_label=floor_label,
        python_exe=base.python_exe, python=spec.target.python,
        wheelhouse_copy="COPY wheelhouse/ /tmp/envguard/wheelhouse/\n" if docker.wheelhouse else "",
        pip_source="--no-index --find-links /tmp/envguard/wheelhouse " if docker.wheelhouse else "",
        fingerprint=spec.fingerprint, lock_schema=LOCK_SCHEMA, cuda_label=spec.target.cuda or "none",
        envguard_version=spec.envguard_version or "?", healthcheck=healthcheck,
        # NOTE: a CPU image needs no GPU; `--gpus all` would fail on a machine without the NVIDIA runtime.
        run_command="docker run --rm --gpus all IMAGE" if spec.target.cuda else "docker run --rm IMAGE",
    )
    return RenderedFile(FILES["docker"], text.rstrip("\n") + "\n")


Writer = Callable[[LockSpec, Matrices, DockerOptions], RenderedFile]
WRITERS: dict[str, Writer] = {"pip": render_pip, "conda": render_conda, "docker": render_docker, "json": render_json}


def render(
    spec: LockSpec, matrices: Matrices, formats: tuple[str, ...], docker: DockerOptions,
) -> tuple[RenderedFile, ...]:
    """Every requested output, in FILES order; docker and conda bring requirements.lock.txt, which the
    Dockerfile COPYs and environment.yml includes.

    :raises LockError: for an unknown format or an unrenderable lock.
    """
    unknown = [f for f in formats if f not in WRITERS]
    if unknown:
        raise LockError(f"unknown --format {', '.join(unknown)} (choose from {', '.join(WRITERS)})")
    if "docker" in formats or "conda" in formats:
        formats = (*formats, "pip")
    return tuple(WRITERS[f](spec, matrices, docker) for f in FILES if f in formats)
