"""A reporter saying the program called the NVIDIA driver too old, read with the build's CUDA beside it.

People often paraphrase torch's "The NVIDIA driver on your system is too old" or CUDA's "driver version is
insufficient" instead of pasting it: "the msg is that my Nvidia version is too old" (pytorch/pytorch#28195), "I
get an error about my NVIDIA driver being too old" (lllyasviel/Fooocus#2391), "it claims that my dirver is too old
for CUDA" (MouseLand/Kilosort#241), "提示NVIDIA驱动太老" (zai-org/ChatGLM3#100). The catalogue reads those lines as a
warning (errors.toml driver-too-old-said). The paraphrase is an error only when the facts make it one:

- it is a statement, not a question or a hedge ("does it say my driver is too old?", "if it says the driver is
  outdated", "it doesn't say the driver is too old");
- the report names no driver version (a named driver is judged against the floor by rules.driver, and a driver
  that meets the floor contradicts the paraphrase: Fooocus#2391's 550 was not the cause);
- a framework build of the same environment targets a CUDA whose driver floor is known (cuda-driver.toml), which
  the driver then is below: torch 1.2.0 built with CUDA 10.0 needs >= 410.48.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envguard.findings import Evidence, Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import build_evidence, cuda_builds, ev, system_of
from envguard.rules.corroborate import SUBJECT
from envguard.rules.driver import meets
from envguard.sentences import sentence_span
from envguard.snapshot import NOT_REPORTED, DriverInfo, Snapshot

SIGNATURES = frozenset({"driver-too-old-said", "driver-too-old-said-zh", "driver-too-old-said-cause"})
SOURCE = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html (Table 3)"

#: The CUDA a statement names: "CUDA 13 based operations", "CUDA 12.4".
_CUDA_NAMED = re.compile(r"\bCUDA\s{0,2}(\d{1,2}(?:\.\d)?)\b", re.IGNORECASE)
#: Words before the statement that take it back: a condition, a doubt, a negation.
_HEDGE = re.compile(r"\b(?:if|whether|maybe|perhaps|might|may|could|would|should|probably|not|no|never|"
                    r"doesn't|don't|didn't|isn't|wasn't)\b|n't\b|是否|如果|会不会|是不是|不是|没有|可能", re.IGNORECASE)
#: Where a clause starts inside a sentence.
_CLAUSE_START = re.compile(r"[,，、:：]")
#: A sentence that asks: it opens with an auxiliary or a question word and ends with a question mark.
_QUESTION_OPEN = re.compile(r"^\W{0,4}(?:is|are|was|were|do|does|did|can|could|will|would|should|why|what|how)\b",
                            re.IGNORECASE)


def stated(line: str, start: int, end: int) -> bool:
    """Whether the match ``line[start:end]`` is stated as a fact: its sentence does not hedge before it, and its clause
    does not ask (open with an auxiliary or a question word and end with a question mark)."""
    first, last = sentence_span(line, start)
    opening = line[first:start]
    if _HEDGE.search(opening[-160:]):
        return False
    rest = line[end:last]
    if len(rest) > 200 or not rest.endswith(("?", "？")):
        return True
    clause = _CLAUSE_START.split(opening)[-1]  # "..., does it say my driver is too old?" asks in its own clause
    return not (_QUESTION_OPEN.search(clause) or rest[:-1].rstrip().endswith(("吗", "么")))


class SaidTooOldRule:
    """A stated "driver too old" paraphrase, no driver version, and a CUDA build with a known floor: an error."""

    id = "driver-said-too-old"
    summary = "a reporter's 'the driver is too old' with a CUDA build whose driver floor is known"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """One driver-too-old finding for the first CUDA build with a known floor."""
        driver = snapshot.driver
        if not snapshot.from_report:
            return
        if isinstance(driver, DriverInfo):
            yield from self._with_driver(snapshot, driver, matrices)
            return
        if driver.code != NOT_REPORTED:
            return
        said = None
        for match in matrices.errors.match(snapshot.observed_errors):
            if match.signature.id not in SIGNATURES:
                continue
            found = match.signature.pattern.search(match.line)
            if found is not None and stated(match.line, found.start(), found.end()):
                said = match
                break
        if said is None:
            return
        # NOTE: imported here: the catalogue rules load only for reports with error lines.
        from envguard.rules.signatures import _excerpt

        message = Evidence(SUBJECT, _excerpt(said), f"{snapshot.origin}, errors.toml {said.signature.id}")
        system = system_of(snapshot)
        for build in cuda_builds(snapshot):
            floor = matrices.cuda_driver.floor(build.cuda or "", system)
            if floor is None:
                continue
            yield Finding(
                "driver-too-old", Severity.ERROR,
                f"The report says the program called the NVIDIA driver too old, and {build.name} {build.version} "
                f"was built with CUDA {build.cuda}, which needs driver >= {floor.min_driver} ({floor.rule}): the "
                "driver (its version is not in the report) is older than that.",
                (message, ev("driver", "version not reported", snapshot.origin), build_evidence(build, snapshot),
                 ev("required driver", f">= {floor.min_driver} ({floor.rule})", "cuda-driver.toml")),
                f"upgrade the NVIDIA driver to {floor.min_driver} or newer (nvidia-smi shows the installed one); or "
                f"install a {build.name} build for a CUDA the installed driver supports",
                floor.prov.source or SOURCE, build.name,
            )
            return

    @staticmethod
    def _with_driver(snapshot: Snapshot, driver: DriverInfo, matrices: Matrices) -> Iterator[Finding]:
        """The statement names a CUDA ("CUDA 13 based operations fail due insufficient driver version") and the report
        gives the driver: an error when the driver is older than that CUDA's floor (cuda-driver.toml; a bare major
        is its .0 release, whose floor minor-version compatibility extends to the whole major)."""
        if not driver.version:
            return
        for match in matrices.errors.match(snapshot.observed_errors):
            found = match.signature.pattern.search(match.line) if match.signature.id in SIGNATURES else None
            if found is None or not stated(match.line, found.start(), found.end()):
                continue
            named = _CUDA_NAMED.search(match.line)
            if named is None:
                continue
            cuda = named.group(1) if "." in named.group(1) else f"{named.group(1)}.0"
            floor = matrices.cuda_driver.floor(cuda, system_of(snapshot))
            if floor is None or meets(driver.version, floor.min_driver):
                continue
            from envguard.rules.signatures import _excerpt

            yield Finding(
                "driver-too-old", Severity.ERROR,
                f"The report says the driver is too old for CUDA {named.group(1)}, and it is: driver "
                f"{driver.version} is older than the {floor.min_driver} that CUDA {cuda} needs ({floor.rule}).",
                (Evidence(SUBJECT, _excerpt(match), f"{snapshot.origin}, errors.toml {match.signature.id}"),
                 ev("driver", driver.version, driver.source),
                 ev("required driver", f">= {floor.min_driver} ({floor.rule})", "cuda-driver.toml")),
                f"upgrade the NVIDIA driver to {floor.min_driver} or newer, or use a build for a CUDA the installed "
                "driver supports (nvidia-smi shows its newest)",
                floor.prov.source or SOURCE, "driver",
            )
            return
