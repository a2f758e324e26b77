"""The report reader's extractors, one shape each, on real lines from the corpus (tests/data/reports; each case's
source thread is in its case.json) — and the resolver's tier order."""

from __future__ import annotations

from envguard.reports import extract, parse_environments, parse_report
from envguard.reports.mentions import FIELD, MESSAGE, PROSE, TOOL, Mention
from envguard.reports.resolve import assemble
from envguard.reports.segment import split_environments


def kinds(mentions: list[Mention]) -> dict[str, str]:
    return {m.kind if m.kind != "package" else f"package:{m.key}": m.value for m in mentions}


def test_collect_env_fields_are_tool_output() -> None:
    # 107-win11-torch222-cpu-build-rtx4080-laptop
    lines = ["PyTorch version: 2.2.2", "CUDA used to build PyTorch: Could not collect",
             "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4080 Laptop GPU", "Nvidia driver version: 551.86"]
    found = list(extract.fields(lines, 0))
    assert kinds(found) == {"torch": "2.2.2", "torch_cuda_none": "Could not collect",
                            "gpu": "NVIDIA GeForce RTX 4080 Laptop GPU", "driver": "551.86"}
    assert {m.tier for m in found} == {TOOL}
    assert found[0].source == "report line 1: collect_env: PyTorch version"


def test_issue_form_headers_are_fields() -> None:
    # 240-wsl2-tf211-cuda120-looks-for-cuda11-libs
    lines = ["### Tensorflow Version", "", "v2.11.0-rc2-17-gd5b57ca93e5 2.11.0", "### CUDA/cuDNN version", "", "12.0"]
    found = list(extract.fields(lines, 0))
    assert [(m.kind, m.value, m.tier) for m in found] == [("tf", "2.11.0", FIELD), ("system_cuda", "12.0", FIELD)]


def test_package_listings() -> None:
    # 107 ([pip3] lines), 157 (conda list row with a CUDA build string), 119 (pip show)
    lines = ["[pip3] torch==2.2.2", "pytorch                   1.3.1           cuda100py37h53c1284_0",
             "Name: torch", "Version: 2.7.0+cpu"]
    found = list(extract.packages(lines, 0))
    assert [(m.key, m.value) for m in found if m.kind == "package"] == [
        ("torch", "2.2.2"), ("pytorch", "1.3.1"), ("torch", "2.7.0+cpu")]
    assert [(m.kind, m.value) for m in found if m.kind == "torch_cuda"] == [("torch_cuda", "10.0")]


def test_banners_commands_wheels_images_and_jetson() -> None:
    lines = [
        "Ultralytics YOLOv8.1.3 🚀 Python-3.10.11 torch-2.1.0+cpu",  # 007
        "pip3 install ~/tensorflow-2.3.1-cp36-cp36m-linux_aarch64.whl",  # 218
        "`docker run --gpus all nvidia/cuda:10.1-base-ubuntu18.04 nvidia-smi` => OK",  # 212
        "FROM pytorch/pytorch:2.2.0-cuda12.1-cudnn8-devel",
        "I successfully install the torch on my jetson nano(Jetpack 4.4 [L4T 32.4.3])",  # 129
        "ERROR: Could not find a version that satisfies the requirement torch==1.13.1 (from versions: 2.0.0)",  # 120
    ]
    found = list(extract.messages_and_commands(lines, 0))
    got = {(m.kind, m.key, m.value) for m in found}
    assert {("python", "", "3.10.11"), ("package", "torch", "2.1.0+cpu")} <= got
    assert {("package", "tensorflow", "2.3.1"), ("python", "", "3.6"), ("wheel_platform", "", "linux_aarch64")} <= got
    assert ("image_cuda", "", "10.1") in got
    assert {("package", "torch", "2.2.0"), ("torch_cuda", "", "12.1")} <= got
    assert ("jetpack", "", "4.4") in got
    assert ("requested", "torch", "1.13.1") in got
    assert {m.tier for m in found} <= {MESSAGE, FIELD, TOOL}


def test_prose_reads_sentences_but_not_hedges() -> None:
    # 019-k40m-sm35-torch13-conda
    found = list(extract.prose(["I am using a Tesla K40m, installed pytorch 1.3 with conda, using CUDA 10.1"], 0))
    assert kinds(found) == {"torch_prose": "1.3", "cuda_text": "10.1", "gpu": "Tesla K40m"}
    assert {m.tier for m in found} == {PROSE}
    # a statement about wheels is not the user's Python; a condition is not a fact (constructed)
    assert list(extract.prose(["Python 3.10 has no wheels for this release."], 0)) == []
    assert list(extract.prose(["If you use CUDA 12.1 it would work."], 0)) == []


def test_message_groups_become_facts() -> None:
    facts = list(extract.from_signature("torch-driver-too-old", "driver-too-old", {"found": "11040"}, 3))
    assert [(m.kind, m.value, m.line) for m in facts] == [("driver_cuda", "11.4", 3)]
    cudnn = list(extract.from_signature("torch-cudnn", "cudnn-mismatch", {"compiled": "(8, 3, 2)", "runtime": "x",
                                                                          "loaded": "8005"}, 1))
    assert {(m.kind, m.value) for m in cudnn} == {("cudnn_compiled", "8.3.2"), ("cudnn", "8.0.5")}
    sm = list(extract.from_signature("torch-arch", "arch-unsupported", {"sm": "sm_120", "gpu": "RTX 5090"}, 1))
    assert {(m.kind, m.value) for m in sm} == {("gpu_cc", "12.0"), ("gpu", "RTX 5090")}


def test_the_stronger_tier_wins_and_disagreement_is_a_note() -> None:
    mentions = [Mention("driver", "470.82.01", 9, PROSE, "text"), Mention("driver", "535.104.05", 2, TOOL, "t")]
    snapshot, notes = assemble(mentions, (), "r")
    assert snapshot.driver.version == "535.104.05"  # type: ignore[union-attr]
    assert len(notes) == 1 and "the stronger source" in notes[0]


def test_a_report_of_two_environments_is_split() -> None:
    one = ["Collecting environment information...", "PyTorch version: 2.3.1+cu121", "GPU models and configuration: "
           "GPU 0: Tesla T4"]
    two = ["Collecting environment information...", "PyTorch version: 2.1.2+cu121"]
    envs = parse_environments("\n".join(["it works here:", *one, "and fails here:", *two]), "two")
    assert [e.snapshot.framework("torch").version for e in envs] == ["2.3.1+cu121", "2.1.2+cu121"]  # type: ignore[union-attr]
    assert all("2 environments" in e.notes[0] for e in envs)
    assert envs[1].label == "environment 2 of 2 (torch 2.1.2+cu121; report lines 7-7)"
    # the machine is shared: the second part names no GPU, the first part's GPU counts there too
    assert [g.name for g in envs[1].snapshot.gpu_list()] == ["Tesla T4"]
    # conda rows of two environments (157-conda-env2-pytorch140-cpuonly-vs-env1-cuda100), and the same version
    # stated again belongs to the first environment
    rows = ["pytorch                   1.3.1           cuda100py37h53c1284_0",
            "pytorch                   1.4.0               py3.7_cpu_0  [cpuonly]  pytorch",
            "PyTorch version: 1.3.1"]
    mentions = [m for extractor in (extract.packages, extract.fields) for m in extractor(rows, 0)]
    parts = split_environments(3, mentions)
    # (a conda row's build names the environment too)
    assert [(p.key, p.ranges) for p in parts] == [("torch 1.3.1+cu100", ((0, 1), (2, 3))),
                                                  ("torch 1.4.0+cpu", ((1, 2),))]
    # one version, stated twice, is one environment
    assert len(split_environments(3, [Mention("torch", "2.1.0", 1, TOOL, "t"), Mention("torch", "2.1.0", 3, TOOL,
                                                                                       "t")])) == 1


def test_every_line_reaches_the_catalogue() -> None:
    """A classic message without "error"/"failed" in it (issue 14, class 1)."""
    text = "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.\nTF 2.4.1 on Ubuntu 20.04\n"
    snapshot, _ = parse_report(text, "msg")
    assert snapshot.observed_errors and "Loaded runtime CuDNN library" in snapshot.observed_errors[0]


def test_a_cpu_fallback_message_on_a_gpu_machine_is_an_error() -> None:
    """JAX prints its fallback message only where /dev/nvidia0, /dev/nvidiactl or /dev/dxg exists
    (jax/_src/hardware_utils.py), so alone it already shows a GPU machine (error, the device nodes as evidence); with
    the NVIDIA driver the same report states, the driver is the evidence. The message is JAX's own wording."""
    from envguard.commands.check import check_report
    from envguard.findings import Severity

    message = ("An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. "
               "Falling back to cpu.")
    alone = check_report(message, "alone").findings
    assert [(f.code, f.severity) for f in alone] == [("cpu-only-build", Severity.ERROR)]
    assert any(e.fact == "NVIDIA device nodes" for e in alone[0].evidence)
    # a plugin failure logged beside it is the cause instead (jax-ml/jax#26750's plugin error, then the fallback)
    plugin = ("AttributeError: module 'jaxlib.xla_client' has no attribute 'register_custom_type_id_handler'.")
    both = check_report(f"{plugin}\n{message}\n", "plugin").findings
    assert ("cpu-only-build", Severity.ERROR) not in [(f.code, f.severity) for f in both]
    with_driver = check_report(f"{message}\nNvidia driver version: 550.144.03\n", "machine").findings
    assert [(f.code, f.severity) for f in with_driver] == [("cpu-only-build", Severity.ERROR)]
    assert any(e.fact == "NVIDIA driver" for e in with_driver[0].evidence)


def test_a_pip_listing_without_a_jax_plugin_is_the_cpu_jaxlib() -> None:
    snapshot, _ = parse_report("jax==0.4.30\njaxlib==0.4.30\n", "pip")
    assert snapshot.framework("jax").accelerator == "cpu"  # type: ignore[union-attr]
    snapshot, _ = parse_report("jax: 0.4.30\njaxlib: 0.4.30\n", "print_environment_info")
    assert snapshot.framework("jax").accelerator is None  # type: ignore[union-attr] # does not list plugins


def test_a_message_wrapped_onto_the_next_line_is_recognised() -> None:
    """TensorFlow's cuDNN message as a log viewer wrapped it (tensorflow/tensorflow#26150-style paste)."""
    text = ("2019-04-01 E tensorflow/stream_executor/cuda/cuda_dnn.cc:334] Loaded runtime CuDNN library: 7.3.1 but"
            " source was\n    compiled with: 7.4.2.  CuDNN library major and minor version needs to match\n")
    snapshot, _ = parse_report(text, "wrapped")
    assert any("compiled with: 7.4.2" in line for line in snapshot.observed_errors)
    assert [c.version for c in snapshot.cudnn] == ["7.3.1"]  # type: ignore[union-attr]


def test_a_gpu_older_than_every_listed_architecture_has_no_kernels() -> None:
    """Paddle's own warning (gpu_resources.cc) names the GPU family and the wheel's archs: Pascal (6.x) is older than
    every one of 70 75 80 86, and PTX only JIT-compiles forward, so this is an error, not a PTX-JIT warning."""
    from envguard.commands.check import check_report
    from envguard.findings import Severity

    line = ("W0726 gpu_resources.cc:96] The GPU architecture in your current machine is {}, which is not compatible "
            "with Paddle installation with arch: 70 75 80 86 , it is recommended to install the corresponding wheel")
    older = check_report(line.format("Pascal"), "pascal").findings
    assert [(f.code, f.severity) for f in older] == [("arch-unsupported", Severity.ERROR)]
    # Newer than every listed major: SASS does not run across majors, and Paddle's release builds add no PTX
    # (cmake/cuda.cmake sets CUDA_ARCH_PTX only for a Manual arch build): no kernels either (case 215, Paddle#56908).
    newer = check_report(line.format("Hopper"), "hopper").findings
    assert [(f.code, f.severity) for f in newer] == [("arch-unsupported", Severity.ERROR)]
    # A family some of whose GPUs run a listed arch (6.1 SASS runs on 6.1 and 6.2) stays a warning.
    same_major = check_report(line.format("Pascal").replace("70 75 80 86", "61 70 75"), "pascal-61").findings
    assert [(f.code, f.severity) for f in same_major] == [("arch-unsupported", Severity.WARNING)]


def test_apt_pins_and_a_system_cuda_named_in_a_sentence() -> None:
    # 315-nccl-tests-libnccl-cuda110-on-cuda102-system; 326-neg-conda-cudatoolkit-101243-vs-101168-question
    found = list(extract.messages_and_commands(["sudo apt install libnccl-dev=2.9.8-1+cuda10.2 "
                                                "libnccl2=2.9.8-1+cuda10.2"], 0))
    assert {(m.kind, m.value) for m in found} == {("nccl", "2.9.8")}
    snapshot, _ = parse_report("I already had installed cudatoolkit 10.1.243 for TensorFlow GPU.\n", "prose")
    assert [t.version for t in snapshot.toolkit_list()] == ["10.1"]
    # next to a framework build, a CUDA in a sentence is not taken for the system's
    snapshot, _ = parse_report("PyTorch version: 2.1.0+cu121\nI use CUDA 11.8 here.\n", "both")
    assert snapshot.toolkit_list() == ()
