"""Error messages seen in a pasted report → findings (errors.toml), merged with fact-based findings."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from envguard.findings import Evidence, Finding, Severity
from envguard.matrix import Matrices
from envguard.snapshot import Snapshot

SUBJECT = "reported message"


class SignatureRule:
    """Each catalogued error message in the report is evidence of its finding code."""

    id = "signatures"
    summary = "error messages in a pasted report, matched against the signature catalogue"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """One finding per signature seen (the first line that shows it)."""
        if not snapshot.observed_errors:
            return
        seen: set[str] = set()
        for match in matrices.errors.match(snapshot.observed_errors):
            sig = match.signature
            if sig.id in seen:
                continue
            seen.add(sig.id)
            line = match.line if len(match.line) <= 160 else match.line[:157] + "..."
            yield Finding(
                sig.code, Severity.parse(sig.severity),
                f"The report shows \"{line}\": {sig.cause}",
                (Evidence(SUBJECT, line, f"{snapshot.origin}, errors.toml {sig.id}"),),
                sig.check, sig.prov.source, SUBJECT,
            )


def merge_corroborated(findings: list[Finding]) -> list[Finding]:
    """A message that confirms a fact-based finding becomes evidence of it, not a second finding."""
    facts = [f for f in findings if f.subject != SUBJECT]
    out = list(facts)
    for finding in (f for f in findings if f.subject == SUBJECT):
        twin = next((i for i, f in enumerate(out) if f.code == finding.code and f.subject != SUBJECT), None)
        if twin is None:
            out.append(finding)
        else:
            out[twin] = dataclasses.replace(out[twin], evidence=out[twin].evidence + finding.evidence)
    return out
