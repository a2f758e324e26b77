"""The shipped matrices validate, carry provenance, and state the facts the rules depend on."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from envguard.errors import MatrixError, MatrixSchemaError
from envguard.matrix import MATRIX_NAMES, Matrices, load_matrices
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
    assert cd.floor("9.0") is None  # unknown is a valid answer
    assert str(cd.native_driver("12.4")) == "550.54.14"


def test_torch_rows(matrices: Matrices) -> None:
    release = matrices.torch.release("2.5.1+cu124") or pytest.fail()
    assert release.pypi_default == "cu124"
    variant = release.variant("cu124") or pytest.fail()
    assert variant.cudnn == "9.1.0.70"
    assert variant.sass == ("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0")
    assert "3.12" in release.python and "3.13" not in release.python
    assert str(matrices.torch.newest()) == "2.14"
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
