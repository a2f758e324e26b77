"""Extractors for what a report says about a framework's *build*: CPU or CUDA, asked for or got.

Shapes (each one of text people paste, each yielding typed mentions; ``resolve`` and ``variants`` decide):

- an interpreter session asking the framework itself: ``tf.test.is_built_with_cuda()`` / ``False``,
  ``paddle.device.is_compiled_with_cuda()`` / ``False``, ``print(torch.version.cuda)`` / ``None`` (a CPU build) or
  ``10.0.130`` (the CUDA it was built with; ``>>> torch.version.cuda`` / ``'10.2'`` at a prompt);
- conda build strings of tensorflow, jaxlib, pytorch and paddle rows (``cuda120py311h5cbd639_1``, ``cpu_py311h…``);
- a CUDA build asked for: ``pip install "jax[cuda12_pip]"``, pip's ``Collecting jax[cuda12]``,
  ``tensorflow[and-cuda]``, a conda command with ``cudatoolkit=11.3`` / ``pytorch-cuda=12.1`` / ``cuda-nvcc``;
- a sentence stating the installed build is the CPU one ("resulted in the CPU version of torch",
  "obtained Pytorch with cpuonly"), or the system CUDA the user installed ("I installed CUDA 11.8");
- machine facts: a Windows prompt (``C:\\Users\\me>``), any wheel file name's platform tag, a report saying
  a GPU works elsewhere on the same machine (collect_env ``Is CUDA available: Yes``), JAX's bug form
  ("Which accelerator(s) are you using?" → ``GPU``).

Every pattern is anchored or bounded (linear time), run on lines cut to ``segment.MAX_LINE_CHARS``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envguard.reports.extract import _CONDA_PLAN, _CONDA_ROW, in_clause
from envguard.reports.mentions import FIELD, MESSAGE, PROSE, TOOL, Mention
from envguard.sentences import last_sentence, sentences, whole_words
from envguard.snapshot import normalize_name, stated

#: Mention kinds this module adds (read by ``reports.variants``).
BUILT_WITHOUT_CUDA = "built_without_cuda"  #: key: framework; the framework said it has no CUDA
CONDA_VARIANT = "conda_variant"  #: key: framework; value "cpu" or the CUDA "12.0" of a conda build string
CUDA_REQUEST = "cuda_request"  #: key: framework or ""; value: what asked for a CUDA build
GPU_WANTED = "gpu_wanted"  #: key: framework; value: a sentence's words wanting the GPU build ("instead of gpu ones")
CPU_CLAIM = "cpu_claim"  #: key: framework; value: the sentence's words
CONDA_TORCH_REQUEST = "conda_torch_request"  #: key "torch"; value "1.9.0|11.3" (pytorch=, cudatoolkit=)
GPU_PRESENT = "gpu_present"  #: value: what shows a usable NVIDIA GPU on the machine (a machine fact)
NO_NVIDIA = "no_nvidia_gpu"  #: value: what says the machine has no NVIDIA GPU, or runs on the CPU by choice

_FRAMEWORK_OF = {"pytorch": "torch", "torch": "torch", "tensorflow": "tensorflow", "tensorflow-base": "tensorflow",
                 "tensorflow-gpu": "tensorflow", "tf": "tensorflow", "jaxlib": "jax", "jax": "jax",
                 "paddlepaddle": "paddle", "paddlepaddle-gpu": "paddle", "paddle": "paddle"}

# ---- the framework asked about itself --------------------------------------------------------------

_BUILT_CALL = (r"(tf\.test\.is_built_with_(?:cuda|gpu_support)|tensorflow\.test\.is_built_with_cuda|"
               r"paddle\.(?:device\.)?is_compiled_with_cuda|fluid\.(?:core\.)?is_compiled_with_cuda|"
               r"torch\.backends\.cuda\.is_built)\(\)")
#: The call alone on its line (the REPL prompt was cut by ``normalize_report``), its answer on the next line.
_CALL_LINE = re.compile(rf"^\s{{0,8}}(?:>>>\s{{0,2}}|In \[\d{{1,5}}\]:\s{{0,4}})?(?:print\(\s{{0,2}})?"
                        rf"{_BUILT_CALL}\)?\s{{0,4}}$")
#: The call as a shell one-liner's last statement, its answer on the next line:
#: ``$ python -c "import tensorflow as tf; print(tf.test.is_built_with_cuda())"`` / ``False`` (tensorflow#121157).
_CALL_SHELL = re.compile(rf"\bpython[\d.]{{0,4}}\s{{1,4}}-c\s{{1,4}}['\"][^'\"]{{0,300}}?(?:print\(\s{{0,2}})?"
                         rf"{_BUILT_CALL}\)?\s{{0,2}}['\"]\s*$")
#: The call and its answer on one line: "tf.test.is_built_with_cuda() returns False", "... -> False".
#: How a report writes a call's answer on the call's own line: "returns False", "-> False", "# True".
_ANSWER_VERB = r"(?:returns?|returned|gives|gave|prints?|printed|outputs?|is|->|=>|==|:|#)"
_CALL_INLINE = re.compile(rf"{_BUILT_CALL}\)?[`'\"\s]{{0,4}}{_ANSWER_VERB}?[`'\"\s:]{{0,6}}False\b")
_ANSWER_FALSE = re.compile(r"^\s{0,8}(?:Out\[\d{1,5}\]:\s{0,4})?False\s*$")
_TORCH_CUDA_CALL = re.compile(r"^\s{0,8}(?:>>>\s{0,2}|In \[\d{1,5}\]:\s{0,4})?"
                              r"print\(\s{0,2}torch\.version\.cuda\s{0,2}\)\s{0,4}$")
_ANSWER_NONE = re.compile(r"^\s{0,8}None\s*$")
#: The bare expression at a prompt (the interpreter echoes its value quoted: ``>>> torch.version.cuda`` / ``'10.2'``).
_TORCH_CUDA_EXPR = re.compile(r"^\s{0,8}(?:>>>\s{0,2}|In \[\d{1,5}\]:\s{0,4})torch\.version\.cuda\s{0,4}$")
#: The CUDA torch was built with, as ``print(torch.version.cuda)`` prints it ("10.0.130", "12.1") or the prompt echoes
#: it ("'10.2'", "Out[3]: '11.8'").
_ANSWER_CUDA = re.compile(r"^\s{0,8}(?:Out\[\d{1,5}\]:\s{0,4})?(['\"]?)(\d{1,2}\.\d{1,2}(?:\.\d{1,4})?)\1\s*$")


def _framework_of_call(call: str) -> str:
    return "torch" if call.startswith("torch") else ("paddle" if call.startswith(("paddle", "fluid")) else "tensorflow")


def _next_answer(lines: list[str], i: int) -> tuple[int, str] | None:
    """(index, text) of the first non-blank line within two lines after ``i``."""
    for j in range(i + 1, min(i + 3, len(lines))):
        if lines[j].strip():
            return j, lines[j]
    return None


# ---- conda build strings ---------------------------------------------------------------------------

#: conda build strings: conda-forge ``cuda120py311h5cbd639_1`` / ``cuda118_py310h…``, the pytorch channel's
#: ``py3.7_cuda10.1.243_cudnn7.6.3_0``, defaults' ``cuda100py37h53c1284_0``; CPU: ``cpu_py311h…``,
#: ``py3.7_cpu_0``, ``cpu_mkl_py310h…``, ``cpu_generic_…``.
_BUILD_CUDA = re.compile(r"(?:^|_)cuda_?(\d{1,2})\.?(\d)")
_BUILD_CPU = re.compile(r"(?:^|_)cpu(?:_|$)")

# ---- a CUDA build asked for --------------------------------------------------------------------------

_PIP_CMD = re.compile(r"\b(?:pip3?|uv\s{1,4}pip|python3?\s{1,4}-m\s{1,4}pip)\s{1,4}install\b(.{0,600})")
_CUDA_EXTRA = re.compile(r"(?<![\w.-])(jax|jaxlib|tensorflow)\[([\w,-]{0,40}?(?:cuda|and-cuda)[\w,-]{0,40})\]",
                         re.IGNORECASE)
_COLLECTING = re.compile(r"^\s{0,8}Collecting\s{1,4}(jax|tensorflow)\[([\w,-]{1,60})\]", re.IGNORECASE)
_CONDA_CMD = re.compile(r"\b(?:conda|mamba|micromamba)\s{1,4}(?:install|create)\b(.{0,600})")
#: conda packages that ask for CUDA (in a command or in an environment file's dependency list).
_CONDA_CUDA_PACKAGES = r"cudatoolkit|pytorch-cuda|cuda-toolkit|cuda-version|cuda-nvcc|cuda-runtime"
_CONDA_CUDA_SPEC = re.compile(rf"(?<![\w-])({_CONDA_CUDA_PACKAGES})"
                              r"(?:\s{0,2}[=<>]{1,2}\s{0,2}([\d.*]{1,12}))?(?![\w-])"
                              r"|(?<![\w-])(jaxlib|pytorch|tensorflow)=[\w.*]{0,20}=\*?cuda\*?")
_CONDA_PYTORCH = re.compile(r"(?<![\w-])pytorch\s{0,2}={1,2}\s{0,2}(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)")
#: A CUDA package in a conda environment file's dependency list ("  - cudatoolkit=11.3", "- pytorch-cuda=12.1").
_CONDA_ENV_CUDA = re.compile(r"^\s{0,8}-\s{1,4}((?:" + _CONDA_CUDA_PACKAGES + r")"
                             r"(?:\s{0,2}[=<>!~]{1,2}\s{0,2}[\w.*]{1,20})?)\s*$")
#: The same in a pixi.toml's [dependencies] table ('pytorch-cuda = ">=11.4,<12"', 'cudatoolkit = "11.8.*"').
_PIXI_CUDA = re.compile(r"^\s{0,8}(" + _CONDA_CUDA_PACKAGES + r')\s{0,4}=\s{0,4}"([^"\n]{1,40})"\s*$')
_CONDA_TOOLKIT = re.compile(r"(?<![\w-])(?:cudatoolkit|pytorch-cuda)\s{0,2}={1,2}\s{0,2}(\d{1,2}\.\d{1,2})")
#: The pytorch channel itself (its builds are the ones torch.toml's conda_channel rows describe).
_PYTORCH_CHANNEL = re.compile(r"(?:-c|--channel)\s{1,4}pytorch(?![\w-])|(?<![\w-])pytorch::pytorch")
_CONDA_FRAMEWORK = re.compile(r"(?<![\w-])(pytorch|jaxlib|jax|tensorflow(?:-gpu)?|paddlepaddle(?:-gpu)?)(?![\w-])")

# ---- sentences ---------------------------------------------------------------------------------------


_FW = r"(?:py)?torch|tensorflow|jaxlib|jax|paddle(?:paddle)?"
_CPU_WORD = r"cpu[- ]?only|cpu"
_NOUN = r"(?:version|build|wheel|variant|package|binary|edition)"
#: "the CPU version of torch", "CPU-only torch", "a CPU-only build of PyTorch", "the [cpu] version of torch" (the
#: variant written as an extra)
_CLAIM_BEFORE = re.compile(rf"(?:\[|\b)(?:{_CPU_WORD})\]?\s{{0,2}}"
                           rf"(?:{_NOUN}s?\s{{1,2}}(?:of\s{{1,2}})?(?:the\s{{1,2}})?)?({_FW})\b", re.IGNORECASE)
#: "Pytorch with cpuonly", "torch cpu-only", "PyTorch CPU version"
_CLAIM_AFTER = re.compile(rf"\b({_FW})(?:\s{{1,2}}(?:\(|with\s{{1,2}})?\s{{0,2}}"
                          rf"(?:cpuonly|cpu[- ]only|cpu\s{{0,2}}{_NOUN}"
                          rf"|cpu(?=\s{{1,2}}(?:(?:is|was|gets|got|has\s{{1,2}}been)\s{{1,2}})?(?:re)?installed\b))"
                          # NOTE: "installed Torch without the CUDA version" (raryelcostasouza/pyTranscriber#56)
                          rf"|\s{{1,2}}without\s{{1,2}}(?:the\s{{1,2}})?cuda(?:\s{{1,2}}(?:version|support|build))?"
                          # NOTE: conda's CPU package names: "installed pytorch_cpu rather than pytorch_cuda"
                          # (Public-BOTs/GaussianPretrain#4), "pytorch-cpu"
                          rf"|[_-]cpu)\b", re.IGNORECASE)
#: Chinese reports: "PyTorch安装的是CPU版本" (the PyTorch installed is the CPU version), "装了CPU版的torch" (installed
#: the CPU version of torch) (chatchat-space/Langchain-Chatchat#294). A name next to a Chinese character has no \b.
_CLAIM_ZH = re.compile(rf"(?<![A-Za-z])({_FW})(?![A-Za-z])\s{{0,2}}(?:安装|装|下载)?了?\s{{0,2}}的?\s{{0,2}}"
                       rf"(?:是|为)\s{{0,2}}(?:{_CPU_WORD})\s{{0,2}}版本?"
                       rf"|(?:安装|装|下载)了?\s{{0,2}}(?:{_CPU_WORD})\s{{0,2}}版本?\s{{0,2}}的\s{{0,2}}({_FW})(?![A-Za-z])",
                       re.IGNORECASE)
#: A version with the build said in brackets after it: "torch 2.9.1 (no CUDA)", "torch 2.3.0 (CPU)", "PyTorch 2.1.0
#: (cpu-only)" (1hew/ComfyUI-1hewNodes#3: "torch 2.10.0+cu130 → torch 2.9.1 (no CUDA)").
_CLAIM_PAREN = re.compile(rf"\b({_FW})\s{{0,2}}(?:==?|v)?\s{{0,2}}\d\.\d{{1,2}}(?:\.\d{{1,2}})?\s{{0,2}}\(\s{{0,2}}"
                          rf"(?:no\s{{1,2}}cuda|without\s{{1,2}}cuda|{_CPU_WORD})\s{{0,2}}\)", re.IGNORECASE)
#: What makes a Chinese clause a question, a wish or a negation: if, whether, how, want, should, not.
_ZH_HEDGE = re.compile(r"如果|是否|怎么|怎样|如何|想|要|应该|不|没|吗")
#: "... CPU installed instead of GPU": the "instead" affirms the CPU build, it does not wish for one.
_INSTEAD_OF_GPU = re.compile(r"\b(?:instead\s{1,2}of|rather\s{1,2}than)\s{1,2}(?:the\s{1,2})?"
                             r"(?:(?:py)?torch[_-])?(?:gpu|cuda)(?:\s{1,2}(?:version|build|one))?\b", re.IGNORECASE)
#: "the CPU version", "the [cpu] version", "a CPU-only build", "the CPU-Version" with the framework named earlier in
#: the sentence or in the sentence before ("the wrong pytorch version is installed. It defaults to the [cpu]
#: version"); "the CPU version of the model" is not about a framework.
_CLAIM_BARE = re.compile(rf"\b(?:the|a|an|only)\s{{1,2}}(?:\[|\b)(?:{_CPU_WORD})\]?[- ]?\s{{0,2}}{_NOUN}s?\b"
                         rf"(?!\s{{1,2}}of\s{{1,2}}(?:the\s{{1,2}}|my\s{{1,2}})?(?!{_FW}\b)\w)", re.IGNORECASE)
#: What a package tool did, said before a bare claim ("it defaults to", "it downloaded", "uv sync installs") …
_BARE_VERB_BEFORE = re.compile(r"\b(?:(?:re)?install(?:s|ed)?|resulted in|results in|obtain(?:s|ed)?|got|gets|"
                               r"ended up with|end up with|pull(?:s|ed)|download(?:s|ed)|picks|picked|chose|selects|"
                               r"selected|default(?:s|ed)? to|defaulting to|fell back to|falls back to)\b",
                               re.IGNORECASE)
#: … or after it ("only the CPU version will be reinstalled", "the cpu version was installed").
_BARE_VERB_AFTER = re.compile(r"^\s{1,2}(?:is|was|were|got|gets|has been|had been|have been|will be|being)\s{1,2}"
                              r"(?:re)?(?:installed|downloaded|pulled|selected|picked)\b", re.IGNORECASE)
_FW_NAMED = re.compile(rf"(?<![\w-])({_FW})(?![\w-])", re.IGNORECASE)
#: A verb that states what the install did, before the claim.
_FACT_VERB = re.compile(r"\b(?:install(?:s|ed)?|resulted in|results in|obtain(?:s|ed)?|got|gets|getting|"
                        r"ended up|end up|fell back|falls back|falling back|pull(?:s|ed)|download(?:s|ed)|picks?|"
                        r"picked|chose|selected|is|was|it's|gives|gave|has|have|had)\b", re.IGNORECASE)
#: A sentence that wishes, conditions or instructs states nothing about the install.
_CLAIM_HEDGE = re.compile(r"\b(?:if|would|should|could|instead|rather|unless|whether|want|wanted|wants|expect|expected|"
                          r"supposed|prefer|recommend(?:ed)?|please|how)\b", re.IGNORECASE)
#: A bug report's "If I install X in an env ..., then during installation ... torch cpu is installed": the consequent
#: after ", then" is what happens (pyannote/pyannote-audio#1675); the antecedent alone is the condition.
_IF_THEN = re.compile(r"^\s{0,4}if\b[^?]{0,300}?,\s{0,2}then\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|never)\b|n't\b", re.IGNORECASE)
#: "Wanted to bring to your notice that ...", "just wanted to let you know": a courtesy, not a wish about the build.
_COURTESY = re.compile(r"\b(?:just\s{1,2})?wanted\s{1,2}to\s{1,2}"
                       r"(?:bring|let|report|mention|point|say|share|inform|note|flag|raise)\b", re.IGNORECASE)
#: "It does also install cudatoolkit" (asapdiscovery/asapdiscovery#743): conda's CUDA runtime package in the same
#: environment, there for a GPU.
_INSTALLS_CUDATOOLKIT = re.compile(r"\binstall(?:s|ed)?\s{1,2}(?:the\s{1,2})?cudatoolkit\b", re.IGNORECASE)
#: "Torch cpu installed": the claim's own verb, right after it.
_INSTALLED_AFTER = re.compile(r"\s{1,2}(?:(?:is|was|gets|got|has\s{1,2}been)\s{1,2})?(?:re)?installed\b",
                              re.IGNORECASE)
#: "... even on machines with GPU", "... even when a GPU is available", "... on nvidia system": said beside a CPU-build
#: claim, the machine has a GPU (NRCan/geo-deep-learning#490, vladmandic/sdnext#3476).
_GPU_THERE = re.compile(r"\bon\s{1,2}(?:an?\s{1,2}|my\s{1,2}|the\s{1,2})?nvidia\s{1,2}"
                        r"(?:systems?|machines?|pcs?|computers?|laptops?)\b|\beven\s{1,2}(?:on\s{1,2}(?:a\s{1,2}|the\s{1,2})?"
                        r"(?:machines?|systems?|computers?|servers?|nodes?|hosts?)\s{1,2}with\s{1,2}"
                        r"(?:an?\s{1,2}|the\s{1,2})?(?:NVIDIA\s{1,2})?GPUs?"
                        r"|when\s{1,2}(?:an?\s{1,2}|the\s{1,2})?(?:NVIDIA\s{1,2})?GPUs?\s{1,2}(?:is|are)\s{1,2}"
                        r"(?:available|present))\b", re.IGNORECASE)
#: "I installed CUDA 11.8", "I have managed to install CUDA 11.8 and cudnn 8.6", "installed CUDA toolkit 12.1"
_INSTALLED_CUDA = re.compile(r"\b(?:install(?:ed)?|have)\s{1,2}(?:the\s{1,2})?(?:NVIDIA\s{1,2})?CUDA"
                             r"(?:\s{1,2}toolkit)?\s{0,2}v?(\d{1,2}\.\d)(?:\.\d{1,3})?\b", re.IGNORECASE)
_INSTALL_HEDGE = re.compile(r"\b(?:if|would|should|could|instead|rather|unless|whether|want|wanted|need|needs|required|"
                            r"requires|recommend(?:ed|s)?|supports?|supported|try|trying|tried|please|must)\b|n't\b|\bnot\b",
                            re.IGNORECASE)

# ---- machine facts -----------------------------------------------------------------------------------

_WIN_PROMPT = re.compile(r"^\s{0,8}(?:\([\w.-]{1,40}\)\s{1,2})?(?:PS\s{1,2})?[A-Za-z]:\\[^<>|\"\n]{0,240}>")
_ANY_WHEEL = re.compile(r"\b[A-Za-z0-9][\w.]{0,80}-\d[\w.+!]{0,40}-(?:cp|py)\d{1,3}\w{0,4}-[\w.]{1,20}-"
                        r"(win_amd64|win32|win_arm64|manylinux[\w.]{0,60}|musllinux[\w.]{0,40}|macosx_[\w.]{1,40}|"
                        r"linux_(?:x86_64|aarch64))\.whl\b")
_CUDA_AVAILABLE_YES = re.compile(r"^\s{0,8}\**Is CUDA available\s{0,2}:\s{0,4}(?:Yes|True)\b", re.IGNORECASE)
#: torch answering on the same line that CUDA works: "torch.cuda.is_available() # True" (aws/studio-lab-examples),
#: "torch.cuda.is_available() returns True": this machine has a usable NVIDIA GPU.
#: Another framework working on the GPU, said in a sentence: "pytorch will correctly show that CUDA is enabled",
#: "pytorch can recognize the GPU" (aws/sagemaker-distribution, aws/studio-lab-examples): the machine has a GPU.
_TORCH_SAYS_GPU = re.compile(r"\b(?:py)?torch\s{1,2}(?:(?:can|does|will|is able to)\s{1,2})?(?:correctly\s{1,2})?"
                             r"(?:(?:shows?|says|reports?)\s{1,2}(?:that\s{1,2})?CUDA\s{1,2}is\s{1,2}(?:enabled|available)"
                             r"|(?:recogni[sz]es?|detects?|sees|uses)\s{1,2}(?:the|my)\s{1,2}GPU)\b", re.IGNORECASE)
_TORCH_SEES_GPU = re.compile(rf"\btorch\.cuda\.is_available\(\)\)?[`'\"\s]{{0,4}}{_ANSWER_VERB}[`'\"\s:]{{0,6}}True\b")
_JAX_FORM_ACCEL = re.compile(r"^\s{0,3}#{2,4}\s{1,4}Which accelerator\(s\) are you using\??\s*$", re.IGNORECASE)
_GPU_ANSWER = re.compile(r"^\s{0,8}(?:NVIDIA\s{1,2})?GPU\b", re.IGNORECASE)
#: Issue forms that ask for the hardware (kyutai-labs/moshi's bug.yml: "Hardware" = CPU / GPU with CUDA / Metal
#: with MLX): an answer naming CUDA or NVIDIA says the machine has an NVIDIA GPU.
_HARDWARE_HEADING = re.compile(r"^\s{0,3}#{2,4}\s{1,4}(?:Hardware|Accelerators?|Devices?|GPUs?|Compute device)\s*$",
                               re.IGNORECASE)
_CUDA_GPU_ANSWER = re.compile(r"^\s{0,8}(?:GPU\s{1,2}with\s{1,2}CUDA|(?:an?\s{1,2})?NVIDIA\b|CUDA\b|"
                              r"GPU\s{0,2}\((?:CUDA|NVIDIA)\b)", re.IGNORECASE)
#: The user saying the machine has an NVIDIA GPU or CUDA: "even when having cuda installed", "I actually have the
#: newest version of cuda installed", "even when a supported NVIDIA GPU and driver are present", "I have an NVIDIA
#: GPU", "with a CUDA-capable GPU".
_HAS_CUDA = re.compile(r"\b(?:I\s{1,2}(?:actually\s{1,2}|do\s{1,2}|already\s{1,2})?have|I've\s{1,2}got|I've|having)"
                       r"\s{1,2}(?:the\s{1,2}(?:latest|newest)\s{1,2}(?:version\s{1,2}of\s{1,2})?)?CUDA"
                       r"(?:\s{1,2}toolkit)?(?:\s{1,2}v?\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)?\s{1,2}installed\b"
                       r"|\b(?:I\s{1,2}(?:have|own|use)|I've\s{1,2}got|having|with)\s{1,2}(?:an?\s{1,2}|my\s{1,2}|two\s{1,2})?"
                       r"(?:(?:supported|dedicated|working|compatible)\s{1,2})?(?:NVIDIA|CUDA[- ](?:capable|enabled))"
                       r"\s{1,2}(?:GeForce\s{1,2})?(?:GPU|graphics\s{1,2}card|video\s{1,2}card|card)s?\b"
                       r"|\bNVIDIA\s{1,2}GPUs?\s{1,2}(?:and\s{1,2}(?:a\s{1,2})?driver\s{1,2})?(?:is|are)\s{1,2}present\b",
                       re.IGNORECASE)
#: "I do have a GPU set up" (the words of TensorFlow's "Ignore above cudart dlerror if you do not have a GPU set up
#: on your machine", answered): the user's machine has a GPU. Hedged by its own clause only ("I do have a GPU set up,
#: so should I be worried about this?" asks about the message, not about the GPU).
_HAS_GPU_SET_UP = re.compile(r"\bI\s{1,2}(?:do\s{1,2}|already\s{1,2}|definitely\s{1,2})?have\s{1,2}"
                             r"(?:an?\s{1,2}|my\s{1,2})?(?:NVIDIA\s{1,2})?GPUs?\s{1,2}(?:set\s{1,2}up|configured)\b"
                             # "Here's the full warning that I get (I do have a GPU)": said against a "no GPU found"
                             # (patrick-kidger/diffrax#80); the emphatic "do" is the user's rebuttal
                             r"|\bI\s{1,2}(?:do|definitely)\s{1,2}have\s{1,2}(?:an?\s{1,2})?(?:NVIDIA\s{1,2})?GPUs?\b",
                             re.IGNORECASE)
#: A sentence that supposes, asks, negates or addresses someone else says nothing about this machine.
_HAS_CUDA_HEDGE = re.compile(r"\b(?:if|would|should|could|whether|need|needs|require[sd]?|recommend(?:ed)?|without|"
                             r"not|no|never|you|your|users?|buy|buying|planning|e\.g|for example|such as)\b|n't\b|\?",
                             re.IGNORECASE)


def build_facts(lines: list[str], offset: int) -> Iterator[Mention]:
    """Mentions of CPU/CUDA builds, CUDA requests and machine facts (see the module docstring)."""
    for i, line in enumerate(lines):
        if not line.strip() or len(line) > 4000:
            continue
        n = offset + i + 1
        yield from _self_report(lines, i, n)
        yield from _conda_build(line, n)
        yield from _selectors(line, n)
        yield from _requests(line, n)
        yield from _sentences(line, n, lines[i - 1] if i else "")
        yield from _machine(lines, i, n)
        yield from _no_nvidia(line, n)


#: What says the machine has no NVIDIA GPU, or that the user runs on the CPU on purpose: an Apple Silicon Mac
#: ("MacBook Air", "Macbook M1 pro", "apple m1"), another vendor's accelerator (an AMD Radeon/RX card, ROCm, Intel Arc,
#: XPU, DirectML), or the user's own words ("I use the cpu", "a non-cuda env", "运行这一步时我使用的是cpu") — where
#: "Torch not compiled with CUDA enabled" or "Found no NVIDIA driver" is the code asking for CUDA, not a broken
#: install (insanely-fast-whisper#107, declare-lab/tango#12, intel/torch-xpu-ops#3579, AF-SfMLearner#39).
_NO_NVIDIA = re.compile(
    r"\bmac\s{0,1}book(?:\s{1,2}(?:air|pro))?\b|\bmac\s{1,2}(?:mini|studio)\b|\bimac\b|\bapple\s{1,2}(?:silicon|m[1-5])\b"
    r"|\bm[1-5](?:\s{1,2}(?:pro|max|ultra))?\s{1,2}(?:mac|chip)\b|\bon\s{1,2}(?:my\s{1,2}|a\s{1,2})?mac\b"
    r"|\bamd\s{1,2}(?:radeon|gpu)|\bradeon\b|\brx\s{0,1}[4-9]\d{2,3}\b|\brocm\b|\bintel\s{1,2}arc\b|\barc\s{1,2}[ab]\d{3}\b"
    r"|\bxpu\b|\bdirectml\b|\bmps\b|\bintel(?:®|\(R\))?\s{1,2}(?:xe|iris|uhd|hd)\s{1,2}graphics\b"
    r"|\bI(?:'m|\s{1,2}am)?\s{1,2}(?:use|using|run|running|have)\s{1,2}(?:only\s{1,2})?(?:the\s{1,2}|a\s{1,2})?cpu\b"
    r"|\bcpu[- ]only\s{1,2}(?:machine|server|laptop|computer|system|env(?:ironment)?|node)\b"
    r"|\bnon-cuda\s{1,2}(?:env|environment|machine|system)\b"
    r"|\b(?:use|run(?:\s{1,2}it)?\s{1,2}on)\s{1,2}(?:the\s{1,2})?cpu\s{1,2}instead\b"
    r"|\bI\s{1,2}(?:don't|do\s{1,2}not|dont)\s{1,2}have\s{1,2}(?:an?\s{1,2})?(?:nvidia\s{1,2}|cuda\s{1,2}|dedicated\s{1,2})?gpu\b"
    r"|(?:使用的是|用的是|只有)\s{0,2}cpu|没有(?:独立)?(?:显卡|gpu)",
    re.IGNORECASE)


def _no_nvidia(line: str, n: int) -> Iterator[Mention]:
    if len(line) > 2000:
        return
    found = _NO_NVIDIA.search(line)
    if found is not None:
        yield Mention(NO_NVIDIA, found.group(0).strip(), n, PROSE, "text (no NVIDIA GPU, or the CPU by choice)")


def _self_report(lines: list[str], i: int, n: int) -> Iterator[Mention]:
    line = lines[i]
    call = _CALL_LINE.match(line) or _CALL_SHELL.search(line)
    if call:
        answer = _next_answer(lines, i)
        if answer is not None and _ANSWER_FALSE.match(answer[1]):
            yield Mention(BUILT_WITHOUT_CUDA, f"{call.group(1)}() False", n, TOOL, f"interpreter: {call.group(1)}()",
                          _framework_of_call(call.group(1)))
        return
    inline = _CALL_INLINE.search(line)
    if inline:
        yield Mention(BUILT_WITHOUT_CUDA, f"{inline.group(1)}() False", n, MESSAGE, f"text: {inline.group(1)}()",
                      _framework_of_call(inline.group(1)))
        return
    printed = _TORCH_CUDA_CALL.match(line)
    if printed or _TORCH_CUDA_EXPR.match(line):
        answer = _next_answer(lines, i)
        if answer is not None and printed and _ANSWER_NONE.match(answer[1]):
            yield Mention("torch_cuda_none", "None", n, TOOL, "interpreter: print(torch.version.cuda)")
        cuda = _ANSWER_CUDA.match(answer[1]) if answer is not None else None
        if cuda is not None and (printed is not None) == (cuda.group(1) == ""):
            # print() shows the string bare, the prompt echoes it quoted: the answer's shape fits the call's.
            yield Mention("torch_cuda", cuda.group(2), n, TOOL, "interpreter: torch.version.cuda")


_CONDA_DOWNLOAD_ROW = re.compile(r"^([A-Za-z0-9][\w.-]{0,60}?)-\d[\w.+!]{0,40}\s{1,30}\|\s{0,30}(\S{1,80})\s{1,30}"
                                 r"\d[\d.]{0,8}\s{0,2}[KMG]B\b")


def _conda_build(line: str, n: int) -> Iterator[Mention]:
    text = line.strip()
    if len(text) > 400:
        return
    row = _CONDA_ROW.match(text)
    plan = None if row else _CONDA_PLAN.match(text)
    download = None if row or plan or "|" not in text else _CONDA_DOWNLOAD_ROW.match(text)
    if row:
        name, build = normalize_name(row.group(1)), row.group(3)
    elif plan:
        name, build = normalize_name(plan.group(1)), plan.group(4)
    elif download:
        # conda's "The following packages will be downloaded" table: "jaxlib-0.4.27 | cpu_py312h17e8b90_0  51.3 MB"
        # (conda-forge/jaxlib-feedstock#273)
        name, build = normalize_name(download.group(1)), download.group(2)
    else:
        return
    framework = _FRAMEWORK_OF.get(name)
    if framework is None or name in ("jax", "torch", "pytorch") or "==" in text:
        return
    cuda = _BUILD_CUDA.search(build)
    if cuda:
        yield Mention(CONDA_VARIANT, f"{cuda.group(1)}.{cuda.group(2)}", n, TOOL, f"conda build string {build}",
                      framework)
    elif _BUILD_CPU.search(build):
        yield Mention(CONDA_VARIANT, "cpu", n, TOOL, f"conda build string {build}", framework)


#: The defaults channel's variant selector in a conda listing: "_pytorch_select  0.1  cpu_0" pins the CPU pytorch
#: (Lightning-AI/pytorch-lightning#899's environment).
_PYTORCH_SELECT = re.compile(r"^\s{0,4}_pytorch_select\s{1,40}\d[\w.]{0,10}\s{1,40}(cpu|gpu)_\d{1,3}\b")
#: A program asking for GPUs the machine did not give it: PyTorch Lightning's "You requested GPUs: [0]" (its
#: MisconfigurationException, followed by "But your machine only has: []").
_GPUS_REQUESTED = re.compile(r"\bYou requested GPUs: \[\d")


def _selectors(line: str, n: int) -> Iterator[Mention]:
    select = _PYTORCH_SELECT.match(line)
    if select and select.group(1) == "cpu":
        yield Mention(CPU_CLAIM, line.strip()[:80], n, TOOL, "conda list: _pytorch_select (the CPU variant)", "torch")
    if _GPUS_REQUESTED.search(line):
        yield Mention(CUDA_REQUEST, "GPUs requested by the program (PyTorch Lightning: 'You requested GPUs')", n,
                      MESSAGE, "PyTorch Lightning", "")


#: A sentence saying the GPU build of a framework was installed or is wanted: "安装了gpu版本的torch" (installed the
#: GPU version of torch), "怎么安装gpu版本的paddle", "I installed the GPU version of PyTorch": the report is about a
#: framework meant for an NVIDIA GPU (hiyouga/LlamaFactory#7666: a '2.6.0+cpu' torch beside it). The verb is required:
#: "openmm-torch uses a pytorch cuda version" is about another package (openmm/openmm-torch#94, a machine without GPU).
_GPU_BUILD_SAID = re.compile(
    rf"(?:安装了?|装了?|下载了?|换成了?)\s{{0,2}}(?:gpu|cuda)\s{{0,2}}版本?\s{{0,2}}的?\s{{0,2}}({_FW})\b"
    rf"|\b(?:(?:re)?install(?:ed|ing)?|want(?:ed)?|need(?:ed)?|download(?:ed)?)\s{{1,2}}"
    rf"(?:the\s{{1,2}}|a\s{{1,2}})?(?:gpu|cuda)(?:[- ]enabled)?\s{{1,2}}(?:version|build)s?\s{{1,2}}"
    rf"of\s{{1,2}}({_FW})\b", re.IGNORECASE)


def _requests(line: str, n: int) -> Iterator[Mention]:
    said = _GPU_BUILD_SAID.search(line) if len(line) < 2000 else None
    if said:
        name = normalize_name(next(g for g in said.groups() if g)).lower()
        yield Mention(CUDA_REQUEST, said.group(0).strip()[:60], n, PROSE, "text: the GPU build of the framework",
                      _FRAMEWORK_OF.get(name, ""))
    pip = _PIP_CMD.search(line)
    if pip:
        for extra in _CUDA_EXTRA.finditer(pip.group(1)):
            name = extra.group(1).lower()
            yield Mention(CUDA_REQUEST, f"{name}[{extra.group(2)}]", n, MESSAGE, "pip install",
                          _FRAMEWORK_OF[name])
    collecting = _COLLECTING.match(line)
    if collecting and "cuda" in collecting.group(2).lower():
        name = collecting.group(1).lower()
        yield Mention(CUDA_REQUEST, f"{name}[{collecting.group(2)}]", n, TOOL, "pip: Collecting", _FRAMEWORK_OF[name])
    listed = _CONDA_ENV_CUDA.match(line)
    if listed:
        yield Mention(CUDA_REQUEST, listed.group(1).replace(" ", ""), n, MESSAGE, "conda environment file", "")
    pixi = _PIXI_CUDA.match(line)
    if pixi:
        yield Mention(CUDA_REQUEST, f"{pixi.group(1)} {pixi.group(2)}", n, MESSAGE, "pixi dependencies", "")
    conda = _CONDA_CMD.search(line)
    if conda:
        args = conda.group(1)
        spec = _CONDA_CUDA_SPEC.search(args)
        if spec:
            framework = _CONDA_FRAMEWORK.search(args)
            key = _FRAMEWORK_OF.get(normalize_name(framework.group(1)), "") if framework else ""
            yield Mention(CUDA_REQUEST, spec.group(0).strip(), n, MESSAGE, "conda install", key)
        torch, toolkit = _CONDA_PYTORCH.search(args), _CONDA_TOOLKIT.search(args)
        if torch and toolkit and _PYTORCH_CHANNEL.search(args):
            yield Mention(CONDA_TORCH_REQUEST, stated(torch.group(1), toolkit.group(1)), n, MESSAGE,
                          f"conda install pytorch={torch.group(1)} {toolkit.group(0)}", "torch")


def _sentences(line: str, n: int, prev: str = "") -> Iterator[Mention]:
    if len(line) > 2000 or ("cpu" not in line.lower() and "cuda" not in line.lower()):
        return
    # NOTE: the sentence before the first one of a line is the last of the line above (a wrapped paragraph).
    earlier = last_sentence(prev[:2000])
    for marked in sentences(line):
        # NOTE: Markdown's code marks are not words: "installs `cpu` versions of `pytorch`" (chemprop/chemprop#183)
        sentence = marked.replace("`", "")
        lowered = sentence.lower()
        unhedged = _COURTESY.sub("", _INSTEAD_OF_GPU.sub("", _IF_THEN.sub("", sentence)))
        if ("cpu" in lowered or "without" in lowered) and not _CLAIM_HEDGE.search(unhedged):
            claimed = False
            for regex in (_CLAIM_BEFORE, _CLAIM_AFTER):
                found = regex.search(sentence)
                if found is None:
                    continue
                before = sentence[max(0, found.start() - 80):found.start()]
                negated = _NEGATION.search(whole_words(sentence, found.start() - 16, found.start()))
                # NOTE: "Torch cpu installed on nvidia system": the claim's own "installed" states it
                said_installed = regex is _CLAIM_AFTER and _INSTALLED_AFTER.match(sentence, found.end()) is not None
                if (_FACT_VERB.search(before) or said_installed) and not negated:
                    framework = _FRAMEWORK_OF[found.group(1).lower()]
                    yield Mention(CPU_CLAIM, found.group(0), n, PROSE, "text", framework)
                    claimed = True
                    # NOTE: the same sentence saying the GPU build was wanted ("instead of gpu ones"), or that the
                    # machine has a GPU ("even on machines with GPU"): what shows the CPU build is the wrong one
                    if (wanted := _INSTEAD_OF_GPU.search(sentence)) is not None:
                        yield Mention(GPU_WANTED, wanted.group(0), n, PROSE, "text (the GPU build wanted)", framework)
                    if (there := _GPU_THERE.search(sentence)) is not None:
                        yield Mention(GPU_PRESENT, there.group(0), n, PROSE, "text (the machine has a GPU)")
                    break
            zh = _CLAIM_ZH.search(sentence) if not claimed and "版" in sentence else None
            if zh and not _ZH_HEDGE.search(sentence[max(0, zh.start() - 12):zh.end()]):
                framework = _FRAMEWORK_OF[next(g for g in zh.groups() if g).lower()]
                yield Mention(CPU_CLAIM, zh.group(0), n, PROSE, "text", framework)
                claimed = True
            if not claimed:
                yield from _bare_claim(sentence, earlier, n)
        paren = _CLAIM_PAREN.search(sentence) if "(" in sentence else None
        if paren and not _CLAIM_HEDGE.search(sentence[:paren.start()]):
            yield Mention(CPU_CLAIM, paren.group(0), n, PROSE, "text", _FRAMEWORK_OF[paren.group(1).lower()])
        earlier = sentence
        toolkit = _INSTALLS_CUDATOOLKIT.search(sentence) if "cudatoolkit" in lowered else None
        if toolkit is not None and not _INSTALL_HEDGE.search(in_clause(sentence, toolkit)):
            yield Mention(CUDA_REQUEST, toolkit.group(0), n, PROSE, "text (conda's cudatoolkit installed)")
        if "cuda" in lowered:
            installed = _INSTALLED_CUDA.search(sentence)
            if installed and not _INSTALL_HEDGE.search(sentence):
                yield Mention("system_cuda", installed.group(1), n, PROSE, "text (installed CUDA)")


def _bare_claim(sentence: str, earlier: str, n: int) -> Iterator[Mention]:
    """ "It defaults to the [cpu] version": a CPU build of the one framework this sentence (before the claim) or the
    sentence before it names."""
    found = _CLAIM_BARE.search(sentence)
    if found is None:
        return
    start = found.start()
    said = _BARE_VERB_BEFORE.search(sentence[max(0, start - 60):start]) or _BARE_VERB_AFTER.match(
        sentence[found.end():found.end() + 40])
    if not said or _NEGATION.search(whole_words(sentence, start - 16, found.end() + 24)):
        return
    named = {_FRAMEWORK_OF[m.group(1).lower()] for m in _FW_NAMED.finditer(f"{earlier} {sentence[:start]}")}
    if len(named) == 1:
        framework = named.pop()
        yield Mention(CPU_CLAIM, found.group(0), n, PROSE, f"text (the {framework} named in this or the sentence "
                      "before)", framework)


def _form_gpu_answer(lines: list[str], i: int, n: int, answer: re.Pattern[str], how: str) -> Iterator[Mention]:
    """An issue form's answer under the heading on line ``i`` that says the machine has a GPU."""
    found = _next_answer(lines, i)
    if found is not None and answer.match(found[1]):
        yield Mention(GPU_PRESENT, found[1].strip()[:60], found[0] + 1 + (n - i - 1), FIELD, how)


#: Mention kind: a versioned CUDA install prefix named in the report (resolve takes it as the system's toolkit only
#: when the report names one version so, and nothing stronger).
CUDA_PREFIX = "cuda_prefix"
#: The CUDA installers' default prefix, /usr/local/cuda-X.Y (NVIDIA's Linux installation guide): a path under it
#: ("/usr/local/cuda-12.1/lib/libcudnn_cnn_train.so.8", "export PATH=/usr/local/cuda-11.8/bin") shows that toolkit
#: is installed. The bare /usr/local/cuda symlink names no version.
_CUDA_PREFIX = re.compile(r"(?<![\w.-])/usr/local/cuda-(\d{1,2}\.\d)(?=/|\s|$|[`'\":;,)])")


def _machine(lines: list[str], i: int, n: int) -> Iterator[Mention]:
    line = lines[i]
    lowered_line = line.lower()
    prefix = _CUDA_PREFIX.search(line) if "/usr/local/cuda-" in line else None
    if prefix:
        yield Mention(CUDA_PREFIX, prefix.group(1), n, PROSE, f"path /usr/local/cuda-{prefix.group(1)}")
    if _WIN_PROMPT.match(line):
        yield Mention("os", "Windows", n, MESSAGE, "Windows command prompt")
    if ".whl" in line:
        for wheel in _ANY_WHEEL.finditer(line):
            yield Mention("wheel_platform", wheel.group(1).lower(), n, MESSAGE, "wheel file name")
    if _CUDA_AVAILABLE_YES.match(line):
        yield Mention(GPU_PRESENT, "Is CUDA available: Yes", n, TOOL, "collect_env: Is CUDA available")
    elif "is_available" in line and (sees := _TORCH_SEES_GPU.search(line)):
        yield Mention(GPU_PRESENT, sees.group(0), n, MESSAGE, "text: torch.cuda.is_available() True")
    elif "torch" in lowered_line and (says := _TORCH_SAYS_GPU.search(line)) and not _HAS_CUDA_HEDGE.search(line):
        yield Mention(GPU_PRESENT, says.group(0), n, PROSE, "text: torch uses the GPU on this machine")
    if _HARDWARE_HEADING.match(line):
        yield from _form_gpu_answer(lines, i, n, _CUDA_GPU_ANSWER, f"issue form: {line.strip().lstrip('#').strip()}")
    lowered = line.lower()
    if ("cuda" in lowered or "nvidia" in lowered) and len(line) <= 2000:
        for sentence in sentences(line):
            has = _HAS_CUDA.search(sentence)
            if has and not _HAS_CUDA_HEDGE.search(sentence):
                yield Mention(GPU_PRESENT, has.group(0), n, PROSE, "text (the user's machine has CUDA)")
                break
    if "gpu" in lowered and _HAS_GPU_SET_UP.search(line) is not None:
        set_up = next(((x, f) for x in sentences(line) if (f := _HAS_GPU_SET_UP.search(x)) is not None), None)
        if set_up is not None and not _HAS_CUDA_HEDGE.search(in_clause(*set_up)):
            yield Mention(GPU_PRESENT, set_up[1].group(0), n, PROSE, "text (the user says the machine has a GPU)")
    if _JAX_FORM_ACCEL.match(line):
        yield from _form_gpu_answer(lines, i, n, _GPU_ANSWER, "issue form: Which accelerator(s) are you using?")
