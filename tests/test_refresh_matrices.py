"""scripts/refresh_matrices.py: facts derived from recorded package metadata, and the check against the matrices."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "refresh_matrices.py"
METADATA = Path(__file__).resolve().parent / "data" / "metadata"
MATRICES = ROOT / "matrices"
FIXTURES = ("torch-2.5.1", "torch-2.13.0", "torch-2.1.0", "tensorflow-2.18.0", "tensorflow-2.16.1")
#: Built from parts so that no package-index hostname is written in this repository.
INDEX_FILES_HOST = ".".join(("files", "pythonhosted", "org"))


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("refresh_matrices", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


rm = _load_script()


def _fixture(name: str) -> Path:
    return METADATA / f"{name}.json"


def _derive(name: str) -> Any:
    [derived] = rm.derive_files([_fixture(name)])
    return derived


def _report(requires: list[str], version: str = "2.5.1", name: str = "torch",
            wheel: str = "torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl") -> dict[str, Any]:
    return {
        "version": "1",
        "install": [{
            "download_info": {"url": wheel},
            "metadata": {"name": name, "version": version, "requires_dist": requires, "requires_python": ">=3.9"},
        }],
    }


def _write(tmp_path: Path, report: dict[str, Any], name: str = "report.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(report))
    return path


# ---- the recorded fixtures -----------------------------------------------------------------


def test_fixtures_are_recorded_and_described() -> None:
    assert sorted(p.stem for p in METADATA.glob("*.json")) == sorted(FIXTURES)
    readme = (METADATA / "README.md").read_text()
    for name in FIXTURES:
        assert f"`{name}.json`" in readme


def test_fixtures_name_no_package_index_host() -> None:
    for path in METADATA.iterdir():
        assert not re.search(r"pythonhosted|pypi\.org", path.read_text(), re.IGNORECASE), path
    for name in FIXTURES:
        report = json.loads(_fixture(name).read_text())
        [item] = report["install"]
        assert "/" not in item["download_info"]["url"] and item["download_info"]["url"].endswith(".whl")
        assert "description" not in item["metadata"]


# ---- derive --------------------------------------------------------------------------------


def test_derive_torch_2_5_1() -> None:
    d = _derive("torch-2.5.1")
    assert (d.name, d.version, d.series) == ("torch", "2.5.1", "2.5")
    assert d.file == "torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl"
    assert d.wheel_python == ("3.11",)
    assert d.requires_python == ">=3.8.0"
    assert d.platforms == ("manylinux1_x86_64",)
    assert (d.cuda, d.tag, d.cudnn, d.nccl, d.local) == ("12.4", "cu124", "9.1.0.70", "2.21.5", None)
    assert d.cuda_from == "nvidia-cuda-runtime-cu12==12.4.127"
    assert d.pins["nvidia-cublas-cu12"] == "==12.4.5.8"
    assert len(d.pins) == 12 and d.and_cuda == {} and d.notes == ()


def test_derive_torch_2_13_0_cuda13_meta_package() -> None:
    d = _derive("torch-2.13.0")
    assert d.wheel_python == ("3.11",) and d.requires_python == ">=3.10"
    assert d.platforms == ("manylinux_2_28_x86_64",)
    assert (d.cuda, d.tag, d.cudnn, d.nccl) == ("13.0", "cu130", "9.20.0.48", "2.29.7")
    assert d.cuda_from == (
        "cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.0.3"
    )
    assert d.pins == {
        "cuda-toolkit": "==13.0.3",
        "nvidia-cudnn-cu13": "==9.20.0.48",
        "nvidia-cusparselt-cu13": "==0.8.1",
        "nvidia-nccl-cu13": "==2.29.7",
        "nvidia-nvshmem-cu13": "==3.4.5",
    }


def test_derive_torch_2_1_0() -> None:
    d = _derive("torch-2.1.0")
    assert d.wheel_python == ("3.11",) and d.requires_python == ">=3.8.0"
    assert (d.cuda, d.tag, d.cudnn, d.nccl) == ("12.1", "cu121", "8.9.2.26", "2.18.1")
    assert d.cuda_from == "nvidia-cuda-runtime-cu12==12.1.105"


def test_derive_tensorflow_and_cuda_pins() -> None:
    d = _derive("tensorflow-2.18.0")
    assert (d.name, d.version, d.wheel_python, d.requires_python) == ("tensorflow", "2.18.0", ("3.11",), ">=3.9")
    assert d.platforms == ("manylinux2014_x86_64", "manylinux_2_17_x86_64")
    assert d.pins == {}
    assert d.and_cuda == {
        "nvidia-cublas-cu12": "==12.5.3.2",
        "nvidia-cuda-cupti-cu12": "==12.5.82",
        "nvidia-cuda-nvcc-cu12": "==12.5.82",
        "nvidia-cuda-nvrtc-cu12": "==12.5.82",
        "nvidia-cuda-runtime-cu12": "==12.5.82",
        "nvidia-cudnn-cu12": "==9.3.0.75",
        "nvidia-cufft-cu12": "==11.2.3.61",
        "nvidia-curand-cu12": "==10.3.6.82",
        "nvidia-cusolver-cu12": "==11.6.3.83",
        "nvidia-cusparse-cu12": "==12.5.1.3",
        "nvidia-nccl-cu12": "==2.21.5",
        "nvidia-nvjitlink-cu12": "==12.5.82",
    }
    assert (d.cuda, d.cudnn, d.nccl) == ("12.5", "9.3.0.75", "2.21.5")
    old = _derive("tensorflow-2.16.1")
    assert (old.cuda, old.cudnn, old.nccl) == ("12.3", "8.9.7.29", "2.19.3")
    assert old.and_cuda["nvidia-cuda-nvcc-cu12"] == "==12.3.107" and len(old.and_cuda) == 12


def test_derive_toml_fragment() -> None:
    text = rm.toml_fragment(_derive("torch-2.5.1"))
    for line in ('version = "2.5"', 'pypi_default = "cu124"', 'tag = "cu124"', 'cuda = "12.4"',
                 'cudnn = "9.1.0.70"', 'nccl = "2.21.5"', 'source = "package metadata: torch 2.5.1"'):
        assert line in text.splitlines() or f"  {line}" in text.splitlines(), line
    tf = rm.toml_fragment(_derive("tensorflow-2.16.1"))
    assert 'nvidia-cudnn-cu12 = "==8.9.7.29"' in tf and 'version = "2.16"' in tf


def test_derive_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(_fixture("torch-2.5.1")), str(_fixture("tensorflow-2.18.0"))]
    assert rm.main(["derive", "--format", "json", *paths]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(d["name"], d["tag"], d["cudnn"]) for d in data] == [("torch", "cu124", "9.1.0.70"),
                                                                 ("tensorflow", None, "9.3.0.75")]


@pytest.mark.parametrize(("wheel", "pythons"), [
    ("torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl", ("3.11",)),
    ("x-1.0-cp39-abi3-manylinux_2_17_x86_64.whl", ()),
    ("x-1.0-py3-none-any.whl", ()),
    ("x-1.0-cp310-cp310-linux_x86_64.whl", ("3.10",)),
])
def test_wheel_tags_give_python_versions(wheel: str, pythons: tuple[str, ...]) -> None:
    assert rm.wheel_tags(wheel)[0] == pythons
    assert rm.wheel_tags(wheel)[2] is True


def test_not_version_specific_wheel_leaves_python_to_requires_python() -> None:
    d = rm.derive_report(_report([], name="x", version="1.0", wheel="x-1.0-py3-none-any.whl"))[0]
    assert d.wheel_python == () and d.requires_python == ">=3.9"
    assert any("Requires-Python" in n for n in d.notes)
    sdist = rm.derive_report(_report([], name="x", version="1.0", wheel="x-1.0.tar.gz"))[0]
    assert sdist.wheel_python == () and any("not a wheel" in n for n in sdist.notes)


def test_cuda13_unsuffixed_runtime_and_cuda11_pins() -> None:
    linux = '; platform_system == "Linux" and platform_machine == "x86_64"'
    d = rm.derive_report(_report([f"nvidia-cuda-runtime==13.0.96{linux}", f"nvidia-cudnn-cu13==9.13.0.50{linux}",
                                  f"nvidia-nccl-cu13==2.27.7{linux}"], version="2.9.0"))[0]
    assert (d.cuda, d.tag, d.cudnn, d.nccl) == ("13.0", "cu130", "9.13.0.50", "2.27.7")
    old = rm.derive_report(_report([f"nvidia-cuda-runtime-cu11==11.7.99{linux}", f"nvidia-cudnn-cu11==8.5.0.96{linux}"],
                                   version="1.13.0"))[0]
    assert (old.cuda, old.tag, old.cudnn, old.nccl) == ("11.7", "cu117", "8.5.0.96", None)


def test_only_linux_x86_64_pins_count() -> None:
    d = rm.derive_report(_report([
        'nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Linux" and platform_machine == "aarch64"',
        'nvidia-cuda-runtime-cu12==12.6.77; platform_system == "Linux" and platform_machine == "x86_64"',
        'nvidia-nccl-cu12==2.26.2; platform_system == "Windows"',
        "nvidia-cudnn-cu12==9.5.1.17; extra == 'cudnn'",
    ]))[0]
    assert d.pins == {"nvidia-cuda-runtime-cu12": "==12.6.77"}
    assert (d.tag, d.cudnn, d.nccl) == ("cu126", None, None)


def test_torch_without_pins_is_not_derivable() -> None:
    d = rm.derive_report(_report(["filelock", "typing-extensions"], version="1.12.1"))[0]
    assert d.tag is None and d.cuda is None
    assert any("not derivable" in n for n in d.notes)
    local = rm.derive_report(_report([], version="2.13.0+cpu"))[0]
    assert (local.local, local.tag) == ("cpu", "cpu")


# ---- check ---------------------------------------------------------------------------------


def test_check_agrees_with_shipped_matrices() -> None:
    comparisons = rm.check_files([_fixture(n) for n in FIXTURES], MATRICES)
    failing = [c for c in comparisons if c.status in rm.FAILING]
    assert failing == []
    assert {c.status for c in comparisons} == {"agree"}
    agreed = {(c.package, c.version, c.field): c.matrix for c in comparisons if c.status == "agree"}
    assert agreed[("torch", "2.5.1", "pypi_default")] == "cu124"
    assert agreed[("torch", "2.5.1", "cu124.cudnn")] == "9.1.0.70"
    assert agreed[("torch", "2.5.1", "cu124.nccl")] == "2.21.5"
    assert agreed[("torch", "2.13.0", "pypi_default")] == "cu130"
    assert agreed[("torch", "2.13.0", "cu130.cudnn")] == "9.20.0.48"
    assert agreed[("torch", "2.1.0", "cu121.nccl")] == "2.18.1"
    assert agreed[("tensorflow", "2.18.0", "and_cuda.nvidia-cudnn-cu12")] == "==9.3.0.75"
    assert agreed[("tensorflow", "2.16.1", "and_cuda.nvidia-nccl-cu12")] == "==2.19.3"
    assert sum(c.field == "python" for c in comparisons) == 5
    # The cupti pins of the [and-cuda] extra were added to the rows after this check first flagged them.
    assert agreed[("tensorflow", "2.18.0", "and_cuda.nvidia-cuda-cupti-cu12")] == "==12.5.82"
    assert agreed[("tensorflow", "2.16.1", "and_cuda.nvidia-cuda-cupti-cu12")] == "==12.3.101"


def test_check_cli_exit_0_when_all_agree(capsys: pytest.CaptureFixture[str]) -> None:
    assert rm.main(["check", *(str(_fixture(n)) for n in FIXTURES)]) == 0
    out = capsys.readouterr().out
    assert "summary: 41 agree, 0 differ, 0 missing, 0 unknown, 0 unrecorded" in out
    assert "DIFFER" not in out


def _edited_matrices(tmp_path: Path) -> Path:
    """A copy of the shipped matrices with torch 2.5's cu124 cuDNN changed to 9.1.0.71."""
    root = tmp_path / "matrices"
    shutil.copytree(MATRICES, root)
    path = root / "torch.toml"
    text = path.read_text()
    at = text.index('tag = "cu124"', text.index('[[release]]\nversion = "2.5"\n'))
    at = text.index('cudnn = "9.1.0.70"', at)
    path.write_text(text[:at] + 'cudnn = "9.1.0.71"' + text[at + len('cudnn = "9.1.0.70"'):])
    return root


def test_check_reports_an_edited_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _edited_matrices(tmp_path)
    comparisons = rm.check_files([_fixture(n) for n in FIXTURES], root)
    assert [(c.package, c.version, c.field, c.status, c.matrix, c.metadata)
            for c in comparisons if c.status in rm.FAILING] == [
        ("torch", "2.5.1", "cu124.cudnn", "differ", "9.1.0.71", "9.1.0.70"),
    ]
    assert rm.main(["check", "--matrices", str(root), str(_fixture("torch-2.5.1"))]) == 1
    out = capsys.readouterr().out
    expected = r"DIFFER\s+cu124\.cudnn\s+matrix 9\.1\.0\.71, metadata 9\.1\.0\.70 \(nvidia-cudnn-cu12==9\.1\.0\.70\)"
    assert re.search(expected, out), out
    assert "update the rows marked DIFFER / MISSING" in out


def test_check_json_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _edited_matrices(tmp_path)
    assert rm.main(["check", "--format", "json", "--matrices", str(root), str(_fixture("torch-2.5.1"))]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [c["field"] for c in data if c["status"] == "differ"] == ["cu124.cudnn"]


def test_check_differences_in_python_tag_and_pins(tmp_path: Path) -> None:
    linux = '; platform_system == "Linux" and platform_machine == "x86_64"'
    report = _report([f"nvidia-cuda-runtime-cu12==12.1.105{linux}", f"nvidia-nccl-cu12==2.20.5{linux}"],
                     wheel="torch-2.5.1-cp38-cp38-manylinux1_x86_64.whl")
    comparisons = rm.check_files([_write(tmp_path, report)], MATRICES)
    assert {c.field: c.status for c in comparisons} == {
        "python": "differ", "pypi_default": "differ", "cu121.cuda": "agree", "cu121.cudnn": "unknown",
        "cu121.nccl": "missing",
    }
    tf = _report(["nvidia-cudnn-cu12==9.3.0.76; extra == 'and-cuda'"], name="tensorflow", version="2.18.0",
                 wheel="tensorflow-2.18.0-cp311-cp311-manylinux_2_17_x86_64.whl")
    tf_cmp = rm.check_files([_write(tmp_path, tf, "tf.json")], MATRICES)
    statuses = {c.field: c.status for c in tf_cmp}
    assert statuses["and_cuda.nvidia-cudnn-cu12"] == "differ"
    assert statuses["and_cuda.nvidia-nccl-cu12"] == "differ"  # pinned by the row, absent from the extra


def test_check_unknown_series_is_missing(tmp_path: Path) -> None:
    comparisons = rm.check_files([_write(tmp_path, _report([], version="9.9.0"))], MATRICES)
    assert [(c.field, c.status, c.metadata) for c in comparisons] == [("release", "missing", "9.9")]


# ---- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read"),
    ("{not json", "not JSON"),
    ('{"hello": 1}', "not a pip installation report"),
    ('{"version": "1", "install": [{"metadata": {}}]}', "install[0] lacks metadata"),
])
@pytest.mark.parametrize("command", ["derive", "check"])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         content: str | None, message: str, command: str) -> None:
    path = tmp_path / "report.json"
    if content is not None:
        path.write_text(content)
    assert rm.main([command, str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith("refresh_matrices: error: ") and message in captured.err


def test_bad_matrices_folder_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert rm.main(["check", "--matrices", str(tmp_path / "none"), str(_fixture("torch-2.5.1"))]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    broken = tmp_path / "broken"
    shutil.copytree(MATRICES, broken)
    (broken / "torch.toml").write_text("schema_version = 1\nname = [\n")
    assert rm.main(["check", "--matrices", str(broken), str(_fixture("torch-2.5.1"))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


# ---- fetch (no network: pip is replaced) ---------------------------------------------------


def _pip_report(version: str = "2.5.1") -> dict[str, Any]:
    return {
        "version": "1",
        "pip_version": "23.2.1",
        "install": [{
            "download_info": {
                "url": f"https://{INDEX_FILES_HOST}/packages/d1/35/e8b2/torch-{version.replace('+', '%2B')}"
                       "-cp311-cp311-manylinux1_x86_64.whl",
                "archive_info": {"hash": "sha256=00"},
            },
            "is_direct": False,
            "requested": True,
            "metadata": {
                "name": "torch", "version": version, "description": "long README ...",
                "summary": f"see https://{INDEX_FILES_HOST}/x and {INDEX_FILES_HOST}",
                "requires_dist": ['nvidia-cudnn-cu12 (==9.1.0.70) ; platform_system == "Linux"'],
            },
        }],
        "environment": {"python_version": "3.11"},
    }


def test_strip_report_keeps_file_names_only() -> None:
    original = _pip_report()
    stripped = rm.strip_report(original)
    [item] = stripped["install"]
    assert item["download_info"]["url"] == "torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl"
    assert item["download_info"]["archive_info"] == {"hash": "sha256=00"}
    assert "description" not in item["metadata"]
    assert "pythonhosted" not in json.dumps(stripped)
    assert item["metadata"]["summary"] == "see <URL removed> and <URL removed>"
    assert original["install"][0]["metadata"]["description"] == "long README ..."  # the input is not changed
    assert rm.file_name("file:///opt/wheels/torch-2.13.0%2Bcpu-cp311-cp311-linux_x86_64.whl") == (
        "torch-2.13.0+cpu-cp311-cp311-linux_x86_64.whl")


def test_pip_command_is_metadata_only_on_the_default_index() -> None:
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    cmd = rm.pip_command("torch==2.5.1", Path("r.json"), here, None)
    assert cmd[:4] == [sys.executable, "-m", "pip", "install"]
    assert {"--dry-run", "--ignore-installed", "--no-deps", "--quiet", "--report"} <= set(cmd)
    assert cmd[-1] == "torch==2.5.1" and "--python-version" not in cmd
    assert not any("index" in part or "://" in part for part in cmd)
    other = rm.pip_command("torch==2.5.1", Path("r.json"), "3.9", "manylinux_2_28_x86_64")
    assert other[other.index("--python-version") + 1] == "3.9"
    assert other[other.index("--platform") + 1] == "manylinux_2_28_x86_64"
    assert "--only-binary=:all:" in other


class _FakePip:
    def __init__(self, report: dict[str, Any], returncode: int = 0) -> None:
        self.report = report
        self.returncode = returncode
        self.calls: list[list[str]] = []

    def __call__(self, cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        self.calls.append(cmd)
        assert kwargs["timeout"] > 0
        if self.returncode == 0:
            Path(cmd[cmd.index("--report") + 1]).write_text(json.dumps(self.report))
        return subprocess.CompletedProcess(cmd, self.returncode, "", "ERROR: No matching distribution found")


def test_fetch_writes_a_stripped_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    fake = _FakePip(_pip_report())
    monkeypatch.setattr(rm.subprocess, "run", fake)
    assert rm.main(["fetch", "torch==2.5.1", "--python", "3.11", "-o", str(tmp_path / "out")]) == 0
    target = tmp_path / "out" / "torch-2.5.1.json"
    assert capsys.readouterr().out.strip() == str(target)
    text = target.read_text()
    assert "pythonhosted" not in text
    saved = json.loads(text)
    assert saved["install"][0]["download_info"]["url"] == "torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl"
    assert saved["x_refresh_matrices"]["spec"] == "torch==2.5.1"
    assert saved["x_refresh_matrices"]["python"] == "3.11"
    assert rm.derive_files([target])[0].cudnn == "9.1.0.70"
    assert fake.calls[0][-1] == "torch==2.5.1"


def test_fetch_refuses_a_local_build_and_reports_pip_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(rm.subprocess, "run", _FakePip(_pip_report("2.13.0+cpu")))
    assert rm.main(["fetch", "torch==2.13.0", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "local build" in err and "torch===2.13.0" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(rm.subprocess, "run", _FakePip({}, returncode=1))
    assert rm.main(["fetch", "torch==99", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "pip failed (exit 1): ERROR: No matching distribution found" in err and err.count("\n") == 1
    assert rm.main(["fetch", "torch==2.5.1", "--python", "three", "-o", str(tmp_path)]) == 2
    assert "--python" in capsys.readouterr().err
