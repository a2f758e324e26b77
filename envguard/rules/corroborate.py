"""Findings from reported messages merged with fact-based findings (imported by every check; the signature rule,
which needs the error catalogue, only when a report shows error lines)."""

from __future__ import annotations

import dataclasses

from envguard.findings import Finding

#: The subject of a finding that a reported message alone gives.
SUBJECT = "reported message"


def merge_corroborated(findings: list[Finding]) -> list[Finding]:
    """A message that confirms a fact-based finding becomes evidence of it, not a second finding."""
    out = [f for f in findings if f.subject != SUBJECT]
    for finding in (f for f in findings if f.subject == SUBJECT):
        if any(f.subject != SUBJECT and finding.evidence[0] in f.evidence for f in out):
            continue  # a fact-based finding that cites this very message explains it (whatever its code)
        # A fact-based finding of the same code absorbs the message; so does an earlier message of that code.
        twin = next((i for i, f in enumerate(out) if f.code == finding.code and f.subject != SUBJECT),
                    next((i for i, f in enumerate(out) if f.code == finding.code), None))
        if twin is None:
            out.append(finding)
        else:
            # NOTE: two messages of one code are one finding with the stronger severity ("Found GPU0 ... capability
            # 2.1" is a warning, "PyTorch no longer supports this GPU because it is too old" on the next line an
            # error; a JAX plugin's warning line and the traceback frame that shows why): the order of the lines
            # must not decide it.
            host = out[twin]
            if host.subject == SUBJECT and finding.severity > host.severity:
                host = dataclasses.replace(finding, evidence=host.evidence)
            elif finding.severity > host.severity:
                # NOTE: a message that settles more than the facts do (TensorFlow's no-SASS warning, then a kernel
                # that failed to load: an error; the facts alone give the PTX-JIT warning) leads, the facts back it.
                out[twin] = dataclasses.replace(finding, evidence=finding.evidence + host.evidence)
                continue
            out[twin] = dataclasses.replace(host, evidence=host.evidence + finding.evidence)
    return out
