"""The console script's exit (`envguard.cli.run`): it ends the process without interpreter finalisation, but with
the same exit status, the same output and the atexit handlers run — and it exits normally while a thread lives."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _python(code: str, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def _with_main(body: str) -> str:
    """A script that replaces the click group by ``body`` (a function of no arguments) and calls run()."""
    return "import envguard.cli as cli\n" + textwrap.dedent(body) + "\ncli.main = fake\ncli.run()\n"


@pytest.mark.slow
def test_python_m_envguard_check_json_is_one_document_with_the_exit_status_of_its_findings() -> None:
    done = subprocess.run([sys.executable, "-m", "envguard", "check", "--format", "json"], capture_output=True,
                          text=True, timeout=300, check=False)
    doc = json.loads(done.stdout)
    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    assert done.returncode == (1 if errors else 0), done.stderr


def test_usage_errors_keep_exit_status_2_and_their_message() -> None:
    done = _python("import sys\nsys.argv = ['envguard', 'check', '--format', 'nope']\n"
                   "import envguard.cli as c\nc.run()")
    assert done.returncode == 2
    assert "Invalid value for '--format'" in done.stderr


@pytest.mark.parametrize(("code", "status", "stderr"), [
    ("raise SystemExit(4)", 4, ""),
    ("raise SystemExit(None)", 0, ""),
    ("raise SystemExit('envguard: gone')", 1, "envguard: gone"),
])
def test_exit_codes_are_what_the_interpreter_would_give(code: str, status: int, stderr: str) -> None:
    done = _python(_with_main(f"def fake():\n    print('out', end='')\n    {code}\n"))
    assert (done.returncode, done.stdout, done.stderr.strip()) == (status, "out", stderr)


def test_atexit_handlers_run_and_buffered_output_is_flushed(tmp_path: Path) -> None:
    marker = tmp_path / "atexit-ran"
    done = _python(_with_main(f"""
        import atexit, sys
        def fake():
            atexit.register(lambda: open({str(marker)!r}, "w").close())
            sys.stdout.write("x" * 100000)  # NOTE: more than one buffer, the rest left in it
            raise SystemExit(1)
        """))
    assert done.returncode == 1
    assert len(done.stdout) == 100000
    assert marker.exists()


def test_a_live_thread_is_joined_as_at_a_normal_exit(tmp_path: Path) -> None:
    """A non-daemon thread still running when the command returns finishes its work (os._exit would kill it)."""
    out = tmp_path / "written-by-thread"
    done = _python(_with_main(f"""
        import threading, time
        def late():
            time.sleep(0.5)
            open({str(out)!r}, "w").write("done")
        def fake():
            threading.Thread(target=late).start()
            raise SystemExit(0)
        """))
    assert done.returncode == 0, done.stderr
    assert out.read_text() == "done"
