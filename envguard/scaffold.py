"""Scaffolds for `envguard init`: CI workflows (GitHub Actions, GitLab CI, pre-commit) and fleet launchers
(a Slurm batch script, a Kubernetes Indexed Job) rendered from templates/*.tmpl as text.

Pure: every user value is checked against a strict pattern or range before it reaches a template, and
the same options always give byte-identical files. Nothing here touches the disk. envguard schedules
nothing itself: these files hand the fan-out to the CI system or the cluster's scheduler.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from string import Template

from envguard._version import __version__
from envguard.errors import InputError
from envguard.resources import data_dir

#: `envguard init ci` kinds, in the order their files are written, and the file each writes.
CI_FILES: dict[str, str] = {
    "github": ".github/workflows/envguard-preflight.yml",
    "gitlab": ".gitlab/envguard-preflight.gitlab-ci.yml",
    "pre-commit": ".pre-commit-config.yaml",
}
#: `envguard init fleet` kinds and the file each writes.
FLEET_FILES: dict[str, str] = {
    "slurm": "envguard-preflight.sbatch",
    "kubernetes": "envguard-preflight.yaml",
}
#: The folder `envguard preflight` writes in CI (its own default).
CI_RESULTS = "envguard-preflight"
DEFAULT_RUNNER_LABELS = ("self-hosted", "linux", "gpu")
# NOTE: the name "envguard" on the public package index belongs to an unrelated project; every file that
# carries this command says so next to it, and `--install-cmd` replaces it.
DEFAULT_INSTALL_CMD = "python3 -m pip install envguard"
DEFAULT_LOCK = "envguard.lock.json"
DEFAULT_JOB_NAME = "envguard-preflight"
DEFAULT_TIME = "00:30:00"
#: Files whose change makes the pre-commit hook run `envguard verify`.
_LOCKISH = (r"(^|/)(envguard\.lock\.json|requirements[^/]*\.(txt|in)|pyproject\.toml|environment\.ya?ml"
            r"|uv\.lock|poetry\.lock)$")

_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_PATH = re.compile(r"[A-Za-z0-9_./~][A-Za-z0-9_./~+-]{0,255}")
# NOTE: one line of printable ASCII; it is quoted as a YAML string, so only the user's shell reads it.
_COMMAND = re.compile(r"[!-~](?:[ -~]{0,398}[!-~])?")
_PARTITION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(?:,[A-Za-z0-9][A-Za-z0-9_.-]{0,63}){0,7}")
_DNS_LABEL = re.compile(r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?")
# NOTE: the same grammar as envguard.lock.render's check (a sibling layer, so not imported from there).
_IMAGE_REF = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*"
                        r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?")
# Slurm --time: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S.
_TIME = re.compile(r"(?:(?P<d>\d{1,2})-(?P<dh>\d{1,2})(?::(?P<dm>\d{2})(?::(?P<ds>\d{2}))?)?"
                   r"|(?P<h>\d{1,3}):(?P<hm>\d{2}):(?P<hs>\d{2})|(?P<m>\d{1,5})(?::(?P<ms>\d{2}))?)")
MAX_NODES = 4096
MAX_GPUS_PER_NODE = 64
#: The longest --time accepted (30 days), in seconds.
MAX_TIME_S = 30 * 86400


@dataclass(frozen=True, slots=True)
class ScaffoldFile:
    """One rendered file: its path relative to the output folder (POSIX separators) and its text."""

    path: str
    text: str


@dataclass(frozen=True, slots=True)
class CiOptions:
    """What `envguard init ci` was asked for."""

    #: Self-hosted runner labels (GitHub ``runs-on``; GitLab ``tags`` without "self-hosted").
    runner_labels: tuple[str, ...] = DEFAULT_RUNNER_LABELS
    #: The interpreter under test on the runner (``--python``); None: envguard's own.
    python: str | None = None
    #: The lock to verify against; None: preflight's default (./envguard.lock.json when present).
    lock: str | None = None
    smoke_level: int = 1
    install_cmd: str = DEFAULT_INSTALL_CMD


@dataclass(frozen=True, slots=True)
class FleetOptions:
    """What `envguard init fleet` was asked for."""

    nodes: int = 2
    gpus_per_node: int = 8
    #: Slurm partition(s); None: the cluster's default.
    partition: str | None = None
    #: Wall-clock limit in Slurm's format (also the Kubernetes Job's activeDeadlineSeconds).
    time: str = DEFAULT_TIME
    #: Kubernetes: the container image holding envguard and the frameworks under test (required).
    image: str | None = None
    #: Kubernetes namespace; None: kubectl's current one.
    namespace: str | None = None
    smoke_level: int = 1
    python: str | None = None
    lock: str | None = None
    job_name: str = DEFAULT_JOB_NAME
    rdzv_port: int = 29500


def _template(name: str) -> Template:
    return Template((data_dir("templates") / name).read_text(encoding="utf-8"))


def _check(pattern: re.Pattern[str], value: str, what: str, example: str) -> str:
    if not pattern.fullmatch(value):
        raise InputError(f"{what} {value!r} is not valid (e.g. {example})")
    return value


def _check_range(value: int, low: int, high: int, what: str) -> int:
    if not low <= value <= high:
        raise InputError(f"{what} {value} is out of range ({low}..{high})")
    return value


def check_image(ref: str) -> str:
    """A container image reference safe to render.

    :raises InputError: otherwise.
    """
    return _check(_IMAGE_REF, ref, "--image", "registry.example.com/team/train:2024.06")


def time_seconds(value: str) -> int:
    """Seconds in a Slurm ``--time`` value (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S).

    :raises InputError: for another format, or outside one minute..30 days.
    """
    match = _TIME.fullmatch(value)
    if match is None:
        raise InputError(f"--time {value!r} is not a Slurm time (e.g. 30, 00:30:00 or 1-00:00:00)")
    g = {k: int(v) if v else 0 for k, v in match.groupdict().items()}
    if any(g[k] >= 60 for k in ("dm", "ds", "hm", "hs", "ms")) or g["dh"] >= 24:
        raise InputError(f"--time {value!r}: minutes and seconds must be below 60, hours below 24")
    seconds = (g["d"] * 86400 + g["dh"] * 3600 + g["dm"] * 60 + g["ds"] + g["h"] * 3600 + g["hm"] * 60 + g["hs"]
               + g["m"] * 60 + g["ms"])
    if not 60 <= seconds <= MAX_TIME_S:
        raise InputError(f"--time {value!r} is out of range (1 minute to 30 days)")
    return seconds


def _check_common(python: str | None, lock: str | None, smoke_level: int) -> None:
    if python is not None:
        _check(_PATH, python, "--python", ".venv/bin/python")
    if lock is not None:
        _check(_PATH, lock, "--lock", "envguard.lock.json")
    _check_range(smoke_level, 0, 3, "--smoke-level")


def check_ci(options: CiOptions) -> CiOptions:
    """The options, when every value is safe to render.

    :raises InputError: naming the first bad value.
    """
    if not options.runner_labels:
        raise InputError("--runner-label: give at least one runner label")
    if len(options.runner_labels) > 16 or len(set(options.runner_labels)) != len(options.runner_labels):
        raise InputError("--runner-label: at most 16 labels, each once")
    for label in options.runner_labels:
        _check(_LABEL, label, "--runner-label", "self-hosted,linux,gpu")
    _check_common(options.python, options.lock, options.smoke_level)
    _check(_COMMAND, options.install_cmd, "--install-cmd", f'"{DEFAULT_INSTALL_CMD}" (one line, printable ASCII)')
    return options


def check_fleet(kind: str, options: FleetOptions) -> FleetOptions:
    """The options, when every value is safe to render for ``kind``.

    :raises InputError: naming the first bad value.
    """
    if kind not in FLEET_FILES:
        raise InputError(f"unknown fleet kind {kind!r} (choose from {', '.join(FLEET_FILES)})")
    _check_range(options.nodes, 1, MAX_NODES, "--nodes")
    _check_range(options.gpus_per_node, 1, MAX_GPUS_PER_NODE, "--gpus-per-node")
    _check_range(options.rdzv_port, 1024, 65535, "--rdzv-port")
    _check_common(options.python, options.lock, options.smoke_level)
    time_seconds(options.time)
    # NOTE: Kubernetes names each Indexed Job pod "<job>-<index>", a hostname of at most 63 characters.
    if len(options.job_name) > 47:
        raise InputError(f"--job-name {options.job_name!r} is longer than 47 characters")
    _check(_DNS_LABEL, options.job_name, "--job-name", DEFAULT_JOB_NAME)
    if options.partition is not None:
        if kind != "slurm":
            raise InputError("--partition is a Slurm option")
        _check(_PARTITION, options.partition, "--partition", "gpu")
    if kind == "kubernetes":
        if options.image is None:
            raise InputError("--kubernetes needs --image (an image with envguard and the frameworks to check)")
        check_image(options.image)
        if options.namespace is not None:
            _check(_DNS_LABEL, options.namespace, "--namespace", "ml-infra")
    elif options.image is not None or options.namespace is not None:
        raise InputError("--image and --namespace are Kubernetes options")
    return options


def _quoted(value: str) -> str:
    """A YAML double-quoted scalar (a JSON string is one), so no value can change the YAML's structure."""
    return json.dumps(value)


def _flow_list(values: Sequence[str]) -> str:
    return "[" + ", ".join(_quoted(v) for v in values) + "]"


def _header(what: str, argv: Sequence[str]) -> str:
    return _template("scaffold-header.tmpl").substitute(
        envguard_version=__version__, what=what, command=shlex.join(["envguard", *argv, "--force"]),
    ).rstrip("\n")


def _python_args(python: str | None) -> str:
    return f"--python {python} " if python is not None else ""


def _preflight_args(python: str | None, lock: str | None, smoke_level: int) -> str:
    """``envguard preflight`` options (without --out), each value already checked."""
    lock_part = f"--lock {lock} " if lock is not None else ""
    return f"{_python_args(python)}{lock_part}--smoke-level {smoke_level}"


def _ci_argv(kind: str, o: CiOptions) -> list[str]:
    argv = ["init", "ci", f"--{kind}"]
    if kind != "pre-commit":
        argv += ["--runner-label", ",".join(o.runner_labels), "--smoke-level", str(o.smoke_level)]
        if o.install_cmd != DEFAULT_INSTALL_CMD:
            argv += ["--install-cmd", o.install_cmd]
    if o.python is not None:
        argv += ["--python", o.python]
    if o.lock is not None:
        argv += ["--lock", o.lock]
    return argv


def render_github(o: CiOptions) -> ScaffoldFile:
    """A GitHub Actions workflow: one preflight job on the self-hosted GPU runner, results uploaded always."""
    preflight = f"envguard preflight {_preflight_args(o.python, o.lock, o.smoke_level)} --out {CI_RESULTS} --force"
    text = _template("github-actions.yml.tmpl").substitute(
        header=_header("a GitHub Actions workflow (`envguard init ci --github`)", _ci_argv("github", o)),
        runs_on=_flow_list(o.runner_labels), install_cmd=_quoted(o.install_cmd), preflight=_quoted(preflight),
        results=CI_RESULTS, smoke_level=o.smoke_level,
    )
    return ScaffoldFile(CI_FILES["github"], text)


def render_gitlab(o: CiOptions) -> ScaffoldFile:
    """A GitLab CI job for the GPU runner, with the JUnit report and the results as artifacts."""
    # NOTE: "self-hosted" is GitHub's label for every self-hosted runner; GitLab runners are tagged by hand.
    tags = [t for t in o.runner_labels if t != "self-hosted"] or list(o.runner_labels)
    preflight = f"envguard preflight {_preflight_args(o.python, o.lock, o.smoke_level)} --out {CI_RESULTS} --force"
    text = _template("gitlab-ci.yml.tmpl").substitute(
        header=_header("a GitLab CI job (`envguard init ci --gitlab`)", _ci_argv("gitlab", o)),
        path=CI_FILES["gitlab"], tags=_flow_list(tags), install_cmd=_quoted(o.install_cmd),
        preflight=_quoted(preflight), results=CI_RESULTS,
    )
    return ScaffoldFile(CI_FILES["gitlab"], text)


def render_pre_commit(o: CiOptions) -> ScaffoldFile:
    """A pre-commit config with one local hook: `envguard verify` when a lock or requirements file changes."""
    lock = o.lock or DEFAULT_LOCK
    files = _LOCKISH
    if not re.search(files, lock.rstrip("/")):
        files = f"{files}|^{re.escape(lock.rstrip('/'))}(/|$)"
    entry = f"envguard verify {lock}" + (f" --python {o.python}" if o.python is not None else "")
    text = _template("pre-commit-config.yaml.tmpl").substitute(
        header=_header("a pre-commit configuration (`envguard init ci --pre-commit`)", _ci_argv("pre-commit", o)),
        entry=_quoted(entry), files=f"'{files}'", lock=lock,
    )
    return ScaffoldFile(CI_FILES["pre-commit"], text)


_CI_RENDERERS = {"github": render_github, "gitlab": render_gitlab, "pre-commit": render_pre_commit}


def render_ci(kinds: Sequence[str], options: CiOptions) -> tuple[ScaffoldFile, ...]:
    """The files for ``kinds`` (any of github, gitlab, pre-commit), in that fixed order.

    :raises InputError: an unknown kind or a bad option value.
    """
    unknown = [k for k in kinds if k not in CI_FILES]
    if unknown or not kinds:
        raise InputError(f"unknown CI kind {', '.join(unknown) or '(none)'} (choose from {', '.join(CI_FILES)})")
    check_ci(options)
    return tuple(_CI_RENDERERS[k](options) for k in CI_FILES if k in kinds)


def _fleet_argv(kind: str, o: FleetOptions) -> list[str]:
    argv = ["init", "fleet", f"--{kind}", "--nodes", str(o.nodes), "--gpus-per-node", str(o.gpus_per_node),
            "--time", o.time, "--smoke-level", str(o.smoke_level)]
    for flag, value in (("--partition", o.partition), ("--image", o.image), ("--namespace", o.namespace),
                        ("--python", o.python), ("--lock", o.lock)):
        if value is not None:
            argv += [flag, value]
    if o.job_name != DEFAULT_JOB_NAME:
        argv += ["--job-name", o.job_name]
    if o.rdzv_port != 29500:
        argv += ["--rdzv-port", str(o.rdzv_port)]
    return argv


def render_slurm(o: FleetOptions) -> ScaffoldFile:
    """An sbatch script: preflight on every node (srun, one task per node), a multi-node DDP smoke, a report."""
    directives = [f"--job-name={o.job_name}", f"--nodes={o.nodes}", "--ntasks-per-node=1",
                  f"--gpus-per-node={o.gpus_per_node}", f"--time={o.time}"]
    if o.partition is not None:
        directives.append(f"--partition={o.partition}")
    directives.append(f"--output={o.job_name}-%j.out")
    text = _template("slurm-preflight.sbatch.tmpl").substitute(
        header=_header("a Slurm batch script (`envguard init fleet --slurm`)", _fleet_argv("slurm", o)),
        directives="\n".join(f"#SBATCH {d}" for d in directives), path=FLEET_FILES["slurm"],
        preflight_args=_preflight_args(o.python, o.lock, o.smoke_level), python_args=_python_args(o.python),
        gpus_per_node=o.gpus_per_node, rdzv_port=o.rdzv_port,
    )
    return ScaffoldFile(FLEET_FILES["slurm"], text)


def render_kubernetes(o: FleetOptions) -> ScaffoldFile:
    """A headless Service and an Indexed Job: one pod per GPU node, preflight then a multi-node DDP smoke."""
    if o.image is None:
        raise InputError("--kubernetes needs --image")
    ns_flag = f" -n {o.namespace}" if o.namespace is not None else ""
    text = _template("k8s-preflight.yaml.tmpl").substitute(
        header=_header("Kubernetes manifests (`envguard init fleet --kubernetes`)", _fleet_argv("kubernetes", o)),
        path=FLEET_FILES["kubernetes"], name=o.job_name, kubectl_ns=ns_flag,
        namespace_line=f"  namespace: {o.namespace}\n" if o.namespace is not None else "",
        nodes=o.nodes, gpus_per_node=o.gpus_per_node, image=_quoted(o.image), rdzv_port=o.rdzv_port,
        deadline_s=time_seconds(o.time), preflight_args=_preflight_args(o.python, o.lock, o.smoke_level),
        python_args=_python_args(o.python),
    )
    return ScaffoldFile(FLEET_FILES["kubernetes"], text)


def render_fleet(kind: str, options: FleetOptions) -> tuple[ScaffoldFile, ...]:
    """The launcher for ``kind`` ("slurm" or "kubernetes").

    :raises InputError: an unknown kind or a bad option value.
    """
    check_fleet(kind, options)
    return (render_slurm(options) if kind == "slurm" else render_kubernetes(options),)
