"""Extractors for driver facts written as prose and for Jetson (L4T) releases, one shape each.

People write the driver as a branch ("my driver is 525", "driver version 470.xx", "the 535 driver") far more often
than they paste nvidia-smi; a Jetson's driver is its L4T release (``/etc/nv_tegra_release``, "Jetson NX with
version r32.6"), and a Jetson container's CUDA is the L4T release in its tag (``nvcr.io/nvidia/l4t-ml:r34.1.0-py3``).
``derive`` turns L4T and JetPack releases into the CUDA they stand for, through cuda-images.toml [[l4t]].
Every pattern is anchored or bounded (linear time).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from envguard.knowledge import Matrices
from envguard.reports.extract import _HEDGE, _HEDGE_WINDOW
from envguard.reports.mentions import MESSAGE, PROSE, TOOL, Mention
from envguard.sentences import sentences, whole_words

#: "driver is 525", "driver version 470.xx", "driver version is 535.104.05", "NVIDIA driver: R535", "driver 550.*".
_DRIVER_THEN_BRANCH = re.compile(
    r"\bdrivers?(?:\s{1,2}version)?(?:\s{1,2}is|\s{0,2}[:=])?\s{0,2}[`'\"]?(?:[rRvV]\.?\s{0,1})?([3-7]\d{2}(?:\.\d{2,3}){0,2})"
    r"(?:\.(?:xx?|XX?|\*))?(?![\w+]|\.\w)")
#: "the 525 driver", "470.xx driver", "R535 drivers", "535.104.05 NVIDIA driver".
_BRANCH_THEN_DRIVER = re.compile(
    r"(?<![\w.])[rR]?([3-7]\d{2}(?:\.\d{2,3}){0,2})(?:\.(?:xx?|XX?|\*))?\s{1,2}(?:nvidia\s{1,2}|gpu\s{1,2})?drivers?\b",
    re.IGNORECASE)
#: /etc/nv_tegra_release: "# R32 (release), REVISION: 6.1, GCID: 27863751, BOARD: t186ref, EABI: aarch64, ...".
_TEGRA_RELEASE = re.compile(r"^#?\s{0,2}R(\d{2}) \(release\), REVISION: (\d{1,2})\.(\d{1,2})")
#: "Jetson Linux 35.4.1", "Jetson Linux R36.3".
_JETSON_LINUX = re.compile(r"\bJetson Linux\s{1,2}[rR]?(3\d\.\d(?:\.\d)?)\b")
#: A bare L4T release in a sentence: "r32.6", "R35.4.1" (read only where the report talks about a Jetson).
_BARE_L4T = re.compile(r"(?<![\w.:/-])[rR](3[2-9]\.\d)(\.\d)?(?!\w|\.\w)")
_JETSON_CONTEXT = re.compile(r"\b(?:jetson|jetpack|l4t|tegra|xavier|orin)\b", re.IGNORECASE)
_CONTAINER_WORD = re.compile(r"\b(?:containers?|images?|docker|tags?)\b", re.IGNORECASE)
#: Jetson container tags: nvcr.io/nvidia/l4t-ml:r34.1.0-py3, l4t-pytorch:r35.2.1-pth2.0-py3, dustynv/ros:humble-r36.2.0.
_L4T_IMAGE = re.compile(r"\b((?:nvcr\.io/nvidia/)?l4t-[a-z0-9-]{1,30}|dustynv/[\w.-]{1,60}):[\w.-]{0,40}?"
                        r"(?<![\w.])r?(3[2-9]\.\d(?:\.\d)?)(?!\w|\.\w)")
#: jetson-containers' own build tags: whisper:r36.4.tegra-aarch64-cu126-22.04-pytorch_2.9 (dusty-nv/jetson-containers
#: names each image NAME:r<L4T>.tegra-aarch64-cu<CUDA>-<Ubuntu>).
_JC_TAG = re.compile(r"\b([\w.-]{1,60}):r(3[2-9]\.\d(?:\.\d)?)\.tegra-aarch64\b")
#: A driver package installed by the system's package manager: the branch is in its name ("apt-get install
#: nvidia-390", "apt install nvidia-driver-535", "nvidia-driver-470-server", "dnf install nvidia-driver-550").
_PKG_INSTALL = re.compile(r"\b(?:apt(?:-get)?|aptitude|dnf|yum|zypper)\s{1,4}(?:-[\w-]{1,20}\s{1,4}){0,4}install\b"
                          r"(.{0,300})")
_DRIVER_PKG = re.compile(r"(?<![\w.-])nvidia-(?:driver-|headless-|utils-)?([3-7]\d{2})(?:-server|-open|-server-open)?"
                         r"(?![\w.-])")
_SKIP_LINE = ("File ", "/", "|")
#: nvidia-smi's header line copied without the table around it: "NVIDIA-SMI 470.57.02  Driver Version: 470.57.02
#: CUDA Version: 12.1" (the table parser wants the whole table).
_SMI_HEADER = re.compile(r"NVIDIA-SMI\s{1,8}\d{3}\.\d{1,3}(?:\.\d{1,3})?\s{1,20}Driver Version:\s{0,4}"
                         r"(\d{3}\.\d{1,3}(?:\.\d{1,3})?)\s{1,20}CUDA Version:\s{0,4}(\d{1,2}\.\d{1,2})")


#: A full driver version (535.216.01) is a number someone read off a machine: only a condition or an example takes it
#: back, not the "supports"/"requires" words around it ("ships driver `535.216.01`, which is too old to support cu13x").
_FULL_VERSION_HEDGE = re.compile(r"\b(?:if|would|should|could|e\.g|for example|such as|instead of|rather than)\b",
                                 re.IGNORECASE)


def _stated(sentence: str, start: int, end: int, value: str = "") -> bool:
    window = whole_words(sentence, start - _HEDGE_WINDOW, end + _HEDGE_WINDOW)
    hedge = _FULL_VERSION_HEDGE if value.count(".") == 2 else _HEDGE
    return hedge.search(window) is None


#: A bare branch after a preposition, in a sentence that follows one naming the driver: "Update the GPU driver to the
#: latest. I have run tests with 570, and the issue is fixed there." (dmlc/xgboost, a maintainer's report).
_BRANCH_AFTER = re.compile(r"\b(?:with|on|to|from|using|running)\s{1,2}(?:the\s{1,2})?[rR]?([4-6]\d[05])"
                           r"(?![\w.%]|\s?(?:MB|GB|W)\b)")
_DRIVER_WORD = re.compile(r"\bdrivers?\b", re.IGNORECASE)
_MAYBE = re.compile(r"\b(?:might|may|maybe|perhaps|probably)\b", re.IGNORECASE)


def driver_prose(lines: list[str], offset: int) -> Iterator[Mention]:
    """The driver named in a sentence, as a branch ("525") or a full version: prose tier, never from a hedge."""
    for i, line in enumerate(lines):
        text = line.strip()
        if not text or len(text) > 2000 or text.startswith(_SKIP_LINE) or "site-packages" in text:
            continue
        n = offset + i + 1
        named = False
        for regex in (_DRIVER_THEN_BRANCH, _BRANCH_THEN_DRIVER):
            for found in regex.finditer(text):
                if _stated(text, found.start(), found.end(), found.group(1)):
                    value = found.group(1)
                    how = "text (driver branch)" if "." not in value else "text"
                    yield Mention("driver", value, n, PROSE, how)
                    named = True
                    break
        if not named and _DRIVER_WORD.search(text):
            yield from _branch_after_driver_sentence(text, n)


def _branch_after_driver_sentence(text: str, n: int) -> Iterator[Mention]:
    """A bare branch ("with 570") in the sentence after one that names the driver (not in a hedged sentence)."""
    before = ""
    for sentence in sentences(text):
        if _DRIVER_WORD.search(before) and not _DRIVER_WORD.search(sentence) and not _MAYBE.search(sentence):
            found = _BRANCH_AFTER.search(sentence)
            if found and _stated(sentence, found.start(), found.end()):
                yield Mention("driver", found.group(1), n, PROSE, "text (driver branch; the sentence before names "
                              "the driver)")
                return
        before = sentence


def driver_packages(lines: list[str], offset: int) -> Iterator[Mention]:
    """The driver branch of a driver package the report's install command installs (a command: the machine's
    driver as the reporter set it up; the package name names the branch, not the full version)."""
    for i, line in enumerate(lines):
        if "nvidia-" not in line or len(line) > 2000:
            continue
        command = _PKG_INSTALL.search(line)
        if command is None:
            continue
        found = _DRIVER_PKG.search(command.group(1))
        if found:
            yield Mention("driver", found.group(1), offset + i + 1, MESSAGE, "driver package install (branch)")


#: Mention kind: the report line where nvidia-smi failed to reach the driver (rules.signatures compares it with
#: the line of an nvidia-smi table the same report shows).
SMI_FAILED = "smi_failed"
_SMI_FAILED = re.compile(r"NVIDIA-SMI has failed because it couldn[\x27’]t communicate", re.IGNORECASE)


def smi_header(lines: list[str], offset: int) -> Iterator[Mention]:
    """nvidia-smi's header line on its own (tool output: the driver and the newest CUDA it runs), and where
    nvidia-smi said it could not reach the driver."""
    for i, line in enumerate(lines):
        if "NVIDIA-SMI" not in line or line.lstrip().startswith("|"):
            continue
        if _SMI_FAILED.search(line):
            yield Mention(SMI_FAILED, str(offset + i + 1), offset + i + 1, MESSAGE, "nvidia-smi failed")
            continue
        found = _SMI_HEADER.search(line)
        if found:
            yield Mention("driver", found.group(1), offset + i + 1, TOOL, "nvidia-smi header")
            yield Mention("driver_cuda", found.group(2), offset + i + 1, TOOL, "nvidia-smi header")


def jetson_releases(lines: list[str], offset: int) -> Iterator[Mention]:
    """The host's L4T release (/etc/nv_tegra_release, "Jetson Linux 35.4.1", a bare "r32.6" in a report about a
    Jetson) and the L4T release of the Jetson containers it names (their tags, or "the r34.1 container")."""
    jetson = any(_JETSON_CONTEXT.search(line) for line in lines)
    for i, line in enumerate(lines):
        if not line.strip() or len(line) > 2000:
            continue
        n = offset + i + 1
        tegra = _TEGRA_RELEASE.match(line.strip())
        if tegra:
            release = f"{tegra.group(1)}.{tegra.group(2)}.{tegra.group(3)}"
            yield Mention("l4t", release, n, TOOL, "/etc/nv_tegra_release")
            continue
        linux = _JETSON_LINUX.search(line)
        if linux:
            yield Mention("l4t", linux.group(1), n, MESSAGE, "Jetson Linux release")
        tagged = set()
        for image in _L4T_IMAGE.finditer(line):
            tagged.add(image.start(2))
            yield Mention("l4t_image", image.group(2), n, MESSAGE, f"image {image.group(0)}")
        for image in _JC_TAG.finditer(line):
            yield Mention("l4t_image", image.group(2), n, MESSAGE, f"image {image.group(0)}")
        if not jetson:
            continue
        for bare in _BARE_L4T.finditer(line):
            if any(abs(bare.start(1) - t) <= 1 for t in tagged) or not _stated(line, bare.start(), bare.end()):
                continue
            value = bare.group(1) + (bare.group(2) or "")
            before, after = line[max(0, bare.start() - 18):bare.start()], line[bare.end():bare.end() + 18]
            if _CONTAINER_WORD.search(after) or _CONTAINER_WORD.search(before):
                yield Mention("l4t_image", value, n, PROSE, "text (a Jetson container's L4T release)")
            else:
                yield Mention("l4t", value, n, PROSE, "text (L4T release)")


#: A ``docker run`` command (``docker container run``); ``nvidia-docker run`` always has the NVIDIA runtime.
_DOCKER_RUN = re.compile(r"(?<![\w-])docker\s{1,4}(?:container\s{1,4})?run\b")
#: The options that give a container the GPU: --gpus, --runtime nvidia, a CDI / /dev/nvidia device.
_GPU_OPTION = re.compile(r"--gpus\b|--runtime(?:\s{1,4}|=)['\"]?nvidia\b"
                         r"|--device(?:\s{1,4}|=)['\"]?(?:nvidia\.com/gpu|/dev/nvidia)")
#: Mention kind: an L4T image started by a ``docker run`` without any of them (value: the image's L4T release).
L4T_RUN_NO_RUNTIME = "l4t_run_no_runtime"


#: The report says the CUDA libraries are absent in the container ("there is no libcudnn", a loader error, CUDA
#: unavailable), or that the daemon's default runtime is set (then ``docker run`` needs no --runtime).
_LIBS_ABSENT = re.compile(r"\bno\s{1,2}(?:lib)?(?:cudnn|cuda|cudart|cublas|nvinfer)\b|cannot open shared object file"
                          r"|is_available\(\)\W{0,6}False", re.IGNORECASE)
_DEFAULT_RUNTIME = re.compile(r"default-runtime", re.IGNORECASE)


def docker_runs(lines: list[str], offset: int) -> Iterator[Mention]:
    """A Jetson (L4T) image started by ``docker run`` without the NVIDIA runtime: the command joined across its
    backslash continuations (at most 12 lines); the value is the image's L4T release, with "+missing" when the
    report also says the CUDA libraries are not there. Nothing when the report sets the daemon's default runtime."""
    if not any("docker" in line for line in lines):
        return
    # NOTE: the whole-report scans run only once a run of an L4T image without the runtime is found
    missing: str | None = None
    for i, line in enumerate(lines):
        if "docker" not in line or len(line) > 2000:
            continue
        run = _DOCKER_RUN.search(line)
        if run is None:
            continue
        command, j = line[run.end():], i
        while command.rstrip().endswith("\\") and j + 1 < len(lines) and j - i < 12:
            j += 1
            command = command.rstrip()[:-1] + " " + lines[j]
        image = _L4T_IMAGE.search(command)
        if image is not None and not _GPU_OPTION.search(command[:image.start()]):
            if missing is None:
                if any(_DEFAULT_RUNTIME.search(x) for x in lines):
                    return
                missing = "+missing" if any(_LIBS_ABSENT.search(x) for x in lines if len(x) <= 2000) else ""
            yield Mention(L4T_RUN_NO_RUNTIME, image.group(2) + missing, offset + i + 1, MESSAGE,
                          f"docker run {image.group(0)} without --runtime nvidia")


EXTRACTORS = (driver_prose, driver_packages, smi_header, jetson_releases, docker_runs)


def derive(mentions: list[Mention], matrices: Matrices) -> list[Mention]:
    """Mentions plus what a Jetson release stands for: the host's L4T or JetPack release gives the newest CUDA its
    driver runs (``driver_cuda``), a Jetson container's L4T release the CUDA the image carries (``image_cuda``)."""
    images = matrices.cuda_images
    out = list(mentions)
    for m in mentions:
        if m.kind not in ("l4t", "jetpack", "l4t_image"):
            continue
        row = images.jetpack(m.value) if m.kind == "jetpack" else images.l4t(m.value)
        if row is None:
            continue
        cuda = f"{row.cuda.major}.{row.cuda.minor}"
        what = f"L4T r{row.l4t} / JetPack {row.jetpack}: CUDA {cuda}, cuda-images.toml [[l4t]]"
        if m.kind == "l4t_image":
            out.append(replace(m, kind="image_cuda", value=cuda, how=f"{m.how} ({what})"))
        else:
            out.append(replace(m, kind="driver_cuda", value=cuda, how=f"{m.how} ({what}: its driver runs CUDA "
                                                                            f"{cuda} at most)"))
    return out
