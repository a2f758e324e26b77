"""envguard.lock.resolve: parsing uv/pip output, and the argv each resolver runs (fake runner at the process
boundary; no real process is spawned)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from envguard._subprocess import CommandResult
from envguard.errors import LockError
from envguard.lock.resolve import (
    PLATFORMS,
    PipResolver,
    ResolveRequest,
    UvResolver,
    parse_hashed_requirements,
    parse_pip_report,
)
from envguard.lock.spec import LockedPackage


def h(c: str) -> str:
    return c * 64


UV_OUTPUT = f"""\
--extra-index-url https://download.pytorch.org/whl/cu121

filelock==3.16.1 \\
    --hash=sha256:{h("2")} \\
    --hash=sha256:{h("1")}
jax[cuda12]==0.4.30 \\
    --hash=sha256:{h("3")}

Jinja2==3.1.4 \\
    --hash=sha256:{h("4")}
torch==2.5.1+cu121 \\
    --hash=sha256:{h("5")} \\
    --hash=sha256:{h("6")} \\
    --hash=sha256:{h("7")}
    # via -r requirements.in
"""


# ---- parse_hashed_requirements ------------------------------------------------------------------


def test_parse_hashed_requirements_realistic_uv_output() -> None:
    pins = parse_hashed_requirements(UV_OUTPUT, {"torch", "jax"})
    assert pins == (
        LockedPackage("filelock", "3.16.1", (f"sha256:{h('1')}", f"sha256:{h('2')}"), False),
        LockedPackage("jax", "0.4.30", (f"sha256:{h('3')}",), True),
        LockedPackage("Jinja2", "3.1.4", (f"sha256:{h('4')}",), False),
        LockedPackage("torch", "2.5.1+cu121", tuple(f"sha256:{h(c)}" for c in "567"), True),
    )


def test_parse_hashed_requirements_dedupes_hashes_and_ignores_index_lines() -> None:
    text = (f"--index-url https://x.org/simple\n--find-links /w\n# comment\n"
            f"a==1.0 \\\n    --hash=sha256:{h('a')} \\\n    --hash=sha256:{h('a')}\n")
    assert parse_hashed_requirements(text, set()) == (LockedPackage("a", "1.0", (f"sha256:{h('a')}",)),)


def test_parse_hashed_requirements_ignores_markers() -> None:
    text = f'colorama==0.4.6 ; sys_platform == "win32" \\\n    --hash=sha256:{h("c")}\n'
    assert parse_hashed_requirements(text, {"colorama"}) == (
        LockedPackage("colorama", "0.4.6", (f"sha256:{h('c')}",), True),)


def test_parse_hashed_requirements_empty_output() -> None:
    assert parse_hashed_requirements("\n\n", {"x"}) == ()


@pytest.mark.parametrize("line", [
    f"foo @ https://example.org/foo-1.0-py3-none-any.whl \\\n    --hash=sha256:{h('f')}",
    "-e file:///src/proj",
    f"foo>=1.0 \\\n    --hash=sha256:{h('f')}",
])
def test_parse_hashed_requirements_rejects_non_pins(line: str) -> None:
    with pytest.raises(LockError, match=r"the resolver returned a requirement envguard cannot lock"):
        parse_hashed_requirements(f"a==1.0 \\\n    --hash=sha256:{h('a')}\n{line}\n", set())


def test_parse_hashed_requirements_rejects_pin_without_hash() -> None:
    with pytest.raises(LockError, match=r"^the resolver returned no hash for numpy==2.1.3$"):
        parse_hashed_requirements(f"numpy==2.1.3\nscipy==1.14.1 \\\n    --hash=sha256:{h('s')}\n", set())


def test_parse_hashed_requirements_rejects_bad_version() -> None:
    with pytest.raises(LockError, match=r"is not a PEP 440 version"):
        parse_hashed_requirements(f"a==latest \\\n    --hash=sha256:{h('a')}\n", set())


# ---- parse_pip_report --------------------------------------------------------------------------


def _item(name: str, version: str, info: dict[str, Any], requested: bool = False) -> dict[str, Any]:
    return {"download_info": info, "is_direct": False, "requested": requested,
            "metadata": {"metadata_version": "2.1", "name": name, "version": version}}


def _report(*items: dict[str, Any], version: Any = "1") -> dict[str, Any]:
    return {"version": version, "pip_version": "24.2", "install": list(items),
            "environment": {"python_version": "3.11"}}


def test_parse_pip_report_both_hash_forms() -> None:
    doc = _report(
        _item("torch", "2.5.1+cu121", {
            "url": "https://download.pytorch.org/whl/cu121/torch-2.5.1%2Bcu121-cp311-cp311-linux_x86_64.whl",
            "archive_info": {"hash": f"sha256={h('5')}", "hashes": {"sha256": h("5")}}}, requested=True),
        _item("Filelock", "3.16.1", {
            "url": "https://files.example.org/filelock-3.16.1-py3-none-any.whl",
            "archive_info": {"hash": f"sha256={h('1')}"}}),
        _item("MarkupSafe", "3.0.2", {
            "url": "https://files.example.org/MarkupSafe-3.0.2.tar.gz",
            "archive_info": {"hashes": {"sha256": h("2"), "md5": "0" * 32}}}),
    )
    assert parse_pip_report(doc, {"torch"}) == (
        LockedPackage("Filelock", "3.16.1", (f"sha256:{h('1')}",), False),
        LockedPackage("MarkupSafe", "3.0.2", (f"sha256:{h('2')}",), False),
        LockedPackage("torch", "2.5.1+cu121", (f"sha256:{h('5')}",), True),
    )


def test_parse_pip_report_local_directory_has_no_hash() -> None:
    doc = _report(_item("myproj", "0.1.0", {"url": "file:///home/u/myproj", "dir_info": {}}))
    with pytest.raises(LockError, match=r"^myproj==0.1.0 comes from file:///home/u/myproj, which has no sha256"):
        parse_pip_report(doc, set())


@pytest.mark.parametrize("archive", [{"hash": "md5=" + "0" * 32}, {"hashes": {"sha256": "xyz"}}, {}])
def test_parse_pip_report_rejects_missing_or_bad_sha256(archive: dict[str, Any]) -> None:
    doc = _report(_item("a", "1.0", {"url": "https://x.org/a-1.0.tar.gz", "archive_info": archive}))
    with pytest.raises(LockError, match=r"which has no sha256 to lock"):
        parse_pip_report(doc, set())


@pytest.mark.parametrize("doc", [
    _report(version="2"), _report(version=None), {"version": "1"}, {"version": "1", "install": {}},
])
def test_parse_pip_report_rejects_other_versions_and_shapes(doc: dict[str, Any]) -> None:
    with pytest.raises(LockError, match=r"^pip's --report is not an installation report of version 1$"):
        parse_pip_report(doc, set())


def test_parse_pip_report_rejects_bad_name() -> None:
    doc = _report(_item("a;b", "1.0", {"url": "u", "archive_info": {"hashes": {"sha256": h("a")}}}))
    with pytest.raises(LockError, match=r"is not a valid distribution name"):
        parse_pip_report(doc, set())


# ---- the resolvers, with a fake runner ---------------------------------------------------------


class Recorder:
    """A CommandRunner that records its calls and answers with a fixed result (optionally writing pip's report)."""

    def __init__(self, *, rc: int = 0, stdout: str = "", stderr: str = "", report: dict[str, Any] | None = None,
                 start_error: str | None = None, timed_out: bool = False) -> None:
        self.rc, self.stdout, self.stderr = rc, stdout, stderr
        self.report, self.start_error, self.timed_out = report, start_error, timed_out
        self.argv: tuple[str, ...] = ()
        self.timeout = 0.0
        self.stdin: str | None = None
        self.cwd: str | None = None
        self.req_file_text = ""
        self.calls = 0

    def __call__(self, argv: tuple[str, ...], *, timeout: float, env: dict[str, str] | None = None,
                 cwd: str | None = None, stdin: str | None = None) -> CommandResult:
        if argv[1:] == ("--version",):  # uv is asked its version while it resolves (another thread)
            return CommandResult(argv, 0, "uv 0.9.0 (x86_64-unknown-linux-gnu)\n", "", 0.01, False, None)
        self.calls += 1
        self.argv, self.timeout, self.stdin, self.cwd = argv, timeout, stdin, cwd
        if "-r" in argv:
            self.req_file_text = Path(argv[argv.index("-r") + 1]).read_text(encoding="utf-8")
        if self.report is not None:
            Path(argv[argv.index("--report") + 1]).write_text(json.dumps(self.report), encoding="utf-8")
        return CommandResult(argv, self.rc, self.stdout, self.stderr, 0.5, self.timed_out, self.start_error)


def _request(**kw: Any) -> ResolveRequest:
    base: dict[str, Any] = {"requirements": ("torch==2.5.*,==2.5.*", "Jax[cuda12]>=0.4"), "python": "3.11",
                            "platform": "linux-x86_64", "timeout_s": 42.0}
    base.update(kw)
    return ResolveRequest(**base)


def test_platforms_table() -> None:
    uv_x86, pip_x86 = PLATFORMS["linux-x86_64"]
    assert uv_x86 == "x86_64-manylinux_2_28"
    assert pip_x86[0] == "manylinux_2_28_x86_64"
    assert pip_x86[-3:] == ("manylinux_2_17_x86_64", "manylinux2014_x86_64", "linux_x86_64")
    assert len(pip_x86) == 14
    uv_arm, pip_arm = PLATFORMS["linux-aarch64"]
    assert uv_arm == "aarch64-manylinux_2_28"
    assert all(t.endswith("aarch64") for t in pip_arm)


def test_uv_resolver_argv_and_stdin() -> None:
    run = Recorder(stdout=UV_OUTPUT)
    request = _request(extra_index_urls=("https://download.pytorch.org/whl/cu121", "https://e.org/simple"),
                       index_url="https://mirror.org/simple", find_links=("/w1",), platform="linux-aarch64")
    result = UvResolver("/usr/bin/uv", "0.5.1").resolve(request, run)
    assert run.argv == (
        "/usr/bin/uv", "pip", "compile", "-", "--generate-hashes", "--no-header", "--no-annotate", "--quiet",
        "--python-version", "3.11", "--python-platform", "aarch64-manylinux_2_28",
        "--index-url", "https://mirror.org/simple",
        "--extra-index-url", "https://download.pytorch.org/whl/cu121", "--extra-index-url", "https://e.org/simple",
        "--find-links", "/w1",
    )
    assert run.stdin == "torch==2.5.*,==2.5.*\nJax[cuda12]>=0.4\n"
    assert run.timeout == 42.0
    assert result.resolver == "uv 0.5.1"
    assert [(p.key, p.requested) for p in result.packages] == [
        ("filelock", False), ("jax", True), ("jinja2", False), ("torch", True)]


def test_uv_resolver_offline() -> None:
    run = Recorder(stdout=f"a==1.0 \\\n    --hash=sha256:{h('a')}\n")
    result = UvResolver("uv").resolve(_request(no_index=True, find_links=("/wheels",)), run)
    assert run.argv[-3:] == ("--find-links", "/wheels", "--no-index")
    assert "--index-url" not in run.argv and "--extra-index-url" not in run.argv
    assert result.resolver == "uv 0.9.0"  # asked of uv itself, while it resolved


def test_uv_resolver_failure_carries_uv_reason() -> None:
    stderr = ("warning: something unrelated\n"
              "  × No solution found when resolving dependencies:\n"
              "  ╰─▶ Because there is no version of torch==9.9 and you require torch==9.9, we can conclude that "
              "your requirements are unsatisfiable.\n")
    with pytest.raises(LockError) as info:
        UvResolver("uv").resolve(_request(), Recorder(rc=1, stderr=stderr))
    msg = str(info.value)
    assert msg.startswith("uv could not resolve the request:\n  ")
    assert "No solution found when resolving dependencies" in msg
    assert "there is no version of torch==9.9" in msg
    assert "something unrelated" not in msg


def test_uv_resolver_not_startable() -> None:
    with pytest.raises(LockError, match=r"^/opt/uv: not found$"):
        UvResolver("/opt/uv").resolve(_request(), Recorder(rc=127, start_error="not found"))


def test_pip_resolver_argv_for_a_foreign_target() -> None:
    report = _report(_item("numpy", "2.1.3", {"url": "https://x/numpy.whl",
                                              "archive_info": {"hashes": {"sha256": h("9")}}}))
    run = Recorder(report=report)
    request = _request(requirements=("numpy==2.1.*",), python="3.12",
                       extra_index_urls=("https://download.pytorch.org/whl/cpu",), find_links=("/w",), no_index=True)
    result = PipResolver("/usr/bin/python3", "24.2").resolve(request, run)
    argv = run.argv
    assert argv[:9] == ("/usr/bin/python3", "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                        "--no-input", "--disable-pip-version-check")
    assert argv[9] == "--report" and argv[10].endswith("report.json")
    assert argv[11] == "-r" and argv[12].endswith("requirements.in")
    assert argv[13:18] == ("--python-version", "3.12", "--only-binary=:all:", "--implementation", "cp")
    # pip takes platform options only with --target (older pip); it must point into the temporary folder.
    assert run.cwd is not None
    assert "--target" in argv and argv[argv.index("--target") + 1].startswith(run.cwd)
    platforms = [argv[i + 1] for i, a in enumerate(argv) if a == "--platform"]
    assert tuple(platforms) == PLATFORMS["linux-x86_64"][1]
    assert argv[-5:] == ("--extra-index-url", "https://download.pytorch.org/whl/cpu", "--find-links", "/w",
                         "--no-index")
    assert run.req_file_text == "numpy==2.1.*\n"
    assert argv[10].startswith(run.cwd)
    assert run.timeout == 42.0
    assert result.resolver == "pip 24.2"
    assert result.packages == (LockedPackage("numpy", "2.1.3", (f"sha256:{h('9')}",), True),)
    assert not Path(run.cwd).exists()  # the temporary folder is cleaned up


def test_pip_resolver_native_interpreter_resolves_without_platform_flags() -> None:
    report = _report(_item("numpy", "2.1.3", {"url": "u", "archive_info": {"hashes": {"sha256": h("9")}}}))
    run = Recorder(report=report)
    PipResolver("/usr/bin/python3").resolve(_request(interpreter="/venv/bin/python", index_url="https://m/simple"), run)
    assert run.argv[0] == "/venv/bin/python"
    assert "--platform" not in run.argv and "--python-version" not in run.argv
    assert "--only-binary=:all:" not in run.argv and "--target" not in run.argv
    assert run.argv[-2:] == ("--index-url", "https://m/simple")


def test_pip_resolver_failure_carries_pip_reason() -> None:
    stderr = ("WARNING: Retrying after connection broken\n"
              "Looking in indexes: https://index.example/simple\n"
              "ERROR: Could not find a version that satisfies the requirement torch==9.9 (from versions: 2.5.1)\n"
              "ERROR: No matching distribution found for torch==9.9\n")
    with pytest.raises(LockError) as info:
        PipResolver("python3").resolve(_request(), Recorder(rc=1, stderr=stderr))
    msg = str(info.value)
    assert msg.startswith("pip could not resolve the request:\n  ERROR: Could not find a version")
    assert msg.endswith("ERROR: No matching distribution found for torch==9.9")
    assert "Retrying" not in msg and "Looking in" not in msg


def test_pip_resolver_timeout() -> None:
    with pytest.raises(LockError, match=r"did not finish within"):
        PipResolver("python3").resolve(_request(), Recorder(rc=-9, timed_out=True))


def test_pip_resolver_without_report() -> None:
    with pytest.raises(LockError, match=r"^pip wrote no readable --report"):
        PipResolver("python3").resolve(_request(), Recorder())


def test_pip_resolver_report_without_hash() -> None:
    report = _report(_item("myproj", "0.1", {"url": "file:///src/myproj", "dir_info": {"editable": True}}))
    with pytest.raises(LockError, match=r"myproj==0.1 comes from file:///src/myproj"):
        PipResolver("python3").resolve(_request(), Recorder(report=report))


# ---- newest: what an unconstrained request would get (issue 12 item 3) ---------------------------


@pytest.mark.slow
@pytest.mark.parametrize("which", ["uv", "pip"])
def test_both_resolvers_say_the_newest_version_the_sources_offer(which: str, tmp_path: Path) -> None:
    """Real uv and real pip over a find-links folder holding torch 2.15.0 and 2.16.0 (a release newer than any
    torch.toml knows): each names 2.16.0, so `lock` can say the index has a newer torch than it pinned."""
    import os

    from envguard import _subprocess
    from envguard.lock.resolve import choose_resolver
    from tests.wheelhouse import make_wheel

    house = tmp_path / "house"
    for version in ("2.15.0", "2.16.0"):
        make_wheel(house, "torch", version)
    resolver = choose_resolver(which, dict(os.environ), _subprocess.run)
    request = ResolveRequest(requirements=("torch",), python="3.11", platform="linux-x86_64",
                             find_links=(str(house),), no_index=True, timeout_s=120.0)
    assert resolver.newest(request, "torch", _subprocess.run) == "2.16.0"
    assert resolver.newest(request, "no-such-package-anywhere", _subprocess.run) is None
