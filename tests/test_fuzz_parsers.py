"""Fuzz every parser of envguard/probes/parsers.py (issue 17): at least 10,000 inputs each, none raises.

Generators: random text over an alphabet of table/CSV/header punctuation, digits and every character that
``str.splitlines()`` breaks at; real lines of captured tool output with fragments spliced in; JSON nested up
to 100,000 deep; numbers of up to 6,000 digits (past Python's 4,300-digit int-string limit) where versions,
indices and MiB counts go; long lines. Each hypothesis example carries a batch of inputs, so the suite stays
at a few seconds per parser.
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
    return st.one_of(st.integers(1, 30), st.integers(300, 6000)).map(lambda n: "9" * n)


_DEEP_JSON = st.sampled_from([2, 1000, 100_000]).flatmap(lambda d: st.sampled_from(
    ["[" * d + "]" * d, '{"a":' * d + "1" + "}" * d, '{"cuda": ' + "[" * d]))
_FIELD_LINES = st.builds(lambda f, n: f.format(n, n), st.sampled_from(_FIELDS), _huge_number())
_SPLICED = st.builds(lambda line, cut, frag: line[:cut] + frag + line[cut:],
                     st.sampled_from(_LINES), st.integers(0, 120), st.text(_ALPHABET, max_size=12))
_LONG = st.builds(lambda c, n: c * n, st.sampled_from([" ", "0", "[", ":", "|", "a", "\n"]), st.integers(4000, 8000))
_SMALL = [st.text(_ALPHABET, max_size=200), _FIELD_LINES, _SPLICED, st.text(max_size=100),
          st.lists(st.one_of(_SPLICED, _FIELD_LINES), max_size=30).map("\n".join)]
#: Big inputs (deep JSON, long lines) are one draw in 25: enough to cover them, cheap enough for CI.
_ONE = st.one_of(*(_SMALL * 5), _DEEP_JSON, _LONG)
_BATCHES = st.lists(_ONE, min_size=BATCH, max_size=BATCH)
_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("name", sorted(TEXT_PARSERS))
def test_parser_never_raises(name: str) -> None:
    parser = TEXT_PARSERS[name]
    seen = [0]

    @_SETTINGS
    @given(_BATCHES)
    def run(texts: list[str]) -> None:
        for text in texts:
            parser(text)
        seen[0] += len(texts)

    run()
    assert seen[0] >= INPUTS_PER_PARSER


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
