"""Companions checked against the chosen build from the wheels themselves (issue 12 item 1), the CUDA a lock
states taken from its NVIDIA wheels (item 5), targets other than this host (--for/--driver/--gpu/--cc), and the
plan `lock --json` carries even when resolving fails. Resolver tests run real uv against local wheelhouses
built from real wheels' metadata (tests/wheelhouse.py)."""

from __future__ import annotations

import http.server
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from click.testing import CliRunner
from packaging.version import Version

from envguard.cli import main
from envguard.errors import LockError
from envguard.knowledge import Matrices, load_matrices
from envguard.lock import companions, targets, wheels
from envguard.lock.request import HostFacts, driver_text, plan, series_set
from envguard.lock.spec import LockedPackage, LockTarget
from envguard.snapshot import DriverInfo, GpuInfo, HostInfo, Snapshot, Unavailable
from tests.wheelhouse import make_wheel, torch_cu130_house

H = ("sha256:" + "0" * 64,)
CU130 = LockTarget("3.11", "linux-x86_64", "13.0", "cu130", None, None, "580.65.06")


@pytest.fixture(scope="module")
def m() -> Matrices:
    return load_matrices()


def _pkgs(*pins: str) -> tuple[LockedPackage, ...]:
    return tuple(LockedPackage(p.split("==")[0], p.split("==")[1], H) for p in pins)


# ---- companions.mismatches (pure) -------------------------------------------------------------------


def test_pypi_torchvision_built_for_another_cuda_is_excluded_by_a_constraint() -> None:
    pkgs = _pkgs("torch==2.14.1", "torchvision==0.29.2", "nvidia-cuda-runtime==13.0.96")
    assert companions.needs_embedded(CU130, pkgs) == (pkgs[1],)
    bad, notes = companions.mismatches(CU130, pkgs, {"torchvision": "0.29.2+cu132"})
    assert [(b.name, b.constraint) for b in bad] == [("torchvision", "torchvision!=0.29.2")]
    assert "built for cu132 (torchvision/version.py in its wheel says 0.29.2+cu132), torch 2.14.1 for cu130" \
        in bad[0].detail
    assert notes == ()
    assert companions.mismatches(CU130, pkgs, {"torchvision": "0.29.1+cu130"}) == ((), ())


def test_unreadable_companion_build_is_a_note_not_a_silent_pass() -> None:
    pkgs = _pkgs("torch==2.14.1", "torchaudio==2.11.0")
    bad, notes = companions.mismatches(CU130, pkgs, {"torchaudio": None})
    assert bad == () and "torchaudio 2.11.0: its wheel's torchaudio/version.py could not be read" in notes[0]


def test_local_labels_decide_without_reading_wheels() -> None:
    target = LockTarget("3.11", "linux-x86_64", "12.6", "cu126")
    pkgs = _pkgs("torch==2.14.1+cu126", "torchvision==0.29.1+cu130")
    assert companions.needs_embedded(target, pkgs) == ()
    bad, _ = companions.mismatches(target, pkgs, {})
    assert bad[0].detail.startswith("torchvision 0.29.1+cu130 is built for cu130 (its version 0.29.1+cu130)")


def test_nvidia_wheels_of_another_major_and_a_default_build_of_another_cuda_are_refused() -> None:
    pkgs = _pkgs("torch==2.14.1", "nvidia-cuda-runtime==13.2.86", "nvidia-cudnn-cu12==9.10.2.21")
    bad, _ = companions.mismatches(CU130, pkgs, {})
    details = sorted(b.detail for b in bad)
    assert all(b.constraint is None for b in bad)
    assert "nvidia-cudnn-cu12 brings CUDA 12 libraries into a CUDA 13.0 lock" in details
    assert any("pins nvidia-cuda-runtime 13.2.86 (CUDA 13.2), not the cu130 build (CUDA 13.0)" in d for d in details)


def test_jax_plugin_of_another_release_is_pinned_to_jaxlib() -> None:
    target = LockTarget("3.11", "linux-x86_64", "12.8", "cuda12")
    bad, _ = companions.mismatches(target, _pkgs("jaxlib==0.7.1", "jax-cuda12-plugin==0.7.0",
                                                 "jax-cuda12-pjrt==0.7.1"), {})
    assert [(b.name, b.constraint) for b in bad] == [("jax-cuda12-plugin", "jax-cuda12-plugin==0.7.1")]


def test_wheel_target_states_what_the_nvidia_wheels_contain() -> None:
    tf = LockTarget("3.11", "linux-x86_64", "12.5", "and-cuda", "9.3", None, "525.60.13")
    pkgs = _pkgs("tensorflow==2.21.0", "nvidia-cuda-runtime-cu12==12.9.79", "nvidia-cudnn-cu12==9.28.0.42")
    target, why = companions.wheel_target(tf, pkgs)
    assert (target.cuda, target.cudnn) == ("12.9", "9.28")
    assert "nvidia-cuda-runtime-cu12 12.9.79 and nvidia-cudnn-cu12 9.28.0.42 wheels" in why[0]
    # A torch build's CUDA is its variant's: unchanged.
    assert companions.wheel_target(CU130, pkgs) == (CU130, ())


# ---- plan: sets of releases, leading zeros, targets ----------------------------------------------------


def test_series_set_admits_exactly_the_chosen_series() -> None:
    assert series_set(["2.20", "2.18"], ["2.21", "2.20", "2.19", "2.18", "2.17"]) == ">=2.18,<2.21,!=2.19.*"
    assert series_set(["2.21"], ["2.21", "2.20"]) == "==2.21.*"


def test_mixed_frameworks_give_tensorflow_every_release_of_the_cuda_major(m: Matrices) -> None:
    from packaging.requirements import Requirement

    p = plan(m, (Requirement("torch==2.10.*"), Requirement("tensorflow")), python="3.11",
             platform="linux-x86_64", cuda="12.8", host=None)
    tf_pin = next(r for r in p.requirements if r.startswith("tensorflow"))
    spec = Requirement(tf_pin).specifier
    assert spec.contains("2.20.0") and spec.contains("2.21.0")  # a set, not one release
    assert not spec.contains("1.15.0")
    tf_build = next(b for b in p.builds if b.framework == "tensorflow")
    assert "2.20" in tf_build.release and tf_build.variant == "and-cuda"


def test_driver_floor_keeps_nvidias_leading_zeros(m: Matrices) -> None:
    assert driver_text(Version("535.104.05")) == "535.104.05"
    assert driver_text(Version("450.80.2")) == "450.80.02"
    from packaging.requirements import Requirement

    p = plan(m, (Requirement("torch==2.5.*"),), python="3.11", platform="linux-x86_64", cuda="11.8", host=None)
    assert p.target.driver_floor == "450.80.02"


def test_v100_with_driver_580_gets_a_build_with_sm70_not_cu130(m: Matrices) -> None:
    from packaging.requirements import Requirement

    host = targets.manual(m, driver="580.65.06", gpus=("Tesla V100-SXM2-32GB",), ccs=())
    assert host is not None and host.ccs == ("7.0",)
    p = plan(m, (Requirement("torch"),), python="3.11", platform="linux-x86_64", cuda="auto", host=host)
    release = m.torch.release(p.builds[0].release)
    assert release is not None
    variant = release.variant(str(p.target.variant))
    assert variant is not None and variant.sass is not None and "7.0" in variant.sass
    assert p.target.variant not in ("cu130", "cu132")
    assert "--driver 580.65.06 --gpu Tesla V100-SXM2-32GB" in p.reasons[0]


def _snap(driver: str | None, *ccs: str) -> Snapshot:
    return Snapshot(
        host=HostInfo("linux", "x86_64"),
        driver=DriverInfo(driver, None, "nvml") if driver else Unavailable("no NVIDIA driver"),
        gpus=tuple(GpuInfo(i, f"gpu{i}", "nvml", compute_capability=cc) for i, cc in enumerate(ccs)),
        cuda_toolkits=(), libraries=(), cudnn=(), nccl=(), python=Unavailable("x"), packages=(), frameworks=())


def test_for_snapshots_lowest_driver_and_every_gpu() -> None:
    facts = targets.from_snapshots([("a.json", _snap("580.65.06", "9.0")), ("b.json", _snap("570.86.10", "7.0"))])
    assert facts == HostFacts("570.86.10", ("7.0", "9.0"), source="--for 2 snapshot(s); lowest driver in b.json")
    with pytest.raises(LockError, match=r"c\.json: the snapshot has no NVIDIA driver version"):
        targets.from_snapshots([("c.json", _snap(None))])


@pytest.mark.parametrize(("kw", "message"), [
    ({"driver": "five-eighty", "gpus": (), "ccs": ()}, "is not a driver version"),
    ({"driver": None, "gpus": ("Quantum GPU 9000",), "ccs": ()}, "gpu-arch.toml knows no GPU of that name"),
    ({"driver": None, "gpus": (), "ccs": ("70",)}, "is not a compute capability"),
])
def test_manual_targets_refuse_bad_values(m: Matrices, kw: dict[str, object], message: str) -> None:
    with pytest.raises(LockError, match=message):
        targets.manual(m, **kw)  # type: ignore[arg-type] # reason: parametrized keywords


# ---- wheels: reading a member of a local and of a remote wheel -------------------------------------------


class _RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files with HTTP Range support (as package indexes' file hosts do)."""

    requests_seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        data = path.read_bytes()
        rng = self.headers.get("Range")
        self.requests_seen.append(rng or "")
        if rng and rng.startswith("bytes="):
            start_s, _, end_s = rng[6:].partition("-")
            if not start_s:
                start, end = max(0, len(data) - int(end_s)), len(data) - 1
            else:
                start, end = int(start_s), min(len(data) - 1, int(end_s) if end_s else len(data) - 1)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
            body = data[start:end + 1]
        else:
            self.send_response(200)
            body = data
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    import functools

    handler = functools.partial(_RangeHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", tmp_path
    finally:
        server.shutdown()
        server.server_close()


def test_embedded_version_of_a_local_and_a_remote_wheel(served: tuple[str, Path]) -> None:
    base, folder = served
    # A large wheel: the member must come from a few ranged reads, not the whole file.
    big = "\n".join(f"# {i:08d} " + "x" * 100 for i in range(40000))
    path = make_wheel(folder, "torchvision", "0.29.2", files={
        "torchvision/version.py": "__version__ = '0.29.2+cu132'\n", "torchvision/big.py": big})
    assert wheels.embedded_version(str(path), "torchvision") == "0.29.2+cu132"
    assert wheels.embedded_version(path.as_uri(), "torchvision") == "0.29.2+cu132"
    _RangeHandler.requests_seen = []
    assert wheels.embedded_version(f"{base}/{path.name}", "torchvision") == "0.29.2+cu132"
    assert _RangeHandler.requests_seen and all(r.startswith("bytes=") for r in _RangeHandler.requests_seen)
    assert wheels.embedded_version(f"{base}/{path.name}", "torchaudio") is None
    assert wheels.embedded_version(f"{base}/missing.whl", "torchvision") is None


# ---- end to end: real uv on local wheelhouses ---------------------------------------------------------------


def _lock(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["lock", *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.slow
def test_lock_torch_torchvision_cu130_never_pins_the_cu132_torchvision(tmp_path: Path) -> None:
    house = torch_cu130_house(tmp_path / "house", torchvisions=[("0.29.1", "0.29.1+cu130"),
                                                                  ("0.29.2", "0.29.2+cu132")])
    code, out, err = _lock("torch==2.14.*", "torchvision", "--cuda", "13.0", "--python", "3.11", "--no-index",
                           "--find-links", str(house), "--resolver", "uv", "--dry-run", "--format", "json", "--json")
    assert code == 0, err
    doc = json.loads(out)
    pins = {p["name"]: p["version"] for p in doc["lock"]["packages"]}
    assert pins["torch"] == "2.14.1" and pins["torchvision"] == "0.29.1"
    assert any("torchvision 0.29.2 is built for cu132" in r and "excluded (torchvision!=0.29.2)" in r
               for r in doc["reasons"])
    assert doc["plan"]["builds"][0]["variant"] == "cu130"


@pytest.mark.slow
def test_lock_refuses_when_only_a_mismatched_companion_exists(tmp_path: Path) -> None:
    house = torch_cu130_house(tmp_path / "house", torchvisions=[("0.29.2", "0.29.2+cu132")])
    out_dir = tmp_path / "lock"
    code, out, err = _lock("torch==2.14.*", "torchvision", "--cuda", "13.0", "--python", "3.11", "--no-index",
                           "--find-links", str(house), "--resolver", "uv", "-o", str(out_dir), "--json")
    assert code == 3 and not out_dir.exists()
    doc = json.loads(out)
    assert "torchvision 0.29.2 is built for cu132" in doc["error"]
    assert doc["plan"]["builds"][0]["framework"] == "torch" and doc["plan"]["variant"] == "cu130"
    assert "Traceback" not in err and err.count("\n") >= 1


@pytest.mark.slow
def test_plan_is_in_the_json_when_the_variant_index_is_unreachable(tmp_path: Path) -> None:
    """V100 + driver 580: the plan (a build with sm_70, from the PyTorch index) is reported although nothing
    here can reach that index (--no-index)."""
    code, out, _err = _lock("torch", "--driver", "580.65.06", "--cc", "7.0", "--python", "3.11", "--no-index",
                            "--find-links", str(tmp_path), "--dry-run", "--json")
    assert code == 3
    doc = json.loads(out)
    build = doc["plan"]["builds"][0]
    assert build["index"] and build["index"].startswith("https://download.pytorch.org/whl/cu")
    assert build["variant"] not in ("cu130", "cu132") and build["constraint"].startswith("torch==")


@pytest.mark.slow
def test_requirements_file_with_pip_options_and_markers_locks_offline(wheelhouse: Path, tmp_path: Path) -> None:
    (tmp_path / "constraints.txt").write_text("click<8.1.7\n")
    (tmp_path / "requirements.in").write_text(
        f"--no-index\n--find-links {wheelhouse}\n-c constraints.txt\nclick\nsix\n"
        "pywin32==306; sys_platform == 'win32'\n")
    code, out, err = _lock("-r", str(tmp_path / "requirements.in"), "--python", "3.11", "--cuda", "cpu",
                           "--dry-run", "--format", "json", "--json")
    assert code == 0, err
    doc = json.loads(out)
    pins = {p["name"]: p["version"] for p in doc["lock"]["packages"]}
    assert pins == {"click": "8.1.6", "six": "1.16.0"}  # the constraint held; pywin32 dropped
    assert any("pywin32" in r and "is dropped" in r for r in doc["reasons"])


@pytest.mark.slow
def test_lock_for_a_snapshot_folder_uses_the_weakest_node(tmp_path: Path) -> None:
    nodes = tmp_path / "nodes"
    nodes.mkdir()
    for name, driver, cc in (("a", "580.65.06", "9.0"), ("b", "580.65.06", "7.0")):
        (nodes / f"{name}.json").write_text(json.dumps(_snap(driver, cc).to_dict()))
    code, out, _err = _lock("torch", "--for", str(nodes), "--python", "3.11", "--no-index", "--find-links",
                            str(tmp_path), "--dry-run", "--json")
    assert code == 3  # the PyTorch index is not reachable here; the plan is what counts
    build = json.loads(out)["plan"]["builds"][0]
    assert build["variant"] not in ("cu130", "cu132")  # node b's V100-class GPU (7.0) rules them out
    assert "--for 2 snapshot(s)" in build["reason"]
    code, _out, err = _lock("torch", "--for", str(tmp_path / "nothing"), "--python", "3.11", "--dry-run")
    assert code == 3 and "nothing" in err and "Traceback" not in err


def test_slim_python_base_when_the_wheels_bring_cuda(m: Matrices) -> None:
    from envguard.lock.render import DockerOptions, choose_base_image, render_docker
    from envguard.lock.spec import LockSpec

    target = LockTarget("3.13", "linux-x86_64", "13.0", "cu130", "9.24.0.43", "2.30.7", "580.65.06")
    spec = LockSpec(target, _pkgs("torch==2.14.1", "nvidia-cuda-runtime==13.0.96"))
    base = choose_base_image(spec, m, DockerOptions())
    assert base.ref == "python:3.13-slim" and base.slim
    text = render_docker(spec, m, DockerOptions()).text
    assert 'NVIDIA_REQUIRE_CUDA="cuda>=13.0"' in text and "NVIDIA_DRIVER_CAPABILITIES=compute,utility" in text
    assert 'io.envguard.driver-floor="580.65.06"' in text
    assert "apt-get" not in text and "RUN python3.13 -m venv /opt/venv" in text
    assert "Not pinned by digest" in text
    digest = "sha256:" + "d" * 64
    pinned = render_docker(spec, m, DockerOptions(digests=(("python:3.13-slim", digest),))).text
    assert f"ARG BASE_IMAGE=python:3.13-slim@{digest}\n" in pinned and "Not pinned" not in pinned
    # No CUDA wheels (system CUDA needed): the nvidia/cuda image as before.
    from dataclasses import replace

    system = choose_base_image(LockSpec(replace(target, python="3.12"), _pkgs("torch==2.14.1")), m, DockerOptions())
    assert system.ref.startswith("nvidia/cuda:13.0") and not system.slim


@pytest.mark.slow
def test_envguard_check_passes_the_lock_it_fails_the_naive_pins(tmp_path: Path) -> None:
    """Never a lock `check` fails: install the lock (stub wheels carrying the real version.py) and check it; the
    pins a plain resolver picks (torchvision 0.29.2, cu132) are what check reports as companion-mismatch."""
    import sys

    from envguard import _subprocess

    house = torch_cu130_house(tmp_path / "house", torchvisions=[("0.29.1", "0.29.1+cu130"),
                                                                  ("0.29.2", "0.29.2+cu132")])
    lock_dir = tmp_path / "lock"
    code, _out, err = _lock("torch==2.14.*", "torchvision", "--cuda", "13.0", "--python", "3.11", "--no-index",
                            "--find-links", str(house), "--format", "pip,json", "-o", str(lock_dir))
    assert code == 0, err

    def check(venv: Path, *install: str) -> set[str]:
        assert _subprocess.run((sys.executable, "-m", "venv", "--without-pip", str(venv)), timeout=120).ok
        pip = (sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"))
        # NOTE: this machine's pip configuration caps torchvision; the wheelhouse is all these installs read.
        env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
        got = _subprocess.run((*pip, "install", "-q", "--no-index", "--find-links", str(house), "--no-deps",
                               *install), timeout=300, env=env)
        assert got.ok, got.stderr[-2000:]
        result = CliRunner().invoke(main, ["check", "--python", str(venv), "--format", "json"],
                                    catch_exceptions=False)
        return {f["code"] for f in json.loads(result.stdout)["findings"]}

    assert "companion-mismatch" not in check(tmp_path / "locked", "--require-hashes", "-r",
                                             str(lock_dir / "requirements.lock.txt"))
    assert "companion-mismatch" in check(tmp_path / "naive", "torch==2.14.1", "torchvision==0.29.2",
                                         "nvidia-cuda-runtime==13.0.96")


@pytest.mark.slow
def test_several_platforms_one_lock_with_marked_sections_that_pip_installs_and_verify_accepts(
        tmp_path: Path) -> None:
    import sys

    from envguard import _subprocess

    house = tmp_path / "house"
    make_wheel(house, "app-core", "1.0", requires=["x86only; platform_machine == 'x86_64'", "fastlib"])
    make_wheel(house, "x86only", "1.0")
    make_wheel(house, "fastlib", "1.0")
    make_wheel(house, "fastlib", "2.0", tag="py3-none-manylinux_2_17_aarch64")
    lock_dir = tmp_path / "lock"
    code, out, err = _lock("app-core", "--platform", "linux-x86_64", "--platform", "linux-aarch64", "--python",
                           "3.11", "--cuda", "cpu", "--no-index", "--find-links", str(house), "--format", "pip,json",
                           "-o", str(lock_dir), "--json")
    assert code == 0, err
    doc = json.loads(out)["lock"]
    assert doc["target"]["platform"] == "linux-x86_64,linux-aarch64"
    marked = {(p["name"], p["version"], p.get("marker")) for p in doc["packages"]}
    assert marked == {("app-core", "1.0", None), ("x86only", "1.0", 'platform_machine == "x86_64"'),
                      ("fastlib", "1.0", 'platform_machine == "x86_64"'),
                      ("fastlib", "2.0", 'platform_machine == "aarch64"')}
    text = (lock_dir / "requirements.lock.txt").read_text()
    assert '# Only where platform_machine == "aarch64":\nfastlib==2.0 ; platform_machine == "aarch64" \\' in text
    venv = tmp_path / "venv"
    assert _subprocess.run((sys.executable, "-m", "venv", str(venv)), timeout=120).ok
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    got = _subprocess.run((str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--require-hashes",
                           "--no-deps", "--no-index", "--find-links", str(house), "-r",
                           str(lock_dir / "requirements.lock.txt")), timeout=300, env=env)
    assert got.ok, got.stderr[-2000:]
    result = CliRunner().invoke(main, ["verify", str(lock_dir), "--python", str(venv)], catch_exceptions=False)
    assert result.exit_code == 0, result.stdout


@pytest.mark.slow
def test_lock_names_only_the_matrix_files_its_decisions_read(wheelhouse: Path, tmp_path: Path) -> None:
    code, out, err = _lock("six", "--python", "3.11", "--cuda", "cpu", "--no-index", "--find-links", str(wheelhouse),
                           "--dry-run", "--format", "json", "--json")
    assert code == 0, err
    assert json.loads(out)["lock"]["generator"]["matrices"] == []
    house = torch_cu130_house(tmp_path / "house", torchvisions=[("0.29.1", "0.29.1+cu130")])
    code, out, err = _lock("torch==2.14.*", "--cuda", "13.0", "--python", "3.11", "--no-index", "--find-links",
                           str(house), "--dry-run", "--format", "json,docker", "--json")
    assert code == 0, err
    names = [m.split()[0] for m in json.loads(out)["lock"]["generator"]["matrices"]]
    assert names == ["torch", "cuda-driver", "cuda-images"]


# ---- the default index, for real (uv reads metadata only; companions' builds by HTTP range requests) ---------


@pytest.mark.slow
def test_default_index_torch_torchvision_cu130_pins_a_cu130_torchvision(tmp_path: Path) -> None:
    code, out, err = _lock("torch==2.14.*", "torchvision", "--cuda", "13.0", "--python", "3.11", "--resolver", "uv",
                           "--dry-run", "--format", "json", "--json")
    assert code == 0, err
    doc = json.loads(out)
    pins = {p["name"]: p["version"] for p in doc["lock"]["packages"]}
    assert doc["lock"]["target"]["variant"] == "cu130"
    # What the pinned torchvision's own wheel says it is built for (read here independently of envguard's loop).
    from envguard.lock.resolve import ResolveRequest, UvResolver, find_uv

    uv = find_uv(dict(os.environ))
    assert uv is not None
    from envguard import _subprocess

    pin = LockedPackage("torchvision", pins["torchvision"], H)
    urls = UvResolver(uv).file_urls(ResolveRequest(("torchvision",), "3.11", "linux-x86_64"), (pin,),
                                    _subprocess.run, None)  # type: ignore[arg-type] # reason: uv ignores it
    embedded = wheels.embedded_version(urls["torchvision"], "torchvision")
    assert embedded is not None and companions.local_of(embedded) == "cu130", embedded


@pytest.mark.slow
def test_default_index_tensorflow_header_states_the_cuda_of_its_wheels() -> None:
    code, out, err = _lock("tensorflow", "--cuda", "12.5", "--python", "3.11", "--resolver", "uv", "--dry-run",
                           "--format", "json", "--json")
    assert code == 0, err
    lock = json.loads(out)["lock"]
    runtime = next(p["version"] for p in lock["packages"] if p["name"] == "nvidia-cuda-runtime-cu12")
    cudnn = next(p["version"] for p in lock["packages"] if p["name"] == "nvidia-cudnn-cu12")
    assert lock["target"]["cuda"] == ".".join(runtime.split(".")[:2])
    assert lock["target"]["cudnn"] == ".".join(cudnn.split(".")[:2])


@pytest.mark.slow
def test_default_index_mixed_torch_and_tensorflow_resolve() -> None:
    code, out, err = _lock("torch==2.10.*", "tensorflow", "--cuda", "12.8", "--python", "3.11", "--resolver", "uv",
                           "--dry-run", "--format", "json", "--json")
    assert code == 0, err
    pins = {p["name"]: p["version"] for p in json.loads(out)["lock"]["packages"]}
    assert pins["torch"].startswith("2.10.") and "tensorflow" in pins
