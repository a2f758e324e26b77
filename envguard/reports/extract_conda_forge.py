"""Extractors that tell a report's torch is a conda-forge build, one text shape each.

conda-forge builds pytorch from its own recipe, with its own arch lists (torch.toml ``[[conda_forge]]``), so a
build from there must not be judged by the pip wheels' lists. Shapes (each yields typed mentions that
``reports.variants`` applies to the torch build):

- a ``conda list`` / ``pixi list`` / collect_env ``[conda]`` row of pytorch or libtorch whose channel column is
  conda-forge (or a mirror's ``…/conda-forge`` URL): ``pytorch 2.12.1 cuda130_generic_py314_h1da07bd_200 conda-forge``;
- conda's transaction listing: ``pytorch conda-forge/linux-aarch64::pytorch-2.5.1-cuda126_generic_py312_h…_303``
  (also the conda platform, linux-aarch64);
- a sentence naming pytorch and conda-forge together ("the latest cuda-enabled `pytorch` conda-forge package",
  "installed pytorch from conda-forge", ``conda install -c conda-forge pytorch``, ``conda-forge::pytorch``), unless
  the pytorch channel is named too (then which channel gave torch is unknown);
- a conda platform named in a sentence ("a `linux-aarch64` platform").

Every pattern is anchored or bounded (linear time), run on lines cut to ``segment.MAX_LINE_CHARS``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envguard.reports.mentions import MESSAGE, PROSE, TOOL, Mention

#: Mention kinds this module adds (read by ``reports.variants``).
TORCH_CHANNEL = "torch_channel"  #: value "conda-forge" or "conda-forge|cuda" (a CUDA build named in prose)
TORCH_CONDA_BUILD = "torch_conda_build"  #: value: the conda build string of the pytorch/libtorch row

_CONDA_FORGE_COLUMN = r"(?:https?://[\w.-]{1,80}(?:/[\w.-]{1,40}){0,4}/)?conda-forge/?"
_ROW = re.compile(r"^(?:\[conda\]\s{1,8})?(pytorch|libtorch)\s{1,60}(\d[\w.+!-]{0,40})\s{1,60}([\w.]{1,80})"
                  r"(?:\s{1,60}[\w.]{1,20}){0,3}\s{1,60}" + _CONDA_FORGE_COLUMN + r"\s*$")
_PLAN = re.compile(r"^(pytorch|libtorch)\s{1,40}conda-forge/(linux-64|linux-aarch64|win-64|osx-arm64|osx-64)::"
                   r"(?:pytorch|libtorch)-(\d[\w.]{0,40})-([\w.]{1,80})\s*$")
_PROSE_PAIR = re.compile(r"(?i)\bconda-forge\b[^.;!?]{0,60}?\bpytorch\b|\bpytorch\b[^.;!?]{0,60}?\bconda-forge\b")
_OTHER_CHANNEL = re.compile(r"(?i)(?:-c|--channel)\s{1,4}pytorch(?![\w-])|\bpytorch::|\bpytorch channel\b")
_CUDA_WORD = re.compile(r"(?i)\b(?:cuda[- ]enabled|cuda builds?|gpu builds?|cuda versions?|pytorch-gpu|"
                        r"gpu[- ]enabled)\b")
_HEDGE = re.compile(r"(?i)\b(?:if|would|should|could|instead|rather|whether|want|please|how|not|no|never)\b|n't\b")
_CONDA_PLATFORM = re.compile(r"(?<![\w-])`?(linux-aarch64|linux-64)`?\s{1,2}(?:platform|machine|board|subdir)\b")


def conda_forge_facts(lines: list[str], offset: int) -> Iterator[Mention]:
    """Mentions showing the torch build came from conda-forge, its build string and the conda platform."""
    for i, line in enumerate(lines):
        if "conda-forge" not in line and "linux-" not in line:
            continue
        n = offset + i + 1
        text = line.strip()[:1000]
        row = _ROW.match(text) if len(text) <= 400 else None
        if row:
            yield Mention(TORCH_CHANNEL, "conda-forge", n, TOOL, f"conda list: {row.group(1)} channel conda-forge")
            yield Mention(TORCH_CONDA_BUILD, row.group(3), n, TOOL, f"conda list: {row.group(1)} {row.group(2)}")
            continue
        plan = _PLAN.match(text) if len(text) <= 400 else None
        if plan:
            yield Mention(TORCH_CHANNEL, "conda-forge", n, TOOL, f"conda transaction: conda-forge/{plan.group(2)}")
            yield Mention(TORCH_CONDA_BUILD, plan.group(4), n, TOOL, f"conda transaction: {plan.group(1)}")
            yield Mention("platform", plan.group(2), n, TOOL, "conda transaction subdir")
            continue
        pair = _PROSE_PAIR.search(text)
        if pair and not _OTHER_CHANNEL.search(text) and not _HEDGE.search(pair.group(0)):
            cuda = _CUDA_WORD.search(text)
            yield Mention(TORCH_CHANNEL, "conda-forge|cuda" if cuda else "conda-forge", n,
                          MESSAGE if "install" in text.lower() else PROSE, "text: pytorch from conda-forge")
        platform = _CONDA_PLATFORM.search(text)
        if platform:
            yield Mention("platform", platform.group(1), n, PROSE, "text: conda platform")


EXTRACTORS = (conda_forge_facts,)
