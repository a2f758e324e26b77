"""A reporter's "the driver is too old" in their own words, and torch.version.cuda asked at the prompt (real lines;
each source in a comment)."""

from __future__ import annotations

from envguard.findings import Severity
from envguard.knowledge import load_matrices
from envguard.reports.extract_builds import build_facts
from envguard.rules.driver_said import stated
from tests.reports import error_codes, worst_severity

SAID = frozenset({"driver-too-old-said", "driver-too-old-said-zh"})


def _said(line: str) -> bool:
    return any(m.signature.id in SAID for m in load_matrices().errors.match([line]))


def _torch_cuda(lines: list[str]) -> list[str]:
    return [m.value for m in build_facts(lines, 0) if m.kind == "torch_cuda"]


def test_paraphrases_of_the_driver_message_are_read() -> None:
    # pytorch/pytorch#28195
    assert _said("when i run my program，the msg is that my Nvidia version is too old.")
    # lllyasviel/Fooocus#2391 (body and title)
    assert _said("When I start up Fooocus I get an error about my NVIDIA driver being too old,   (see log below)")
    assert _said("Linux - PopOs - Torch complains NVIDIA driver is too old, when I have a driver that was released "
                 "last week, [includes works for me fix]")
    # MouseLand/Kilosort#241 (the reporter's "dirver")
    assert _said("Hi, I meet an error in matlab below, it claims that my dirver is too old for CUDA, does anyone know "
                 "how to resolve this error? Thanks!")
    # zai-org/ChatGLM3#100 (title): "the prompt says the NVIDIA driver is too old"
    assert _said("提示NVIDIA驱动太老，需要哪个版本以上才能跑起来呢")


def test_a_question_or_an_own_guess_is_not_a_paraphrase() -> None:
    # Haidra-Org/AI-Horde-Worker#190, corpus case 211 (docker-cuda128 thread): questions, no reporting verb
    assert not _said("Does this mean my GPU is too old or something? (GTX 280 is definitely old)")
    assert not _said("**I am running cuda 12.4 - is that too old?**")
    # MouseLand/Kilosort#241's title states no message
    assert not _said("dirver is too old for CUDA")
    # lltcggie/waifu2x-caffe#207: the GPU, not the driver
    assert not _said("when I try to check the cuDDN it would tell me that my CUDA device is too old")


def _stated(line: str) -> bool:
    found = next(m for m in load_matrices().errors.match([line]) if m.signature.id in SAID)
    match = found.signature.pattern.search(found.line)
    assert match is not None
    return stated(found.line, match.start(), match.end())


def test_only_a_statement_counts() -> None:
    assert _stated("when i run my program，the msg is that my Nvidia version is too old.")  # pytorch#28195
    assert _stated("Hi, I meet an error in matlab below, it claims that my dirver is too old for CUDA, does anyone "
                   "know how to resolve this error? Thanks!")  # Kilosort#241: the question is another clause
    assert _stated("提示NVIDIA驱动太老，需要哪个版本以上才能跑起来呢")  # ChatGLM3#100
    assert not _stated("Does it say my driver is too old?")
    assert not _stated("If it says my driver is outdated, I will update it.")
    assert not _stated("It doesn't say the driver is too old, it says out of memory.")
    assert not _stated("是否提示驱动版本过低？")


def test_torch_version_cuda_at_the_prompt() -> None:
    # pytorch/pytorch#28195: print() shows the value bare
    assert _torch_cuda([">>> print(torch.version.cuda)", "10.0.130", ">>> exit()"]) == ["10.0.130"]
    # the bare expression is echoed quoted
    assert _torch_cuda([">>> torch.version.cuda", "'10.2'"]) == ["10.2"]
    assert _torch_cuda(["In [3]: torch.version.cuda", "Out[3]: '11.8'"]) == ["11.8"]
    # an answer of the other shape is not this call's
    assert _torch_cuda([">>> print(torch.version.cuda)", "'10.2'"]) == []
    assert _torch_cuda([">>> torch.version.cuda", "10.2"]) == []
    assert _torch_cuda([">>> print(torch.version.cuda)", "None"]) == []


#: pytorch/pytorch#28195 as posted (corpus case 805): a CUDA 9.0 build works, the CUDA 10.0 build does not.
ISSUE_28195 = """when i use pytorch1.0 and enter the following commands：
>>> import torch
>>> print(torch.__version__)
1.0.0.dev20190102
>>> torch.cuda.is_available()
True
>>> print(torch.version.cuda)
9.0.176
>>> exit()
after i update pythorch to version1.2,and enter the following commands:
print(torch.__version__)
1.2.0
>>> torch.cuda.is_available()
False
>>> print(torch.version.cuda)
10.0.130
>>> exit()

when i run my program，the msg is that my Nvidia version is too old.
Should i update my cuda version and nvidia driver version simultaneously？or Is there any other solution?
"""


def test_a_paraphrase_with_a_cuda_build_and_no_driver_is_an_error() -> None:
    assert "driver-too-old" in error_codes(ISSUE_28195)


def test_a_paraphrase_alone_or_against_a_named_driver_is_a_warning() -> None:
    # Fooocus#2391: the reporter's driver was 550; a named driver is judged by its number, not the paraphrase
    fooocus = ("When I start up Fooocus I get an error about my NVIDIA driver being too old,   (see log below)\n"
               "| NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4     |\n"
               "torch 2.1.0+cu121\n")
    assert "driver-too-old" not in error_codes(fooocus)
    assert worst_severity(fooocus).get("driver-too-old") is Severity.WARNING
    # no build at all: the paraphrase is all there is
    alone = "Python 3.10.6\nWhen I start up Fooocus I get an error about my NVIDIA driver being too old\n"
    assert worst_severity(alone).get("driver-too-old") is Severity.WARNING
    # a question with a CUDA build stays a warning
    asked = ISSUE_28195.replace("the msg is that my Nvidia version is too old.",
                                "does the msg say my driver is too old?")
    assert "driver-too-old" not in error_codes(asked)
