"""The house (docs/architecture.md): each command imports only its own room, every command is wired."""

from __future__ import annotations

import json
import os
import sys

import click
import pytest
from click.testing import CliRunner

from envguard import _subprocess
from envguard.cli import COMMANDS, main

#: Rooms `envguard check` must not pay for.
NOT_FOR_CHECK = (
    "envguard.commands.lock", "envguard.commands.smoke", "envguard.commands.preflight", "envguard.commands.fleet",
    "envguard.commands.init", "envguard.cli.lock", "envguard.cli.smoke", "envguard.cli.fleet", "envguard.cli.init",
    "envguard.cli.preflight", "envguard.lock", "envguard.smoke", "envguard.fleet", "envguard.scaffold",
    "envguard.engine", "envguard.fingerprints", "envguard.knowledge.paddle", "envguard.knowledge.cuda_images",
    "envguard.knowledge.gpu_peaks", "envguard.reports", "docker", "torch", "tensorflow", "jax",
    # the error catalogue and the rules that judge a report's error lines: a probed machine shows none
    "envguard.knowledge.errors", "envguard.rules.signatures", "envguard.rules.installs", "envguard.rules.arch_evidence",
    # on a machine without libnvidia-ml.so.1 the NVML probe answers without importing pynvml
    *(() if os.path.exists("/proc/driver/nvidia/version") else ("pynvml",)),
    "rich", "rich.console",
)

_PROBE = """
import json, sys
from envguard.cli import main
try:
    main(["check", "--format", sys.argv[1], "--timeout", "5"])
except SystemExit:
    pass
sys.stdout.flush()
print("\\n" + json.dumps(sorted(m for m in sys.modules if m.startswith(("envguard", "docker", "torch",
      "tensorflow", "jax", "rich")))), file=sys.stderr)
"""


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_check_imports_only_its_own_rooms(fmt: str) -> None:
    """Also not rich: text into a pipe is laid out without it (formatters/text.py plain_text)."""
    result = _subprocess.run((sys.executable, "-c", _PROBE, fmt), timeout=120)
    loaded = set(json.loads(result.stderr.strip().splitlines()[-1]))
    assert "envguard.commands.check" in loaded and "envguard.cli.check" in loaded
    assert not loaded & set(NOT_FOR_CHECK), sorted(loaded & set(NOT_FOR_CHECK))


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_is_wired_and_has_help(name: str) -> None:
    command = main.get_command(click.Context(main), name)
    assert isinstance(command, click.Command) and command.name == name
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output


def test_top_level_help_lists_every_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert f"  {name} " in result.output or f"  {name}\n" in result.output, name


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["chekc"])
    assert result.exit_code == 2 and "No such command" in result.output


def test_rules_imported_on_first_error_line_say_what_the_rules_themselves_say() -> None:
    """ALL_RULES names the deferred rules without importing them; their id and summary must be the rule's own."""
    import importlib

    from envguard.rules import ALL_RULES, OnErrorLines

    deferred = [r for r in ALL_RULES if isinstance(r, OnErrorLines)]
    assert deferred
    for wrapper in deferred:
        module, name = wrapper.target.split(":")
        rule = getattr(importlib.import_module(module), name)
        assert (wrapper.id, wrapper.summary) == (rule.id, rule.summary), wrapper.target
