"""torch's companions in pasted reports (envguard/reports/companions.py and the companion signatures), on real text
from the corpus (tests/data/reports, each case's thread in its case.json) and from the threads cited in the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from envguard.findings import Severity
from envguard.knowledge import Matrices, load_matrices
from envguard.reports import companions, parse_environments
from envguard.reports.mentions import PROSE, TOOL
from envguard.rules import run_rules

REPORTS = Path(__file__).parent / "data" / "reports"


@pytest.fixture(scope="module")
def matrices() -> Matrices:
    return load_matrices()


def errors(text: str, matrices: Matrices) -> list[list[tuple[str, str]]]:
    """(code, message) of every error finding, per environment the text describes."""
    return [[(f.code, f.message) for f in run_rules(env.snapshot, matrices, notes=env.notes).findings
             if f.severity is Severity.ERROR] for env in parse_environments(text, "t", matrices)]


def builds(text: str, matrices: Matrices) -> list[dict[str, tuple[str, str | None, str | None]]]:
    return [{b.name: (b.version, b.accelerator, b.cuda) for b in env.snapshot.frameworks}
            for env in parse_environments(text, "t", matrices)]


# ---- version queries ---------------------------------------------------------------------------------------

def test_print_version_queries_pair_with_their_output_in_order() -> None:
    text = (REPORTS / "117-colab-pip-torch212-over-torchvision0181" / "env.txt").read_text(encoding="utf-8")
    found = list(companions.version_queries(text.splitlines(), 0))
    assert [(m.key, m.value, m.line) for m in found] == [
        ("torch", "2.3.1+cu121", 18), ("torchvision", "0.18.1+cu121", 19), ("torch", "2.1.2+cu121", 35)]
    assert {m.tier for m in found} == {TOOL}
    assert found[0].source == "report line 18: output of print(torch.__version__)"


def test_another_print_holds_its_place_and_the_repl_shows_quoted_versions() -> None:
    # the order of print statements decides which output line is whose
    lines = ["print(torch.version.cuda)", "print(torch.__version__)", "```", "12.1", "2.1.0"]
    assert [(m.key, m.value) for m in companions.version_queries(lines, 0)] == [("torch", "2.1.0")]
    # 250-macos-py370-tf112-no-wheel-compiletime-36 (an import prints nothing)
    lines = [">>> import tensorflow", ">>> tensorflow.__version__", "'1.12.0'"]
    assert [(m.key, m.value) for m in companions.version_queries(lines, 0)] == [("tensorflow", "1.12.0")]
    # 123-win11-py313t-freethreaded-torch260-cpu (python -c)
    lines = ['PS D:\\Python\\StockEmulateAI> python -c "import torch; print(torch.__version__)"', "2.6.0+cpu"]
    assert [(m.key, m.value) for m in companions.version_queries(lines, 0)] == [("torch", "2.6.0+cpu")]
    # an f-string answers its own print, not the next one
    lines = ['print(f"torch {torch.__version__}")', "print(torchvision.__version__)", "torch 2.1.0", "0.16.0"]
    assert [(m.key, m.value) for m in companions.version_queries(lines, 0)] == [("torchvision", "0.16.0")]


def test_a_version_far_below_a_query_is_not_its_output() -> None:
    lines = ["print(torch.__version__)", *(["some text"] * 12), "2.1.0"]
    assert list(companions.version_queries(lines, 0)) == []


# ---- interpreter paths ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "system"), [
    # 119 (pip show Location)
    ("Location: /opt/ttforge-toolchain/venv/lib/python3.10/site-packages", "linux"),
    # 156
    ("    ImportError: /usr/local/lib/python3.5/dist-packages/_torch_sox.cpython-35m-x86_64-linux-gnu.so: undefined",
     "linux"),
    # towhee-io/towhee#2575
    ("/Users/zilliz/virtual-environment/towhee/lib/python3.10/site-packages/torchvision/io/image.py:13: UserWarning:",
     "darwin"),
    # pytorch/pytorch#65473 (Windows)
    ('  File "C:\\Users\\circleci\\project\\env\\lib\\site-packages\\torch\\_ops.py", line 501, in __getattr__',
     "win32"),
    # 153: a conda env under the home directory ("~" does not tell Linux from macOS)
    ("`OSError: ~/miniconda3/envs/wan2gp/lib/python3.11/site-packages/torchaudio/lib/libtorchaudio.abi3.so:", "posix"),
])
def test_interpreter_paths_show_the_system(line: str, system: str) -> None:
    assert [m.value for m in companions.site_paths([line], 0)] == [system]


def test_a_posix_path_is_linux_only_next_to_a_torch_build_suffix() -> None:
    assert companions.path_system("posix", ["2.7.0+cpu"]) == "linux"
    assert companions.path_system("posix", ["2.7.0"]) is None
    assert companions.path_system("win32", []) == "win32"


# ---- prose ----------------------------------------------------------------------------------------------------

def test_companion_versions_in_prose_but_not_in_hedges() -> None:
    # 153
    line = ("On Ubuntu 24.04, this results in torchaudio 2.11.x being installed, which appears to be incompatible "
            "with torch 2.10.0.")
    found = list(companions.companion_prose([line], 0))
    assert [(m.key, m.value, m.tier) for m in found] == [("torchaudio", "2.11", PROSE)]
    # pytorch/vision#1257: a statement about what a release requires, not the user's install
    assert list(companions.companion_prose(["torchvision 0.4.0 requires torch 1.2.0, not 1.1.0."], 0)) == []


# ---- an in-place torch install leaves the companions behind ----------------------------------------------

def test_pip_install_of_torch_alone_keeps_the_earlier_companion(matrices: Matrices) -> None:
    text = (REPORTS / "117-colab-pip-torch212-over-torchvision0181" / "env.txt").read_text(encoding="utf-8")
    found = errors(text, matrices)
    assert found[0] == []  # the working Colab pair
    assert [code for code, _ in found[1]] == ["companion-mismatch"]
    assert "torchvision 0.18.1+cu121 does not belong to torch 2.1" in found[1][0][1]
    env = parse_environments(text, "t", matrices)[1]
    tv = env.snapshot.framework("torchvision")
    assert tv is not None and "left in place by `!pip install torch==\"2.1.2\"`" in tv.source


def test_an_install_that_names_the_companion_carries_nothing(matrices: Matrices) -> None:
    text = (REPORTS / "117-colab-pip-torch212-over-torchvision0181" / "env.txt").read_text(encoding="utf-8")
    text = text.replace('!pip install torch=="2.1.2"', '!pip install torch=="2.1.2" torchvision=="0.16.2"')
    envs = parse_environments(text, "t", matrices)
    assert envs[1].snapshot.framework("torchvision") is None
    assert errors(text, matrices)[1] == []


# ---- the build of a plain package-index companion wheel -----------------------------------------------------

def test_a_plain_torchvision_next_to_a_cpu_torch_on_linux_is_the_cuda_wheel(matrices: Matrices) -> None:
    text = (REPORTS / "119-tt-forge-torch270-cpu-torchvision0220-pip-show" / "env.txt").read_text(encoding="utf-8")
    assert builds(text, matrices) == [{"torch": ("2.7.0+cpu", "cpu", None),
                                       "torchvision": ("0.22.0", "cuda", "12.6")}]
    [[(code, message)]] = errors(text, matrices)
    assert code == "companion-mismatch" and "(12.6 vs cpu)" in message
    tv = parse_environments(text, "t", matrices)[0].snapshot.framework("torchvision")
    assert tv is not None and "package metadata: torchvision 0.22.0" in tv.source


def test_a_plain_torchvision_on_windows_is_the_cpu_wheel(matrices: Matrices) -> None:
    # PozzettiAndrea/ComfyUI-SAM3#59 (pip list rows), with a Windows interpreter path as ComfyUI prints it
    text = "\n".join([
        "pytorch version: 2.9.1+cu128",
        "torchaudio                             2.9.1",
        "torchvision                            0.24.1",
        'File "C:\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\torch\\_ops.py", line 1158',
    ])
    assert builds(text, matrices)[0]["torchvision"] == ("0.24.1", "cpu", None)
    assert [code for code, _ in errors(text, matrices)[0]] == ["companion-mismatch"]
    # without anything that tells the platform, the plain wheel's build is unknown: nothing is judged
    assert errors("\n".join(text.splitlines()[:3]), matrices) == [[]]


def test_nothing_is_inferred_without_a_torch_suffix_or_within_one_cuda_major(matrices: Matrices) -> None:
    # 027-neg-tf32-rtx3090-cu111-toolkit112: pip lists conda's packages unsuffixed
    text = "\n".join(["PyTorch version: 1.8.0", "CUDA used to build PyTorch: 11.1", "OS: Ubuntu 20.04.1 LTS",
                      "[pip3] torch==1.8.0", "[pip3] torchvision==0.9.0"])
    assert errors(text, matrices) == [[]]
    # a cu121 torch with the package-index torchvision of its release (cu124): torchvision accepts one CUDA major
    text = "\n".join(["OS: Ubuntu 22.04.4 LTS", "torch                    2.5.1+cu121",
                      "torchvision              0.20.1"])
    assert builds(text, matrices)[0]["torchvision"] == ("0.20.1", "cuda", "12.4")
    assert errors(text, matrices) == [[]]


def test_conda_build_strings_give_the_companion_variant(matrices: Matrices) -> None:
    lines = ["[conda] torchvision               0.4.1                py37_cu101    pytorch",  # corpus
             "torchvision               0.15.2          cuda118py39h196c800_0  "]  # verm/freebsd-stable-diffusion#7
    found = list(companions.conda_companion_builds(lines, 0))
    assert [(m.kind, m.value) for m in found] == [("torchvision_build", "10.1"), ("torchvision_build", "11.8")]
    text = "\n".join(["pytorch                   2.0.1           py3.10_cuda11.8_cudnn8.7.0_0    pytorch",
                      "torchvision               0.15.2          cuda118py39h196c800_0  "])
    assert builds(text, matrices)[0]["torchvision"] == ("0.15.2", "cuda", "11.8")
    assert errors(text, matrices) == [[]]


# ---- signatures in whole reports ---------------------------------------------------------------------------

@pytest.mark.parametrize("case", [
    "153-cu130-index-torch2100-pulls-torchaudio211", "154-dockerfile-torch260-cu124-unpinned-torchaudio",
    "155-kaggle-image-torch16-before-torchaudio-release", "156-torchaudio-sox-undefined-symbol-old-torch",
    "209-jax0435-newer-cuda12-plugin-attributeerror", "230-comfyui-torchvision-nms-cuda-backend-missing",
])
def test_companion_messages_are_errors(case: str, matrices: Matrices) -> None:
    text = (REPORTS / case / "env.txt").read_text(encoding="utf-8")
    assert any(code == "companion-mismatch" for env in errors(text, matrices) for code, _ in env)


def test_the_plugin_frame_outranks_the_warning_before_it(matrices: Matrices) -> None:
    # google-deepmind/torax#1369: JAX's warning line first, then the plugin frame that shows why
    text = "\n".join([
        "ERROR:2025-07-17 16:01:55,259:jax._src.xla_bridge:647: Jax plugin configuration error: Exception when "
        "calling jax_plugins.xla_cuda12.initialize()",
        "Traceback (most recent call last):",
        '  File "/home/karel/venvs/toraxvenv/lib/python3.13/site-packages/jax/_src/xla_bridge.py", line 645, in '
        "discover_pjrt_plugins",
        "    plugin_module.initialize()",
        '  File "/home/karel/venvs/toraxvenv/lib/python3.13/site-packages/jax_plugins/xla_cuda12/__init__.py", line '
        "103, in initialize",
        "    triton.register_compilation_handler(",
        "AttributeError: module 'jax._src.lib.triton' has no attribute 'register_compilation_handler'",
    ])
    [found] = errors(text, matrices)
    assert [code for code, _ in found] == ["companion-mismatch"]
    assert "jax_plugins/xla_cuda12/__init__.py" in found[0][1]


def test_the_plugin_failing_its_own_cuda_check_is_only_a_warning(matrices: Matrices) -> None:
    # epaillas/acm#152: a CPU node
    text = "\n".join([
        "ERROR:2026-01-30 07:41:46,407:jax._src.xla_bridge:477: Jax plugin configuration error: Exception when "
        "calling jax_plugins.xla_cuda12.initialize()",
        '  File "/global/common/software/desi/conda/lib/python3.12/site-packages/jax_plugins/xla_cuda12/__init__.py",'
        " line 328, in initialize",
        "    _check_cuda_versions(raise_on_first_error=True)",
    ])
    assert [code for env in errors(text, matrices) for code, _ in env if code == "companion-mismatch"] == []


def test_an_upgrade_of_torch_alone_keeps_the_earlier_companion(matrices: Matrices) -> None:
    text = (REPORTS / "117-colab-pip-torch212-over-torchvision0181" / "env.txt").read_text(encoding="utf-8")
    text = text.replace('!pip install torch=="2.1.2"', "!pip install -U torch")
    assert [code for code, _ in errors(text, matrices)[1]] == ["companion-mismatch"]


def test_text_pasted_right_after_a_fence_is_read() -> None:
    from envguard.reports.segment import normalize_report

    # 209-jax0435-newer-cuda12-plugin-attributeerror (jax-ml/jax#26750)
    lines = normalize_report("```Jax plugin configuration error: Exception when calling "
                             "jax_plugins.xla_cuda12.initialize()\n```bash\n```\n")
    assert lines == ["Jax plugin configuration error: Exception when calling jax_plugins.xla_cuda12.initialize()",
                     "", "", ""]


def test_torchvision_before_0_16_also_refuses_another_cuda_minor(matrices: Matrices) -> None:
    # the refusal of geocine/sd-easy-mode#18 ("PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8"),
    # here a cu118 torch 2.0.1 with the package-index torchvision 0.15.2 (the cu117 build)
    text = "\n".join(["OS: Ubuntu 22.04.2 LTS", "torch                    2.0.1+cu118",
                      "torchvision              0.15.2"])
    assert builds(text, matrices)[0]["torchvision"] == ("0.15.2", "cuda", "11.7")
    assert [code for code, _ in errors(text, matrices)[0]] == ["companion-mismatch"]


def test_a_full_toolkit_version_is_the_same_cuda_as_its_release(matrices: Matrices) -> None:
    # 159-conda-pytorch130-cuda101-t4-driver410104: collect_env prints 10.1.243, the conda build string cu101
    text = "\n".join([
        "PyTorch version: 1.3.0", "CUDA used to build PyTorch: 10.1.243",
        "[conda] pytorch                   1.3.0           py3.7_cuda10.1.243_cudnn7.6.3_0    pytorch",
        "[conda] torchvision               0.4.1                py37_cu101    pytorch",
    ])
    assert builds(text, matrices)[0]["torchvision"] == ("0.4.1", "cuda", "10.1")
    assert [code for env in errors(text, matrices) for code, _ in env if code == "companion-mismatch"] == []
