"""`envguard init ci|fleet`."""

from __future__ import annotations

import os

import click

from envguard.cli._shared import (
    EXIT_OK,
    fail,
    split_values,
)
from envguard.commands import init as use
from envguard.errors import EnvguardError


@click.group("init")
def init_group() -> None:
    """Write CI workflows and fleet launchers that run envguard (review them, then commit them)."""


def _emit_scaffold(files: tuple[tuple[str, str], ...], written: tuple[str, ...], dry_run: bool,
                   next_step: str) -> None:
    """--dry-run: each (path, text) on stdout, its name on stderr; otherwise what was written and what next."""
    if dry_run:
        for path, text in files:
            click.echo(f"envguard: would write {path} (dry run: nothing written)", err=True)
            click.echo(text, nl=False)
        return
    for path in written:
        click.echo(f"envguard: wrote {path}", err=True)
    click.echo(f"envguard: next: {next_step}", err=True)


@init_group.command("ci")
@click.option("--github", is_flag=True, help="GitHub Actions: .github/workflows/envguard-preflight.yml.")
@click.option("--gitlab", is_flag=True, help="GitLab CI: .gitlab/envguard-preflight.gitlab-ci.yml (to include).")
@click.option("--pre-commit", "pre_commit", is_flag=True,
              help="pre-commit: .pre-commit-config.yaml with a local `envguard verify` hook.")
@click.option("--runner-label", "runner_labels", multiple=True, default=("self-hosted,linux,gpu",),
              show_default=True, metavar="LABEL[,LABEL]",
              help="Labels of the self-hosted GPU runner (GitHub runs-on; GitLab tags, without self-hosted).")
@click.option("--python", "python", metavar="PATH", help="Interpreter under test on the runner.  "
              "[default: envguard's own]")
@click.option("--lock", metavar="FILE|DIR", help="Lock to verify against.  [default: ./envguard.lock.json "
              "(pre-commit), when present (preflight)]")
@click.option("--smoke-level", type=int, default=1, show_default=True, help="Preflight smoke level (0 skips it).")
@click.option("--install-cmd", metavar="COMMAND", help="How the runner installs envguard (the name envguard on the "
              "public index is an unrelated project).  [default: the source this envguard was installed from: its "
              "git URL and commit, or its wheel]")
@click.option("-o", "--output-dir", default=".", show_default=True, metavar="DIR",
              help="Repository root to write into.")
@click.option("--force", is_flag=True, help="Overwrite existing files.")
@click.option("--dry-run", is_flag=True, help="Print the files instead of writing them.")
def init_ci(
    github: bool, gitlab: bool, pre_commit: bool, runner_labels: tuple[str, ...], python: str | None,
    lock: str | None, smoke_level: int, install_cmd: str | None, output_dir: str, force: bool, dry_run: bool,
) -> None:
    """Write GPU CI jobs (GitHub Actions, GitLab CI) and a pre-commit verify hook.

    The CI jobs run `envguard preflight` on a self-hosted GPU runner and keep its results.

    \b
    Default: all three (--github --gitlab --pre-commit).
    envguard init ci --github --runner-label self-hosted,linux,a100
    envguard init ci --pre-commit --lock lock/ --dry-run
    """
    from envguard.ci_setup import ci_inputs
    from envguard.scaffold import DEFAULT_LOCK, CiOptions

    chosen = {"github": github, "gitlab": gitlab, "pre-commit": pre_commit}
    kinds = tuple(k for k, on in chosen.items() if on) or tuple(chosen)
    try:
        install, defaulted = ci_inputs(kinds, output_dir, lock or DEFAULT_LOCK, install_cmd)
        options = CiOptions(runner_labels=split_values(runner_labels), python=python, lock=lock,
                            smoke_level=smoke_level, install_cmd=install)
        files = use.render_ci(kinds, options)
        written = () if dry_run else use.init_ci(kinds, output_dir, force, options)
    except EnvguardError as exc:
        fail(exc, "text", "init ci")
    _emit_scaffold(tuple((f.path, f.text) for f in files), written, dry_run,
                   "review the install command (REVIEW note), then commit the files" if defaulted
                   else "commit the files")
    raise SystemExit(EXIT_OK)


@init_group.command("fleet")
@click.option("--slurm", is_flag=True, help="An sbatch script: envguard-preflight.sbatch.")
@click.option("--kubernetes", is_flag=True, help="A headless Service and an Indexed Job: envguard-preflight.yaml.")
@click.option("--nodes", type=int, default=2, show_default=True, help="Nodes to check (one envguard each).")
@click.option("--gpus-per-node", type=int, default=8, show_default=True,
              help="GPUs to request on each node (0: CPU nodes, no GPU request).")
@click.option("--partition", metavar="NAME[,NAME]", help="Slurm partition.  [default: the cluster's]")
@click.option("--time", "time_limit", default="00:30:00", show_default=True, metavar="TIME",
              help="Wall-clock limit, Slurm format (Kubernetes: the Job's activeDeadlineSeconds).")
@click.option("--image", metavar="IMAGE", help="Kubernetes: an image holding envguard and the frameworks (required).")
@click.option("--namespace", metavar="NAME", help="Kubernetes namespace.  [default: kubectl's current]")
@click.option("--job-name", default="envguard-preflight", show_default=True, metavar="NAME",
              help="Slurm job / Kubernetes Job and Service name.")
@click.option("--smoke-level", type=int, default=1, show_default=True, help="Preflight smoke level (0 skips it).")
@click.option("--python", "python", metavar="PATH", help="Interpreter under test on the nodes.  "
              "[default: envguard's own]")
@click.option("--lock", metavar="FILE|DIR", help="Lock to verify against on the nodes.  "
              "[default: ./envguard.lock.json when present]")
@click.option("--rdzv-port", type=int, default=29500, show_default=True,
              help="c10d rendezvous port of the multi-node DDP smoke.")
@click.option("-o", "--output-dir", default=".", show_default=True, metavar="DIR", help="Folder to write into.")
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
@click.option("--dry-run", is_flag=True, help="Print the file instead of writing it.")
def init_fleet(
    slurm: bool, kubernetes: bool, nodes: int, gpus_per_node: int, partition: str | None, time_limit: str,
    image: str | None, namespace: str | None, job_name: str, smoke_level: int, python: str | None,
    lock: str | None, rdzv_port: int, output_dir: str, force: bool, dry_run: bool,
) -> None:
    """Write a Slurm or Kubernetes launcher that preflights every node of a GPU fleet.

    Preflight on every node, then a multi-node DDP smoke (torchrun, c10d rendezvous), then a fleet
    report. envguard schedules nothing itself: the cluster's scheduler runs one envguard per node.

    \b
    envguard init fleet --slurm --nodes 4 --gpus-per-node 8 --partition gpu
    envguard init fleet --kubernetes --nodes 4 --image registry.example.com/train:1.2 --namespace ml
    """
    from envguard.scaffold import FLEET_FILES, FleetOptions

    if slurm == kubernetes:
        raise click.UsageError("choose one of --slurm and --kubernetes")
    kind = "slurm" if slurm else "kubernetes"
    if kind == "kubernetes" and image is None:
        raise click.UsageError("--kubernetes needs --image (an image with envguard and the frameworks to check)")
    try:
        options = FleetOptions(nodes=nodes, gpus_per_node=gpus_per_node, partition=partition, time=time_limit,
                               image=image, namespace=namespace, smoke_level=smoke_level, python=python, lock=lock,
                               job_name=job_name, rdzv_port=rdzv_port)
        files = use.render_fleet(kind, options)
        written = () if dry_run else use.init_fleet(kind, output_dir, force, options)
    except EnvguardError as exc:
        fail(exc, "text", f"init fleet --{kind}")
    path = os.path.join(output_dir, FLEET_FILES[kind])
    step = f"sbatch {path}" if kind == "slurm" else f"kubectl apply -f {path} (then collect the logs: see its header)"
    _emit_scaffold(tuple((f.path, f.text) for f in files), written, dry_run, step)
    raise SystemExit(EXIT_OK)
