"""The interpreter, install commands and bare driver numbers in pasted reports (reports.extract_python), and the
rules that judge what pip said and free-threaded interpreters (rules.installs). Real lines from the corpus
(tests/data/reports, each case's source thread in its case.json) or from the public threads named above them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from envguard.errors import MatrixSchemaError
from envguard.knowledge import Matrices, load_matrices
from envguard.reports import extract_python, parse_environments
from envguard.reports.mentions import FIELD, MESSAGE, PROSE, TOOL, Mention
from envguard.reports.segment import normalize_report
from envguard.rules.installs import _implied_pythons
from tests.reports import error_messages as errors

SHIPPED = Path(__file__).parent.parent / "matrices"


@pytest.fixture(scope="module")
def matrices() -> Matrices:
    return load_matrices()


def facts(mentions: list[Mention]) -> set[tuple[str, str, str, int]]:
    return {(m.kind, m.key, m.value, m.tier) for m in mentions}




def test_interpreter_commands_paths_and_free_threading_markers() -> None:
    lines = [
        "* Python Build Flags: ``--disable-gil``",  # 123 (pytorch/pytorch#151584)
        "PS D:\\Python\\StockEmulateAI> python3.13t .\\main.py",  # 123
        '  File "C:\\Users\\Bogdan\\AppData\\Local\\Programs\\Python\\Python313\\Lib\\site-packages\\torch\\'
        '__init__.py", line 990, in <module>',  # 123
        "ImportError: /usr/local/lib/python3.10/dist-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: "
        "undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",  # errors.toml example
        "  - python=3.8",  # a conda environment file
        "veesion@earth2:~$ python3.8 -m pip install torch-1.4.0-cp38-cp38-linux_x86_64.whl --user",  # pytorch#29090
    ]
    got = facts(list(extract_python.interpreter(lines, 0)))
    assert ("python_free_threaded", "", "free-threaded", MESSAGE) in got
    assert {("python", "", "3.13", MESSAGE), ("python", "", "3.10", MESSAGE), ("python", "", "3.8", FIELD),
            ("python", "", "3.8", MESSAGE)} <= got
    # a Python named in a sentence is prose's business, not a command
    assert list(extract_python.interpreter(["I tried python3.8 and it failed"], 0)) == []


def test_no_wheels_for_a_python_is_its_own_kind() -> None:
    # 124 (pytorch/pytorch#92826)
    found = list(extract_python.interpreter(["Wheel binaries are not available for Python 3.11 Windows x86-64"], 0))
    assert facts(found) == {("python_no_wheel", "", "3.11", PROSE)}
    assert facts(list(extract_python.interpreter(["There are no wheels for Python 3.12 yet."], 0))) == {
        ("python_no_wheel", "", "3.12", PROSE)}


def test_printed_versions_only_where_the_next_line_answers_one_call() -> None:
    # 123: python -c ... print(torch.__version__) answered on the next line
    lines = ['PS D:\\Python\\StockEmulateAI> python -c "import torch; print(torch.__version__)"', "2.6.0+cpu"]
    assert facts(list(extract_python.printed_versions(lines, 0))) == {("package", "torch", "2.6.0+cpu", TOOL)}
    # 250 (tensorflow/tensorflow#20444): the REPL, its prompt removed by the quote stripping
    lines = normalize_report(">>> tensorflow.__version__\n'1.12.0'\n")
    assert facts(list(extract_python.printed_versions(lines, 0))) == {("package", "tensorflow", "1.12.0", TOOL)}
    # 117 (axolotl-ai-cloud/axolotl#1784): a script's prints are answered later, in order: nothing is read
    lines = normalize_report("print(torch.__version__)\nimport torchvision\nprint(torchvision.__version__)\n```\n"
                             "```bash\n2.1.2+cu121\n")
    assert list(extract_python.printed_versions(lines, 0)) == []
    lines = ["print(torch.__version__)", "print(torchvision.__version__)", "2.3.1+cu121", "0.18.1+cu121"]
    assert list(extract_python.printed_versions(lines, 0)) == []


def test_bare_driver_line_and_torch_template_versions() -> None:
    # 301 (pytorch/pytorch#31243): the reporter's answer to "what driver?"
    got = list(extract_python.bare_driver(["@peterjc123", "410.48,,", "need higher ??"], 0))
    assert facts(got) == {("driver", "", "410.48", PROSE)} and got[0].line == 2
    assert list(extract_python.bare_driver(["123.45", "0.18", "2.1.0"], 0)) == []
    # 124: the PyTorch bug template's Versions section holding only the release
    lines = ["### 🐛 Describe the bug", "", "Wheel binaries are not available", "", "### Versions", "", "1.13.1"]
    assert facts(list(extract_python.torch_template(lines, 0))) == {("torch", "", "1.13.1", FIELD)}
    assert list(extract_python.torch_template(lines[4:], 0)) == []  # no PyTorch template: not torch's version
    assert list(extract_python.torch_template([*lines[:6], "python 3.10, torch 2.1"], 0)) == []


def test_plain_torch_installs() -> None:
    # 301: === picks the unlabelled file even on the find-links page
    line = "$ pip install torch===1.3.0 torchvision===0.4.1 -f https://download.pytorch.org/whl/torch_stable.html"
    assert facts(list(extract_python.plain_torch_installs([line], 0))) == {
        ("torch_default_install", "", "1.3.0", MESSAGE)}
    # pytorch/pytorch#85332: a local label, and == on a find-links page (pip prefers a labelled file): not plain
    assert list(extract_python.plain_torch_installs([
        "install : pip install torch==1.8.1+cu102 torchvision==0.9.1+cu102 -f https://download.pytorch.org/whl/"
        "torch_stable.html", "pip install torch==1.8.1 -f https://download.pytorch.org/whl/torch_stable.html",
        "pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu118"], 0)) == []
    assert facts(list(extract_python.plain_torch_installs(["pip install torch==2.1.0 torchvision"], 0))) == {
        ("torch_default_install", "", "2.1.0", MESSAGE)}


def test_a_rejected_wheel_does_not_state_the_interpreter(matrices: Matrices) -> None:
    # 218 (Qengineering/TensorFlow-JetsonNano#2): the cp36 tag is the one the interpreter lacks
    text = ("My Jetpack = 4.5.1\n\npip3 install ~/tensorflow-2.3.1-cp36-cp36m-linux_aarch64.whl\n\n"
            "ERROR: tensorflow-2.3.1-cp36-cp36m-linux_aarch64.whl is not a supported wheel on this platform.\n")
    env = parse_environments(text, "t", matrices)[0]
    assert env.snapshot.python.code == "not-reported"  # type: ignore[union-attr]
    found = errors(text, matrices)["python-unsupported"]
    assert any("linux_aarch64 fits this machine" in m and "cp36" in m for m in found)
    # tensorflow/tensorflow#17873: cp35 on a 64-bit Python 3.6 on Windows 10
    text = ("tensorflow-1.0.0-cp35-cp35m-win_amd64.whl is not a supported wheel on this platform.\n\n"
            "I am running python3.6 64 bit on windows 10\n")
    assert any("Python 3.6" in m for m in errors(text, matrices)["python-unsupported"])


def test_a_rejected_wheel_for_the_same_python_or_another_platform_is_not_a_python_error(
        matrices: Matrices) -> None:
    # constructed from 218: an x86_64 wheel on the Jetson is the platform's problem, not Python's
    text = ("My Jetpack = 4.5.1\nERROR: tensorflow-2.3.1-cp36-cp36m-linux_x86_64.whl is not a supported wheel on "
            "this platform.\n")
    assert "python-unsupported" not in errors(text, matrices)
    # tensorflow/tensorflow#1167: a py3 wheel names no CPython minor
    text = ("Operating System: Ubuntu 15.10\ntensorflow-0.7.0-py3-none-linux_x86_64.whl is not a supported wheel on "
            "this platform.\n")
    assert "python-unsupported" not in errors(text, matrices)


def test_pinned_release_not_offered(matrices: Matrices) -> None:
    # 221 (tensorflow/tensorflow#115652): the offered releases imply Python 3.12
    offered = ("2.16.0rc0, 2.16.1, 2.16.2, 2.17.0rc0, 2.17.0rc1, 2.17.0, 2.17.1, 2.18.0rc0, 2.18.0rc1, 2.18.0rc2, "
               "2.18.0, 2.18.1, 2.19.0rc0, 2.19.0, 2.19.1, 2.20.0rc0, 2.20.0, 2.21.0rc0, 2.21.0rc1, 2.21.0")
    assert _implied_pythons(offered.split(", "), matrices.tensorflow.releases) == ["3.12"]
    text = (f"ERROR: Could not find a version that satisfies the requirement tensorflow==2.13.0 (from versions: "
            f"{offered})\nERROR: No matching distribution found for tensorflow==2.13.0\nTF Version: 2.19.0\nReady!\n")
    assert any("only Python 3.12" in m for m in errors(text, matrices)["python-unsupported"])
    # the pinned release supports every Python the list allows: nothing to say (constructed: 2.16 pinned)
    assert "python-unsupported" not in errors(text.replace("2.13.0", "2.16.0"), matrices)
    # a list cut short (wrapped, or the paste ended): its oldest release still says which Pythons pip offers for;
    # the releases after the cut only narrow that set, so reading the cut list can only say less, never more
    cut = ("ERROR: Could not find a version that satisfies the requirement tensorflow==2.12.0 (from versions: 1.13.1,"
           " 1.13.2, 1.14.0, 1.15.0, 2.0.0, 2.1.0, ")
    assert any("only Python 3.7" in m for m in errors(cut, matrices)["python-unsupported"])
    # Deep-Live-Cam (2024, Windows): torch 2.0.1+cu118 pinned, pip offering from 2.2.0 (the first torch with cp312
    # wheels, published as experimental): Python 3.12
    torch_cut = ("ERROR: Could not find a version that satisfies the requirement torch==2.0.1+cu118 (from versions: "
                 "2.2.0, 2.2.0+cu118, 2.2.1, 2.2.1+cu118, 2.2.2, 2.2.2+cu118, 2.3.0, 2.3.0+cu118, 2.3.1, 2.")
    assert any("only Python 3.12" in m for m in errors(torch_cut, matrices)["python-unsupported"])
    # a quoted message that goes on in prose is no list
    prose = ('the error is "ERROR: Could not find a version that satisfies the requirement torch==2.0.1 (from '
             'versions: 2.2.0, 2.2.1, etc" after pip install')
    assert "python-unsupported" not in errors(prose, matrices)


def test_free_threaded_python_and_torch_wheels(matrices: Matrices) -> None:
    # 123 (pytorch/pytorch#151584): torch 2.6 published cp313t wheels for Linux x86_64 only
    text = ("* OS: Windows 11\n* Python Build Flags: ``--disable-gil``\n* PyTorch Version: 2.6.0+cpu\n"
            "PS D:\\Python\\StockEmulateAI> python3.13t .\\main.py\n")
    assert any("free-threaded" in m for m in errors(text, matrices)["python-unsupported"])
    # the same release on Linux x86_64 had them (constructed)
    linux = text.replace("Windows 11", "Ubuntu 22.04 (x86_64)").replace("PS D:\\Python\\StockEmulateAI>", "$")
    assert "python-unsupported" not in errors(linux, matrices)
    # a regular interpreter: nothing (constructed)
    assert "python-unsupported" not in errors(text.replace("``--disable-gil``", "none").replace("3.13t", "3.13"),
                                              matrices)


def test_driver_messages_and_plain_wheel_default(matrices: Matrices) -> None:
    # 233 (triton-inference-server/server#139)
    text = ("> ERROR: This container was built for NVIDIA Driver Release 410 or later, but\n"
            ">        version 396.26 was detected and compatibility mode is UNAVAILABLE.\n")
    assert "driver-too-old" in errors(text, matrices)
    # 229 (NVIDIA/nvidia-docker#737)
    text = "Failed to initialize NVML: Driver / library version mismatch. A message has occurred.\n"
    assert "driver-library-mismatch" in errors(text, matrices)
    # 301 (pytorch/pytorch#31243): the plain torch 1.3.0 wheel is the CUDA 10.1 build, which needs 418.39
    text = ("$ pip install torch===1.3.0 torchvision===0.4.1 -f https://download.pytorch.org/whl/torch_stable.html\n"
            "Python 3.7.5 (default, Oct 25 2019, 15:51:11) \n[GCC 7.3.0] :: Anaconda, Inc. on linux\n\n---\n"
            "@peterjc123 \n410.48,,\nneed higher ??\n")
    assert any("CUDA 10.1" in m and "418.39" in m for m in errors(text, matrices)["driver-too-old"])


def test_torch_free_threaded_rows_are_validated(tmp_path: Path, matrices: Matrices) -> None:
    release = matrices.torch.release("2.6.0")
    assert release is not None and release.free_threaded == ("linux_x86_64",)
    assert matrices.torch.release("2.7.0").free_threaded is None  # type: ignore[union-attr]
    assert matrices.torch.release("1.3.0").pypi_default == "cu101"  # type: ignore[union-attr]
    root = tmp_path / "m"
    shutil.copytree(SHIPPED, root)
    text = (root / "torch.toml").read_text()
    (root / "torch.toml").write_text(text.replace('free_threaded = ["linux_x86_64"]', 'free_threaded = ["windows"]'))
    with pytest.raises(MatrixSchemaError, match="free_threaded must be a list"):
        _ = load_matrices(root).torch


def test_uv_resolver_saying_no_wheel_for_this_python() -> None:
    """uv's resolver message, wrapped as uv prints it (astral-sh/uv#8344, verbatim): python-unsupported, and the
    Python its hint names."""
    from envguard.findings import Severity
    from envguard.rules import run_rules

    text = ("  × No solution found when resolving dependencies:\n"
            "  ╰─▶ Because torch==1.12.0+cu113 has no wheels with a matching Python ABI\n"
            "      tag (e.g., `cp311`) and you require torch==1.12.0+cu113, we can conclude\n"
            "      that your requirements are unsatisfiable.\n\n"
            "      hint: You require CPython 3.11 (`cp311`), but we only found wheels for\n"
            "      `torch` (v1.12.0+cu113) with the following Python ABI tags: `cp37m`,\n"
            "      `cp38`, `cp39`, `cp310`\n")
    matrices = load_matrices()
    env = parse_environments(text, "uv#8344", matrices)[0]
    assert env.snapshot.python.version == "3.11"  # type: ignore[union-attr]
    codes = {f.code for f in run_rules(env.snapshot, matrices, notes=env.notes).findings
             if f.severity is Severity.ERROR}
    assert "python-unsupported" in codes
    # "no wheels with a matching platform tag" is another OS or CPU, not this Python (uv's IncompatibleTag::Platform)
    other = parse_environments("  ╰─▶ Because torch==2.5.1+cpu has no wheels with a matching platform tag and\n"
                               "Python 3.12\n", "constructed", matrices)[0]
    assert "python-unsupported" not in {f.code for f in run_rules(other.snapshot, matrices).findings}
