"""CPU-build statements whose framework is named in the sentence before or as a bracketed variant, and what a
report says about the machine having an NVIDIA GPU / CUDA (reports.extract_builds → reports.variants →
rules.cpu_report), on real lines; each test names its thread."""

from __future__ import annotations

import pytest

from envguard.knowledge import load_matrices
from envguard.reports import extract_builds, parse_environments
from tests.reports import error_codes as errors


def claims(line: str, prev: str = "") -> list[tuple[str, str]]:
    lines = [prev, line] if prev else [line]
    return [(m.key, m.value) for m in extract_builds.build_facts(lines, 0) if m.kind == extract_builds.CPU_CLAIM]


def present(*lines: str) -> list[str]:
    return [m.value for m in extract_builds.build_facts(list(lines), 0) if m.kind == extract_builds.GPU_PRESENT]


# ---- "the CPU version" with the framework named before -------------------------------------------------------

@pytest.mark.parametrize(("line", "prev", "want"), [
    # kyutai-labs/delayed-streams-modeling#131 (case 426): the framework in the sentence before, the variant in brackets
    ("Unsure, if this is an issue with windows only. But when trying to directly use `uvx --with moshi`, the wrong "
     "pytorch version is installed. It defaults to the [cpu] version even when having cuda installed.", "",
     ("torch", "the [cpu] version")),
    # https://github.com/mlverse/torch/issues/737
    ("torch did not autodetect my cuda installation. Therefore it downloaded the CPU-Version. To overcome this, I "
     "searched the issues here and did this:", "", ("torch", "the CPU-Version")),
    # https://github.com/Comfy-Org/ComfyUI/issues/8484 (the verb after the claim)
    ("The problem I encountered is that when I upgrade COMFYUI and its dependencies using the \"update_comfyui_1d_"
     "python_deependencies. bat\" file in the \"update\" folder, by default, the original torch torch torch vision "
     "torch studio three dependencies will be uninstalled and only the CPU version will be reinstalled.", "",
     ("torch", "the CPU version")),
    # https://github.com/rasbt/reasoning-from-scratch/pull/83
    ("As readers reported, PyTorch 2.9 installs the CPU-only version by default on some systems "
     "(https://livebook.manning.com/forum?comment=581134).", "", ("torch", "the CPU-only version")),
    # the framework on the line above (a wrapped paragraph), as in mlverse/torch#737
    ("Therefore it downloaded the CPU-Version.", "torch did not autodetect my cuda installation.",
     ("torch", "the CPU-Version")),
])
def test_bare_cpu_claim_takes_the_framework_named_before(line: str, prev: str, want: tuple[str, str]) -> None:
    assert claims(line, prev) == [want]


def test_bracketed_variant_before_the_framework() -> None:
    # the variant as an extra, framework after (426's wording turned around)
    assert claims("It installed the [cpu] version of pytorch.") == [("torch", "[cpu] version of pytorch")]


@pytest.mark.parametrize("line", [
    "torch.sqrt gives different results. The cpu version is 1.0 and the cuda version is 1.1.",  # no install verb
    "I use torch. It installed the cpu version of the model.",  # not the framework's build
    "I use pytorch. It did not install the cpu version.",  # negated
    "I use pytorch and tensorflow. It installed the cpu version.",  # which framework is not said
    "I use pytorch. If it installed the cpu version, reinstall it.",  # a supposition
    "It installed the cpu version.",  # no framework named at all
])
def test_bare_cpu_claim_needs_a_verb_one_framework_and_no_hedge(line: str) -> None:
    assert claims(line) == []


# ---- the machine has an NVIDIA GPU / CUDA ---------------------------------------------------------------------

def test_issue_form_hardware_answer() -> None:
    # kyutai-labs/moshi .github/ISSUE_TEMPLATE/bug.yml: "Hardware" = CPU / GPU with CUDA / Metal with MLX (case 426)
    assert present("### Hardware", "", "GPU with CUDA", "", "### Description") == ["GPU with CUDA"]
    assert present("### Hardware", "", "CPU", "") == []
    assert present("### Hardware", "", "Metal with MLX", "") == []


@pytest.mark.parametrize(("line", "want"), [
    # kyutai-labs/delayed-streams-modeling#131
    ("It defaults to the [cpu] version even when having cuda installed.", "having cuda installed"),
    # https://github.com/mlverse/torch/issues/737
    ("What bothers me is that I actually have the newest version of cuda installed, but in the last step got told "
     "that ", "I actually have the newest version of cuda installed"),
    # https://github.com/huggingface/lerobot/issues/4093
    ("On Windows, running `uv sync` from a fresh clone of the latest `main` branch installs the CPU-only PyTorch build "
     "(`torch==2.11.0+cpu`), even when a supported NVIDIA GPU and driver are present.",
     "NVIDIA GPU and driver are present"),
    ("I have an NVIDIA GPU and torch.cuda.is_available() is False.", "I have an NVIDIA GPU"),
])
def test_prose_says_the_machine_has_cuda(line: str, want: str) -> None:
    assert present(line) == [want]


@pytest.mark.parametrize("line", [
    # torch's own warning (https://github.com/pytorch/pytorch/issues/74733) addresses the reader, not this machine
    "UserWarning: CUDA initialization: Found no NVIDIA driver on your system. Please check that you have an NVIDIA "
    "GPU and installed a driver from http://www.nvidia.com/Download/index.aspx",
    "I don't have an NVIDIA GPU.",
    "Do I need CUDA installed?",
    "If you have an NVIDIA GPU, install the cu124 build.",
])
def test_prose_hedged_or_addressed_is_not_the_machine(line: str) -> None:
    assert present(line) == []


# ---- judged ------------------------------------------------------------------------------------------------

MOSHI = ("### Hardware\n\nGPU with CUDA\n\n### Description\n\n"
         "But when trying to directly use `uvx --with moshi`, the wrong pytorch version is installed. It defaults to "
         "the [cpu] version even when having cuda installed.\n\n"
         "Example for me with CUDA 12.4, I've run the following command\n\n"
         "`uvx --with moshi --with torch==2.5.1+cu124 --index-url https://download.pytorch.org/whl/cu124 python "
         "scripts/tts_pytorch.py`\n")


def test_claim_beats_a_tagged_version_only_a_command_asked_for() -> None:
    # kyutai-labs/delayed-streams-modeling#131: the +cu124 is the quick fix the reporter ran, not what uvx installed
    env = parse_environments(MOSHI, "t", load_matrices())[0].snapshot
    torch = env.framework("torch")
    assert torch is not None and torch.accelerator == "cpu" and torch.version == "?"
    assert "cpu-only-build" in errors(MOSHI)


def test_a_listed_tagged_version_is_not_taken_back_by_a_claim() -> None:
    # the same report with pip list showing the CUDA build: what is installed is known, the sentence does not decide
    text = MOSHI + "\n```\n$ pip list\ntorch                2.5.1+cu124\n```\n"
    env = parse_environments(text, "t", load_matrices())[0].snapshot
    torch = env.framework("torch")
    assert torch is not None and torch.accelerator == "cuda"
    assert "cpu-only-build" not in errors(text)


def test_claim_without_gpu_evidence_or_on_macos_is_no_error() -> None:
    # https://github.com/mlverse/torch/issues/737 wording: with "I have ... cuda installed" it is an error …
    claim = "torch did not autodetect my cuda installation. Therefore it downloaded the CPU-Version."
    has = "What bothers me is that I actually have the newest version of cuda installed."
    assert "cpu-only-build" in errors(f"{claim}\n\n{has}\n")
    # … without it nothing says the machine has an NVIDIA GPU, and on macOS there is none to use
    assert "cpu-only-build" not in errors(f"{claim}\n")
    assert "cpu-only-build" not in errors(f"OS: macOS 14.5\n\n{claim}\n\n{has}\n")
