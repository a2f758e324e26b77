"""Held-out sets FJ-FN and FO-FS (issue 14, sixth and seventh waves): what they taught, on a real report's text (the
public source above it). A pip command's PyTorch index names the cuDNN major of the torch it installs when every
release built for that CUDA bundled one cuDNN major (torch.toml); a cuDNN 8 library failing beside it is a
cudnn-mismatch. What a sentence names before "instead of" is stated. PyO3's refusal of a Python newer than it supports
is an unsupported Python."""

from __future__ import annotations

from envguard.snapshot import PythonInfo, Unavailable
from tests.reports import error_codes, findings, first_snapshot

# m-bain/whisperX (2025): torch nightly cu129 on an RTX 5090, and a component built for cuDNN 8 (kept case 3181)
NIGHTLY = """I have not been able to successfully run WhisperX with a 5090. Stable Pytorch versions do not support \
CUDA compute capability sm_120, but if I install the nightly via

`pip3 install --pre torch torchvision --index-url https://download.pytorch.org/whl/nightly/cu129`

Then I get a `Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!` error at the \
beginning of the transcription.
"""


def test_a_torch_index_names_the_cudnn_major_its_builds_bundle() -> None:
    found = [f for f in findings(NIGHTLY) if f.code == "cudnn-mismatch"]
    assert len(found) == 1
    assert "cuDNN 9 in every torch cu129 build" in " ".join(e.value for e in found[0].evidence)
    assert "cuda-libs-missing" in error_codes(NIGHTLY)


def test_an_index_whose_releases_bundled_two_cudnn_majors_names_none() -> None:
    # cu121 wheels carried cuDNN 8.9 (torch 2.1-2.3) and cuDNN 9.1 (2.4, 2.5): the index alone does not tell
    cu121 = NIGHTLY.replace("nightly/cu129", "cu121")
    assert "cudnn-mismatch" not in error_codes(cu121)
    # a torch version said beside the index is the build judged, not the index: 2.3.1+cu121 bundles cuDNN 8.9
    said = NIGHTLY.replace("nightly/cu129", "cu124") + "torch 2.3.1+cu121\n"
    assert "cudnn-mismatch" in error_codes(NIGHTLY.replace("nightly/cu129", "cu124"))
    assert "cudnn-mismatch" not in error_codes(said)


# serengil/deepface#235 (kept case 3214): the package named before "instead of" is the one installed
INSTEAD = "To accelerate the inference. I installed tensorflow-gpu==2.5.0 instead of tensorflow. While the inference \
is still running on CPU, which is pretty slow.\n"


def test_what_comes_before_instead_of_is_stated() -> None:
    tf = first_snapshot(INSTEAD).framework("tensorflow")
    assert tf is not None and tf.version == "2.5.0"
    # what follows "instead of" is taken back, and a question states neither (constructed; kept case 2908's shape)
    assert first_snapshot("I use torch 2.0.1 instead of torch 2.1.0.\n").framework("torch").version == "2.0.1"  # type: ignore[union-attr]
    asked = "Can I use cudatoolkit==11.7.0 instead of cudatoolkit==11.1.1 ?\nmy GPU is an RTX 3090\n"
    assert isinstance(first_snapshot(asked).cuda_toolkits, Unavailable)


# huggingface/tokenizers#1657 (kept case 3255): PyO3's refusal names the Python pip built for
PYO3 = """- Operating system: macOS 15.0.1
error: the configured Python interpreter version (3.13) is newer than PyO3's maximum supported version (3.12)
"""


def test_pyo3_s_refusal_is_an_unsupported_python() -> None:
    assert "python-unsupported" in error_codes(PYO3)
    python = first_snapshot(PYO3).python
    assert isinstance(python, PythonInfo) and python.version.startswith("3.13")
