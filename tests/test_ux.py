"""What a new user trips over (issue 16, and issue 17 items 4 and 6): safe writes and reads, one-line errors,
usage errors, output that can be copied, and the small lies."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from envguard.cli import main
from envguard.commands import _io
from envguard.errors import InputError

SNAPSHOTS = Path(__file__).parent / "data" / "snapshots"
BROKEN = SNAPSHOTS / "torch210-cu121-driver470.json"
URL = re.compile(r"https://download\.pytorch\.org/whl/[a-z0-9]+(?=\s|$)")


def run(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False, env=env)
    return result.exit_code, result.stdout, result.stderr


def run_process(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    """A real envguard process (a FIFO that hangs would hang the test runner's own thread)."""
    return subprocess.run([sys.executable, "-m", "envguard", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("envguard: error: ") and "Traceback" not in err
    return lines[0]


# ---- writers: regular files only, through symlinks, sets as one, modes kept, stale temps cleaned ----------


def test_writer_refuses_a_fifo_and_a_link_to_a_device(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is a FIFO"):
        _io.write_atomic(str(fifo), "x", force=True)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    with pytest.raises(InputError, match="is a character device"):
        _io.write_atomic(str(link), "x", force=True)
    assert link.is_symlink() and os.readlink(link) == "/dev/null"
    code, _, err = run("check", "--snapshot", str(BROKEN), "-o", str(fifo), "--force")
    assert code == 3 and "envguard writes only regular files" in one_error_line(err)


def test_writer_writes_through_a_symlink_and_keeps_the_mode(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(real.name)
    with pytest.raises(InputError, match="exists"):
        _io.write_atomic(str(link), "new", force=False)
    _io.write_atomic(str(link), "new", force=True)
    assert link.is_symlink() and real.read_text() == "new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_dangling_symlink_and_loop_count_as_existing(tmp_path: Path) -> None:
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "missing.json")
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop.name)
    for path in (dangling, loop):
        with pytest.raises(InputError, match="exists; use --force"):
            _io.write_atomic(str(path), "x", force=False)
        with pytest.raises(InputError, match="exists; use --force"):
            _io.write_files(str(tmp_path), [(path.name, "x")], force=False)
    _io.write_atomic(str(dangling), "through", force=True)
    assert (tmp_path / "missing.json").read_text() == "through"


def test_stale_temps_of_a_killed_run_are_removed(tmp_path: Path) -> None:
    dead = tmp_path / ".out.json.4194399.abcd1234.tmp"  # above Linux's largest pid: no such process
    dead.write_text("half")
    alive = tmp_path / f".out.json.{os.getpid()}.zzzz.tmp"
    alive.write_text("mine")
    _io.write_atomic(str(tmp_path / "out.json"), "{}", force=False)
    assert not dead.exists() and alive.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([alive.name, "out.json"])


def test_a_file_set_is_written_as_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = ("a.txt", "b.txt", "c.txt")
    _io.write_files(str(tmp_path), [(n, "old") for n in names], force=False)
    calls = {"n": 0}
    real_fsync = os.fsync

    def failing_fsync(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(InputError, match="No space left"):
        _io.write_files(str(tmp_path), [(n, "new") for n in names], force=True)
    assert [(tmp_path / n).read_text() for n in names] == ["old", "old", "old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == list(names)  # no temp left


def test_refusal_names_each_file_in_plain_words(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(InputError) as one:
        _io.write_files(str(tmp_path), [("a.txt", "y")], force=False)
    assert f"{tmp_path / 'a.txt'} exists; use --force" in str(one.value)
    (tmp_path / "b.txt").write_text("x")
    with pytest.raises(InputError) as two:
        _io.write_files(str(tmp_path), [("a.txt", "y"), ("b.txt", "y")], force=False)
    assert f"{tmp_path / 'a.txt'} and {tmp_path / 'b.txt'} exist; use --force" in str(two.value)
    assert "exist(s)" not in str(one.value) + str(two.value)


@pytest.mark.slow
def test_record_creates_its_folder_and_raises_only_envguard_errors(tmp_path: Path) -> None:
    import envguard
    from envguard.errors import EnvguardError

    log = tmp_path / "runs" / "deep" / "env.jsonl"
    fp = envguard.record(log)
    assert json.loads(log.read_text())["digest"] == fp.digest
    with pytest.raises(EnvguardError, match="is a directory"):
        envguard.record(tmp_path / "runs")


# ---- readers: regular files only, bounded ---------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ("check", "--snapshot", "{fifo}"),
    ("check", "--from", "{fifo}"),
    ("explain", "{fifo}", "--no-check"),
    ("fingerprint", "diff", "{fifo}", "{fifo}"),
    ("verify", "{fifo}"),
    ("verify", "/dev/zero"),
    ("lock", "-r", "{fifo}", "--python", "3.11", "--dry-run", "--no-index"),
    ("lock", "--pyproject", "{fifo}", "--python", "3.11", "--dry-run", "--no-index"),
    ("check", "--snapshot", "/dev/zero"),
])
def test_readers_refuse_fifos_and_devices(args: tuple[str, ...], tmp_path: Path) -> None:
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    done = run_process(*(a.replace("{fifo}", str(fifo)) for a in args), timeout=60)
    assert done.returncode == 3, done.stderr
    line = one_error_line(done.stderr)
    assert "not a regular file" in line and ("FIFO" in line or "character device" in line)


def test_stdin_still_reads_and_is_bounded() -> None:
    code, _out, err = run("check", "--from", "-", stdin="nvidia-smi\nDriver Version: 535.104.05\n")
    assert code in (0, 1) and "error" not in err

    class Endless:
        """A stdin that never ends (like /dev/zero piped in)."""

        def __init__(self) -> None:
            self.asked: list[int] = []

        def read(self, size: int = -1) -> bytes:
            assert size > 0, "stdin read without a bound"
            self.asked.append(size)
            return b"a" * size

    endless = Endless()
    with pytest.raises(InputError, match="larger than"):
        _io.read_text_input("-", stdin=_io.read_stdin(endless), what="text")  # type: ignore[arg-type]


# ---- one-line errors and usage errors -------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("command", [("check",), ("snapshot",), ("fingerprint",), ("smoke", "--level", "1")])
def test_a_non_python_interpreter_is_one_short_line(command: tuple[str, ...]) -> None:
    code, _, err = run(*command, "--python", "/bin/ls")
    assert code == 3
    line = one_error_line(err)
    assert "/bin/ls" in line and "it printed: " in line
    assert len(line) < 420  # the file, the status, and at most 200 characters of what it printed


def test_explain_a_missing_log_is_an_error_and_one_line_is_one_line(tmp_path: Path) -> None:
    code, _, err = run("explain", str(tmp_path / "missing.log"), "--no-check")
    assert code == 3 and "missing.log" in one_error_line(err)
    code, _, err = run("explain", "logs/run1", "--no-check")
    assert code == 3 and "logs/run1" in one_error_line(err)
    code, out, _ = run("explain", "-", "--no-check", stdin="just one line\n")
    assert code == 0 and "in the 1 line(s) given" in out
    code, out, _ = run("explain", "nothing known here", "--no-check")  # a message, not a path
    assert code == 0 and "1 line(s)" in out


@pytest.mark.parametrize(("args", "message"), [
    (("lock", "requests", "--python", "3.99", "--dry-run", "--no-index"), "no CPython release has that version"),
    (("lock", "requests", "--python", "4.0", "--dry-run", "--no-index"), "no CPython release has that version"),
    (("lock", "torch", "--cuda", "twelve", "--python", "3.11", "--dry-run", "--no-index"), "is not a CUDA version"),
    (("check", "--python", ""), "--python is empty"),
    (("lock", "six", "--python", "", "--dry-run", "--no-index"), "--python is empty"),
    (("matrix", "torch", "--driver", "banana"), "--driver 'banana' is not a version"),
    (("matrix", "jax", "--python", "three"), "--python 'three' is not a version"),
])
def test_unusable_option_values_are_usage_errors(args: tuple[str, ...], message: str, tmp_path: Path) -> None:
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        code, out, err = run(*args)
    finally:
        os.chdir(old)
    assert code == 2, err
    assert message in one_error_line(err) and out == ""
    assert " is a folder" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [
    ("check", "--format", "json", "--fail-on", "bogus"),
    ("matrix", "torch", "--format", "json", "--no-such-option"),
    ("matrix", "cuda", "--format=json"),  # --driver is required
    ("verify", "lock.json", "--format", "json", "--bogus"),
    ("lock", "--json", "--resolver", "nope"),
    ("matrix", "torch", "--driver", "x", "--format", "json"),
])
def test_usage_errors_print_one_json_envelope(args: tuple[str, ...]) -> None:
    code, out, err = run(*args)
    assert code == 2
    doc = json.loads(out)
    assert doc["exit_code"] == 2 and doc["error"] and doc["command"] == args[0] + (
        f" {args[1]}" if args[0] == "matrix" else "")
    assert err.strip()


def test_usage_error_without_json_prints_no_envelope() -> None:
    code, out, _err = run("check", "--fail-on", "bogus")
    assert code == 2 and out == ""


def test_messages_read_right(tmp_path: Path) -> None:
    from packaging.requirements import Requirement

    from envguard.fingerprints import Fingerprint
    from envguard.knowledge import load_matrices
    from envguard.lock.request import choose_torch
    from envguard.lock.spec import LockSpec

    with pytest.raises(InputError) as bare:
        choose_torch(load_matrices(), Requirement("torch"), python="3.11", cuda="99.9", host=None)
    assert str(bare.value).startswith("torch has no CUDA 99.9 build on Python 3.11")
    with pytest.raises(InputError) as pinned:
        choose_torch(load_matrices(), Requirement("torch==2.5.*"), python="3.11", cuda="99.9", host=None)
    assert "build matching torch==2.5.* on Python 3.11" in str(pinned.value)
    with pytest.raises(InputError) as no_version:
        Fingerprint.from_dict({"digest": "x", "components": {}}, "fp.json")
    assert "None" not in str(no_version.value) and "no schema_version" in str(no_version.value)
    with pytest.raises(InputError) as lock_version:
        LockSpec.from_dict({"target": {}}, "envguard.lock.json")
    assert "None" not in str(lock_version.value) and "no schema_version" in str(lock_version.value)


def test_help_lists_every_exit_code() -> None:
    code, out, _ = run("--help")
    assert code == 0
    for text in ("0 ok", "1 findings", "2 usage error", "3 envguard could not run", "4 a smoke case failed",
                 "5 fingerprints differ"):
        assert text in " ".join(out.split()), text


def test_shell_completion_is_documented_and_works() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    assert 'eval "$(_ENVGUARD_COMPLETE=bash_source envguard)"' in readme
    env = {"_ENVGUARD_COMPLETE": "bash_complete", "COMP_WORDS": "envguard matrix ", "COMP_CWORD": "2"}
    result = CliRunner().invoke(main, [], env=env, prog_name="envguard")
    assert result.exit_code == 0
    offered = {line.split(",", 1)[1] for line in result.stdout.splitlines()}
    assert {"torch", "cuda", "tensorflow", "jax", "paddle"} <= offered
    source = CliRunner().invoke(main, [], env={"_ENVGUARD_COMPLETE": "bash_source"}, prog_name="envguard")
    assert "_envguard_completion" in source.stdout


# ---- output that can be read and copied -----------------------------------------------------------------


def test_matrix_torch_never_breaks_an_install_command() -> None:
    from envguard.commands.query import matrix_torch
    from envguard.formatters.queries import torch_text

    code, out, _ = run("matrix", "torch", "--driver", "535.104.05")
    assert code == 0
    installs = [line for line in out.splitlines() if "pip install" in line]
    assert installs and all(URL.search(line) or "--index-url" not in line for line in installs)
    assert all(line == line.rstrip() for line in out.splitlines())
    rows, _cc = matrix_torch(driver="535.104.05", gpu=None, cc=None, python=None, system="linux")
    narrow = torch_text(rows, "driver 535.104.05", show_all=False, width=50)  # a narrow terminal
    urls = [line for line in narrow.splitlines() if "--index-url" in line]
    assert urls and all(URL.search(line) for line in urls)
    assert "https://download.pytorch.o\n" not in narrow


def test_matrix_torch_counts_gpu_builds_apart() -> None:
    code, out, _ = run("matrix", "torch", "--cc", "3.5")
    first = out.splitlines()[0]
    match = re.search(r"(\d+) GPU build\(s\) \(and (\d+) CPU build\(s\), not on the GPU\) run", first)
    assert match, first
    gpu, cpu = int(match.group(1)), int(match.group(2))
    assert cpu > gpu and code == (0 if gpu else 1)
    code, out, _ = run("matrix", "torch", "--cc", "9.0", "--driver", "300.0")
    assert code == 1 and out.startswith("envguard matrix torch: 0 GPU build(s)")


def test_matrix_cuda_exits_1_when_the_driver_runs_nothing() -> None:
    code, out, _ = run("matrix", "cuda", "--driver", "100.0")
    assert code == 1 and "no CUDA toolkit" in out
    code, out, _ = run("matrix", "cuda", "--driver", "100.0", "--format", "json")
    assert code == 1 and json.loads(out)["exit_code"] == 1
    assert run("matrix", "cuda", "--driver", "550.54.15")[0] == 0


@pytest.mark.parametrize(("framework", "install"), [
    ("tensorflow", "pip install 'tensorflow[and-cuda]==2.21.*'"),
    ("jax", "pip install 'jax[cuda12]==0.11.0'"),
    ("paddle", "python -m pip install 'paddlepaddle-gpu==3.2.*' -i https://www.paddlepaddle.org.cn/packages/stable/cu129/"),
])
def test_matrix_answers_for_every_framework(framework: str, install: str) -> None:
    code, out, _ = run("matrix", framework, "--driver", "580.65.06", "--python", "3.12")
    assert code == 0, out
    assert out.startswith(f"envguard matrix {framework}: ") and install in out
    code, out, _ = run("matrix", framework, "--driver", "580.65.06", "--format", "json")
    doc = json.loads(out)
    assert doc["command"] == f"matrix {framework}" and doc["exit_code"] == 0
    assert all(c["source"] for c in doc["candidates"])
    code, out, _ = run("matrix", framework, "--driver", "300.0", "--cc", "9.0")
    assert code == 1  # no GPU build runs on a driver that old
    code, out, _ = run("matrix", framework, "--cc", "9.0")
    # jax records each plugin's lowest compute capability, Paddle some builds'; TensorFlow none: "?", not a guess
    assert code == (1 if framework == "tensorflow" else 0)
    assert framework != "tensorflow" or "compiled architectures unknown" in out


def test_matrix_framework_judges_each_constraint() -> None:
    from envguard.knowledge import load_matrices
    from envguard.query import framework_candidates

    m = load_matrices()
    jax = {(c.version, c.build): c for c in framework_candidates(m, "jax", driver="520.0", cc="5.0", python="3.12")}
    assert jax[("0.11.0", "cuda12")].driver_ok is False  # min_driver 525
    assert jax[("0.11.0", "cuda12")].gpu_ok is False  # min_cc 5.2
    tf = {(c.version, c.build): c for c in framework_candidates(m, "tensorflow", driver=None, cc=None,
                                                                  python="3.9", system="windows")}
    assert tf[("2.21", "cuda12.5")].runs is False  # Python and native Windows both say no
    assert tf[("2.10", "cuda11.2")].os_ok is True


def test_check_text_is_not_wrapped_when_piped() -> None:
    from envguard.commands._io import read_snapshot
    from envguard.formatters.base import environment_rows

    code, out, _ = run("check", "--snapshot", str(BROKEN))
    assert code == 1
    for row in environment_rows(read_snapshot(str(BROKEN))):
        assert row.source in out, row.source  # whole, never folded mid-path
    assert all(line == line.rstrip() for line in out.splitlines())


# ---- the small lies -------------------------------------------------------------------------------------


def test_fingerprint_diff_names_packages(tmp_path: Path) -> None:
    from envguard.fingerprints import make_fingerprint

    def write(name: str, packages: dict[str, str]) -> str:
        listing = ",".join(f"{k}=={v}" for k, v in sorted(packages.items()))
        fp = make_fingerprint({"python": "3.11.7", "packages": f"{len(packages)} distributions, {listing}"},
                              packages)
        path = tmp_path / name
        path.write_text(json.dumps(fp.to_dict()))
        return str(path)

    a = write("a.json", {"numpy": "2.1.0", "six": "1.16.0"})
    b = write("b.json", {"numpy": "2.2.1", "rich": "13.9.4"})
    code, out, _ = run("fingerprint", "diff", a, b)
    assert code == 5
    assert "changed numpy 2.1.0 → 2.2.1" in out and "added rich 13.9.4" in out and "removed six 1.16.0" in out
    code, out, _ = run("fingerprint", "diff", a, b, a, "--format", "json")
    details = json.loads(out)["groups"][1]["differences"][0]["details"]
    assert "changed numpy 2.1.0 → 2.2.1" in details


def test_one_fingerprint_notation_printed_once() -> None:
    from envguard.findings import Severity
    from envguard.fingerprints import make_fingerprint
    from envguard.formatters.preflight import preflight_markdown
    from envguard.formatters.smoke import smoke_markdown, smoke_text
    from envguard.preflight import PreflightResult, StepOutcome
    from envguard.smoke.base import SmokeRun

    fp = make_fingerprint({"python": "3.11.7"})
    run_ = SmokeRun(level=1, target_python=sys.executable, results=(), wall_s=0.1)
    for text in (smoke_text(run_, fp), smoke_markdown(run_, fp)):
        assert f"sha256:{fp.digest}" in text and f"sha256 {fp.digest}" not in text
    result = PreflightResult(node="n", steps=(StepOutcome("smoke 1", "ran"),), report=None, verify=None,
                             smoke=run_, fingerprint=fp, fail_on=Severity.ERROR, wall_s=0.1)
    summary = preflight_markdown(result)
    assert summary.count(fp.digest) == 1 and f"`sha256:{fp.digest}`" in summary


def test_cpu_dockerfile_runs_without_gpus_and_verify_fix_names_the_folder() -> None:
    from envguard.formatters.lockfiles import verify_text
    from envguard.installed_facts import InstalledDistribution
    from envguard.knowledge import load_matrices
    from envguard.lock.render import DockerOptions, render_docker
    from envguard.lock.spec import LockedPackage, LockSpec, LockTarget
    from envguard.lock.verify import compare

    h = ("sha256:" + "0" * 64,)
    cpu = LockSpec(LockTarget("3.11", "linux-x86_64", None, "cpu"), (LockedPackage("six", "1.16.0", h),))
    text = render_docker(cpu, load_matrices(), DockerOptions()).text
    assert "Run: docker run --rm IMAGE" in text and "--gpus" not in text
    drifted = compare(cpu, [InstalledDistribution("six", "1.15.0")], python="3.11.7", interpreter="/v/bin/python",
                      driver=None, lock_name="locks/gpu/envguard.lock.json")
    fix = verify_text(drifted).split("fix (", 1)[1]  # the commands below the "fix (...)" line
    assert "-r locks/gpu/requirements.lock.txt" in fix and "extras" not in fix and "uninstall" not in fix
    extra = compare(cpu, [InstalledDistribution("six", "1.16.0"), InstalledDistribution("evil", "1.0")],
                    python="3.11.7", interpreter="/v/bin/python", driver=None, lock_name="envguard.lock.json")
    fix = verify_text(extra).split("fix (", 1)[1]
    assert "pip uninstall -y evil" in fix


@pytest.mark.slow
def test_verbose_logs_each_command_on_one_line(tmp_path: Path) -> None:
    code, _, err = run("-v", "snapshot", "-o", str(tmp_path / "s.json"))
    assert code == 0
    ran = [line for line in err.splitlines() if line.startswith("envguard: INFO: ran ")]
    assert any(sys.executable in line or "python" in line for line in ran), err
    assert all(re.search(r" in \d+\.\d\ds: exit -?\d+$", line) for line in ran), ran
    assert all(len(line) < 250 for line in ran)
    assert "envguard: DEBUG" not in err
    code, _, err = run("-vv", "snapshot", "-o", str(tmp_path / "t.json"))
    assert code == 0 and "envguard: DEBUG:   cwd " in err


def test_cpython_versions_come_from_capped_ranges() -> None:
    from envguard.knowledge import load_matrices
    from envguard.lock.request import check_python_version, newest_python

    m = load_matrices()
    newest = newest_python(m)
    assert (3, 12) <= newest < (3, 20)  # jax's ">=3.11" (no ceiling) does not make 3.39 a Python
    for ok in ("2.7", "3.6", f"3.{newest[1]}", f"3.{newest[1] + 1}", "3.11.7"):
        check_python_version(m, ok)
    for bad in ("3.99", f"3.{newest[1] + 2}", "4.0", "2.8", "1.5"):
        with pytest.raises(InputError, match="no CPython release has that version"):
            check_python_version(m, bad)
