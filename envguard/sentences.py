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
