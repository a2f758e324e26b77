"""The `envguard init fleet --slurm` job, unmodified, on a real Slurm cluster: Debian's slurm-wlm 22.05 and munge,
slurmctld and three `slurmd -N nodeN` on 127.0.0.1 (tests/slurm_cluster.py), started once per session.

Each test writes the job with the real CLI, submits it with `sbatch` and reads what the nodes wrote: preflight
on every node through `srun --ntasks-per-node=1`, the multi-node DDP smoke (torchrun, c10d rendezvous at the
first node's NodeAddr, gloo on the CPU) and `envguard fleet report`. Select them with `-m slurm`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.slurm_cluster import ClusterError, SlurmCluster, job_processes, missing_commands

pytestmark = [pytest.mark.slow, pytest.mark.slurm]

ROOT = Path(__file__).resolve().parent.parent
TORCH_PYTHON = ROOT / ".venv" / "bin" / "python"
#: The job's own wall-clock limit (--time, minutes) and how long a test waits for it, in seconds.
JOB_TIME = "5"
JOB_WAIT_S = 240.0
PAYLOAD = "envguard_smoke_payload.py"


def _has_torch() -> bool:
    if not TORCH_PYTHON.exists():
        return False
    probe = "import importlib.util,sys; sys.exit(importlib.util.find_spec('torch') is None)"
    return subprocess.run([str(TORCH_PYTHON), "-c", probe], timeout=60, check=False).returncode == 0


@pytest.fixture(scope="session")
def slurm() -> Iterator[SlurmCluster]:
    """The running cluster; skipped without root, failed (not skipped) as root when it cannot start."""
    if os.geteuid() != 0:
        pytest.skip("the Slurm test cluster needs root (munged, slurmctld and slurmd run as root)")
    missing = missing_commands()
    if missing:
        pytest.fail(f"as root the Slurm tests need {', '.join(missing)}: run scripts/test-env (it installs "
                    "Debian's slurm-wlm and munge)")
    if not _has_torch():
        pytest.skip("needs the project .venv with torch (the DDP smoke)")
    # NOTE: a short path: munged's socket path must fit a sockaddr_un (108 bytes).
    root = Path(tempfile.mkdtemp(prefix="envguard-slurm-", dir="/tmp"))
    cluster = SlurmCluster(root, nodes=3)
    try:
        cluster.start()
    except (ClusterError, OSError, subprocess.SubprocessError) as exc:
        cluster.stop()
        pytest.fail(f"the Slurm test cluster did not start: {exc}")
    started = time.monotonic()
    yield cluster
    cluster.stop()
    print(f"slurm cluster served the tests for {time.monotonic() - started:.1f}s")
    shutil.rmtree(root, ignore_errors=True)


def _bin_dir() -> Path:
    """The folder holding this session's `envguard` command (the job finds it on PATH)."""
    folder = Path(sys.executable).parent
    if not (folder / "envguard").exists():
        pytest.skip(f"no envguard command beside {sys.executable} (pip install -e . into that environment)")
    return folder


def _job_env(cluster: SlurmCluster, **extra: str) -> dict[str, str]:
    # NOTE: sbatch passes its whole environment to the job (--export=ALL), as a user's shell would.
    env = cluster.env(extra)
    env["PATH"] = f"{_bin_dir()}:{env['PATH']}"
    for key in [k for k in env if k.startswith(("SLURM_", "PYTEST_"))]:
        if key != "SLURM_CONF":
            del env[key]
    return env


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _write_job(folder: Path, *args: str) -> Path:
    """`envguard init fleet --slurm` for CPU nodes, through the real CLI, into ``folder``."""
    result = subprocess.run(
        [str(_bin_dir() / "envguard"), "init", "fleet", "--slurm", "--gpus-per-node", "0", "--time", JOB_TIME,
         "--rdzv-port", str(_free_port()), "-o", str(folder), *args],
        capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    script = folder / "envguard-preflight.sbatch"
    assert f"next: sbatch {script}" in result.stderr
    return script


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def _ddp_case(node_dir: Path) -> dict[str, Any]:
    doc = _json(node_dir / "ddp" / "smoke.json")
    (case,) = doc["results"]
    assert case["case"] == "ddp"
    return dict(case)


def _fleet_json(results: Path) -> dict[str, Any]:
    run = subprocess.run([str(_bin_dir() / "envguard"), "fleet", "report", str(results), "--format", "json"],
                         capture_output=True, text=True, timeout=60, check=False)
    doc = json.loads(run.stdout)
    assert doc["exit_code"] == run.returncode
    return dict(doc)


def _no_processes_left(job_id: str, grace_s: float = 10.0) -> dict[int, list[str]]:
    end = time.monotonic() + grace_s
    while (left := job_processes(job_id)) and time.monotonic() < end:
        time.sleep(0.2)
    return left


def test_the_generated_job_runs_on_two_nodes(slurm: SlurmCluster, tmp_path: Path) -> None:
    script = _write_job(tmp_path, "--nodes", "2", "--python", str(TORCH_PYTHON), "--smoke-level", "1")
    started = time.monotonic()
    job = slurm.sbatch(script, env=_job_env(slurm))
    state = slurm.wait(job, JOB_WAIT_S)
    took = time.monotonic() - started
    output = (tmp_path / f"envguard-preflight-{job}.out").read_text()
    assert (state.state, state.exit_code) == ("COMPLETED", 0), output
    results = tmp_path / "results" / job
    nodes = sorted(p.name for p in results.iterdir() if p.is_dir())
    assert nodes == ["node1", "node2"]
    digests = []
    for name in nodes:
        preflight = _json(results / name / "preflight.json")
        assert preflight["node"] == name  # SLURMD_NODENAME: both nodes share this host's hostname
        assert preflight["exit_code"] == 0, preflight
        assert {s["step"]: s["status"] for s in preflight["steps"]} == {"check": "ran", "smoke 1": "ran"}
        case = _ddp_case(results / name)
        assert case["status"] == "passed", case
        assert case["metrics"]["world_size"] == 2.0 and "gloo, world 2," in case["detail"]
        digests.append(case["digests"])
    assert digests[0] == digests[1] and digests[0]  # one DDP run: the same weights on both nodes
    # the fleet report the job printed, and the same folder read again as JSON
    assert "envguard fleet report: OK — 2 node(s)" in output
    assert "Multi-node DDP smoke" in output
    report = _fleet_json(results)
    assert report["exit_code"] == 0 and report["summary"]["uniform"]
    assert [n["node"] for n in report["nodes"]] == ["node1", "node2"]
    assert {n["ddp"]["status"] for n in report["nodes"]} == {"passed"}
    assert {n["ddp"]["weights"] for n in report["nodes"]} == {digests[0]["weights[float32,cpu]"]}
    assert _no_processes_left(job) == {}
    print(f"two-node job {job} passed in {took:.1f}s")


def _node_local_python(tmp_path: Path, wheel: Path, odd_node: str) -> Path:
    """One --python path for every node that, like a node-local disk, is a different environment on ``odd_node``:
    the project's .venv everywhere, and on ``odd_node`` a venv that sees the same packages but another click."""
    odd = tmp_path / "venv-odd"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(odd)], check=True, timeout=120)
    site = subprocess.run([str(odd / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    main_site = subprocess.run([str(TORCH_PYTHON), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    # the odd venv's own click shadows the .venv's (its site-packages comes first on sys.path)
    subprocess.run([str(TORCH_PYTHON), "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--target", site,
                    str(wheel)], check=True, timeout=300)
    Path(site, "_envguard_test_shared.pth").write_text(main_site + "\n")
    wrapper = tmp_path / "node-local" / "python"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nif [ "$SLURMD_NODENAME" = {odd_node} ]; then exec {odd}/bin/python "$@"; fi\n'
                       f'exec {TORCH_PYTHON} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def test_a_node_whose_environment_differs_is_the_outlier(slurm: SlurmCluster, tmp_path: Path,
                                                         wheelhouse: Path) -> None:
    (wheel,) = wheelhouse.glob("click-8.1.6-*.whl")
    python = _node_local_python(tmp_path, wheel, "node3")
    script = _write_job(tmp_path, "--nodes", "3", "--python", str(python), "--smoke-level", "0")
    job = slurm.sbatch(script, env=_job_env(slurm))
    state = slurm.wait(job, JOB_WAIT_S)
    output = (tmp_path / f"envguard-preflight-{job}.out").read_text()
    assert state.state == "FAILED" and state.exit_code == 1, output  # fleet report: not uniform
    results = tmp_path / "results" / job
    report = _fleet_json(results)
    assert report["exit_code"] == 1
    assert [n["node"] for n in report["nodes"]] == ["node1", "node2", "node3"]
    assert {o["node"] for o in report["outliers"]} == {"node3"}
    (outlier,) = report["outliers"]
    assert outlier["kind"] == "fingerprint" and "shared by 1 of 3 nodes" in outlier["reason"]
    assert "packages:" in outlier["reason"]
    # the other steps passed: the difference, not a broken job, is what failed it
    assert all(_json(results / n / "preflight.json")["exit_code"] == 0 for n in ("node1", "node2", "node3"))
    assert {_ddp_case(results / n)["status"] for n in ("node1", "node2", "node3")} == {"passed"}
    assert "1 outlier node(s)" in output and "node3" in output
    assert _no_processes_left(job) == {}


def _ranks(job_id: str) -> dict[int, list[str]]:
    return {pid: argv for pid, argv in job_processes(job_id).items()
            if "-c" not in argv and any(a.endswith(PAYLOAD) for a in argv)}


def _wait_for_ddp_ranks(cluster: SlurmCluster, job: str, nodes: int = 2) -> None:
    """Until the DDP step (the job's second srun: step 1) has a rank on each node."""
    end = time.monotonic() + 120
    while len(_ranks(job)) < nodes:
        assert time.monotonic() < end, f"no DDP ranks on {nodes} nodes: {cluster.job(job)}"
        assert cluster.job(job).state in ("PENDING", "RUNNING", "CONFIGURING"), cluster.job(job)
        time.sleep(0.2)
    assert f"{job}.1" in cluster.steps(job)


def test_a_node_killed_mid_ddp_fails_the_survivor_within_its_timeout(slurm: SlurmCluster, tmp_path: Path) -> None:
    dist_timeout = 10
    script = _write_job(tmp_path, "--nodes", "2", "--python", str(TORCH_PYTHON), "--smoke-level", "0")
    job = slurm.sbatch(script, env=_job_env(slurm, ENVGUARD_SMOKE_DIST_TIMEOUT=str(dist_timeout)))
    _wait_for_ddp_ranks(slurm, job)
    time.sleep(1.0)  # into init_process_group or training
    # node2 dies: every process of its part of the DDP step, at once
    victims = job_processes(job, {"SLURM_STEP_ID": "1", "SLURMD_NODENAME": "node2"})
    assert victims
    for pid in victims:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    killed_at = time.monotonic()
    state = slurm.wait(job, JOB_WAIT_S)
    after_kill = time.monotonic() - killed_at
    output = (tmp_path / f"envguard-preflight-{job}.out").read_text()
    assert state.state == "FAILED" and state.exit_code != 0, output
    # the survivor saw its peer go (or its collectives time out after dist_timeout) and said so: no hang until the
    # DDP case's own timeout (120 s at level 1) or the job's 5-minute limit; typically 6-30 s on a busy 2-core box
    assert after_kill < 90, after_kill
    assert "srun: error: node2: task 1: Killed" in output, output
    results = tmp_path / "results" / job
    survivor = _ddp_case(results / "node1")
    # NOTE: both torchrun agents run on 127.0.0.1, so either may host the c10d store; when node2 held it, node1's
    # agent loses the store itself ("error") rather than its peer ("failed").
    assert survivor["status"] in ("failed", "timeout", "error"), survivor
    assert str(survivor["detail"]).startswith(("distributed run failed (gloo, rank ", "init_process_group(gloo) "
                                               "failed: ", "did not finish within")) \
        or "The connection to the C10d store has failed" in str(survivor["detail"]), survivor
    report = _fleet_json(results)
    assert report["exit_code"] == 1
    found = {(f["code"], tuple(f["nodes"])) for f in report["findings"]}
    assert ("ddp-no-result", ("node2",)) in found, found
    assert any(code.startswith("smoke-") and nodes == ("node1",) for code, nodes in found), found
    assert "no DDP smoke result from node2" in " ".join(output.split())
    assert _no_processes_left(job) == {}
    print(f"job {job} ended {after_kill:.1f}s after node2 was killed: {str(survivor['detail'])[:100]}")


def test_a_killed_node_step_fails_the_job_with_a_reason_and_leaves_nothing(slurm: SlurmCluster,
                                                                           tmp_path: Path) -> None:
    script = _write_job(tmp_path, "--nodes", "2", "--python", str(TORCH_PYTHON), "--smoke-level", "0")
    job = slurm.sbatch(script, env=_job_env(slurm, ENVGUARD_SMOKE_DIST_TIMEOUT="10"))
    _wait_for_ddp_ranks(slurm, job)
    killed = slurm.run("scancel", f"{job}.1")
    assert killed.returncode == 0, killed.stderr
    killed_at = time.monotonic()
    state = slurm.wait(job, JOB_WAIT_S)
    after_kill = time.monotonic() - killed_at
    output = (tmp_path / f"envguard-preflight-{job}.out").read_text()
    assert state.state == "FAILED" and state.exit_code != 0, output
    assert after_kill < 60, after_kill  # KillWait (5 s) and the report, not the job's 5-minute limit
    # srun says the step was cancelled; the fleet report names each node that has no DDP result
    assert "CANCELLED" in output or "Killed" in output or "Terminated" in output, output
    report = _fleet_json(tmp_path / "results" / job)
    assert report["exit_code"] == 1
    by_node = {n["node"]: n for n in report["nodes"]}
    assert sorted(by_node) == ["node1", "node2"]
    for node in by_node.values():
        assert node["ddp"]["status"] != "passed", node
    codes = {(f["code"], tuple(f["nodes"])) for f in report["findings"]}
    assert any(code in ("ddp-no-result", "smoke-failed", "smoke-error", "smoke-timeout") for code, _ in codes), codes
    assert _no_processes_left(job) == {}
    print(f"job {job} ended {after_kill:.1f}s after its DDP step was cancelled")
