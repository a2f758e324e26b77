"""What a report about a Jetson says about where its torch / TensorFlow came from, and whether CUDA worked.

A Jetson's integrated GPU runs only NVIDIA's Jetson builds (developer.download.nvidia.com/compute/redist/jp/...,
the jetson-ai-lab index, the l4t containers) or a source build; the plain package index's linux_aarch64 torch and
TensorFlow wheels are CPU builds (torch.toml [[aarch64_index]], rules/jetson.py). Read here, one shape each:

- the index a ``pip install torch`` / ``pip install tensorflow`` line installs from: none named (the default
  index), a download.pytorch.org index, or NVIDIA's Jetson index;
- anything that shows the build may be NVIDIA's: a ``+nvYY.MM`` / ``.nvYY.MM`` version tag, NVIDIA's Jetson wheel
  URL, the jetson-ai-lab index, an l4t / dustynv / jetson-containers image;
- the framework saying it sees no GPU: ``torch.cuda.is_available()`` answered ``False`` (same line or the REPL's
  next line), ``Num GPUs Available: 0``, ``tf.config.list_physical_devices('GPU')`` answered ``[]``.

``apply`` turns them into build facts (``FrameworkBuild.index``, ``runtime.gpu_available``) on a Jetson only.
Every pattern is bounded (linear time).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from envguard.reports.extract_builds import _FRAMEWORK_OF
from envguard.reports.mentions import MESSAGE, PROSE, TOOL, Mention
from envguard.sentences import sentences
from envguard.snapshot import UNKNOWN_VERSION, FrameworkBuild, RuntimeReport

#: Mention kinds (key: "torch" / "tensorflow").
CUDA_UNAVAILABLE = "cuda_unavailable"
PIP_INDEX = "pip_index"
NVIDIA_BUILD = "nvidia_jetson_build"
#: ``FrameworkBuild.index`` of a build that may be NVIDIA's Jetson build.
NVIDIA_JETSON = "nvidia-jetson"
DEFAULT_INDEX = "default"
#: Kinds whose differing values are several facts, not a contradiction (two install lines).
UNNOTED_KINDS = (CUDA_UNAVAILABLE, PIP_INDEX, NVIDIA_BUILD)
PYTORCH_INDEX = "download.pytorch.org"

_PIP = re.compile(r"\b(?:pip3?|uv\s{1,4}pip|python3?\s{1,4}-m\s{1,4}pip)\s{1,4}install\b(.{0,600})")
_REQUIREMENT = {
    "torch": re.compile(r"(?<![\w./+-])torch(?![\w.+-])"),
    "tensorflow": re.compile(r"(?<![\w./+-])tensorflow(?:-gpu)?(?![\w.+-])"),
}
_INDEX_OPTION = re.compile(r"(?:^|\s)(?:-i|-f|--index-url|--extra-index-url|--find-links)(?:\s{1,4}|=)['\"]?"
                           r"(\S{1,300})")
#: NVIDIA's Jetson wheels and images: +nv23.05 / .nv23.06 version tags, the redist/jp URLs, jetson-ai-lab, l4t images.
_NVIDIA = re.compile(r"(?:\+|\.|\b)nv(?:1[89]|2\d)\.\d{1,2}\b|developer\.download\.nvidia\.(?:com|cn)/compute/redist/jp"
                     r"|jetson-ai-lab|\bl4t-(?:pytorch|tensorflow|ml|jetpack)\b|\bdustynv/|\bjetson-containers?\b",
                     re.IGNORECASE)
_IS_AVAILABLE = re.compile(r"cuda\.is_available(?:\(\)\)?)?")
_ANSWER_FALSE = re.compile(r"^\W{0,3}(?:(?:it|that|this)\s{1,2})?(?:(?:still|always)\s{1,2})?"
                           r"(?:returns?|returned|returning|is|was|gives|gave|as|outputs?|prints?|printed|shows?|showed|"
                           r"says|said|yields?|==|=|->|→|:)?\W{0,4}false\b", re.IGNORECASE)
#: A sentence saying the framework does not see the GPU: "TF 2.1.0 doesn't recognize my GPU." (tensorflow#39386),
#: "Tensorflow is not detecting GPU but Pytorch is" (tensorflow#48882), "Torch is not detecting cuda"
#: (BayesWatch/nas-without-training#2), "It seems Tensorflow doesn't detect your GPU" (cotton6/COTTON-size-does-
#: matter#22), "I cannot get Tensorflow to recognize my GPUs".
_FW_WORDS = r"(?:py)?torch|tensorflow|tf"
_VERB = (r"(?:recogni[sz](?:e|es|ing)|detect(?:s|ing)?|see(?:s|ing)?|find(?:s|ing)?|us(?:e|es|ing)|"
         r"utili[sz](?:e|es|ing))")
_WHAT = r"(?:(?:my|the|any|your|a)\s{1,2})?(?:nvidia\s{1,2})?(?:gpus?|cuda)\b"
_NOT_SEEN = re.compile(
    rf"\b({_FW_WORDS})\b(?:[^.;!?]|\.(?=\d)){{0,40}}?\b(?:does\s{{1,2}}not|doesn[\'’]t|did\s{{1,2}}not|didn[\'’]t|"
    rf"can\s?not|can[\'’]t|won[\'’]t|is\s{{1,2}}not|isn[\'’]t|fails?\s{{1,2}}to|never)\s{{1,2}}{_VERB}\s{{1,2}}{_WHAT}"
    rf"|\b(?:can[\'’]t|cannot|can\s{{1,2}}not|unable\s{{1,2}}to)\s{{1,2}}get\s{{1,2}}({_FW_WORDS})\s{{1,2}}to\s{{1,2}}"
    rf"{_VERB}\s{{1,2}}{_WHAT}",
    re.IGNORECASE)
#: "I had installed Tensorflow with pip", "installed pytorch via pip", "pip installed torch": the default index,
#: said in a sentence (a pip command line, when there is one, says more).
_PIP_SAID = re.compile(rf"\binstalled\s{{1,2}}({_FW_WORDS})\s{{1,2}}(?:with|via|using|through|from)\s{{1,2}}pip3?\b"
                       rf"|\bpip3?[- ]installed\s{{1,2}}({_FW_WORDS})\b", re.IGNORECASE)
_SAID_HEDGE = re.compile(r"\b(?:if|whether|would|should|could|might|unless)\b", re.IGNORECASE)
_REPL_FALSE = re.compile(r"^(?:\[?\d{1,3}\]?:?\s{0,2})?False\s{0,4}$")
_TF_NONE = re.compile(r"Num GPUs Available\W{0,4}0\b"
                      r"|list_physical_devices\(\s{0,2}['\"]GPU['\"]\s{0,2}\)\)?\W{0,8}\[\]")
_TF_CALL = re.compile(r"list_physical_devices\(\s{0,2}['\"]GPU['\"]\s{0,2}\)\)?\s{0,4}$")


def jetson_facts(lines: list[str], offset: int) -> Iterator[Mention]:
    """Install indexes, NVIDIA-build evidence and "CUDA is not available" answers (see the module docstring)."""
    for i, line in enumerate(lines):
        if len(line) > 2000 or not line.strip():
            continue
        n = offset + i + 1
        nvidia = _NVIDIA.search(line)
        if nvidia:
            yield Mention(NVIDIA_BUILD, nvidia.group(0), n, MESSAGE, "a Jetson build or image of NVIDIA's")
        install = _PIP.search(line) if "install" in line else None
        if install and ".whl" not in install.group(1):
            yield from _index(install.group(1), n)
        yield from _unavailable(lines, i, n)
        yield from _said(line, n)


def _said(line: str, n: int) -> Iterator[Mention]:
    """What a sentence says: the framework does not see the GPU; it was installed with pip (PROSE tier)."""
    lowered = line.lower()
    if "gpu" not in lowered and "cuda" not in lowered and "pip" not in lowered:
        return
    for sentence in sentences(line):
        if _SAID_HEDGE.search(sentence):
            continue
        seen = _NOT_SEEN.search(sentence)
        if seen:
            framework = _FRAMEWORK_OF[(seen.group(1) or seen.group(2)).lower()]
            yield Mention(CUDA_UNAVAILABLE, seen.group(0), n, PROSE, "text: the framework does not see the GPU",
                          framework)
        pip = _PIP_SAID.search(sentence)
        if pip:
            framework = _FRAMEWORK_OF[(pip.group(1) or pip.group(2)).lower()]
            yield Mention(PIP_INDEX, DEFAULT_INDEX, n, PROSE, f"text: {pip.group(0)}", framework)


def _index(args: str, n: int) -> Iterator[Mention]:
    for framework, requirement in _REQUIREMENT.items():
        if not requirement.search(args):
            continue
        urls = [found.group(1) for found in _INDEX_OPTION.finditer(args)]
        if any(_NVIDIA.search(url) for url in urls):
            yield Mention(PIP_INDEX, NVIDIA_JETSON, n, MESSAGE, "pip install from NVIDIA's Jetson index", framework)
        elif framework == "torch" and urls and all("download.pytorch.org/whl" in url for url in urls):
            yield Mention(PIP_INDEX, PYTORCH_INDEX, n, MESSAGE, f"pip install --index-url {urls[0]}", framework)
        elif not urls:
            yield Mention(PIP_INDEX, DEFAULT_INDEX, n, MESSAGE, f"pip install {framework} (the default index)",
                          framework)


def _unavailable(lines: list[str], i: int, n: int) -> Iterator[Mention]:
    line = lines[i]
    if "is_available" in line:
        call = _IS_AVAILABLE.search(line)
        if call is not None:
            after = line[call.end():call.end() + 60]
            nxt = next((x for x in lines[i + 1:i + 3] if x.strip()), "")
            if _ANSWER_FALSE.match(after.strip()) or (not after.strip() and _REPL_FALSE.match(nxt.strip())):
                yield Mention(CUDA_UNAVAILABLE, "torch.cuda.is_available() False", n, TOOL,
                              "interpreter: torch.cuda.is_available()", "torch")
    if "GPU" in line:
        none = _TF_NONE.search(line)
        call = _TF_CALL.search(line) if none is None else None
        nxt = next((x for x in lines[i + 1:i + 3] if x.strip()), "") if call is not None else ""
        if none is not None or nxt.strip() == "[]":
            yield Mention(CUDA_UNAVAILABLE, "TensorFlow lists no GPU", n, TOOL, "interpreter: TensorFlow GPU devices",
                          "tensorflow")


EXTRACTORS = (jetson_facts,)


def _best(mentions: list[Mention], kind: str, key: str) -> Mention | None:
    found = [m for m in mentions if m.kind == kind and m.key == key]
    return max(found, key=lambda m: (m.tier, m.line)) if found else None


def apply(mentions: list[Mention], builds: tuple[FrameworkBuild, ...]) -> tuple[FrameworkBuild, ...]:
    """On a Jetson: each torch / TensorFlow build with the index it came from (``NVIDIA_JETSON`` when anything shows
    it may be NVIDIA's build) and, where the report shows the framework saw no GPU, ``runtime.gpu_available`` False.
    A report whose torch answers ``is_available() False`` (or whose TensorFlow lists no GPU) without naming its
    version gets a build of UNKNOWN_VERSION."""
    out = list(builds)
    unavailable_torch = _best(mentions, CUDA_UNAVAILABLE, "torch") or next(
        (m for m in mentions if m.kind == "cuda_available" and m.value.strip().lower() in ("false", "no")), None)
    if unavailable_torch is not None and not any(b.name == "torch" for b in out):
        out.append(FrameworkBuild("torch", "torch", UNKNOWN_VERSION, None, None, None,
                                  source=f"{unavailable_torch.source} (version not reported)"))
    unavailable_tf = _best(mentions, CUDA_UNAVAILABLE, "tensorflow")
    if unavailable_tf is not None and not any(b.name == "tensorflow" for b in out):
        out.append(FrameworkBuild("tensorflow", "tensorflow", UNKNOWN_VERSION, None, None, None,
                                  source=f"{unavailable_tf.source} (version not reported)"))
    nvidia = next((m for m in mentions if m.kind in (NVIDIA_BUILD, "l4t_image")), None)
    return tuple(_one(build, mentions, nvidia, unavailable_torch) for build in out)


def _one(build: FrameworkBuild, mentions: list[Mention], nvidia: Mention | None,
         unavailable_torch: Mention | None) -> FrameworkBuild:
    if build.name not in ("torch", "tensorflow"):
        return build
    pip = _best(mentions, PIP_INDEX, build.name)
    if nvidia is not None or _NVIDIA.search(build.version):
        build = replace(build, index=NVIDIA_JETSON)
    elif pip is not None:
        build = replace(build, index=pip.value, source=f"{build.source}; {pip.source}")
    said = unavailable_torch if build.name == "torch" else _best(mentions, CUDA_UNAVAILABLE, "tensorflow")
    if said is not None and build.runtime is None:
        said_text = f"{said.value} ({said.source})"
        build = replace(build, runtime=RuntimeReport(gpu_available=False, warnings=(said_text,)))
    return build
