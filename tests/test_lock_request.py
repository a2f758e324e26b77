"""envguard.lock.request: requirements in, a LockPlan out, judged against the shipped matrices.

Expected builds come from matrices/torch.toml (release 2.5: python >=3.9,<3.13, pypi_default cu124, torchvision
0.20, torchaudio 2.5, variants cu124/cu121/cu118/cpu/rocm6.2/rocm6.1; cu118 sass from 3.7, the others from 5.0)
and matrices/cuda-driver.toml (floors 11.x 450.80.02, 12.x 525.60.13; native 11.8 520.61.05, 12.1 530.30.02,
12.4 550.54.14)."""

from __future__ import annotations

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from envguard.errors import LockError
from envguard.installed_facts import InstalledDistribution
from envguard.knowledge import Matrices, load_matrices
from envguard.lock.request import (
    TOOLING,
    HostFacts,
    LockPlan,
    check_resolution,
    current_cuda,
    current_requirements,
    parse_requirements,
    plan,
    python_minor,
    requirements_from_pyproject,
)
from envguard.lock.spec import IndexUse, LockedPackage, LockTarget

H = ("sha256:" + "0" * 64,)
WHL = "https://download.pytorch.org/whl/"


@pytest.fixture(scope="module")
def m() -> Matrices:
    return load_matrices()


def _reqs(*lines: str) -> tuple[Requirement, ...]:
    return tuple(Requirement(line) for line in lines)


def _plan(m: Matrices, *lines: str, cuda: str, python: str = "3.11", platform: str = "linux-x86_64",
          host: HostFacts | None = None) -> LockPlan:
    return plan(m, _reqs(*lines), python=python, platform=platform, cuda=cuda, host=host)


# ---- parse_requirements -------------------------------------------------------------------------


def test_parse_requirements_skips_comments_and_blank_lines() -> None:
    lines = ["# a comment", "", "   ", "torch>=2.5  # trailing comment", "numpy==2.1.*",
             "jax[cuda12]>=0.4; sys_platform == 'linux'"]
    reqs = parse_requirements(lines, "requirements.txt")
    assert [r.name for r in reqs] == ["torch", "numpy", "jax"]
    assert str(reqs[0].specifier) == ">=2.5"
    assert reqs[2].extras == {"cuda12"}
    assert str(reqs[2].marker) == 'sys_platform == "linux"'


@pytest.mark.parametrize(("line", "option"), [
    ("-r other.txt", "-r"), ("--index-url https://x.org/simple", "--index-url"), ("-e .", "-e"),
    ("--hash=sha256:00", "--hash=sha256:00"),
])
def test_parse_requirements_rejects_option_lines_with_file_and_line(line: str, option: str) -> None:
    with pytest.raises(LockError) as info:
        parse_requirements(["torch", "# c", line], "reqs.txt")
    assert str(info.value).startswith(f"reqs.txt:3: option lines ({option}) are not read")


def test_parse_requirements_rejects_direct_urls() -> None:
    with pytest.raises(LockError, match=r"^cmd:2: foo @ https://example.org/foo-1.0-py3-none-any.whl: direct URLs"):
        parse_requirements(["numpy", "foo @ https://example.org/foo-1.0-py3-none-any.whl"], "cmd")


@pytest.mark.parametrize("bad", ["foo==", "foo bar", "==1.0", "foo>=1.0,,"])
def test_parse_requirements_rejects_invalid_lines(bad: str) -> None:
    with pytest.raises(LockError, match=rf"^r.txt:1: {bad!r} is not a valid requirement"):
        parse_requirements([bad], "r.txt")


# ---- pyproject ----------------------------------------------------------------------------------


def test_requirements_from_pyproject() -> None:
    text = '[project]\nname = "demo"\ndependencies = ["torch==2.5.*", "numpy>=1.26"]\n'
    reqs = requirements_from_pyproject(text, "pyproject.toml")
    assert [str(r) for r in reqs] == ["torch==2.5.*", "numpy>=1.26"]


def test_requirements_from_pyproject_bad_toml() -> None:
    with pytest.raises(LockError, match=r"^pyproject.toml is not valid TOML"):
        requirements_from_pyproject("[project\n", "pyproject.toml")


@pytest.mark.parametrize("text", [
    '[project]\nname = "demo"\n', '[tool.x]\na = 1\n', "", '[project]\ndependencies = "torch"\n',
    "[project]\ndependencies = [1, 2]\n",
])
def test_requirements_from_pyproject_without_dependencies(text: str) -> None:
    with pytest.raises(LockError, match=r"^p/pyproject.toml has no \[project\].dependencies list to lock"):
        requirements_from_pyproject(text, "p/pyproject.toml")


def test_requirements_from_pyproject_reports_bad_entries_with_location() -> None:
    with pytest.raises(LockError, match=r"^pyproject.toml:2: 'foo==' is not a valid requirement"):
        requirements_from_pyproject('[project]\ndependencies = ["numpy", "foo=="]\n', "pyproject.toml")


def test_requirements_from_pyproject_project_not_a_table() -> None:
    with pytest.raises(LockError):
        requirements_from_pyproject('project = "x"\n', "pyproject.toml")


# ---- python_minor -------------------------------------------------------------------------------


@pytest.mark.parametrize(("given", "minor"), [("3.11.7", "3.11"), ("3.12", "3.12"), (" 3.10 ", "3.10")])
def test_python_minor(given: str, minor: str) -> None:
    assert python_minor(given) == minor


@pytest.mark.parametrize("bad", ["3", "python3.11", "3.11.7.1", "3.x", "", "3.11rc1"])
def test_python_minor_rejects(bad: str) -> None:
    with pytest.raises(LockError, match=r"is neither an interpreter nor a version like 3.11"):
        python_minor(bad)


# ---- plan: explicit --cuda ----------------------------------------------------------------------


def test_plan_cpu_build_uses_the_cpu_index(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*", cuda="cpu")
    assert p.indexes == (IndexUse(WHL + "cpu", "torch 2.5 cpu builds"),)
    assert p.expect_local == (("torch", "cpu"),)
    assert p.target == LockTarget("3.11", "linux-x86_64", None, "cpu", None, None, None)
    assert len(p.requirements) == 1
    pin = Requirement(p.requirements[0])
    assert pin.name == "torch"
    assert pin.specifier.contains("2.5.1") and not pin.specifier.contains("2.4.1")
    assert p.reasons == ("torch 2.5 CPU build (--cuda cpu)",)


def test_plan_pypi_default_build_needs_no_index(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*", cuda="12.4")
    assert p.indexes == ()
    assert p.expect_local == (("torch", ""),)
    assert p.target == LockTarget("3.11", "linux-x86_64", "12.4", "cu124", "9.1.0.70", "2.21.5", "525.60.13")
    assert p.reasons[0] == "torch 2.5 cu124 build (--cuda 12.4)"
    assert "PyPI's default torch 2.5 build" in p.reasons[1]


def test_plan_cuda_121_uses_its_index_and_narrows_companions(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*", "torchvision", "torchaudio", "numpy<2", cuda="12.1")
    assert p.indexes == (IndexUse(WHL + "cu121", "torch 2.5 cu121 builds"),)
    assert p.expect_local == (("torch", "cu121"), ("torchvision", "cu121"), ("torchaudio", "cu121"))
    assert p.requirements[1:] == ("torchvision==0.20.*", "torchaudio==2.5.*", "numpy<2")
    assert p.target.cuda == "12.1" and p.target.variant == "cu121"
    assert p.target.cudnn == "9.1.0.70" and p.target.nccl is None
    assert p.target.driver_floor == "525.60.13"


def test_plan_keeps_extras_markers_and_user_specifiers_when_narrowing(m: Matrices) -> None:
    p = _plan(m, "torch[opt-einsum]==2.5.1; python_version >= '3.9'", "torchvision>=0.19", cuda="11.8")
    torch, vision = (Requirement(r) for r in p.requirements)
    assert torch.extras == {"opt-einsum"}
    assert str(torch.marker) == 'python_version >= "3.9"'
    assert torch.specifier.contains("2.5.1") and not torch.specifier.contains("2.5.0")
    assert vision.specifier.contains("0.20.1") and not vision.specifier.contains("0.19.1")
    assert not vision.specifier.contains("0.21.0")
    assert p.target.driver_floor == "450.80.02"


def test_plan_companion_alone_adds_the_torch_pin(m: Matrices) -> None:
    # Newest torch.toml release for Python 3.11 with a cpu build: 2.15. Its row names no torchvision pairing
    # (torchvision 0.29.2 accepts torch >= 2.14, no 0.30 was published), so torchvision stays unpinned.
    p = _plan(m, "torchvision", "torchaudio", cuda="cpu")
    assert p.requirements == ("torchvision", "torchaudio", "torch==2.15.*")
    assert p.expect_local == (("torch", "cpu"), ("torchvision", "cpu"), ("torchaudio", "cpu"))
    assert p.indexes == (IndexUse(WHL + "cpu", "torch 2.15 cpu builds"),)
    # A release whose row does name the pairing still pins it.
    p = _plan(m, "torchvision", "torch==2.14.*", cuda="cpu")
    assert "torchvision==0.29.*" in p.requirements


def test_plan_aarch64_is_never_the_pypi_default(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*", cuda="12.4", platform="linux-aarch64")
    assert p.indexes == (IndexUse(WHL + "cu124", "torch 2.5 cu124 builds"),)
    assert p.expect_local == (("torch", "cu124"),)
    assert p.target.platform == "linux-aarch64"


def test_plan_extra_index_urls_are_checked(m: Matrices) -> None:
    with pytest.raises(LockError, match=r"--extra-index-url 'file:///srv' is not a plain http"):
        plan(m, _reqs("numpy"), python="3.11", platform="linux-x86_64", cuda="cpu", host=None,
             extra_index_urls=("file:///srv",))


# ---- plan: errors ----------------------------------------------------------------------------


def test_plan_no_build_for_that_cuda_names_the_row_and_variants(m: Matrices) -> None:
    with pytest.raises(LockError) as info:
        _plan(m, "torch==2.5.*", cuda="12.9")
    msg = str(info.value)
    assert msg.startswith("torch has no CUDA 12.9 build matching torch==2.5.* on Python 3.11")
    assert "torch.toml release 2.5: cu124, cu121, cu118, cpu, rocm6.2, rocm6.1" in msg


def test_plan_python_outside_the_release_range(m: Matrices) -> None:
    with pytest.raises(LockError) as info:
        _plan(m, "torch==2.5.*", cuda="cpu", python="3.14")
    msg = str(info.value)
    assert msg.startswith("Python 3.14 is outside the range of every torch release matching torch==2.5.*")
    assert "release 2.5 python" in msg and "<3.13" in msg


def test_plan_unknown_torch_version(m: Matrices) -> None:
    with pytest.raises(LockError, match=r"^no torch release in torch.toml matches torch==0.1 \(newest known: 2.15"):
        _plan(m, "torch==0.1", cuda="cpu")


@pytest.mark.parametrize("cuda", ["abc", "12.x", "cu124"])
def test_plan_bad_cuda(m: Matrices, cuda: str) -> None:
    with pytest.raises(LockError, match=f"--cuda '{cuda}' is not a CUDA version"):
        _plan(m, "torch==2.5.*", cuda=cuda)


def test_plan_empty_request(m: Matrices) -> None:
    with pytest.raises(LockError, match=r"^nothing to lock"):
        plan(m, (), python="3.11", platform="linux-x86_64", cuda="cpu", host=None)


@pytest.mark.parametrize("platform", ["linux-armv7l", "win-amd64", "macos-arm64", "x86_64"])
def test_plan_bad_platform(m: Matrices, platform: str) -> None:
    with pytest.raises(LockError, match=f"--platform '{platform}'"):
        _plan(m, "numpy", cuda="cpu", platform=platform)


# ---- plan: --cuda auto --------------------------------------------------------------------------


@pytest.mark.parametrize("host", [None, HostFacts(None), HostFacts(None, ("8.0",))])
def test_plan_auto_without_driver(m: Matrices, host: HostFacts | None) -> None:
    with pytest.raises(LockError, match=r"^--cuda auto needs an NVIDIA driver"):
        _plan(m, "torch==2.5.*", cuda="auto", host=host)


def test_plan_auto_bad_driver_version(m: Matrices) -> None:
    with pytest.raises(LockError, match=r"driver version 'n/a' is not a version"):
        _plan(m, "torch==2.5.*", cuda="auto", host=HostFacts("n/a"))


def test_plan_auto_old_driver_picks_cuda_11(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*", cuda="auto", host=HostFacts("470.57.02", ("8.0",)))
    assert p.target.variant == "cu118"
    assert Version(p.target.cuda or "0").major == 11
    assert p.indexes == (IndexUse(WHL + "cu118", "torch 2.5 cu118 builds"),)
    assert p.expect_local == (("torch", "cu118"),)
    assert "minor-version compatibility" in p.reasons[0]
    assert "driver 470.57.02 and compute capability 8.0" in p.reasons[0]


def test_plan_auto_new_driver_picks_newest_native_cuda_12(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*", cuda="auto", host=HostFacts("550.54.15", ("9.0",)))
    assert p.target.variant == "cu124" and p.target.cuda == "12.4"
    assert p.indexes == () and p.expect_local == (("torch", ""),)
    assert "its own driver floor" in p.reasons[0]


def test_plan_auto_prefers_a_native_build_over_a_newer_compat_one(m: Matrices) -> None:
    # 535.104.05 >= 12.1's native 530.30.02 but < 12.4's native 550.54.14 (both above the 12.x floor).
    p = _plan(m, "torch==2.5.*", cuda="auto", host=HostFacts("535.104.05", ("8.6",)))
    assert p.target.variant == "cu121"
    assert "its own driver floor" in p.reasons[0]


def test_plan_auto_kepler_gpu_has_no_build(m: Matrices) -> None:
    with pytest.raises(LockError) as info:
        _plan(m, "torch==2.5.*", cuda="auto", host=HostFacts("550.54.15", ("3.5",)))
    msg = str(info.value)
    assert msg.startswith("--cuda auto: no torch build matching torch==2.5.* runs on driver 550.54.15 "
                          "with compute capability 3.5")
    assert "2.5 cu118: no kernels for compute capability 3.5" in msg


def test_plan_auto_driver_below_every_floor(m: Matrices) -> None:
    with pytest.raises(LockError) as info:
        _plan(m, "torch==2.5.*", cuda="auto", host=HostFacts("418.67"))
    assert "2.5 cu124: needs driver >= 525.60.13" in str(info.value)
    assert "2.5 cu118: needs driver >= 450.80.02" in str(info.value)


# ---- plan without torch --------------------------------------------------------------------------


@pytest.mark.parametrize(("cuda", "target_cuda"), [("cpu", None), ("auto", None), ("12.4", "12.4")])
def test_plan_without_torch(m: Matrices, cuda: str, target_cuda: str | None) -> None:
    p = _plan(m, "numpy==2.1.*", "requests", cuda=cuda, host=None)
    assert p.requirements == ("numpy==2.1.*", "requests")
    assert p.indexes == ()
    assert p.expect_local == ()
    assert p.target == LockTarget("3.11", "linux-x86_64", target_cuda)


# ---- check_resolution -----------------------------------------------------------------------------


def test_check_resolution_rejects_the_wrong_build(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*", cuda="12.1")
    with pytest.raises(LockError) as info:
        check_resolution(p, [LockedPackage("torch", "2.5.1", H)])
    msg = str(info.value)
    assert msg.startswith("the resolver chose torch==2.5.1, not the +cu121 build from " + WHL + "cu121")


def test_check_resolution_accepts_the_planned_build(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*", "torchvision", cuda="12.1")
    check_resolution(p, [LockedPackage("torch", "2.5.1+cu121", H), LockedPackage("torchvision", "0.20.1+cu121", H),
                         LockedPackage("numpy", "2.1.3", H)])


def test_check_resolution_pypi_default_must_have_no_local(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*", cuda="12.4")
    check_resolution(p, [LockedPackage("torch", "2.5.1", H)])
    with pytest.raises(LockError, match=r"not PyPI's default build \(no local version\) from the default index"):
        check_resolution(p, [LockedPackage("torch", "2.5.1+cu124", H)])


def test_check_resolution_companion_with_wrong_local(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*", "torchvision", cuda="cpu")
    with pytest.raises(LockError, match=r"chose torchvision==0.20.1\+cu121, not the \+cpu build"):
        check_resolution(p, [LockedPackage("torch", "2.5.1+cpu", H), LockedPackage("torchvision", "0.20.1+cu121", H)])


# ---- --from-current -----------------------------------------------------------------------------


def test_current_requirements_pins_and_skips() -> None:
    installed = [
        InstalledDistribution("pip", "24.2"), InstalledDistribution("setuptools", "75.1.0"),
        InstalledDistribution("wheel", "0.44.0"), InstalledDistribution("uv", "0.5.1"),
        InstalledDistribution("torch", "2.5.1+cu124"),
        InstalledDistribution("myproj", "0.1.0", direct_url="file:///src/myproj", editable=True),
        InstalledDistribution("foo", "1.0", direct_url="https://example.org/foo-1.0-py3-none-any.whl"),
        InstalledDistribution("weird", "not a version"),
        InstalledDistribution("Numpy", "2.1.3"),
        InstalledDistribution("secret-tool", "1.0"),
    ]
    pins, skipped = current_requirements(installed, exclude=["Secret_Tool"])
    assert pins == ("torch==2.5.1+cu124", "Numpy==2.1.3")
    assert skipped == (
        ("myproj", "editable install (file:///src/myproj): no index file to hash"),
        ("foo", "installed from a direct URL (https://example.org/foo-1.0-py3-none-any.whl): no index file to hash"),
        ("weird", "version 'not a version' is not PEP 440"),
    )


def test_tooling_set() -> None:
    assert {"pip", "setuptools", "wheel"} <= TOOLING
    assert "torch" not in TOOLING


@pytest.mark.parametrize(("version", "cuda"), [
    ("2.5.1+cu124", "12.4"), ("2.5.1+cu118", "11.8"), ("2.5.1+cu121", "12.1"), ("2.5.1+cpu", "cpu"),
    ("2.5.1", "12.4"),  # torch.toml: 2.5's pypi_default is cu124 (CUDA 12.4)
    ("2.5.1+rocm6.2", "auto"), ("not-a-version", "auto"),
])
def test_current_cuda(m: Matrices, version: str, cuda: str) -> None:
    installed = [InstalledDistribution("numpy", "2.1.3"), InstalledDistribution("Torch", version)]
    assert current_cuda(m, installed) == cuda


def test_current_cuda_without_torch(m: Matrices) -> None:
    assert current_cuda(m, [InstalledDistribution("numpy", "2.1.3")]) == "auto"
    assert current_cuda(m, []) == "auto"


def test_cuda_is_validated_even_without_a_framework() -> None:
    with pytest.raises(LockError, match="--cuda 'abc' is not a CUDA version"):
        plan(load_matrices(), parse_requirements(["six"], "t"), python="3.11", platform="linux-x86_64",
             cuda="abc", host=None)
    ok = plan(load_matrices(), parse_requirements(["six"], "t"), python="3.11", platform="linux-x86_64",
              cuda="12.4", host=None)
    assert ok.target.cuda == "12.4" and ok.indexes == ()


def test_pyproject_with_a_non_table_project_is_a_lock_error() -> None:
    with pytest.raises(LockError, match=r"no \[project\]\.dependencies"):
        requirements_from_pyproject('project = "x"', "pyproject.toml")


def test_an_exact_pin_with_a_local_label_finds_its_release() -> None:
    """--from-current pins torch==2.13.0+cpu: the release must still be found (the local label is kept)."""
    got = plan(load_matrices(), parse_requirements(["torch==2.13.0+cpu"], "t"), python="3.11",
               platform="linux-x86_64", cuda="cpu", host=None)
    assert got.target.variant == "cpu" and got.requirements == ("torch==2.13.0+cpu,==2.13.*",)
    assert got.expect_local == (("torch", "cpu"),)


def test_check_resolution_rejects_a_planned_framework_the_markers_dropped(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*; python_version < '3'", cuda="cpu")
    with pytest.raises(LockError, match="the resolver left torch out of the lock"):
        check_resolution(p, [LockedPackage("numpy", "2.1.3", H)])


# ---- TensorFlow and JAX (values from tensorflow.toml and jax.toml) --------------------------------


def test_tensorflow_cuda_adds_and_cuda_and_narrows_the_release(m: Matrices) -> None:
    p = _plan(m, "tensorflow==2.21.*", cuda="12.4")
    assert p.requirements == ("tensorflow[and-cuda]==2.21.*,==2.21.*",)
    assert p.target == LockTarget("3.11", "linux-x86_64", "12.5", "and-cuda", "9.3", None, "525.60.13")
    assert "TensorFlow 2.21: the releases built for CUDA 12.x (--cuda 12.4)" in p.reasons[0]


def test_tensorflow_cpu_and_conflicts(m: Matrices) -> None:
    p = _plan(m, "tensorflow==2.21.*", cuda="cpu")
    assert p.requirements == ("tensorflow==2.21.*,==2.21.*",) and p.target.cuda is None
    assert p.target.variant == "cpu"
    with pytest.raises(LockError, match=r"asks for NVIDIA's CUDA wheels, but --cuda cpu"):
        _plan(m, "tensorflow[and-cuda]==2.21.*", cuda="cpu")
    with pytest.raises(LockError, match=r"no TensorFlow release matching tensorflow==2.21.\* on Python 3.11 is "
                                        r"built for CUDA 11.x \(tensorflow.toml release 2.21: CUDA 12.5"):
        _plan(m, "tensorflow==2.21.*", cuda="11.8")
    with pytest.raises(LockError, match=r"Python 3.12 is outside the range of every TensorFlow release"):
        _plan(m, "tensorflow==2.15.*", cuda="12.2", python="3.12")


def test_tensorflow_auto_follows_the_driver(m: Matrices) -> None:
    old = _plan(m, "tensorflow>=2.14,<2.16", cuda="auto", host=HostFacts("470.57.02", ("8.0",)))
    assert old.target.cuda == "11.8" and old.requirements == ("tensorflow[and-cuda]<2.16,>=2.14,==2.14.*",)
    with pytest.raises(LockError, match="--cuda auto needs an NVIDIA driver"):
        _plan(m, "tensorflow", cuda="auto", host=HostFacts(None))


def test_jax_plugin_extra_from_cuda(m: Matrices) -> None:
    p = _plan(m, "jax", cuda="12.4")
    assert p.requirements == ("jax[cuda12]",)
    assert p.target.cuda == "12.9" and p.target.variant == "cuda12" and p.target.driver_floor == "525.60.13"
    p13 = _plan(m, "jax", cuda="13.0")
    assert p13.requirements == ("jax[cuda13]",) and p13.target.cuda == "13.0"
    assert _plan(m, "jax", cuda="cpu").requirements == ("jax",)
    with pytest.raises(LockError, match=r"asks for the CUDA 12 plugin, but --cuda 13.0 is CUDA 13"):
        _plan(m, "jax[cuda12]", cuda="13.0")
    with pytest.raises(LockError, match="asks for a CUDA plugin, but --cuda cpu"):
        _plan(m, "jax[cuda12]", cuda="cpu")
    with pytest.raises(LockError, match=r"has no CUDA 11 plugin \(jax.toml row 0.8.0: cuda13, cuda12\)"):
        _plan(m, "jax", cuda="11.8")


def test_jax_auto_needs_driver_and_architecture(m: Matrices) -> None:
    assert _plan(m, "jax", cuda="auto", host=HostFacts("590.44.01", ("9.0",))).requirements == ("jax[cuda13]",)
    # driver 550 is below the cuda13 plugin's 580 floor: the CUDA 12 plugin
    assert _plan(m, "jax", cuda="auto", host=HostFacts("550.54.15", ("9.0",))).requirements == ("jax[cuda12]",)
    # a Pascal GPU (6.1) is below the cuda13 plugin's 7.5 floor even on a new driver
    assert _plan(m, "jax", cuda="auto", host=HostFacts("590.44.01", ("6.1",))).requirements == ("jax[cuda12]",)


def test_frameworks_must_agree_on_the_cuda_major(m: Matrices) -> None:
    p = _plan(m, "torch==2.5.*", "jax", cuda="12.4")
    assert p.requirements == ("torch==2.5.*,==2.5.*", "jax[cuda12]")
    assert p.target.variant == "cu124"
    # torch's build decides the CUDA; the other frameworks must follow its major
    with pytest.raises(LockError, match=r"jax\[cuda13\] asks for the CUDA 13 plugin, but --cuda 12.4 is CUDA 12"):
        _plan(m, "torch==2.5.*", "jax[cuda13]", cuda="12.4")
    with pytest.raises(LockError, match=r"no TensorFlow release matching tensorflow==2.14.\* on Python 3.11 is "
                                        r"built for CUDA 12.x"):
        _plan(m, "torch==2.5.*", "tensorflow==2.14.*", cuda="12.4")


# ---- requirements files with pip's options; markers (issue 12, "what uv / pip-tools users expect") ----------


def _loader(files: dict[str, str]):  # type: ignore[no-untyped-def] # reason: test helper
    def load(rel: str) -> tuple[str, str]:
        if rel not in files:
            raise LockError(f"{rel} does not exist")
        return files[rel], rel
    return load


def test_requirements_file_options_are_read() -> None:
    from envguard.lock.request import read_requirements_file

    text = ("--index-url https://mirror.example/simple\n--extra-index-url=https://download.pytorch.org/whl/cu126\n"
            "-f wheels\n--no-index\n-c constraints.txt\n-r more.txt\n"
            "six==1.16.0 \\\n    --hash=sha256:" + "1" * 64 + "\n")
    found = read_requirements_file(text, "requirements.in", _loader({
        "constraints.txt": "urllib3<2\n", "more.txt": "click>=8  # nested\n-c constraints2.txt\n",
        "constraints2.txt": "idna<4\n"}))
    assert [str(r) for r in found.requirements] == ["click>=8", "six==1.16.0"]
    assert found.index_url == "https://mirror.example/simple"
    assert found.extra_index_urls == ("https://download.pytorch.org/whl/cu126",)
    assert found.find_links == ("wheels",) and found.no_index
    assert found.constraints == ("urllib3<2", "idna<4")
    assert "requirements.in:7: its --hash options are dropped" in found.notes[0]


@pytest.mark.parametrize(("line", "message"), [
    ("-e .", r"requirements.in:2: -e \.: an editable install has no index file to hash"),
    ("./pkg", r"requirements.in:2: './pkg' is a local path"),
    ("dist/pkg-1.0-py3-none-any.whl", r"is a local path"),
    ("--pre", r"requirements.in:2: option lines \(--pre\) are not supported"),
    ("--index-url ftp://x", r"requirements.in:2: --index-url 'ftp://x' is not a plain http\(s\) URL"),
    ("-r missing.txt", r"missing.txt does not exist"),
])
def test_requirements_file_refusals_name_file_and_line(line: str, message: str) -> None:
    from envguard.lock.request import read_requirements_file

    with pytest.raises(LockError, match=message):
        read_requirements_file(f"six\n{line}\n", "requirements.in", _loader({}))


def test_a_requirements_file_including_itself_is_refused() -> None:
    from envguard.lock.request import read_requirements_file

    with pytest.raises(LockError, match="nested more than 10 deep"):
        read_requirements_file("-r a.txt\n", "a.txt", _loader({"a.txt": "-r a.txt\n"}))


def test_markers_that_do_not_hold_are_dropped_with_a_note() -> None:
    from envguard.lock.request import apply_markers

    reqs = _reqs("six", "pywin32; sys_platform == 'win32'", "tomli; python_version < '3.11'",
                 "uvloop; platform_machine == 'x86_64'")
    kept, notes = apply_markers(reqs, "3.11", "linux-x86_64")
    assert [r.name for r in kept] == ["six", "uvloop"]
    assert str(kept[1].marker) == 'platform_machine == "x86_64"'  # kept with its marker
    assert len(notes) == 2 and notes[0].startswith('pywin32; sys_platform == "win32" is dropped')
    kept, _ = apply_markers(reqs, "3.10", "linux-aarch64")
    assert [r.name for r in kept] == ["six", "tomli"]
