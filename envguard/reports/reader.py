"""Pasted reports → Snapshot: segment → extract → resolve.

Pure: text in, facts out. Reports are partial, hand-edited and mixed; every fact keeps the report line it came
from as its source, facts the report does not give are "not reported", and two sources that disagree produce a
note instead of a guess. A report that describes several environments ("works with A, fails with B") is split
and each part is read on its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from envguard.errors import SnapshotError
from envguard.knowledge import Matrices, load_matrices
from envguard.knowledge.errors import ErrorsMatrix
from envguard.reports import (
    companions,
    extract,
    extract_builds,
    extract_conda_forge,
    extract_driver,
    extract_jetson,
    extract_machine,
    extract_named,
    extract_python,
    extract_stack,
    extract_tables,
    libraries,
)
from envguard.reports.mentions import PROSE, Mention
from envguard.reports.resolve import assemble
from envguard.reports.segment import MAX_LINE_CHARS, normalize_report, split_environments
from envguard.snapshot import NGC_RELEASE_KEY, NOT_REPORTED, Snapshot, Unavailable

__all__ = ["MAX_REPORT_CHARS", "NOT_REPORTED", "ReadEnvironment", "normalize_report", "parse_environments",
           "parse_report"]

#: Largest report envguard reads (a real one is a few kB; logs can be longer).
MAX_REPORT_CHARS = 4 << 20
#: Facts of the machine rather than of one software environment (shared between the parts of a report).
MACHINE_KINDS = frozenset({"gpu", "gpu_cc", "driver", "driver_cuda", "kernel_module", "driver_package", "os",
                           "platform", "libc", "jetpack", "l4t", "gpu_present"})
#: Error lines kept in a snapshot (the catalogue sees every line; only matching ones are kept).
MAX_ERROR_LINES = 200


@dataclass(frozen=True, slots=True)
class ReadEnvironment:
    """One environment a report describes."""

    snapshot: Snapshot
    notes: tuple[str, ...]
    #: "environment 2 of 2 (report lines 40-80)", or "" when the report describes one environment.
    label: str


def parse_report(text: str, name: str = "<report>") -> tuple[Snapshot, tuple[str, ...]]:
    """The report as one environment (the first, when it describes several) plus notes.

    :raises SnapshotError: when nothing in the text is an environment fact.
    """
    first = parse_environments(text, name)[0]
    return first.snapshot, first.notes


def parse_environments(text: str, name: str = "<report>", matrices: Matrices | None = None,
                       ) -> tuple[ReadEnvironment, ...]:
    """Every environment the report describes, each read on its own.

    ``matrices``: the knowledge (the error catalogue, whose named groups become facts; torch's package-index
    defaults), the shipped matrices when None. :raises SnapshotError: when nothing in the text is an environment
    fact.
    """
    if len(text) > MAX_REPORT_CHARS:
        text = text[:MAX_REPORT_CHARS]
    stripped = text.lstrip()
    if stripped.startswith("{"):
        snapshot = _from_json(stripped, name)
        if snapshot is not None:
            return (ReadEnvironment(snapshot, (), ""),)
    lines = normalize_report(text)
    mats = matrices if matrices is not None else load_matrices()
    matched = _messages(lines, mats.errors)
    mentions: list[Mention] = []
    for extractor in (extract.fields, extract.packages, extract.tools, extract.messages_and_commands,
                      extract.prose, extract_builds.build_facts, extract_machine.machine_facts,
                      extract_machine.container_facts, libraries.library_facts, extract_stack.stack_packages,
                      *extract_python.EXTRACTORS,
                      companions.version_queries, companions.site_paths, companions.companion_prose,
                      companions.conda_companion_builds, companions.built_for_torch, extract_named.named_facts,
                      *extract_driver.EXTRACTORS,
                      *extract_conda_forge.EXTRACTORS, *extract_jetson.EXTRACTORS,
                      *extract_tables.EXTRACTORS):
        mentions.extend(extractor(lines, 0))
    for _index, _line, facts in matched:
        mentions.extend(facts)
    mentions = _without_restated(mentions, {(m.line, m.value) for _i, _l, facts in matched for m in facts})
    mentions = libraries.without_claimed(mentions)
    mentions = extract_python.refine(lines, mentions)
    mentions = extract_driver.derive(mentions, mats)
    parts = split_environments(len(lines), mentions, lines)
    out = []
    for env in parts:
        own = [m for m in mentions if env.holds(m.line)]
        if len(parts) > 1:
            # NOTE: the machine is usually the same in "works with A, fails with B": its facts stated elsewhere
            # in the report count here too, one tier weaker than this part's own.
            own += [replace(m, tier=m.tier - 1) for m in mentions
                    if m.kind in MACHINE_KINDS and not env.holds(m.line) and m.tier > PROSE]
            own += companions.carried(lines, mentions, env.holds)
        errors = [line for index, line, _facts in matched if env.holds(index + 1)][:MAX_ERROR_LINES]
        label = env.label(len(parts)) if len(parts) > 1 else ""
        snapshot, notes = assemble(own, errors, f"{name}, {label}" if label else name, mats)
        snapshot = libraries.attach(snapshot, own)
        out.append(ReadEnvironment(snapshot, tuple(notes), label))
    readable = [e for e in out if _has_facts(e.snapshot)]
    if not readable:
        raise SnapshotError(f"{name}: no environment facts found (expected collect_env output, a TensorFlow "
                            "issue template, nvidia-smi output, pip lines, versions named in the text, error "
                            "messages or an envguard snapshot)")
    if len(out) > 1:
        note = f"the report describes {len(out)} environments; each was read and judged on its own"
        readable = [ReadEnvironment(e.snapshot, (note, *e.notes), e.label) for e in readable]
    return tuple(readable)


def _without_restated(mentions: list[Mention], stated: set[tuple[int, str]]) -> list[Mention]:
    """A number a recognised message states is that message's fact, typed by its pattern; the same number read
    again from the same line as a sentence would type it a second time, often wrongly (XLA's "The NVIDIA driver's
    CUDA version is 11.7 which is older than the ptxas CUDA version" is the driver's CUDA, not a toolkit)."""
    return [m for m in mentions if m.tier != PROSE or (m.line, m.value) not in stated]


def _messages(lines: list[str], errors_matrix: ErrorsMatrix) -> list[tuple[int, str, list[Mention]]]:
    """(line index, text, facts) of every line the signature catalogue recognises — every line reaches it — and of
    messages a log or a paste wrapped onto the next line ("Loaded runtime CuDNN library: 7.3.1 but source was" /
    "compiled with: 7.4.2."), matched on the two lines joined when neither matches alone."""
    first: dict[str, int] = {}
    for i, line in enumerate(lines):
        text = line.strip()[:MAX_LINE_CHARS]
        if text:
            first.setdefault(text, i)
    joined: dict[str, int] = {}
    for i in range(len(lines) - 1):
        a, b = lines[i].strip(), lines[i + 1].strip()
        if a and b and not a.endswith((".", "!", "?", ")", "]")):
            joined.setdefault(f"{a} {b}"[:MAX_LINE_CHARS], i)
    out: list[tuple[int, str, list[Mention]]] = []
    alone: set[tuple[int, str]] = set()
    for texts, wrapped in ((first, False), (joined, True)):
        for text, index in texts.items():
            # NOTE: one text at a time, so each match keeps the index of the line it was found on.
            for found in errors_matrix.match([text]):
                sig = found.signature
                if wrapped and ((index, sig.id) in alone or (index + 1, sig.id) in alone):
                    continue
                if not wrapped:
                    alone.add((index, sig.id))
                facts = [*extract.from_signature(sig.id, sig.code, dict(found.groups), index + 1),
                         *libraries.from_signature(sig.id, dict(found.groups), index + 1)]
                out.append((index, found.line, facts))
    return sorted(out, key=lambda item: item[0])


def _from_json(text: str, name: str) -> Snapshot | None:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    if isinstance(data, dict) and "snapshot" in data and "envguard_result_version" in data:
        data = data["snapshot"]
    if not isinstance(data, dict) or "schema_version" not in data:
        return None
    try:
        snapshot = Snapshot.from_dict(data)
    except SnapshotError as exc:
        raise SnapshotError(f"{name}: {exc}") from exc
    # NOTE: an envguard snapshot pasted as a report is what a probe saw, said so, and judged as a probe.
    return replace(snapshot, origin=f"snapshot {name}, taken by {snapshot.origin}")


def _has_facts(snapshot: Snapshot) -> bool:
    return bool(
        snapshot.host.distro or snapshot.frameworks or snapshot.packages or snapshot.gpu_list()
        or snapshot.observed_errors or NGC_RELEASE_KEY in snapshot.environment
        or snapshot.toolkit_list() or not isinstance(snapshot.cudnn, Unavailable)
        or not isinstance(snapshot.driver, Unavailable) or not isinstance(snapshot.python, Unavailable)
        or not isinstance(snapshot.nccl, Unavailable)
        or snapshot.driver.code not in (None, NOT_REPORTED)
    )
