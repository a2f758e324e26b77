"""A real Slurm cluster on one host for the tests: munged, slurmctld and one slurmd per node (`slurmd -N nodeN`),
Debian's slurm-wlm 22.05 and munge packages (scripts/test-env installs them), every daemon on an unprivileged
loopback port with its state, logs and sockets in one temporary folder.

The daemons run in the foreground as children of the test session, so they are stopped by PID; `SLURM_CONF`
in :meth:`SlurmCluster.env` points the client commands (sbatch, srun, scontrol, sinfo) at this cluster.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The packages scripts/test-env installs, and the commands the tests need from them.
DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "srun", "scontrol", "sinfo", "squeue", "scancel")
#: Seconds for the daemons to register every node as idle (about 2 s on a 2-core machine).
START_TIMEOUT_S = 60.0

_CONF = """\
# envguard test cluster (tests/slurm_cluster.py): one host, {n} slurmd daemons, loopback ports.
ClusterName=envguardtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={root}/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool/%n
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd-%n.pid
SlurmctldLogFile={root}/log/slurmctld.log
SlurmdLogFile={root}/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
# Quick teardown of cancelled steps, and finished jobs kept long enough for scontrol to report them.
KillWait=5
MinJobAge=600
{nodes}
PartitionName=debug Nodes=node[1-{n}] Default=YES MaxTime=INFINITE State=UP
"""


class ClusterError(RuntimeError):
    """The cluster did not start (the message carries the daemons' log tails)."""


def missing_commands() -> list[str]:
    """The Slurm and munge commands not on PATH (nor in /usr/sbin, where Debian puts the daemons)."""
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    return [c for c in (*DAEMONS, *CLIENTS) if shutil.which(c, path=path) is None]


def _free_ports(count: int) -> list[int]:
    socks = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            socks.append(sock)
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for sock in socks:
            sock.close()


@dataclass
class JobState:
    job_id: str
    state: str
    exit_code: int
    signal: int
    reason: str


class SlurmCluster:
    """``nodes`` slurmd daemons named node1..nodeN on 127.0.0.1, started by :meth:`start`, stopped by :meth:`stop`."""

    def __init__(self, root: Path, nodes: int = 3) -> None:
        self.root, self.nodes = root, nodes
        self.names = [f"node{i}" for i in range(1, nodes + 1)]
        self.conf = root / "slurm.conf"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        path = os.environ.get("PATH", "")
        self._path = path + ":/usr/sbin:/sbin"

    def _which(self, name: str) -> str:
        found = shutil.which(name, path=self._path)
        if found is None:
            raise ClusterError(f"{name} is not installed (scripts/test-env installs slurm-wlm and munge)")
        return found

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for Slurm's client commands (and so for the jobs sbatch starts)."""
        return {**os.environ, "PATH": self._path, "SLURM_CONF": str(self.conf), **(extra or {})}

    def run(self, *argv: str, timeout: float = 30.0, env: Mapping[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self._which(argv[0]), *argv[1:]], capture_output=True, text=True, timeout=timeout,
                              env=dict(env) if env is not None else self.env(), cwd=cwd, check=False)

    # ---- start and stop ---------------------------------------------------------------------------

    def start(self) -> None:
        for sub in ("munge", "state", "spool", "log"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        # NOTE: munged checks that no one else can write its key or socket folder, and needs the root
        # folder traversable for the socket to be usable.
        self.root.chmod(0o755)
        (self.root / "munge").chmod(0o755)
        key = self.root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        ctld_port, *node_ports = _free_ports(1 + self.nodes)
        host = socket.gethostname()
        node_lines = "\n".join(
            f"NodeName={name} NodeAddr=127.0.0.1 NodeHostname={host} Port={port} CPUs=2 RealMemory=1000 State=UNKNOWN"
            for name, port in zip(self.names, node_ports, strict=True))
        self.conf.write_text(_CONF.format(n=self.nodes, host=host, ctld_port=ctld_port, root=self.root,
                                          nodes=node_lines))
        munge = self.root / "munge"
        self._spawn("munged", self._which("munged"), "--foreground", "--force", f"--socket={munge}/munge.socket",
                    f"--key-file={key}", f"--pid-file={munge}/munged.pid", f"--log-file={self.root}/log/munged.log",
                    f"--seed-file={munge}/munged.seed")
        self._wait_for((munge / "munge.socket").exists, "munged created no socket", "munged")
        self._spawn("slurmctld", self._which("slurmctld"), "-D", "-i", "-f", str(self.conf))
        for name in self.names:
            self._spawn(f"slurmd-{name}", self._which("slurmd"), "-D", "-N", name, "-f", str(self.conf))
        self._wait_for(self._all_idle, f"not every node of {', '.join(self.names)} became idle", None)

    def _spawn(self, name: str, *argv: str) -> None:
        log = open(self.root / "log" / f"{name}.stderr", "wb")  # noqa: SIM115 # reason: the child keeps it
        try:
            self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=log, env=self.env(),
                                                start_new_session=True)
        finally:
            log.close()

    def _all_idle(self) -> bool:
        result = self.run("sinfo", "-h", "-N", "-o", "%N %t", timeout=10)
        states = dict(line.split() for line in result.stdout.splitlines() if len(line.split()) == 2)
        return result.returncode == 0 and all(states.get(n) == "idle" for n in self.names)

    def _wait_for(self, ready: Callable[[], bool], what: str, daemon: str | None) -> None:
        end = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < end:
            if ready():
                return
            dead = [n for n, p in self.procs.items() if p.poll() is not None and (daemon is None or n == daemon)]
            if dead:
                raise ClusterError(f"{', '.join(dead)} exited during start-up:\n{self.log_tails()}")
            time.sleep(0.2)
        raise ClusterError(f"{what} within {START_TIMEOUT_S:.0f}s:\n{self.log_tails()}")

    def log_tails(self, lines: int = 15) -> str:
        out = []
        for log in sorted((self.root / "log").glob("*")):
            text = log.read_text(errors="replace").splitlines()[-lines:]
            if text:
                out.append(f"--- {log.name}\n" + "\n".join(text))
        return "\n".join(out)

    def stop(self) -> None:
        """Cancel every job, then stop the daemons by PID (SIGTERM, then SIGKILL after 10 s)."""
        if "slurmctld" in self.procs and self.procs["slurmctld"].poll() is None:
            self.run("scancel", "--full", "--user=root", timeout=30)
            end = time.monotonic() + 20
            while time.monotonic() < end and self.run("squeue", "-h", timeout=10).stdout.strip():
                time.sleep(0.5)
        # NOTE: slurmd first (its steps end with it), munged last (the others authenticate through it).
        order = [n for n in self.procs if n.startswith("slurmd")] + ["slurmctld", "munged"]
        for name in order:
            proc = self.procs.get(name)
            if proc is None or proc.poll() is not None:
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)

    # ---- jobs ---------------------------------------------------------------------------------------

    def sbatch(self, script: Path, *, env: Mapping[str, str], args: Sequence[str] = ()) -> str:
        """Submit ``script`` from its folder; the job id."""
        result = self.run("sbatch", "--parsable", *args, script.name, env=env, cwd=script.parent)
        if result.returncode != 0:
            raise AssertionError(f"sbatch failed: {result.stderr.strip()}")
        return result.stdout.strip().split(";")[0]

    def job(self, job_id: str) -> JobState:
        result = self.run("scontrol", "show", "job", "-o", job_id)
        fields = dict(re.findall(r"(\w+)=(\S*)", result.stdout))
        code, _, sig = fields.get("ExitCode", "0:0").partition(":")
        return JobState(job_id, fields.get("JobState", "UNKNOWN"), int(code or 0), int(sig or 0),
                        fields.get("Reason", ""))

    def wait(self, job_id: str, timeout: float) -> JobState:
        """Until the job has ended (any state but PENDING, RUNNING, CONFIGURING, COMPLETING)."""
        end = time.monotonic() + timeout
        while True:
            state = self.job(job_id)
            if state.state not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "UNKNOWN"):
                return state
            if time.monotonic() >= end:
                raise AssertionError(f"job {job_id} still {state.state} after {timeout:.0f}s")
            time.sleep(0.3)

    def steps(self, job_id: str) -> list[str]:
        """The job's running step ids ("42.0", "42.batch" ...)."""
        result = self.run("squeue", "-h", "-s", "-j", job_id, "-o", "%i")
        return result.stdout.split()


def job_processes(job_id: str, where: Mapping[str, str] | None = None) -> dict[int, list[str]]:
    """Live processes (pid -> argv) whose environment says they belong to Slurm job ``job_id`` (and carry every
    ``where`` variable, such as SLURM_STEP_ID and SLURMD_NODENAME: one node's part of one step)."""
    needles = {f"{k}={v}".encode() for k, v in {"SLURM_JOB_ID": job_id, **(where or {})}.items()}
    found: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if not needles <= set(fh.read().split(b"\0")):
                    continue
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                argv = [a.decode(errors="replace") for a in fh.read().split(b"\0") if a]
        except OSError:
            continue
        if argv:
            found[int(entry)] = argv
    return found
