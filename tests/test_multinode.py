"""Multi-node DDP simulated on one machine: two `envguard smoke` "nodes" (torchrun agents) on loopback.

Every process a node starts (envguard, the torch.distributed.run launcher, the ranks) inherits a tag
in its environment, so the tests find them in /proc: the launcher and the ranks each run in a session
of their own, out of reach of the node's process group.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

from envguard import _subprocess
from envguard._subprocess import CommandResult
from envguard.smoke import DistOptions, SuiteOptions, run_suite
from envguard.smoke.base import SmokeStatus

ROOT = Path(__file__).resolve().parent.parent
TORCH_PYTHON = ROOT / ".venv" / "bin" / "python"
TAG = "ENVGUARD_TEST_NODE"
PAYLOAD = "envguard_smoke_payload.py"
#: Seconds for a node to exit after its deadline (interpreter start-up and teardown on a busy 2-core box).
MARGIN = 15.0


def _has_torch() -> bool:
    if not TORCH_PYTHON.exists() or not Path("/proc/self/environ").exists():
        return False
    probe = "import importlib.util,sys; sys.exit(importlib.util.find_spec('torch') is None)"
    return _subprocess.run((str(TORCH_PYTHON), "-c", probe), timeout=60).returncode == 0


needs_torch = pytest.mark.skipif(not _has_torch(), reason="needs Linux /proc and the project .venv with torch")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tagged(tag: str) -> dict[int, list[str]]:
    """Live processes (pid -> argv) whose environment carries ``TAG=tag``; zombies do not count."""
    found: dict[int, list[str]] = {}
    needle = f"{TAG}={tag}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle not in fh.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                argv = [a.decode(errors="replace") for a in fh.read().split(b"\0") if a]
        except OSError:  # gone, or not ours
            continue
        if argv:  # a zombie has an empty cmdline
            found[int(entry)] = argv
    return found


def _is_rank(argv: list[str]) -> bool:
    """A rank runs the payload itself; the launcher runs ``python -c ... PAYLOAD``."""
    return "-c" not in argv and any(a.endswith(PAYLOAD) for a in argv)


@dataclass
class Node:
    rank: int
    tag: str
    proc: subprocess.Popen[bytes]
    out: IO[bytes]
    err: IO[bytes]
    started: float

    def wait(self, timeout: float) -> float:
        """Wait for exit; the seconds since start."""
        self.proc.wait(timeout=timeout)
        return time.monotonic() - self.started

    def doc(self) -> dict[str, object]:
        self.out.seek(0)
        text = self.out.read().decode()
        assert text.strip(), self.stderr()
        assert "Traceback" not in text
        doc = json.loads(text)
        assert isinstance(doc, dict)
        return doc

    def stderr(self) -> str:
        self.err.seek(0)
        return self.err.read().decode(errors="replace")[-3000:]


class Cluster:
    """Starts smoke nodes; ``close`` kills every process any of them left, whatever happened."""

    def __init__(self, tmp_path: Path, timeout: float, nproc: int = 1, nnodes: int = 2) -> None:
        self.tmp_path, self.timeout, self.nproc, self.nnodes = tmp_path, timeout, nproc, nnodes
        self.endpoint = f"127.0.0.1:{_free_port()}"
        self.run_id = uuid.uuid4().hex
        self.nodes: list[Node] = []

    def start(self, rank: int, *, env: dict[str, str] | None = None) -> Node:
        tag = f"{self.run_id}-{rank}"
        argv = (sys.executable, "-m", "envguard", "smoke", "--python", str(TORCH_PYTHON), "--only", "ddp",
                "--device", "cpu", "--nnodes", str(self.nnodes), "--node-rank", str(rank),
                "--nproc-per-node", str(self.nproc), "--rdzv-endpoint", self.endpoint, "--format", "json",
                "--timeout", str(self.timeout))
        out = open(self.tmp_path / f"node{rank}.json", "w+b")  # noqa: SIM115 # reason: closed in close()
        err = open(self.tmp_path / f"node{rank}.err", "w+b")  # noqa: SIM115 # reason: closed in close()
        full_env = dict(os.environ, **(env or {}), **{TAG: tag})
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=full_env,
                                start_new_session=True)
        node = Node(rank, tag, proc, out, err, time.monotonic())
        self.nodes.append(node)
        return node

    def wait_listening(self, deadline_s: float = 30.0) -> None:
        """Until the rendezvous store accepts connections (the first node to start hosts it)."""
        host, port = self.endpoint.rsplit(":", 1)
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                if sock.connect_ex((host, int(port))) == 0:
                    return
            assert all(n.proc.poll() is None for n in self.nodes), [n.stderr() for n in self.nodes]
            time.sleep(0.05)
        raise AssertionError(f"nothing listens on {self.endpoint} after {deadline_s}s")

    def wait_rank_started(self, node: Node, deadline_s: float = 60.0) -> None:
        """Until the node's launcher has started a rank: the rendezvous is complete, the node joined."""
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            if any(_is_rank(argv) for argv in tagged(node.tag).values()):
                return
            assert node.proc.poll() is None, node.stderr()
            time.sleep(0.05)
        raise AssertionError(f"node {node.rank} started no rank within {deadline_s}s")

    def leftovers(self, *nodes: Node, grace_s: float = 5.0) -> dict[int, list[str]]:
        """Processes of these nodes (default: all) still alive after ``grace_s`` (a parent-death signal is
        asynchronous)."""
        end = time.monotonic() + grace_s
        while True:
            alive = {pid: argv for n in nodes or self.nodes for pid, argv in tagged(n.tag).items()}
            if not alive or time.monotonic() >= end:
                return alive
            time.sleep(0.1)

    def close(self) -> None:
        for node in self.nodes:
            with _suppress_gone():
                os.killpg(node.proc.pid, signal.SIGKILL)
            for pid in tagged(node.tag):
                with _suppress_gone():
                    os.kill(pid, signal.SIGKILL)
            node.proc.wait(timeout=30)
            node.out.close()
            node.err.close()


def _suppress_gone() -> contextlib.suppress:
    return contextlib.suppress(ProcessLookupError, PermissionError)


@pytest.fixture
def cluster_factory(tmp_path: Path) -> Iterator[list[Cluster]]:
    made: list[Cluster] = []
    try:
        yield made
    finally:
        for cluster in made:
            cluster.close()


def _group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def _ddp(doc: dict[str, object]) -> dict[str, object]:
    results = doc["results"]
    assert isinstance(results, list) and len(results) == 1
    (result,) = results
    assert isinstance(result, dict) and result["case"] == "ddp"
    return result


@pytest.mark.slow
@needs_torch
def test_two_nodes_complete_ddp_together(tmp_path: Path, cluster_factory: list[Cluster]) -> None:
    cluster = Cluster(tmp_path, timeout=90)
    cluster_factory.append(cluster)
    nodes = [cluster.start(0), cluster.start(1)]
    took = [node.wait(timeout=90 + MARGIN) for node in nodes]
    docs = [node.doc() for node in nodes]
    for node, doc in zip(nodes, docs, strict=True):
        assert node.proc.returncode == 0, (doc, node.stderr())
        assert doc["exit_code"] == 0
    ddp = [_ddp(doc) for doc in docs]
    for result in ddp:
        assert result["status"] == "passed", result
        metrics = result["metrics"]
        assert isinstance(metrics, dict) and metrics["world_size"] == 2.0
        assert "gloo, world 2," in str(result["detail"])
    # the ranks' parameters are identical, so both nodes report the same weights and rank 0's loss
    assert ddp[0]["digests"] == ddp[1]["digests"] and ddp[0]["digests"]
    metrics0, metrics1 = ddp[0]["metrics"], ddp[1]["metrics"]
    assert isinstance(metrics0, dict) and isinstance(metrics1, dict)
    assert metrics0["final_loss_rank0"] == metrics1["final_loss_rank0"]
    assert cluster.leftovers() == {}
    print(f"two nodes passed in {max(took):.1f}s")


@pytest.mark.slow
@needs_torch
def test_killing_a_node_fails_the_other_cleanly(tmp_path: Path, cluster_factory: list[Cluster]) -> None:
    timeout, dist_timeout = 40.0, 10
    cluster = Cluster(tmp_path, timeout=timeout)
    cluster_factory.append(cluster)
    env = {"ENVGUARD_SMOKE_DIST_TIMEOUT": str(dist_timeout)}
    survivor = cluster.start(0, env=env)
    cluster.wait_listening()  # node 0 hosts the rendezvous store, as the master node would
    victim = cluster.start(1, env=env)
    cluster.wait_rank_started(victim)
    time.sleep(1.0)  # into init_process_group or training
    os.killpg(victim.proc.pid, signal.SIGKILL)  # the node's envguard and its process group
    killed_at = time.monotonic()
    victim.proc.wait(timeout=30)
    # the launcher and its ranks die with envguard although they run in sessions of their own
    assert cluster.leftovers(victim) == {}
    survivor.wait(timeout=timeout + MARGIN)
    after_kill = time.monotonic() - killed_at
    doc = survivor.doc()
    result = _ddp(doc)
    assert survivor.proc.returncode == 4, (doc, survivor.stderr())
    assert doc["exit_code"] == 4
    # the survivor's rank saw the peer go (or its collectives time out) and said so: not a hang
    assert result["status"] == "failed", result
    detail = str(result["detail"])
    assert detail.startswith(("distributed run failed (gloo, rank ", "init_process_group(gloo) failed: ")), detail
    assert after_kill < dist_timeout + MARGIN, after_kill
    assert _group_gone(survivor.proc.pid) and _group_gone(victim.proc.pid)
    assert cluster.leftovers() == {}
    print(f"survivor failed {after_kill:.1f}s after the kill: {detail[:120]}")


@pytest.mark.slow
@needs_torch
def test_a_peer_that_never_comes_times_out_with_a_hint(tmp_path: Path, cluster_factory: list[Cluster]) -> None:
    timeout = 12.0
    cluster = Cluster(tmp_path, timeout=timeout)
    cluster_factory.append(cluster)
    alone = cluster.start(0)
    took = alone.wait(timeout=timeout + MARGIN)
    doc = alone.doc()
    result = _ddp(doc)
    assert alone.proc.returncode == 4, (doc, alone.stderr())
    assert result["status"] == "timeout"
    assert f"all 2 nodes must join the rendezvous at {cluster.endpoint}" in str(result["detail"])
    assert took < timeout + MARGIN
    assert _group_gone(alone.proc.pid)
    assert cluster.leftovers() == {}
    print(f"lone node gave up after {took:.1f}s")


@pytest.mark.slow
@needs_torch
def test_a_hung_ddp_leaves_no_rank_behind(tmp_path: Path, cluster_factory: list[Cluster]) -> None:
    # one node, two ranks that hang: the timeout kills the launcher's group, the ranks must follow
    timeout = 8.0
    cluster = Cluster(tmp_path, timeout=timeout, nproc=2, nnodes=1)
    cluster_factory.append(cluster)
    node = cluster.start(0, env={"ENVGUARD_SMOKE_INJECT": "hang:ddp"})
    cluster.wait_rank_started(node)
    node.wait(timeout=timeout + MARGIN)
    assert node.proc.returncode == 4
    assert _ddp(node.doc())["status"] == "timeout"
    assert cluster.leftovers() == {}


def test_a_multinode_timeout_names_the_rendezvous() -> None:
    def hangs(argv: tuple[str, ...], *, timeout: float, env: dict[str, str] | None = None,
              cwd: str | None = None, stdin: str | None = None) -> CommandResult:
        return CommandResult(argv, _subprocess.TIMEOUT_STATUS, "", "", timeout, timed_out=True)

    def suite(dist: DistOptions) -> str:
        options = SuiteOptions("/venv/bin/python", 2, ("ddp",), timeout_s=5, dist=dist, env={})
        (result,) = run_suite(hangs, options).results
        assert result.status is SmokeStatus.TIMEOUT
        return result.detail

    hint = suite(DistOptions(nproc_per_node=1, nnodes=2, node_rank=1, rdzv_endpoint="10.0.0.1:29400"))
    assert hint == ("did not finish within 5s (killed with its process group); multi-node: all 2 nodes must join "
                    "the rendezvous at 10.0.0.1:29400; did every node start and reach it?")
    assert "multi-node" not in suite(DistOptions(nproc_per_node=2))
