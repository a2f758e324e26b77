"""The shipped matrices validate, carry provenance, and state the facts the rules depend on."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from envguard.errors import MatrixError, MatrixSchemaError
from envguard.knowledge import MATRIX_NAMES, Matrices, load_matrices
from envguard.knowledge.cuda_images import OsPython, parse_image_tag
from envguard.resources import data_dir

SHIPPED = Path(__file__).resolve().parent.parent / "matrices"


@pytest.fixture(scope="module")
def matrices() -> Matrices:
    m = load_matrices()
    m.load_all()
    return m


def test_every_shipped_matrix_validates(matrices: Matrices) -> None:
    assert set(matrices.loaded()) == set(MATRIX_NAMES)
    assert {p.stem for p in SHIPPED.glob("*.toml")} == set(MATRIX_NAMES)


def test_no_package_index_hostnames_in_data() -> None:
    for path in SHIPPED.glob("*.toml"):
        assert not re.search(r"pypi\.org|pythonhosted\.org", path.read_text()), path


def test_minor_version_compatibility_floors(matrices: Matrices) -> None:
    """NVIDIA CUDA compatibility guide: 11.x >= 450.80.02, 12.x >= 525.60.13, 13.x >= 580.65.06 (Linux)."""
    cd = matrices.cuda_driver
    assert {str((cd.floor(c) or pytest.fail(c)).min_driver) for c in ("11.0", "11.8")} == {"450.80.02"}
    assert str((cd.floor("12.9") or pytest.fail()).min_driver) == "525.60.13"
    assert str((cd.floor("13.0") or pytest.fail()).min_driver) == "580.65.06"
    assert str((cd.floor("12.4", "windows") or pytest.fail()).min_driver) == "527.41"
    assert str((cd.floor("10.2") or pytest.fail()).min_driver) == "440.33"
    assert str((cd.floor("9.0") or pytest.fail()).min_driver) == "384.81"  # Table 3 of the 11.x release notes
    assert str((cd.floor("9.1", "windows") or pytest.fail()).min_driver) == "391.29"
    assert cd.floor("6.5") is None  # unknown is a valid answer
    assert str(cd.native_driver("12.4")) == "550.54.14"


def test_torch_rows(matrices: Matrices) -> None:
    release = matrices.torch.release("2.5.1+cu124") or pytest.fail()
    assert release.pypi_default == "cu124"
    variant = release.variant("cu124") or pytest.fail()
    assert variant.cudnn == "9.1.0.70"
    assert variant.sass == ("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0")
    assert "3.12" in release.python and "3.13" not in release.python
    assert str(matrices.torch.newest()) == "2.15"
    old = matrices.torch.release("2.0.1") or pytest.fail()
    assert {v.tag for v in old.variants if v.cuda} == {"cu117", "cu118"}
    for rel in matrices.torch.releases:
        assert rel.variant("cpu") is not None, rel.version


def test_gpu_names_and_archs(matrices: Matrices) -> None:
    ga = matrices.gpu_arch
    assert (ga.lookup_name("NVIDIA H100 80GB HBM3") or pytest.fail()).cc == "9.0"
    assert (ga.lookup_name("Tesla K80") or pytest.fail()).cc == "3.7"
    assert (ga.arch("12.0") or pytest.fail()).family.startswith("Blackwell")
    assert str((ga.arch("3.5") or pytest.fail()).last_cuda) == "11.8"


def test_tensorflow_rows(matrices: Matrices) -> None:
    tf = matrices.tensorflow
    assert (tf.release("2.10.1") or pytest.fail()).windows_native_gpu is True
    assert (tf.release("2.11.0") or pytest.fail()).windows_native_gpu is False
    r218 = tf.release("2.18.0") or pytest.fail()
    assert (r218.cuda, r218.cudnn) == ("12.5", "9.3")
    assert "nvidia-cudnn-cu12" in r218.and_cuda


def test_every_row_has_provenance(matrices: Matrices) -> None:
    rows: list[Any] = [*matrices.cuda_driver.families, *matrices.cuda_driver.releases, *matrices.gpu_arch.archs,
            *matrices.gpu_arch.gpus, *matrices.torch.releases, *matrices.tensorflow.releases]
    rows += [v for r in matrices.torch.releases for v in r.variants]
    rows += [*matrices.jax.releases, *(c for r in matrices.jax.releases for c in r.cuda)]
    rows += [*matrices.cudnn.releases, *matrices.cudnn.arch_floors, *matrices.cudnn.wheels]
    rows += [*matrices.nccl.images, *matrices.nccl.releases, *matrices.nccl.wheels]
    rows += [*matrices.cuda_images.images, *matrices.cuda_images.flavors, *matrices.gpu_peaks.gpus]
    rows += [*matrices.cuda_images.oses]
    for row in rows:
        assert row.prov.source and row.prov.confidence in ("official", "transcribed", "derived"), row


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "m"
    shutil.copytree(SHIPPED, target)
    return target


def test_schema_errors_are_collected(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    text = (root / "torch.toml").read_text()
    text = text.replace('python = ">=3.10,<3.15"', 'python = "three point ten"', 1)
    text = text.replace('confidence = "official"', 'confidence = "trust me"', 1)
    text += '\n[[release]]\nversion = "2.14"\npython = ">=3"\nsource = "https://example.org"\nconfidence = "official"\n'
    text += 'bogus = 1\n'
    (root / "torch.toml").write_text(text)
    with pytest.raises(MatrixSchemaError) as err:
        _ = load_matrices(root).torch
    message = str(err.value)
    assert "not a PEP 440 specifier" in message
    assert "confidence must be one of" in message
    assert "must be older than the row before it" in message
    assert "unknown key(s) bogus" in message


def test_unknown_schema_version_and_broken_toml(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "gpu-arch.toml").write_text("schema_version = 7\n")
    with pytest.raises(MatrixError, match="schema_version 7"):
        _ = load_matrices(root).gpu_arch
    (root / "gpu-arch.toml").write_text("schema_version = [\n")
    with pytest.raises(MatrixError, match="not valid TOML"):
        _ = load_matrices(root).gpu_arch
    (root / "gpu-arch.toml").unlink()
    with pytest.raises(MatrixError, match=r"cannot read matrix gpu-arch\.toml"):
        _ = load_matrices(root).gpu_arch


def test_override_folder_env(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    assert Path(str(data_dir("matrices", {"ENVGUARD_MATRICES": str(root)}))) == root
    assert load_matrices(env={"ENVGUARD_MATRICES": str(root)}).torch.meta.name == "torch"


# ---- torch 1.x and TensorFlow 1.x rows -----------------------------------------------------------


def test_torch_1x_rows(matrices: Matrices) -> None:
    """1.x: PyPI default builds, and the architectures each wheel dropped (pip lists, not conda)."""
    torch = matrices.torch
    assert [r.version for r in torch.releases][-12:] == [f"1.{n}" for n in range(11, -1, -1)]
    r111 = torch.release("1.11.0+cu102") or pytest.fail()
    assert r111.pypi_default == "cu102"
    assert {v.tag for v in r111.variants if v.cuda} == {"cu102", "cu113", "cu115"}
    assert (r111.variant("cu102") or pytest.fail()).sass == ("3.7", "5.0", "6.0", "7.0")  # no Ampere: A100 fails
    assert "8.0" in ((r111.variant("cu113") or pytest.fail()).sass or ())
    assert "3.10" in r111.python and "3.11" not in r111.python
    assert (torch.release("1.10.2") or pytest.fail()).pypi_default == "cu102"
    assert (torch.release("1.10.2") or pytest.fail()).variant("cu111") is not None
    assert ((torch.release("1.10.2") or pytest.fail()).variant("cu111") or pytest.fail()).sass is None  # unknown
    # sm_35 left the wheels between 1.3.0 and 1.3.1 (3.7 kept); 1.2 still had 3.5 and no 3.7.
    r13 = (torch.release("1.3.1") or pytest.fail()).variant("cu101") or pytest.fail()
    assert "3.5" not in (r13.sass or ()) and "3.7" in (r13.sass or ())
    r12 = (torch.release("1.2.0") or pytest.fail()).variant("cu100") or pytest.fail()
    assert "3.5" in (r12.sass or ()) and "3.7" not in (r12.sass or ())
    assert r12.ptx == ("5.0",)
    assert (torch.release("1.2.0") or pytest.fail()).pypi_default == "cu100"
    assert (torch.release("1.4.0") or pytest.fail()).pypi_default == "cu101"
    assert (torch.release("1.0.1") or pytest.fail()).pypi_default is None  # not stated anywhere read
    r14 = torch.release("1.4.0") or pytest.fail()
    assert "2.7" in r14.python and "3.8" in r14.python and "3.4" not in r14.python and "3.9" not in r14.python
    assert "2.7" not in (torch.release("1.5.0") or pytest.fail()).python
    for release in torch.releases:
        if not release.version.startswith("1."):
            continue
        for variant in release.variants:
            if variant.sass is not None:
                assert variant.prov.confidence in ("official", "derived"), (release.version, variant.tag)


def test_tensorflow_1x_rows(matrices: Matrices) -> None:
    """tensorflow.org tested build configurations, 2.3 down to 1.0."""
    tf = matrices.tensorflow
    expected = ["2.3", "2.2", "2.1", "2.0", *(f"1.{n}" for n in range(15, -1, -1))]
    assert [r.version for r in tf.releases][-20:] == expected
    r23 = tf.release("2.3.4") or pytest.fail()
    assert (r23.cuda, r23.cudnn) == ("10.1", "7.6")
    assert "3.8" in r23.python and "3.9" not in r23.python and "2.7" not in r23.python
    r115 = tf.release("1.15.0") or pytest.fail()
    assert (r115.cuda, r115.cudnn) == ("10.0", "7.4")
    assert "2.7" in r115.python and "3.3" in r115.python and "3.8" not in r115.python
    assert "3.4" not in (tf.release("2.1.0") or pytest.fail()).python
    assert ((tf.release("1.12.0") or pytest.fail()).cuda, (tf.release("1.4.0") or pytest.fail()).cudnn) == ("9.0", "6")
    assert (tf.release("1.0.0") or pytest.fail()).cudnn == "5.1"
    assert all(r.windows_native_gpu for r in tf.releases if Version(r.version) <= Version("2.10"))


# ---- new matrices ------------------------------------------------------------------------------


def test_jax_rows(matrices: Matrices) -> None:
    jax = matrices.jax
    assert str(jax.newest()) == "0.11.2"
    new = (jax.release("0.11.2") or pytest.fail()).plugin(12) or pytest.fail()
    assert Version("9.8") not in (new.cudnn or pytest.fail())  # 0.11.2 needs >= 9.10.2.21
    old = (jax.release("0.11.1") or pytest.fail()).plugin(12) or pytest.fail()
    assert Version("9.8") in (old.cudnn or pytest.fail())
    row = jax.release("0.4.35") or pytest.fail()  # rows hold until the next newer one
    assert str(row.version) == "0.4.31"
    assert Version("9.1") in ((row.plugin(12) or pytest.fail()).cudnn or pytest.fail())
    assert row.plugin(13) is None
    row = jax.release("0.10.2") or pytest.fail()
    assert str(row.version) == "0.8.0"
    cu13 = row.plugin(13) or pytest.fail()
    assert (str(cu13.min_driver), cu13.min_cc, cu13.plugin) == ("580", "7.5", "jax-cuda13-plugin")
    assert (row.plugin(12) or pytest.fail()).min_cc == "5.2"
    assert "3.11" in row.python and "3.11" not in (jax.release("0.11.0") or pytest.fail()).python
    assert "3.9" in (jax.release("0.4.30") or pytest.fail()).python
    assert jax.release("0.4.25") is None  # older than every row: unknown
    assert jax.release("not a version") is None


def test_cudnn_rows(matrices: Matrices) -> None:
    cudnn = matrices.cudnn
    cu13 = cudnn.support("9.17.0", 13)
    assert len(cu13) == 1 and cu13[0].min_cc == "7.5" and str(cu13[0].linux_min_driver) == "580.65.06"
    assert cu13[0].supports_cuda("13.1") and not cu13[0].supports_cuda("13.2")
    rows = cudnn.support("9.10.2.21", 12)  # two 12.x rows: Blackwell needs 12.8+ and driver 570.26
    assert {str(r.linux_min_driver) for r in rows} == {"570.26", "525.60.13"}
    assert {r.min_cc for r in rows} == {"5.0"}
    assert (cudnn.support("9.10.2.21", 11)[0]).supports_cuda("11.8")
    floor = cudnn.min_cc("9.12.0.46", 12) or pytest.fail()
    assert floor.min_cc == "7.5" and floor.prov.confidence == "derived"
    assert cudnn.min_cc("9.10.2.21", 12) is None
    assert cudnn.min_cc("9.12.0", 11) is None
    cu11 = cudnn.wheel("nvidia-cudnn-cu11") or pytest.fail()
    assert str(cu11.last) == "9.10.2.21" and cu11.covers("9.11.0") is False and cu11.covers("9.1.0.70") is True
    assert str((cudnn.wheel("nvidia-cudnn-cu13") or pytest.fail()).first) == "9.12.0.46"
    assert (cudnn.wheel("nvidia-cudnn-cu13") or pytest.fail()).covers("9.11.0") is False
    assert cudnn.support("8.9.7", 12)[0].cudnn == Version("8.9.6")  # newest matrix at or below


def test_nccl_rows(matrices: Matrices) -> None:
    nccl = matrices.nccl
    assert str((nccl.image("12.4.1") or pytest.fail()).nccl) == "2.21.5"
    assert str((nccl.image("13.0.0") or pytest.fail()).nccl) == "2.27.7"
    assert nccl.image("12.7.0") is None
    assert [r.cuda for r in nccl.releases if str(r.nccl) == "2.12.10"] == [("10.2", "11.0", "11.6")]
    cu13 = nccl.wheel("nvidia-nccl-cu13") or pytest.fail()
    assert str(cu13.first) == "2.27.7" and cu13.covers("2.26.2") is False and cu13.covers("2.40.0") is None
    assert str((nccl.wheel("NVIDIA-NCCL-CU11") or pytest.fail()).last) == "2.21.5"


def test_cuda_image_rows(matrices: Matrices) -> None:
    images = matrices.cuda_images
    assert parse_image_tag("nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04") == ("12.4.1", "cudnn-runtime", "ubuntu22.04")
    assert parse_image_tag("latest") is None
    i124 = images.image("nvcr.io/nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04") or pytest.fail()
    assert (i124.cudnn, i124.cudnn_flavor, str(i124.require_cuda)) == ("9.1.0.70", "cudnn", "12.4")
    assert i124.compat_branches == (470, 525, 535)
    assert i124.accepts_driver("535.104.05", "Tesla") is True
    assert i124.accepts_driver("550.54.15") is False  # 550 natively supports 12.4: judged by the cuda>= clause
    i125 = images.image("12.5.1") or pytest.fail()
    assert "geforce" not in i125.brands and "grid" in i125.brands
    assert i125.accepts_driver("535.161.07", "geforce") is False
    i130 = images.image("13.0.0") or pytest.fail()
    assert "ubuntu20.04" not in i130.os and "ubuntu24.04" in i130.os and i130.cudnn == "9.12.0.46"
    assert (images.image("12.3.2") or pytest.fail()).cudnn_flavor == "cudnn9"
    assert (images.image("11.8.0") or pytest.fail()).cudnn_flavor == "cudnn8"
    assert "ubuntu24.04" not in (images.image("12.4.1") or pytest.fail()).os
    flavors = {f.name: f for f in images.flavors}
    assert Version("12.4.1") in (flavors["cudnn-runtime"].cuda or pytest.fail())
    assert Version("12.3.2") not in (flavors["cudnn-runtime"].cuda or pytest.fail())


def test_cuda_image_os_python_rows(matrices: Matrices) -> None:
    images = matrices.cuda_images
    assert {"ubuntu20.04", "ubuntu22.04", "ubuntu24.04", "debian12"} <= {o.tag for o in images.oses}
    for row in images.oses:  # every row's default is one of its minors, and the OS tags are the images' own
        assert row.python(row.python_default) is not None, row.tag
        assert row.tag == "debian12" or any(row.tag in i.os for i in images.images), row.tag
    jammy = images.os_for("ubuntu22.04") or pytest.fail()
    assert (jammy.family, jammy.python_default) == ("apt", "3.10")
    assert jammy.python("3.10") == OsPython("3.10", "python3", "python3-venv")
    assert jammy.python("3.11.4") == OsPython("3.11", "python3.11", "python3.11-venv")
    assert jammy.python("3.12") is None and jammy.python("3") is None and jammy.python("latest") is None
    assert images.os_for("nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04") is jammy
    assert (images.os_for("ubuntu24.04") or pytest.fail()).python_default == "3.12"
    assert (images.os_for("ubuntu20.04") or pytest.fail()).python_default == "3.8"
    assert (images.os_for("debian12") or pytest.fail()).python_default == "3.11"
    assert images.os_for("ubi9") is None  # not (yet) recorded: unknown
    assert {o.tag for o in images.oses_with_python("3.11")} == {"ubuntu22.04", "debian12"}
    assert images.oses_with_python("3.7") == ()


def test_cuda_images_os_schema_errors(tmp_path: Path) -> None:
    anchor = 'tag = "ubuntu22.04"\nfamily = "apt"\npython_default = "3.10"\nsource = "'
    message = _broken(tmp_path, "cuda-images", anchor,
                      'tag = "ubuntu22.04"\nfamily = "pacman"\npython_default = "3.9"\nbogus = "'
                      , '\n[[os]]\ntag = "ubuntu22.04"\nfamily = "apt"\npython_default = "3.10"\n'
                      'confidence = "official"\n\n[[os.python]]\nversion = "three"\npackage = "python3"\n'
                      'venv_package = "python3-venv"\n')
    assert "family must be one of" in message
    assert "python_default 3.9 is not one of its [[os.python]] versions" in message
    assert "unknown key(s) bogus" in message and "missing 'source'" in message  # the source key was renamed
    assert "version 'three' must be a Python minor" in message
    assert "an os needs at least one [[os.python]]" in message
    assert "duplicate tag 'ubuntu22.04'" in message
    message = _broken(tmp_path / "b", "cuda-images", 'version = "3.11"\npackage = "python3.11"',
                      'version = "3.10"\npackage = "python3.11"')
    assert "duplicate version '3.10'" in message


def test_gpu_peak_rows(matrices: Matrices) -> None:
    peaks, arch = matrices.gpu_peaks, matrices.gpu_arch
    for gpu in peaks.gpus:  # every name is one gpu-arch.toml knows, with the same compute capability
        assert (arch.lookup_name(gpu.name) or pytest.fail(gpu.name)).cc == gpu.cc
    h100 = peaks.lookup_name("NVIDIA H100 80GB HBM3") or pytest.fail()
    assert (h100.tensor_bf16_tflops, h100.bandwidth_gbs, h100.memory_gb) == (989, 3350, 80)
    t4 = peaks.lookup_name("Tesla T4") or pytest.fail()
    assert t4.bf16 is False and t4.tensor_bf16_tflops is None and t4.tensor_fp16_tflops == 65
    l4 = peaks.lookup_name("NVIDIA L4") or pytest.fail()
    assert l4.confirmed("fp32_tflops") and not l4.confirmed("tensor_bf16_tflops")
    assert not (peaks.lookup_name("B200") or pytest.fail()).confirmed("fp32_tflops")
    r5090 = peaks.lookup_name("NVIDIA GeForce RTX 5090") or pytest.fail()
    assert r5090.tensor_bf16_tflops is None and r5090.tensor_fp16_fp16acc_tflops == 419


# ---- schema checks of the new loaders ----------------------------------------------------------


def _broken(tmp_path: Path, name: str, old: str, new: str, extra: str = "") -> str:
    root = _copy(tmp_path)
    path = root / f"{name}.toml"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1) + extra)
    with pytest.raises(MatrixSchemaError) as err:
        load_matrices(root).load_all()
    return str(err.value)


def test_jax_schema_errors(tmp_path: Path) -> None:
    message = _broken(tmp_path, "jax", 'plugin = "jax-cuda13-plugin"', 'plugin = "jax-cuda12-plugin"\nbogus = 1',
                      '\n[[release]]\nversion = "0.9.0"\npython = ">=3.11"\nsource = "https://example.org"\n'
                      'confidence = "official"\n')
    assert "must be 'jax-cuda13-plugin'" in message
    assert "unknown key(s) bogus" in message
    assert "must be older than the row before it" in message


def test_cudnn_and_nccl_schema_errors(tmp_path: Path) -> None:
    message = _broken(tmp_path, "cudnn", 'last = "9.10.2.21"', 'last = "9.10.2.21"\nnewest_seen = "9.11.0"')
    assert "not both" in message
    message = _broken(tmp_path / "b", "cudnn", 'cuda = ">=13.0,<13.2"', 'cuda = ">=12.0,<13.0"')
    assert "admits no CUDA 13.x" in message
    message = _broken(tmp_path / "e", "cudnn", 'max_cc = "12.0"', 'max_cc = "7.0"')
    assert "max_cc 7.0 is below min_cc 7.5" in message
    message = _broken(tmp_path / "c", "nccl", 'cuda_image = "12.9.1"', 'cuda_image = "13.1.0"')
    assert "must be older than the row before it" in message
    message = _broken(tmp_path / "d", "nccl", 'distribution = "nvidia-nccl-cu12"', 'distribution = "nvidia-nccl-cu11"')
    assert "must be lower-case nvidia-...-cu12" in message and "duplicate distribution" in message


def test_cuda_images_and_peaks_schema_errors(tmp_path: Path) -> None:
    message = _broken(tmp_path, "cuda-images", 'require_cuda = "12.4"', 'require_cuda = "12.3"')
    assert "does not match image 12.4.1" in message
    message = _broken(tmp_path / "b", "cuda-images", 'compat_branches = [470, 525, 535]\nbrands',
                      'compat_branches = [535, 470]\nbrands')
    assert "ascending" in message
    message = _broken(tmp_path / "e", "cuda-images", 'cudnn_flavor = "cudnn9"', 'cudnn_flavor = "cudnn7"')
    assert "cudnn_flavor must be one of" in message
    message = _broken(tmp_path / "c", "gpu-peaks", 'unconfirmed = ["bandwidth_gbs", "fp32_tflops"]',
                      'unconfirmed = ["fp32_tflops", "tensor_fp16_fp16acc_tflops"]')
    assert "which has no value" in message
    message = _broken(tmp_path / "d", "gpu-peaks", "bf16 = false\ntensor_fp16_tflops = 65",
                      "bf16 = false\ntensor_fp16_tflops = 65\ntensor_bf16_tflops = 1")
    assert "bf16 = false but tensor_bf16_tflops is given" in message


def test_gpu_series_fill_in_unlisted_names(matrices: Matrices) -> None:
    ga = matrices.gpu_arch
    assert (ga.lookup_name("3060ti") or pytest.fail()).cc == "8.6"
    assert (ga.lookup_name("GTX 1080") or pytest.fail()).cc == "6.1"
    assert (ga.lookup_name("NVIDIA GeForce RTX 4080 Laptop GPU") or pytest.fail()).cc == "8.9"
    # Series rules must not swallow professional cards with similar numbers (Turing Quadro, Ada workstation).
    for name, cc in (("Quadro RTX 4000", "7.5"), ("RTX 5000 Ada Generation", "8.9")):
        row = ga.lookup_name(name)
        assert row is None or row.cc == cc, (name, row)
    assert ga.lookup_name("Voodoo 5 6000") is None


# ---- paddle ------------------------------------------------------------------------------------


def test_paddle_rows(matrices: Matrices) -> None:
    """PaddlePaddle 1.8 and 2.0-3.2: default-index build, .postNNN builds, Paddle's per-CUDA indexes (3.x)."""
    paddle = matrices.paddle
    assert [r.version for r in paddle.releases] == ["3.2", "3.1", "3.0", *(f"2.{n}" for n in range(6, -1, -1)), "1.8"]
    # 1.x local versions name CUDA major + cuDNN major (post97, post107), not a .postNNN CUDA build
    assert paddle.build("1.8.2.post107") is None and (paddle.build("1.8.2") or pytest.fail()).cuda == "10.0"
    assert str(paddle.newest()) == "3.2"
    r26 = paddle.release("2.6.1.post120") or pytest.fail()
    assert r26.default_variant == "cu118" and "3.12" in r26.python and "3.7" not in r26.python
    assert {v.tag for v in r26.variants} == {"cu112", "cu116", "cu117", "cu118", "cu120"}
    build = paddle.build("2.6.1.post120") or pytest.fail()
    assert (build.cuda, build.cudnn) == ("12.0", "8.9")
    assert (paddle.build("2.6.2") or pytest.fail()).tag == "cu118"  # unsuffixed 2.x: the default-index build
    assert (paddle.build("2.5.2") or pytest.fail()).tag == "cu112"
    assert (paddle.build("2.2.2") or pytest.fail()).cuda == "10.2"
    assert (paddle.build("2.0.2.post90") or pytest.fail()).cuda == "9.0"
    assert "2.7" in (paddle.release("2.0.0") or pytest.fail()).python
    r32 = paddle.release("3.2.0") or pytest.fail()
    assert r32.default_variant is None  # no 3.x paddlepaddle-gpu on the default index
    assert paddle.build("3.2.0") is None  # 3.x builds are unsuffixed: read paddle/version/__init__.py
    cu126 = r32.variant("cu126") or pytest.fail()
    assert cu126.cudnn == "9.0" and cu126.index_url == "https://www.paddlepaddle.org.cn/packages/stable/cu126/"
    assert "3.13" in r32.python and "3.8" not in r32.python
    assert ((paddle.release("2.4.2") or pytest.fail()).variant("cu102") or pytest.fail()).min_cc == "3.5"
    assert paddle.release("1.7.2") is None and paddle.build("not a version") is None
    for release in paddle.releases:
        for variant in release.variants:
            assert variant.min_driver is None  # not stated in any document read: unknown, never guessed
            unsuffixed = variant.tag == release.default_variant or Version(release.version).major >= 3
            if Version(release.version).major >= 2:  # 1.x suffixes name CUDA + cuDNN majors (post97): not a post field
                assert (variant.post is None) == unsuffixed, (release.version, variant.tag)
        assert release.prov.source and release.prov.confidence in ("official", "transcribed", "derived")


def test_paddle_version_fields(matrices: Matrices) -> None:
    """paddle/version/__init__.py, as setup.py writes it: CPU builds hold the string 'False'."""
    paddle = matrices.paddle
    for name in ("full_version", "cuda_version", "cudnn_version", "commit", "istaged"):
        assert paddle.field(name) is not None, name
    assert (paddle.field("cuda_version") or pytest.fail()).cpu_value == "False"
    assert paddle.field("with_gpu") is None  # there is no such field
    assert (paddle.field("compiled_cuda_archs") or pytest.fail()).prov.confidence == "transcribed"


def test_paddle_schema_errors(tmp_path: Path) -> None:
    message = _broken(tmp_path, "paddle", 'post = "post117"', 'post = "post116"\nbogus = 1')
    assert "must be 'post117'" in message and "unknown key(s) bogus" in message
    message = _broken(tmp_path / "b", "paddle", 'tag = "cu129"', 'tag = "cu128"')
    assert "tag cu128 does not match cuda 12.9" in message
    message = _broken(tmp_path / "c", "paddle", 'default_variant = "cu118"', 'default_variant = "cu120"')
    assert "the default-index wheel has none" in message
    message = _broken(tmp_path / "d", "paddle", 'version = "2.5"', 'version = "2.7"')
    assert "must be older than the row before it" in message


@pytest.mark.parametrize(("name", "cc"), [
    ("NVIDIA GB200", "10.0"), ("NVIDIA GB300", "10.3"), ("NVIDIA B200", "10.0"), ("NVIDIA B300 SXM6 AC", "10.3"),
    ("NVIDIA GH200 480GB", "9.0"), ("NVIDIA GH200 144G HBM3e", "9.0"), ("NVIDIA GB10", "12.1"),
    ("Orin (nvgpu)", "8.7"), ("NVIDIA H800", "9.0"), ("NVIDIA A800-SXM4-80GB", "8.0"), ("NVIDIA H20", "9.0"),
    ("NVIDIA L20", "8.9"), ("NVIDIA RTX 6000 Ada Generation", "8.9"), ("NVIDIA GeForce RTX 4090 D", "8.9"),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"),
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "12.0"), ("NVIDIA RTX PRO 5000 Blackwell", "12.0"),
    ("NVIDIA RTX PRO 4500 Blackwell", "12.0"), ("NVIDIA RTX PRO 4000 Blackwell", "12.0"),
    ("NVIDIA RTX PRO 2000 Blackwell", "12.0"), ("NVIDIA H100 NVL", "9.0"), ("NVIDIA H200 NVL", "9.0"),
    ("NVIDIA A100-PCIE-40GB", "8.0"),
])
def test_gpu_names_nvidia_smi_prints_resolve(matrices: Matrices, name: str, cc: str) -> None:
    assert (matrices.gpu_arch.lookup_name(name) or pytest.fail(name)).cc == cc


def test_late_2026_releases_are_known(matrices: Matrices) -> None:
    t215 = matrices.torch.release("2.15.0") or pytest.fail()
    assert t215.pypi_default == "cu132" and "3.15" in t215.python and "3.10" not in t215.python
    assert (t215.variant("cu132") or pytest.fail()).cudnn == "9.26.0.51"
    cu128 = (matrices.torch.release("2.10.0") or pytest.fail()).variant("cu128") or pytest.fail()
    assert cu128.sass is not None and cu128.sass[0] == "7.0" and cu128.ptx == ()
    assert str(matrices.cuda_driver.newest()) == "13.5.0"
    assert matrices.cuda_driver.knows(Version("13.4.2"))


def test_parsed_matrices_are_cached_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading TOML is most of a matrix's load time; a JSON cache keyed by the file's content skips it, and a
    changed file is parsed again (the TOML stays the only source)."""
    import shutil

    cache = tmp_path / "cache"
    monkeypatch.setenv("ENVGUARD_CACHE_DIR", str(cache))
    root = tmp_path / "m"
    shutil.copytree(Path(__file__).resolve().parent.parent / "matrices", root)
    first = load_matrices(root).torch
    entries = sorted(p.name for p in cache.glob("matrix-torch-*.json"))
    assert len(entries) == 1
    assert load_matrices(root).torch == first  # read back from the cache, equal to the parsed one
    text = (root / "torch.toml").read_text(encoding="utf-8")
    (root / "torch.toml").write_text(text + "\n# a comment changes the content\n", encoding="utf-8")
    _ = load_matrices(root).torch
    assert sorted(p.name for p in cache.glob("matrix-torch-*.json")) != entries  # re-parsed, old entry replaced
    assert len(list(cache.glob("matrix-torch-*.json"))) == 1
    (cache / next(iter(p.name for p in cache.glob("matrix-torch-*.json")))).write_text("{not json", encoding="utf-8")
    assert load_matrices(root).torch == first  # a broken cache entry is ignored
    monkeypatch.setenv("ENVGUARD_CACHE_DIR", "")
    assert load_matrices(root).torch == first  # cache off


def test_headers_are_cached_beside_the_tables_and_a_changed_header_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The staleness check reads every file's header; those go through the same cache, in entries of their own
    that replacing a table's entry never removes (and the other way round)."""
    import datetime as dt
    import shutil

    cache = tmp_path / "cache"
    monkeypatch.setenv("ENVGUARD_CACHE_DIR", str(cache))
    root = tmp_path / "m"
    shutil.copytree(Path(__file__).resolve().parent.parent / "matrices", root)
    first = {m.name: m for m in load_matrices(root).headers()}
    assert len(list(cache.glob("matrix-*-header-*.json"))) == len(first)
    _ = load_matrices(root).cuda_driver
    assert load_matrices(root).headers() == tuple(first.values())  # from the cache, equal
    text = (root / "cuda-driver.toml").read_text(encoding="utf-8")
    old = f"retrieved = {first['cuda-driver'].retrieved.isoformat()}"
    assert old in text
    (root / "cuda-driver.toml").write_text(text.replace(old, "retrieved = 2031-01-02", 1), encoding="utf-8")
    fresh = load_matrices(root)
    assert {m.name: m for m in fresh.headers()}["cuda-driver"].retrieved == dt.date(2031, 1, 2)
    _ = fresh.cuda_driver  # its table entry is replaced; the header entries stay
    assert len(list(cache.glob("matrix-cuda-driver-header-*.json"))) == 1
    assert len(list(cache.glob("matrix-cuda-driver-[0-9a-f]*.json"))) == 1
    assert len(list(cache.glob("matrix-*-header-*.json"))) == len(first)


def test_first_toolkit_of_a_major_and_of_an_exact_architecture_differ() -> None:
    """No kernels at all (a toolkit before the whole major) vs no SASS for this exact architecture (gpu-arch.toml)."""
    from envguard.knowledge import load_matrices

    arch = load_matrices().gpu_arch
    row = arch.arch("8.6")
    assert row is not None and str(row.first_cuda) == "11.1"       # sm_86 SASS: CUDA 11.1
    assert str(arch.first_cuda_of_major("8.6")) == "11.0"          # sm_80 SASS (runs on 8.6): CUDA 11.0
    assert str(arch.first_cuda_of_major("12.1")) == "12.8"
    assert arch.first_cuda_of_major("99.0") is None                 # unknown is unknown
