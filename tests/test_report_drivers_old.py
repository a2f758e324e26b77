"""Drivers of the CUDA 7-9 era in pasted reports: the branch a driver package installs, and Table 3's floors
before CUDA 10 (real lines; each source in a comment)."""

from __future__ import annotations

from envguard.knowledge import load_matrices
from envguard.reports.extract_driver import driver_packages
from tests.reports import error_codes as _errors


def _driver(lines: list[str]) -> list[str]:
    return [m.value for m in driver_packages(lines, 0)]




def test_a_driver_package_install_names_the_branch() -> None:
    # NVIDIA/nvidia-docker (corpus case 602): the ppa's nvidia-390 package
    assert _driver(["sudo apt-get -y install nvidia-390 nvidia-modprobe"]) == ["390"]
    # Ubuntu's packages since 18.04 (nvidia-driver-NNN, -server, -open)
    assert _driver(["sudo apt install nvidia-driver-535"]) == ["535"]
    assert _driver(["apt-get install -y --no-install-recommends nvidia-driver-550-server"]) == ["550"]
    assert _driver(["sudo dnf install nvidia-driver-570-open"]) == ["570"]
    # the container toolkit, docker and modprobe packages name no branch
    assert _driver(["sudo apt-get install -y nvidia-docker2 nvidia-container-toolkit nvidia-modprobe"]) == []
    # a package named outside an install command is not what is installed
    assert _driver(["nvidia-340/focal-updates,now 340.108-0ubuntu5.20.04.1 amd64 [installed]"]) == []


#: snowzach/doods#48: a 390 driver (CUDA 9.1) and an image that needs CUDA 10.2 (the docker line verbatim).
DOODS_48 = "\n".join([
    "- nVidia driver using 390.xx version",
    "- Installed Cuda version: 9.1.85",
    "",
    "When I run the docker image, I got this error",
    "```",
    'docker: Error response from daemon: OCI runtime create failed: container_linux.go:349: starting container '
    'process caused "process_linux.go:449: container init caused \\"process_linux.go:432: running prestart hook 0 '
    'caused \\\\\\"error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: requirement error: '
    'unsatisfied condition: cuda>=10.2, please update your driver to a newer version, or use an earlier cuda '
    'container\\\\\\\\n\\\\\\"\\"": unknown.',
    "```",
])

#: corpus case 602 (NVIDIA/nvidia-docker): the ppa's 390 driver and nvidia/cuda:9.2.
NVIDIA_390_CUDA_92 = """sudo apt-get -y install nvidia-390 nvidia-modprobe
ubuntu@ip-172-31-27-85:~$ docker run --runtime=nvidia --rm nvidia/cuda:9.2-runtime-ubuntu18.04 nvidia-smi
nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.2
"""


def test_a_390_driver_is_too_old_for_cuda_9_2_and_10_2_images() -> None:
    assert "driver-too-old" in _errors(DOODS_48)
    assert "driver-too-old" in _errors(NVIDIA_390_CUDA_92)


def test_table_3_before_cuda_10() -> None:
    cd = load_matrices().cuda_driver
    floor = cd.floor("9.2")
    assert floor is not None and str(floor.min_driver) in ("396.26", "396.37")
    assert str((cd.floor("8.0") or floor).min_driver) in ("367.48", "375.26")
    assert str((cd.floor("7.5", "windows") or floor).min_driver) == "353.66"
