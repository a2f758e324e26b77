"""Time is bounded on any input (issue 17.1): every tool-output parser and every errors.toml pattern runs in
time linear in its input.

Each target is timed on adversarial inputs of 1k, 16k and 256k characters (long runs of one character,
repeated prefixes of real lines, real lines stretched by a long gap, many blank lines). Only ratios are
compared, never absolute timings: ``t(16 n) / (16 * t(n))`` is about 1 for a linear parser and about 16 for
a quadratic one, on any machine. Each timing is the minimum of several repeats, so a loaded CI box (two
cores, other jobs) does not fake growth. The 256k step runs for each target's worst input at 16k only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from envguard.knowledge import load_matrices
from envguard.knowledge.errors import ErrorSignature
from envguard.probes import parsers

pytestmark = pytest.mark.slow

SIZES = (1_000, 16_000, 256_000)
#: Highest accepted ``t(16 n) / (16 * t(n))``; linear gives ~1, quadratic ~16.
MAX_GROWTH = 5.0

#: Every parser of envguard/probes/parsers.py that takes text.
TEXT_PARSERS: dict[str, Callable[[str], object]] = {
    name: getattr(parsers, name)
    for name in parsers.__all__
    if name.startswith(("parse_", "gpus_", "driver_", "classify_", "nvml_", "version_", "soname_"))
}

#: Real first lines: each parser is also fed its own header followed by the adversarial body.
_PREFIXES = (
    "",
    "index, name, memory.total [MiB]\n",
    "| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |\n| ",
    "GPU 00000000:01:00.0\n    Product Name  : ",
    "#define CUDNN_MAJOR ",
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module ",
    "Cuda compilation tools, release 12.4, V",
    "$ nvidia-smi -L\nGPU 0: ",
    "libcudnn.so.",
)
_UNITS = (" ", "\n", " \n", "a", "0", "[", "|", ":", ".", ",", "#", "$", ">", "a :", "0 ", "| 0 ", "0.", "\t",
          "{\"a\":", "[[", "GPU 0: a ", " MiB", "(", "a]")


def _best_of(func: Callable[[], object], repeats: int) -> float:
    """The least CPU time of ``repeats`` calls (thread CPU time: a preempted call is not counted as slow)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.thread_time()
        func()
        best = min(best, time.thread_time() - start)
    return best


def _growth(func: Callable[[str], object], make: Callable[[int], str], small: int, repeats: int) -> float:
    """``t(16 small) / (16 t(small))``, each time the minimum of ``repeats`` runs."""
    big_text = make(small * 16)
    small_text = make(small)
    # NOTE: the small input is timed as 16 calls in a row, so per-call overhead and timer resolution cancel.
    t_small = _best_of(lambda: [func(small_text) for _ in range(16)], repeats)
    t_big = _best_of(lambda: func(big_text), repeats)
    return t_big / max(t_small, 1e-7)


def _assert_linear(label: str, func: Callable[[str], object], makers: dict[str, Callable[[int], str]]) -> None:
    # A quick screen (one run each), then a careful measure of the inputs that look suspicious.
    growth = {name: _growth(func, make, SIZES[0], 1) for name, make in makers.items()}
    suspects = sorted(growth, key=lambda k: -growth[k])[:3]
    growth.update({name: _growth(func, makers[name], SIZES[0], 5) for name in suspects})
    worst = max(growth, key=lambda k: growth[k])
    assert growth[worst] < MAX_GROWTH, f"{label} grows superlinearly 1k -> 16k on {worst}: x{growth[worst]:.1f}"
    again = _growth(func, makers[worst], SIZES[1], 3)  # 16k -> 256k for the worst input
    assert again < MAX_GROWTH, f"{label} grows superlinearly 16k -> 256k on {worst}: x{again:.1f}"


def _repeat(prefix: str, unit: str, tail: str) -> Callable[[int], str]:
    def make(n: int) -> str:
        body = n - len(prefix) - len(tail)
        return prefix + (unit * (body // len(unit) + 1))[: max(body, 1)] + tail
    return make


def _parser_inputs() -> dict[str, Callable[[int], str]]:
    makers = {f"{unit!r}*n+'x'": _repeat("", unit, "x") for unit in _UNITS}
    for prefix in _PREFIXES[1:]:
        for unit in (" ", "\n", " \n", "0", "a", "[", ":"):
            makers[f"{prefix[:12]!r}+{unit!r}*n+'x'"] = _repeat(prefix, unit, "x")
    # Inside a GPU row block of the default table: a long cell after a GPU's first row, a long name.
    header = _PREFIXES[2].rsplit("\n", 1)[0] + "\n"
    gpu_row = "|   0  NVIDIA A100-SXM4-80GB   On  | 00000000:01:00.0 Off |\n| "
    for unit in (" ", "0", "0 "):
        makers[f"table row block+{unit!r}*n"] = _repeat(header + gpu_row, unit, " MiB |")
        makers[f"table GPU name {unit!r}*n"] = _repeat(header + "|   0  NVIDIA", unit, "x On | 00000000:01:00.0 |")
    return makers


@pytest.mark.parametrize("name", sorted(TEXT_PARSERS))
def test_parser_time_is_linear(name: str) -> None:
    _assert_linear(f"parsers.{name}", TEXT_PARSERS[name], _parser_inputs())


# ---- errors.toml -----------------------------------------------------------------------------------

def _signature_inputs(sig: ErrorSignature) -> Iterator[tuple[str, Callable[[int], str]]]:
    """Runs of each character of the examples; each example's prefixes (cut after punctuation) repeated;
    each example stretched at those cuts by a long gap of spaces or letters."""
    for char in sorted(set("".join(sig.examples)) | {" ", "a", "0"}):
        yield f"{char!r}*n", _repeat("", char, "")
    for example in sig.examples[:3]:
        cuts = sorted({i + 1 for i, c in enumerate(example) if not c.isalnum()} | {len(example) // 2})
        for cut in cuts[:12]:
            head, rest = example[:cut], example[cut:]
            yield f"{head[-15:]!r} repeated", _repeat("", head, "")
            yield f"{head[-15:]!r}+' '*n+{rest[:10]!r}", _repeat(head, " ", rest)
            yield f"{head[-15:]!r}+'a'*n+{rest[:10]!r}", _repeat(head, "a", rest)


def _catalogue() -> tuple[ErrorSignature, ...]:
    return load_matrices().errors.signatures


@pytest.mark.parametrize("sig", _catalogue(), ids=lambda s: s.id)
def test_catalogue_pattern_time_is_linear(sig: ErrorSignature) -> None:
    pattern = sig.pattern.compiled
    _assert_linear(f"errors.toml {sig.id}: {pattern.pattern[:60]}", pattern.search, dict(_signature_inputs(sig)))


def test_catalogue_match_is_linear_on_one_long_line() -> None:
    """The whole catalogue on one log line (a 400 KB line was not explained after 120 s)."""
    errors = load_matrices().errors
    example = next(s for s in errors.signatures if s.id == "torch-arch-not-compatible").examples[0]
    makers = {
        "letters then a message": lambda n: "e" * (n - len(example)) + " " + example,
        "spaces": lambda n: " " * (n - 1) + "x",
    }
    _assert_linear("ErrorsMatrix.match", lambda text: errors.match([text]), makers)


def test_catalogue_finds_a_message_at_the_end_of_a_long_line() -> None:
    errors = load_matrices().errors
    sig = next(s for s in errors.signatures if s.id == "torch-arch-not-compatible")
    found = errors.match(["x" * 300_000 + " " + sig.examples[0]])
    assert sig.id in {m.signature.id for m in found}
    line = next(m.line for m in found if m.signature.id == sig.id)
    assert "with CUDA capability" in line
