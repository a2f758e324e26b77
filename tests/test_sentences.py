"""envguard.sentences: the one notion of a sentence every prose extractor and the driver-said rule share.

Lines marked (real) are verbatim from the report corpus (the case folder named); the others are constructed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from envguard.sentences import (
    MAX_SENTENCE,
    kept_for,
    last_sentence,
    sentence_span,
    sentences,
    spans,
    superseded,
    transitions,
    whole_words,
    window,
)


def test_versions_file_names_and_urls_do_not_end_a_sentence() -> None:
    line = ("I installed torch-2.3.1+cu121-cp312-cp312-linux_x86_64.whl from https://example.invalid/whl?x=1 with "
            "CUDA 12.1. It says no GPU!")  # constructed
    assert sentences(line) == [
        "I installed torch-2.3.1+cu121-cp312-cp312-linux_x86_64.whl from https://example.invalid/whl?x=1 with "
        "CUDA 12.1.",
        "It says no GPU!",
    ]


def test_a_semicolon_ends_a_sentence_with_or_without_a_space() -> None:
    assert sentences("torch 2.1 works; torch 2.2 does not;cuda 12.1") == [
        "torch 2.1 works;", "torch 2.2 does not;", "cuda 12.1"]  # constructed


def test_abbreviations_do_not_end_a_sentence() -> None:
    # real: 130-aarch64-gb200-pip-install-torch-cpu (the hedge "e.g" must stay in the GPU's sentence)
    assert sentences("1. Get an aarch64 machine, e.g. GB200") == ["1.", "Get an aarch64 machine, e.g. GB200"]
    assert sentences("Use a newer build, i.e. torch 2.4 vs. 2.3. Done.") == [
        "Use a newer build, i.e. torch 2.4 vs. 2.3.", "Done."]  # constructed


def test_full_width_punctuation_ends_a_sentence() -> None:
    # real: 319-paddle222-cu102-rtx3060-sm86-run-check-zh
    line = "在另一台gpu为3060的机子上安装cuda10.2，安装paddle后执行下面的命令出错。"
    assert sentences(line) == [line]
    # real: 112-nvml-mismatch-docker-user-installed-driver (its first two sentences)
    line = ("在运行Anaconda环境下的pytorch时，因提示CUDA版本过旧而无法利用GPU，因此尝试按其提示更新CUDA。"
            "此操作亦更新了NVIDIA驱动，更新后有提示信息要求重启。")
    assert len(sentences(line)) == 2
    assert sentences(line)[0].endswith("更新CUDA。")
    assert sentences("CUDA版本为11.2？cudnn版本 8.1；paddle 2.4！") == [
        "CUDA版本为11.2？", "cudnn版本 8.1；", "paddle 2.4！"]  # constructed


def test_a_long_sentence_is_read_in_pieces_that_cover_it() -> None:
    line = "x" * (2 * MAX_SENTENCE + 10)
    assert [len(s) for s in sentences(line)] == [MAX_SENTENCE, MAX_SENTENCE, 10]


def test_last_sentence_is_the_one_a_wrapped_paragraph_continues() -> None:
    assert last_sentence("It works with CUDA 11.8. But the wrong pytorch version") == "But the wrong pytorch version"
    assert last_sentence("") == ""
    assert last_sentence("   ") == ""


def test_a_window_stops_at_the_sentences_around_the_match() -> None:
    line = "I could not run vllm 0.4.2. I run vllm 0.5.0 now. Not yet 0.6."  # constructed
    start = line.index("vllm 0.5.0")
    end = start + len("vllm 0.5.0")
    assert window(line, start, end, 32) == "I run vllm 0.5.0 now."
    # a cut through a word drops the piece, never leaving a shorter word behind
    assert window(line, start, end, 2) == " vllm 0.5.0 "
    assert sentence_span(line, start) == (line.index("I run"), line.index(" Not yet"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .;!?。？\t1")), max_size=1200))
def test_spans_are_ordered_disjoint_and_cover_every_non_space_character(line: str) -> None:
    found = list(spans(line))
    covered: set[int] = set()
    previous_end = 0
    for start, end in found:
        assert previous_end <= start < end <= len(line)
        assert end - start <= MAX_SENTENCE
        assert not line[start].isspace()
        covered.update(range(start, end))
        previous_end = end
    assert all(i in covered for i, char in enumerate(line) if not char.isspace())
    for start, _ in found:
        assert sentence_span(line, start)[0] == start


def test_whole_words_never_leave_a_hedge_cut_out_of_a_longer_word() -> None:
    # the 2762 report: a 32-character window ended inside "notes", and its "no" took back the CUDA 13.2 before it
    line = "build 4574, CUDA 13.2 runtime - the compose header notes that"
    end = line.index("header no") + len("header no")
    assert whole_words(line, line.index("CUDA"), end) == "CUDA 13.2 runtime - the compose header "
    assert whole_words(line, line.index("uild"), line.index(",")) == " 4574"
    assert whole_words(line, 0, len(line)) == line
    assert whole_words(line, -5, 10**6) == line
    assert whole_words("数据12 cuda", 1, 9) == "据12 cuda"  # only ASCII words are cut back



def _pairs(sentence: str) -> list[tuple[str, str]]:
    return [(sentence[a:b], sentence[c:d]) for (a, b), (c, d) in transitions(sentence)]


def test_a_change_leaves_the_version_before_it_behind() -> None:
    # oobabooga/text-generation-webui (2025): the update wizard's swap of a CUDA torch for a CPU one
    assert _pairs("Running the update wizard silently replaces `torch 2.9.1+cu128` with `torch 2.9.0+cpu` — "
                  "disabling CUDA") == [("2.9.1+cu128", "2.9.0+cpu")]
    assert _pairs("I upgraded torch from 2.1.0+cu121 to 2.5.1+cpu and now CUDA is gone") == [("2.1.0+cu121",
                                                                                              "2.5.1+cpu")]
    assert _pairs("after torch 2.4.1 -> 2.5.0 the kernel fails") == [("2.4.1", "2.5.0")]
    # a change that fixed the failure: the failure ran on the version before it
    assert _pairs("Updating driver from version 461.40 to 526.47 fix the issue") == [("526.47", "461.40")]
    # ... unless the fix word is negated
    assert _pairs("I upgraded torch from 2.1.0 to 2.3.0 but it still does not work") == [("2.1.0", "2.3.0")]


def test_a_range_is_no_change() -> None:
    assert transitions("torch supports Python from 3.8 to 3.11") == ()
    assert transitions("CUDA 11.8 and cuDNN 8.9 are installed") == ()


def test_kept_for_names_the_version_that_replaced_it() -> None:
    sentence = "pip replaced torch 2.3.1+cu121 with torch 2.3.1 from the index"
    assert kept_for(sentence, sentence.index("2.3.1+cu121")) == "2.3.1"
    assert superseded(sentence, sentence.index("2.3.1+cu121"))
    assert not superseded(sentence, sentence.rindex("2.3.1"))
    assert kept_for("torch 2.3.1 on CUDA 12.1", 6) is None
