"""Fuzz every parser of envguard/probes/parsers.py (issue 17): at least 10,000 inputs each, none raises.

Generators: random text over an alphabet of table/CSV/header punctuation, digits and every character that
``str.splitlines()`` breaks at; real lines of captured tool output with fragments spliced in; JSON nested up
to 100,000 deep (and closed at 5,000); numbers of up to 6,000 digits (past Python's 4,300-digit int-string
limit) where versions, indices and MiB counts go; long lines. The 10,000 text inputs are drawn once (each
hypothesis example is a batch of 50) and fed to every parser: one draw plus 10,000 calls per parser.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envguard.probes import parsers

pytestmark = pytest.mark.slow

INPUTS_PER_PARSER = 10_000
BATCH = 50
EXAMPLES = INPUTS_PER_PARSER // BATCH

TEXT_PARSERS: dict[str, Callable[[str], object]] = {
    name: getattr(parsers, name)
    for name in parsers.__all__
    if name.startswith(("parse_", "gpus_", "driver_", "classify_", "nvml_", "version_", "soname_"))
}
INT_DECODERS = {name: getattr(parsers, name) for name in parsers.__all__ if name.startswith("decode_")}

_CAPTURES = Path(__file__).parent / "data" / "captures"
_LINES = sorted({line for path in sorted(_CAPTURES.rglob("*.txt"))[:60]
                 for line in path.read_text(errors="replace").splitlines()[:80] if line.strip()})[:2000] or [
    "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |"]
_BREAKS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r", "\n", "\x00", "\t"]
_ALPHABET = st.sampled_from(list("0123456789.:|,[]()/-_ #$>=xMiBGPU{}\"'`") + _BREAKS)
_FIELDS = ["Driver Version: {}", "CUDA Version: {}", "#define CUDNN_MAJOR {}", "#define NCCL_PATCH {}",
           "libcudnn.so.{}", "GPU {}: NVIDIA A100 (UUID: GPU-1)", "|   {}  NVIDIA A100   On | 00000000:01:00.0 |",
           "| {}MiB / {}MiB |", "{}, NVIDIA A100, GPU-1, 8.0, {} MiB", "    Total   : {} MiB",
           "Cuda compilation tools, release 12.4, V{}", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  {}",
           '{{"cuda": {{"version": "{}"}}}}', "NVML library version: {}"]


def _huge_number() -> st.SearchStrategy[str]:
    # NOTE: mostly ordinary lengths; one in ten past (or at) the int-string limit.
    return st.one_of(*([st.integers(1, 30)] * 9), st.sampled_from([400, 4300, 4301, 6000])).map(lambda n: "9" * n)


_DEEP_JSON = st.sampled_from([2, 1000, 5000]).flatmap(lambda d: st.sampled_from(
    ["[" * d + "]" * d, '{"a":' * d + "1" + "}" * d, '{"cuda": ' + "[" * (d * 20)]))  # the last 100,000 deep
_FIELD_LINES = st.builds(lambda f, n: f.format(n, n), st.sampled_from(_FIELDS), _huge_number())
_SPLICED = st.builds(lambda line, cut, frag: line[:cut] + frag + line[cut:],
                     st.sampled_from(_LINES), st.integers(0, 120), st.text(_ALPHABET, max_size=12))
_LONG = st.builds(lambda c, n: c * n, st.sampled_from([" ", "0", "[", ":", "|", "a", "\n"]), st.integers(4000, 8000))
_SMALL = [st.text(_ALPHABET, max_size=200), _FIELD_LINES, _SPLICED, st.text(max_size=100),
          st.lists(st.one_of(_SPLICED, _FIELD_LINES), max_size=8).map("\n".join)]
#: Each batch: 49 ordinary inputs and one big one (deep JSON or a long line) or an empty string.
_BATCHES = st.builds(lambda small, big: [*small, big], st.lists(st.one_of(*_SMALL), min_size=BATCH - 1,
                                                                  max_size=BATCH - 1),
                     st.one_of(_DEEP_JSON, _LONG, st.just("")))
_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    """10,000 hypothesis-generated inputs, drawn once and fed to every parser (drawing is what costs)."""
    drawn: list[str] = []

    @_SETTINGS
    @given(_BATCHES)
    def draw(texts: list[str]) -> None:
        drawn.extend(texts)

    draw()
    assert len(drawn) >= INPUTS_PER_PARSER
    return drawn


@pytest.mark.parametrize("name", sorted(TEXT_PARSERS))
def test_parser_never_raises(name: str, corpus: list[str]) -> None:
    parser = TEXT_PARSERS[name]
    for text in corpus:
        try:
            parser(text)
        except Exception as exc:  # reason: name the input that broke it
            raise AssertionError(f"parsers.{name} raised {exc!r} on {text[:200]!r}") from exc


@pytest.mark.parametrize("name", sorted(INT_DECODERS))
def test_version_code_decoder_never_raises(name: str) -> None:
    decode = INT_DECODERS[name]
    seen = [0]
    codes = st.one_of(st.integers(), st.integers(0, 6000).map(lambda n: 10**n), st.integers(-(10**20), 10**20))

    @_SETTINGS
    @given(st.lists(codes, min_size=BATCH, max_size=BATCH))
    def run(values: list[int]) -> None:
        for value in values:
            out = decode(value)
            assert out is None or isinstance(out, str)
        seen[0] += len(values)

    run()
    assert seen[0] >= INPUTS_PER_PARSER
