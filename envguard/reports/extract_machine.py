"""Extractors for machine facts and build intents people write in passing (one shape each).

- GPUs named in prose the way people write them: lower case and without a space ("my rtx3060", "gtx 1080 ti"),
  a bare GeForce model number after a possessive, article or count ("my 4090", "a 3090", "two 3090s", "2x 4090"),
  workstation and mobile names ("RTX A6000", "GeForce MX450", "GeForce 940MX"). A GPU the user says is not used
  ("it doesn't see my RTX 3060") is still their GPU, so only hypotheses ("if", "would", "should I buy a 4090")
  take it back; GPUs from prose rank below tool output, fields and banners (``resolve``).
- pip's "Successfully installed torch-2.3.1 ..." line: what pip just installed (an untagged torch there, or in a
  wheel file name, on Windows or macOS is the package index's CPU wheel: ``resolve``).
- A torch version with its local tag in a sentence ("and got torch 2.12.1+cpu"), even after a bare one.
- A PyTorch CUDA package index named anywhere (``--index-url https://download.pytorch.org/whl/cu124``, uv's index
  name ``pytorch-cu128`` in a pyproject): the user meant a CUDA build of torch, whatever got installed.
- A container the report runs in: docker, podman, containerd, Kubernetes (``kubectl``, ``k get pods``, the GPU
  operator) or the NVIDIA container toolkit named outside a negation ("without docker").

Every pattern is bounded or anchored (linear time), run on lines cut to ``segment.MAX_LINE_CHARS``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envguard.reports.extract import _INTERESTING, PIP_REMOVED, STATED_CC, asked_for, in_clause, stated_cc
from envguard.reports.extract_builds import CUDA_REQUEST
from envguard.reports.mentions import MESSAGE, PROSE, Mention
from envguard.sentences import sentences, superseded, whole_words
from envguard.snapshot import normalize_name

#: GeForce desktop/laptop model numbers of the 10, 16, 20, 30, 40 and 50 series (a bare number is taken only
#: after a word that makes it a thing one owns: "my 4090", "a 3060 Ti", "two 3090s", "4x 4090").
_MODEL = r"(?:10[5-8]0|16[56]0|20[6-8]0|30[5-9]0|40[6-9]0|50[6-9]0)"
_SUFFIX = r"(?:\s{0,2}(?:Ti|SUPER|Super|super|ti|TI)\b)?"
_BARE = re.compile(rf"\b(?:my|a|an|the|one|two|three|four|eight|dual|single|[1-8]\s{{0,1}}x)\s{{1,2}}"
                   rf"(?:(?:nvidia|geforce)\s{{1,2}}){{0,2}}({_MODEL}{_SUFFIX})(?:s\b|\b)(?!\s{{0,2}}(?:p\b|port|MHz|rpm|"
                   rf"dpi|hz|Hz|px|mAh|W\b))", re.IGNORECASE)
#: A bare model number with "GPU" right after it: "1650 gpu", "my 3090 GPU" (carson-katri/dream-textures#308).
_BARE_GPU = re.compile(rf"(?<![\w.$#/-])({_MODEL}{_SUFFIX})\s{{1,2}}GPUs?\b", re.IGNORECASE)
#: Chinese reports' card words before a bare model number: "N卡1050TI" (an NVIDIA card), "显卡 3060" / "显卡是4090"
#: (graphics card), "英伟达4070" (NVIDIA) (RVC-Boss/GPT-SoVITS#577).
_ZH_GPU = re.compile(rf"(?:N卡|显卡|英伟达)\s{{0,2}}[:：]?\s{{0,2}}(?:是|为|用的是)?\s{{0,2}}"
                     rf"(?:(?:nvidia|geforce)\s{{0,2}})?({_MODEL}{_SUFFIX})(?!\d)", re.IGNORECASE)
#: "rtx3060", "gtx 1080 ti", "RTX A6000", "RTX PRO 6000", "GeForce MX450", "GeForce 940MX", "Quadro P2000".
_NAMED = re.compile(r"(?<![A-Za-z0-9_])((?:geforce\s{1,2})?(?:rtx|gtx)(?:\s{0,2}|-)(?:pro\s{1,2})?a?\d{3,4}"
                    r"(?:\s{0,2}(?:ti|super)\b|\s{1,2}ada(?:\s{1,2}generation)?\b)?"
                    r"|geforce\s{1,2}(?:mx\s{0,1}\d{3}|\d{3}mx?|gt\s{1,2}\d{3}m?)|mx\s{0,1}[1-5]\d0\b"
                    r"|quadro\s{1,2}(?:rtx\s{1,2})?[kmpt]?\d{3,4}|titan\s{1,2}(?:rtx|xp|x|v)\b)(?!\d)", re.IGNORECASE)
#: A sentence that supposes or compares states nothing about the user's machine.
_GPU_HEDGE = re.compile(r"\b(?:if|would|should|could|whether|than|e\.g|for example|such as|"
                        r"planning|plan to|buy|buying|considering|recommend(?:ed)?|like a|vs\.?|versus)\b",
                        re.IGNORECASE)
#: A torch version with its local build tag, wherever a sentence has it ("got torch 2.12.1+cpu", "torch==2.7.0+cpu",
#: "the PyTorch wheel for 2.9.1+cpu has been installed", astral-sh/uv#17236):
#: the tag says which build a bare "torch 2.12.1" elsewhere in the report is.
_TAGGED_TORCH = re.compile(r"(?<![\w.+-])(?:py)?torch(?:\s{1,2}wheels?\s{1,2}(?:for|of))?\s{0,2}(?:==?|-|\s)\s{0,2}v?"
                           r"(\d\.\d{1,2}\.\d{1,2}\+(?:cpu|cu\d{2,3}|rocm\d(?:\.\d){0,2}))(?![\w.])", re.IGNORECASE)
_TAG_HEDGE = re.compile(r"\b(?:if|would|should|could|whether|instead|rather|e\.g|for example|such as|want|wanted|"
                        r"expected|expect)\b", re.IGNORECASE)
_SKIP = ("site-packages", "File \"", "|")
_DGX_SPARK = re.compile(r"(?<![\w-])DGX[ -]Spark(?![\w-])", re.IGNORECASE)
#: One row of NVIDIA's CUDA GPUs table pasted as a sentence ("GPU is GeForce GT 740M | 3.0"): not a table to skip.
_CC_ROW = re.compile(r"^[^|]{1,80}\|\s{0,2}\d{1,2}\.\d\s*$")

#: A PyTorch CUDA package index: the URL, or uv's conventional index name (the uv PyTorch guide's
#: ``name = "pytorch-cu128"``).
_TORCH_INDEX = re.compile(r"download\.pytorch\.org/whl/(?:nightly/|test/)?(cu\d{2,3})\b"
                          r"|(?<![\w/.-])pytorch-(cu\d{2,3})(?![\w-])")


#: pip's last line: "Successfully installed filelock-3.13.1 torch-2.3.1 torchvision-0.18.1" (what it installed).
_INSTALLED = re.compile(r"^\s{0,8}Successfully installed\s{1,4}(.{1,4000})$")
_DIST = re.compile(r"(?<!\S)([A-Za-z][A-Za-z0-9._]{0,60}(?:-[A-Za-z][A-Za-z0-9._]{0,30}){0,4})-(\d[\w.+!]{0,40})(?!\S)")


def _gpu_name(found: str) -> str:
    """The name as written, with the model number set apart ("rtx3060" → "RTX 3060", "3080 ti" → "3080 Ti")."""
    text = re.sub(r"\s{1,2}", " ", found.strip())
    text = re.sub(r"(?i)^(geforce )?(rtx|gtx)[\s-]?(pro )?", lambda m: f"{m.group(1) or ''}{m.group(2).upper()} "
                  f"{(m.group(3) or '').upper()}", text)
    text = re.sub(r"(?i)(\d)\s?(ti|super)$", lambda m: f"{m.group(1)} " + ("Ti" if m.group(2).lower() == "ti" else
                  "SUPER"), text)
    text = re.sub(r"(?i)\bada( generation)?$", lambda m: "Ada" + (" Generation" if m.group(1) else ""), text)
    text = re.sub(r"(?i)^geforce\b", "GeForce", text)
    return re.sub(r"(?i)^quadro\b", "Quadro", text)


def machine_facts(lines: list[str], offset: int) -> Iterator[Mention]:
    """GPUs and tagged torch versions named in prose, PyTorch CUDA indexes named anywhere (module docstring)."""
    for i, line in enumerate(lines):
        if not line.strip() or len(line) > 2000:
            continue
        n = offset + i + 1
        installed = _INSTALLED.match(line) if "Successfully installed" in line else None
        if installed:
            for dist in _DIST.finditer(installed.group(1)):
                name = normalize_name(dist.group(1))
                if _INTERESTING.match(name):
                    yield Mention("package", dist.group(2), n, MESSAGE, "pip: Successfully installed", name)
            continue
        lowered = line.lower()
        if "dgx spark" in lowered and _DGX_SPARK.search(line):
            # NOTE: a system named for the one GPU it holds: the DGX Spark is NVIDIA's GB10 machine (gpu-arch.toml)
            yield Mention("gpu", "NVIDIA GB10", n, PROSE, "text (DGX Spark: its GB10 chip)")
        if "pytorch" in lowered:
            for index in _TORCH_INDEX.finditer(line):
                tag = index.group(1) or index.group(2)
                yield Mention(CUDA_REQUEST, f"PyTorch index {tag}", n, MESSAGE, f"PyTorch {tag} index named", "torch")
        if (any(s in line for s in _SKIP) and not _CC_ROW.match(line)) or line.lstrip().startswith(("/", "File ")) \
                or PIP_REMOVED.match(line):
            continue
        yield from _sentences(line, n)


def _tag_hedged(sentence: str, found: re.Match[str]) -> bool:
    """A hedge word near the tagged version, within its clause: "if you install torch 2.5.1+cu121", "torch 2.5.1+cu121
    would be better"; a hedge elsewhere in a long sentence ("... such as RTX 4060") does not take it back."""
    return _TAG_HEDGE.search(in_clause(sentence, found)) is not None


def _sentences(line: str, n: int) -> Iterator[Mention]:
    for sentence in sentences(line):
        if "+" in sentence:
            for tagged in _TAGGED_TORCH.finditer(sentence):
                if asked_for(sentence, tagged.start()) or _tag_hedged(sentence, tagged):
                    continue  # "Fails to install torch==2.6.0+cu121": asked for, not installed (extract's "requested")
                if superseded(sentence, tagged.start(1)):
                    continue  # "replaces torch 2.9.1+cu128 with torch 2.9.0+cpu": the first is gone
                yield Mention("torch_prose", tagged.group(1).lower(), n, PROSE, "text (tagged torch version)")
        if _GPU_HEDGE.search(sentence):
            continue
        for found in _NAMED.finditer(sentence):
            stated = STATED_CC.match(sentence, found.end())
            yield Mention("gpu", _gpu_name(found.group(1)), n, PROSE, "text", stated_cc(stated))
        bare = [*_BARE.finditer(sentence), *(m for m in _BARE_GPU.finditer(sentence)
                                             if not _BARE.search(sentence[max(0, m.start() - 20):m.end()])),
                *(_ZH_GPU.finditer(sentence) if "卡" in sentence or "英伟达" in sentence else ())]
        for found in bare:
            model = found.group(1)
            # GeForce 10 and 16 series are GTX, 20 series on RTX (NVIDIA's product names).
            brand = "GTX" if model.startswith(("10", "16")) else "RTX"
            yield Mention("gpu", _gpu_name(f"GeForce {brand} {model}"), n, PROSE, "text (model number)")



#: Container tooling, and what it says the machine runs in.
_CONTAINER = re.compile(r"(?<![\w./-])(nvidia-docker2?|docker|podman|containerd|kubectl|kubernetes|k8s|k get pods|"
                        r"gpu-operator|nvidia-container-(?:cli|toolkit|runtime))(?![\w-])", re.IGNORECASE)
_CONTAINER_KIND = {"kubectl": "kubernetes", "k8s": "kubernetes", "k get pods": "kubernetes",
                   "gpu-operator": "kubernetes", "kubernetes": "kubernetes", "podman": "podman",
                   "containerd": "containerd"}
_CONTAINER_NEGATION = re.compile(r"\b(?:not|no|without|outside|instead of)\b|n't\b", re.IGNORECASE)


#: An image run or built from a tag that names its GPU flavour: "docker run -t -i rayproject/ray-ml:1.3.0-py38-gpu",
#: "FROM myorg/trainer:cuda12.1-runtime" (the image was made for a GPU; what is inside it is meant to use one).
_GPU_IMAGE = re.compile(r"(?:\bdocker\s{1,2}(?:run|pull|create)\b[^\n]{0,200}?\s|^\s{0,8}FROM\s{1,4}|\bimage:\s{0,4})"
                        r"((?:[\w.-]{1,80}/){1,3}[\w.-]{1,80}:(?:[\w.-]{0,60}?[-_.])?(?:gpu|cuda[\d.]{0,6})(?![A-Za-z])[\w.-]{0,40})",
                        re.IGNORECASE)


#: An image being built: "Docker build fails ...", "docker build -t ...", a Dockerfile's "RUN pip install ..." step.
_IMAGE_BUILD = re.compile(r"\bdocker(?:\s{1,2}buildx)?\s{1,2}build\b"
                          r"|\bbuild(?:ing)?\s{1,2}(?:the\s{1,2}|a\s{1,2}|my\s{1,2})?(?:docker\s{1,2})?image\b"
                          r"|^\s{0,8}RUN\s{1,4}(?:pip3?|python3?|conda|cd|bash|sh)\b",
                          re.IGNORECASE)
IMAGE_BUILD = "image_build"


def container_facts(lines: list[str], offset: int) -> Iterator[Mention]:
    """The container the report's machine runs in, from the tooling it names (first mention per line), and a GPU
    image it runs."""
    for i, line in enumerate(lines):
        if len(line) > 2000:
            continue
        built = _IMAGE_BUILD.search(line) if ("uild" in line or "RUN" in line) else None
        if built is not None:
            yield Mention(IMAGE_BUILD, built.group(0).strip()[:60], offset + i + 1, MESSAGE, "text (an image build)")
        image = _GPU_IMAGE.search(line) if ":" in line else None
        if image is not None:
            yield Mention(CUDA_REQUEST, f"image {image.group(1)}", offset + i + 1, MESSAGE, "GPU image tag", "")
        found = _CONTAINER.search(line)
        if found is None or _CONTAINER_NEGATION.search(whole_words(line, found.start() - 24, found.start())):
            continue
        word = found.group(1).lower()
        kind = _CONTAINER_KIND.get(word, "docker")
        yield Mention("container", kind, offset + i + 1, MESSAGE, f"{found.group(1)} named")
