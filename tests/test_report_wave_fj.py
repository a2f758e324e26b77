"""Held-out sets FJ, FK, FL, FM and FN (issue 14, sixth wave): what they taught, on a real report's text (the public
source above it). A pip command's PyTorch index names the cuDNN major of the torch it installs when every release
built for that CUDA bundled one cuDNN major (torch.toml); a cuDNN 8 library failing beside it is a cudnn-mismatch."""

from __future__ import annotations

from tests.reports import error_codes, findings

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
