"""What a sentence is, for every extractor that reads prose: one definition, so that a hedge word in one sentence
never takes back a fact in the next one for one extractor and not for another.

A sentence ends at ``.``, ``!`` or ``?`` followed by white space, at ``;``, or at a full-width stop, exclamation
or question mark or semicolon (Chinese and Japanese reports). A version's "11.8", a file's
"torch-2.3.1+cu121-cp312.whl", a URL's "?q=", "e.g.", "i.e." and "vs." do not end one (so the hedge words
"e.g" and "vs" still govern the example that follows them: "an aarch64 machine, e.g. GB200"). A line never continues a
sentence into the next line here: callers that need the sentence before (a wrapped paragraph) ask for it.
A sentence longer than :data:`MAX_SENTENCE` characters is read in pieces of that size, so that a long run-on
paragraph costs linear time and a hedge near one version does not silence the whole paragraph.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

#: The longest piece of one sentence read at once.
MAX_SENTENCE = 400

_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)[.!?](?=\s)|[;。！？；]")


def spans(line: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each sentence of ``line``, its closing punctuation included, white space between them not."""
    start = 0
    for end_mark in _END.finditer(line):
        yield from _pieces(line, start, end_mark.end())
        start = end_mark.end()
    yield from _pieces(line, start, len(line))


def _pieces(line: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and line[start].isspace():
        start += 1
    while start < end:
        stop = min(end, start + MAX_SENTENCE)
        yield start, stop
        start = stop


def sentences(line: str) -> list[str]:
    """The sentences of ``line``, in order (see the module's docstring for what ends one)."""
    return [line[start:end] for start, end in spans(line)]


def last_sentence(line: str) -> str:
    """The last sentence of ``line`` (the one a wrapped paragraph continues on the next line), or ''."""
    found = sentences(line)
    return found[-1] if found else ""


def sentence_span(line: str, start: int) -> tuple[int, int]:
    """(start, end) of the sentence ``line[start]`` is in (its closing punctuation included)."""
    for first, last in spans(line):
        if first <= start < last:
            return first, last
    return start, start


def _word(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def whole_words(line: str, lo: int, hi: int) -> str:
    """``line[lo:hi]`` less a word that either cut splits: a window cut through "notes" must not leave the hedge
    word "no", nor one cut through "another" the word "other"."""
    lo, hi = max(0, lo), min(len(line), hi)
    if 0 < lo < hi and _word(line[lo - 1]) and _word(line[lo]):
        while lo < hi and _word(line[lo]):
            lo += 1
    if lo < hi < len(line) and _word(line[hi - 1]) and _word(line[hi]):
        while hi > lo and _word(line[hi - 1]):
            hi -= 1
    return line[lo:hi]


def window(line: str, start: int, end: int, width: int) -> str:
    """The whole words within ``width`` characters either side of ``line[start:end]``, not crossing into the
    sentence before or after the one ``start`` is in."""
    first, last = sentence_span(line, start)
    lo, hi = max(first, start - width), min(max(last, end), end + width)
    return whole_words(line, lo, start) + line[start:end] + whole_words(line, end, hi)


# ---- transitions: a version that was changed to another --------------------------------------------------------

_V = r"v?\d{1,3}\.\d{1,3}(?:\.\d{1,3})?(?:-?(?:rc|post|dev)\d{0,8})?(?:\+[A-Za-z0-9_.]{0,19}[A-Za-z0-9_])?"
_Q = r"[`'\"]?"
_NAME = r"(?:[A-Za-z][\w.-]{0,30}(?:==|\s{1,2}(?:version\s{1,2})?))?"
#: "upgraded torch from 2.1.0+cu121 to 2.5.1", "went from CUDA 11.8 to 12.4", "replaces `torch 2.9.1+cu128` with
#: `torch 2.9.0+cpu`" (oobabooga/text-generation-webui, 2025), "torch 2.4.1 -> 2.5.0", "2.3.1 → 2.4.0": the
#: version before the change and the one after it. A range ("supports Python from 3.9 to 3.12") is no change: the
#: "from ... to" form counts only in a sentence with a verb of change before it.
_TRANSITION = re.compile(
    rf"\bfrom\s{{1,2}}(?:version\s{{1,2}})?{_Q}(?P<a_old>{_V}){_Q}\s{{1,2}}(?:to|->|→|=>)\s{{1,2}}{_NAME}{_Q}(?P<a_new>{_V})"
    rf"|(?<![\w.+-])(?P<b_old>{_V}){_Q}\s{{0,2}}(?:->|→|=>)\s{{0,2}}{_Q}(?P<b_new>{_V})(?![\w.])"
    rf"|\breplac(?:e|es|ed|ing)\s{{1,2}}(?:the\s{{1,2}}|my\s{{1,2}}|our\s{{1,2}})?{_Q}{_NAME}{_Q}(?P<c_old>{_V}){_Q}"
    rf"\s{{1,2}}(?:with|by)\s{{1,2}}{_Q}{_NAME}{_Q}(?P<c_new>{_V})",
    re.IGNORECASE)
_CHANGE_VERB = re.compile(r"\b(?:upgrad|updat|downgrad|switch|mov|went|go(?:ing|es)?\b|gone|chang|bump|migrat|"
                          r"reinstall|roll|revert|jump|replac|install|swapp?)", re.IGNORECASE)
#: The change is what fixed the report's failure ("Updating driver from 461.40 to 526.47 fix the issue"): the
#: version the report's failure ran on is the one before it.
_FIXED = re.compile(r"\b(?:fix(?:e[sd])?|fixing|solv(?:e[sd]?|ing)|resolv(?:e[sd]?|ing)|works?|worked|working|"
                    r"help(?:s|ed)?)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=512)
def transitions(sentence: str) -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
    """The (start, end) of the version each change in ``sentence`` left behind, and of the one it did not: the
    version before the change is the one left behind, unless the sentence says the change fixed the failure (then the
    report's failure ran on the version before it, and the one after it is left behind). Cached: every extractor
    that reads a version in prose asks about the same sentence."""
    if not any(mark in sentence for mark in ("->", "→", "=>")) and not _CHANGE_VERB.search(sentence):
        return ()
    out = []
    for found in _TRANSITION.finditer(sentence):
        form = next(f for f in "abc" if found.group(f"{f}_old") is not None)
        if form == "a" and not _CHANGE_VERB.search(sentence, 0, found.start()):
            continue
        old, new = found.span(f"{form}_old"), found.span(f"{form}_new")
        out.append((new, old) if _fixed(sentence, found.end()) else (old, new))
    return tuple(out)


#: A negation right before the fix word: "... but it still doesn't work", "did not help".
_NOT_BEFORE = re.compile(r"(?:n't|\bnot|\bno|\bnever|\bstill|\bnothing)\b[\w ]{0,12}$", re.IGNORECASE)


def _fixed(sentence: str, after: int) -> bool:
    return any(not _NOT_BEFORE.search(sentence, max(after, word.start() - 24), word.start())
               for word in _FIXED.finditer(sentence, after))


def kept_for(sentence: str, start: int) -> str | None:
    """The version a change in the sentence kept, when the one that starts at ``sentence[start:]`` is the one it
    left behind (:func:`transitions`); None when that version is no part of a change."""
    for (lo, hi), (kept_lo, kept_hi) in transitions(sentence):
        if lo <= start < hi:
            return sentence[kept_lo:kept_hi].lstrip("vV")
    return None


def superseded(sentence: str, start: int) -> bool:
    """Whether the version that starts at ``sentence[start:]`` is one a change in the sentence left behind
    (:func:`transitions`)."""
    return kept_for(sentence, start) is not None
