"""Held-out sets EA-ED (issue 14, stop 27): what their first contact taught, each on a real report's text (the public
source above each). One version written twice, once with more components ("Python 3.13" and "Python 3.13.7"), is one
version: the fuller one is kept and no contradiction is noted. A number a recognised message states is that message's
fact; the same number read again from the line as a sentence does not become a second, differently typed fact. A
framework a report names without its release says "version not reported", never "?"."""

from __future__ import annotations

from envguard.findings import Severity
from envguard.formatters import make_formatter
from envguard.knowledge import load_matrices
from envguard.reports import parse_environments
from envguard.rules import run_rules
from envguard.snapshot import CudaToolkit, PythonInfo
from tests.reports import findings, first_snapshot

# pytorch/pytorch#167895 (its Versions block is collect_env; the description states the Python without the patch)
WHEELS = """[wheels] Missing CUDA wheels for pytorch<2.6.0
System: Windows-11-10.0.22631-SP0
Python version: 3.13
Using pip 25.3
` pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124 --isolated --verbose`
ERROR: Could not find a version that satisfies the requirement torch==2.5.1 (from versions: 2.6.0+cu124)
### Versions
Python version: 3.13.7 (main, Sep 18 2025, 19:43:45) [MSC v.1944 64 bit (AMD64)] (64-bit runtime)
Python platform: Windows-11-10.0.22631-SP0
"""


def test_a_version_and_its_fuller_spelling_are_one_version() -> None:
    env = parse_environments(WHEELS, "t", load_matrices())[0]
    python = env.snapshot.python
    assert isinstance(python, PythonInfo) and python.version == "3.13.7"
    assert not any("contradictory python" in n for n in env.notes)


def test_a_real_disagreement_is_still_noted() -> None:
    env = parse_environments(WHEELS.replace("3.13.7", "3.12.7"), "t", load_matrices())[0]
    assert any("contradictory python" in n for n in env.notes)


# jax-ml/jax#18027 (XLA's warning quoted in the text: the driver's CUDA, not a toolkit)
XLA = """CUDA error when importing torch before creating any jax.numpy.array
will fail with `CUDA backend failed to initialize: Found cuDNN version 8500, but JAX was built against version 8600, \
which is newer. The copy of cuDNN that is installed must be at least as new as the version against which JAX was built.`
will work with only a mildly annoying warning `The NVIDIA driver's CUDA version is 11.7 which is older than the ptxas \
CUDA version (11.8.89). Because the driver is older than the ptxas version, XLA is disabling parallel compilation, \
which may slow down compilation.`
"""


def test_a_number_a_message_states_is_not_read_again_as_a_sentence() -> None:
    snapshot = first_snapshot(XLA)
    assert not isinstance(snapshot.cuda_toolkits, tuple) or not any(
        isinstance(t, CudaToolkit) and t.version == "11.7" for t in snapshot.cuda_toolkits)
    assert snapshot.driver is not None and getattr(snapshot.driver, "cuda_driver_version", None) == "11.7"
    assert any(f.code == "cudnn-mismatch" and f.severity is Severity.ERROR for f in findings(XLA))


def test_a_framework_named_without_its_release_says_so_in_words() -> None:
    m = load_matrices()
    env = parse_environments(XLA, "t", m)[0]
    report = run_rules(env.snapshot, m, notes=env.notes)
    text = make_formatter("text").format(report, command="check", exit_code=1)
    assert "version not reported (build unknown)" in text
    assert " ? (" not in text
