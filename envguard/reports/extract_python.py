"""Extractors for the interpreter, install commands and bare driver numbers (one shape each).

The Python a report runs is often stated only in passing: the interpreter a command invokes (``python3.13t
main.py``, ``py -3.11``), the site-packages path of a traceback (``lib/python3.8/site-packages``,
``\\Python311\\Lib\\site-packages``), a conda environment file (``- python=3.8``), a free-threading build flag,
or what ``torch.__version__`` printed. Every pattern is anchored or bounded (linear time).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envguard.reports.mentions import FIELD, MESSAGE, PROSE, TOOL, Mention
from envguard.sentences import sentences

#: An interpreter invoked by a command: "python3.13t .\\main.py", "python3.8 -m pip install", "py -3.11 -m pip".
_COMMAND = re.compile(r"(?:^|[\s>$#`'\"(]|/bin/)python(3\.\d{1,2})(t?)(?:\.exe)?\s{1,4}(?:-[mcVXuEIOB]\b|--version\b|"
                      r"[\w.~:/\\-]{0,200}\.py\b)")
_LAUNCHER = re.compile(r"(?:^|[\s>$`'\"(])py(?:\.exe)?\s{1,4}-(3\.\d{1,2})(t?)\b")
#: The site-packages directory of a traceback or a pip message: Linux/macOS and Windows layouts.
_SITE_POSIX = re.compile(r"/python(3\.\d{1,2})(t?)/(?:site|dist)-packages\b")
_SITE_WINDOWS = re.compile(r"\\{1,2}Python3(\d{1,2})(t?)(?:-32|-arm64)?\\{1,2}Lib\\{1,2}site-packages\b", re.IGNORECASE)
#: The python.org installer's folder on Windows, named in a path: "C:\\Program Files\\Python310",
#: "...\\AppData\\Local\\Programs\\Python\\Python312\\python.exe" (its default folder is PythonXY).
_WINDOWS_INSTALL = re.compile(r"\b[A-Za-z]:\\{1,2}(?:[^\\\s\"'`<>|]{1,40}(?: [^\\\s\"'`<>|]{1,40})?\\{1,2}){0,6}"
                              r"Python3(\d{1,2})(?:-32|-arm64)?(?=\\|[\s\"'`,;)]|$)", re.IGNORECASE)
#: A conda environment file: "  - python=3.8", "- python==3.10.12".
_CONDA_ENV_FILE = re.compile(r"^\s{0,12}-\s{1,4}python\s{0,2}={1,2}\s{0,2}(3\.\d{1,2}(?:\.\d{1,3})?)(?:[=\s]|$)")
#: Free-threaded CPython: its build flag, its banner, its executable name.
_FREE_FLAG = re.compile(r"--disable-gil\b|\bexperimental free-threading build\b|\bpython3\.\d{1,2}t(?:\.exe)?\b",
                        re.IGNORECASE)
_FREE_BANNER = re.compile(r"^Python (3\.\d{1,2}\.\d{1,3}) experimental free-threading build\b")
#: ``>>> torch.__version__`` / ``print(tf.__version__)`` (the REPL or ``python -c``), answered on a later line.
#: ``>>> torch.__version__`` / ``print(tf.__version__)`` (the REPL, whose prompt the quote-stripping may have eaten,
#: or ``python -c``), answered on a later line.
_VERSION_CALL = re.compile(r"(?:^(?:>>>\s{0,4})?(?:print\()?|\bprint\()\s{0,2}(torch|torchvision|torchaudio|"
                           r"tensorflow|tf|jax|jaxlib|paddle)\.__version__\s{0,2}\)?\s{0,2}(?:[\"'`]\s*)?$")
#: The call and what it printed on one line, as reports write them: "torch.__version__ → 2.9.1+cpu",
#: "- torch.__version__: 2.1.0", "torch.__version__ = '2.3.1+cu121'", "print(torch.__version__) -> 2.0.1".
_INLINE_ANSWER = re.compile(r"^\s{0,8}(?:[-*]\s{1,4})?`?(?:>>>\s{0,4})?(?:print\(\s{0,2})?(torch|torchvision|"
                            r"torchaudio|tensorflow|tf|jax|jaxlib|paddle)\.__version__\s{0,2}\)?`?\s{0,4}(?:→|->|=>|:|==?|returns|"
                            r"prints|gives|shows)\s{0,4}[`'\"]?(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:(?:\+|\.post|rc|a|b|\.dev)"
                            r"[\w.]{0,30}?)?)[`'\"]?[\s.,;]*$")
_BARE_VERSION = re.compile(r"^\s{0,4}['\"]?(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:(?:\+|\.post|rc|a|b|\.dev)[\w.]{0,30})?)"
                           r"['\"]?\s*$")
_MODULE_DIST = {"torch": "torch", "torchvision": "torchvision", "torchaudio": "torchaudio", "tensorflow": "tensorflow",
                "tf": "tensorflow", "jax": "jax", "jaxlib": "jaxlib", "paddle": "paddlepaddle"}
#: A driver version on a line of its own ("410.48,," answering "which driver?"): NVIDIA branches 3xx-6xx.
_BARE_DRIVER = re.compile(r"^\s{0,4}([3-6]\d{2}\.\d{2,3}(?:\.\d{2,3})?)\s{0,2}[,.;!?]{0,4}\s*$")
#: "Wheel binaries are not available for Python 3.11", "no wheels for Python 3.12": the Python a report could not
#: install for (used only when nothing else states the Python).
_NO_WHEEL = re.compile(
    r"\b(?:wheels?|binar(?:y|ies)|builds?|packages?|distributions?)\b[^.;!?]{0,40}?\b(?:not available|unavailable|"
    r"missing|not (?:yet )?(?:published|provided|released|built))\b[^.;!?]{0,30}?\bfor\s{1,2}(?:C?Python|py)\s{0,2}"
    r"(3\.\d{1,2})\b"
    r"|\bno\s{1,2}(?:[\w-]{1,20}\s{1,2}){0,2}?(?:wheels?|binar(?:y|ies)|builds?)\s{1,2}(?:(?:are\s{1,2})?available\s{1,2})?"
    r"for\s{1,2}(?:C?Python|py)\s{0,2}(3\.\d{1,2})\b",
    re.IGNORECASE,
)
#: The PyTorch bug template: "### 🐛 Describe the bug" ... "### Versions", then (sometimes) just a version number.
_TORCH_TEMPLATE = "describe the bug"
_VERSIONS_HEADER = re.compile(r"^\s{0,3}#{2,4}\s{1,4}Versions?\s*:?\s*$", re.IGNORECASE)
_TEMPLATE_VERSION = re.compile(r"^\s{0,4}(?:(?:py)?torch\s{0,2}(?:version)?\s{0,2}[:=]?\s{0,2})?v?"
                               r"(\d\.\d{1,2}(?:\.\d{1,2})?(?:\+\w{1,20})?)\s*$", re.IGNORECASE)
#: ``pip install torch==X`` / ``torch===X`` without a CUDA index: the plain package-index build (its default CUDA).
_PIP_TORCH = re.compile(r"\b(?:pip3?|uv\s{1,4}pip|python3?\s{1,4}-m\s{1,4}pip)\s{1,4}install\b(.{0,600})")
_TORCH_PIN = re.compile(r"(?<![\w./-])torch\s{0,2}(={2,3})\s{0,2}['\"]?(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)(?![\w.+])")
_INDEX_OPTION = re.compile(r"(?:^|\s)(?:-i|-f|--index-url|--extra-index-url|--find-links)(?:\s|=)")
#: pip's rejection of a wheel file: the Python read from that file's name is not the interpreter's.
_REJECTED = re.compile(r"([\w.+!-]{1,200}\.whl) is not a supported wheel on this platform")


def _python(minor: str, free: str) -> str:
    return f"3.{int(minor)}{free}" if minor.isdigit() else ""


#: uv naming the interpreter it resolves for: "Using CPython 3.13.1" (astral-sh/uv#10262's log),
#: "Using CPython 3.12.3 interpreter at: /usr/bin/python3".
_UV_USING = re.compile(r"^\s{0,4}Using (?:CPython|Python) (3\.\d{1,2}\.\d{1,3})(?:t|\+freethreaded)?(?:\s|$)")


def interpreter(lines: list[str], offset: int) -> Iterator[Mention]:
    """The Python a report runs, from commands, paths, conda environment files and free-threading markers."""
    for i, line in enumerate(lines):
        if not line or len(line) > 4000:
            continue
        n = offset + i + 1
        for regex, how in ((_COMMAND, "interpreter command"), (_LAUNCHER, "py launcher command")):
            found = regex.search(line)
            if found:
                yield Mention("python", found.group(1), n, MESSAGE, how)
        site = _SITE_POSIX.search(line)
        if site:
            yield Mention("python", site.group(1), n, MESSAGE, "site-packages path")
        win = _SITE_WINDOWS.search(line)
        if win:
            yield Mention("python", _python(win.group(1), ""), n, MESSAGE, "site-packages path (Windows)")
        installed = None if win else _WINDOWS_INSTALL.search(line) if "python3" in line.lower() else None
        if installed:
            yield Mention("python", _python(installed.group(1), ""), n, MESSAGE, "Python install folder (Windows)")
            # NOTE: a drive-letter path to the interpreter is a Windows machine's (as companions.site_paths reads)
            yield Mention("path_os", "win32", n, MESSAGE, "interpreter path")
        conda = _CONDA_ENV_FILE.match(line)
        if conda:
            yield Mention("python", conda.group(1), n, FIELD, "conda environment file")
        uv = _UV_USING.match(line)
        if uv:
            yield Mention("python", uv.group(1), n, TOOL, "uv: Using CPython")
        banner = _FREE_BANNER.match(line)
        if banner:
            yield Mention("python", banner.group(1), n, TOOL, "Python banner (free-threading build)")
        free = _FREE_FLAG.search(line)
        if free:
            yield Mention("python_free_threaded", "free-threaded", n, MESSAGE,
                          f"free-threaded CPython ({free.group(0)})")
        missing = _NO_WHEEL.search(line)
        if missing:
            yield Mention("python_no_wheel", missing.group(1) or missing.group(2), n, PROSE,
                          "the Python the report says has no wheels")


def printed_versions(lines: list[str], offset: int) -> Iterator[Mention]:
    """What ``torch.__version__`` (or tf/jax/paddle's) printed, in the REPL or from ``python -c``: the line right
    after the call, when it is a version on its own and the only one (a script with several prints answers later
    and in order, so neither a call after another call nor a run of version lines is read)."""
    for i, line in enumerate(lines[:-1]):
        if "__version__" not in line or len(line) > 600:
            continue
        call = _VERSION_CALL.search(line.strip())
        if not call or (i > 0 and _VERSION_CALL.search(lines[i - 1].strip())):
            continue
        value = _BARE_VERSION.match(lines[i + 1])
        if value and not (i + 2 < len(lines) and _BARE_VERSION.match(lines[i + 2])):
            yield Mention("package", value.group(1), offset + i + 2, TOOL, f"{call.group(1)}.__version__ printed",
                          _MODULE_DIST[call.group(1)])


def inline_answers(lines: list[str], offset: int) -> Iterator[Mention]:
    """A version query and what it printed written on one line ("torch.__version__ → 2.9.1+cpu"): the reporter
    copying an interpreter's answer, a field's tier."""
    for i, line in enumerate(lines):
        if "__version__" not in line or len(line) > 300:
            continue
        found = _INLINE_ANSWER.match(line)
        if found:
            yield Mention("package", found.group(2), offset + i + 1, FIELD, f"{found.group(1)}.__version__ (as quoted)",
                          _MODULE_DIST[found.group(1)])


def bare_driver(lines: list[str], offset: int) -> Iterator[Mention]:
    """A driver version written on a line of its own (a reply to "which driver?"): prose, the weakest tier."""
    for i, line in enumerate(lines):
        found = _BARE_DRIVER.match(line) if line and len(line) < 40 else None
        if found:
            yield Mention("driver", found.group(1), offset + i + 1, PROSE, "a driver version on its own line")


def torch_template(lines: list[str], offset: int) -> Iterator[Mention]:
    """The PyTorch bug template's "### Versions" section when it holds only a version number ("1.13.1")."""
    if not any(_TORCH_TEMPLATE in line.lower() and line.lstrip().startswith("#") for line in lines[:40]):
        return
    for i, line in enumerate(lines):
        if not _VERSIONS_HEADER.match(line):
            continue
        answer = next(((j, nxt) for j, nxt in enumerate(lines[i + 1:i + 4], i + 1) if nxt.strip()), None)
        value = _TEMPLATE_VERSION.match(answer[1]) if answer else None
        if answer is not None and value:
            yield Mention("torch", value.group(1), offset + answer[0] + 1, FIELD,
                          "issue form: Versions (PyTorch bug template)")


def plain_torch_installs(lines: list[str], offset: int) -> Iterator[Mention]:
    """``pip install torch==X`` without an index or find-links option, or ``torch===X`` (the exact, unlabelled
    file even on a find-links page): the plain package-index build of X."""
    for i, line in enumerate(lines):
        install = _PIP_TORCH.search(line) if "torch" in line else None
        if not install:
            continue
        args = install.group(1)
        pin = _TORCH_PIN.search(args)
        if pin and (pin.group(1) == "===" or not _INDEX_OPTION.search(args)):
            yield Mention("torch_default_install", pin.group(2), offset + i + 1, MESSAGE,
                          f"pip install torch{pin.group(1)}{pin.group(2)} (the plain package-index build)")


#: How the extractors here name what they read from paths and commands (X.Y only, never the patch level).
_IMPRECISE = ("interpreter command", "py launcher command", "site-packages path", "site-packages path (Windows)")


def refine(lines: list[str], mentions: list[Mention]) -> list[Mention]:
    """Mentions without the Python and platform read from the name of a wheel that pip rejected (one of its tags is
    what the interpreter does not have), and without an X.Y read from a path or command when another mention
    gives the same Python more precisely (3.8 from ``lib/python3.8`` next to "Python 3.8.12")."""
    rejected = {found.group(1).replace("\\", "/").rsplit("/", 1)[-1].lower()
                for line in lines if "supported wheel" in line for found in _REJECTED.finditer(line)}
    precise = {m.value for m in mentions if m.kind == "python" and m.how not in _IMPRECISE}
    out = []
    for m in mentions:
        if m.kind in ("python", "wheel_platform") and rejected and m.how == "wheel file name" \
                and 0 < m.line <= len(lines):
            text = lines[m.line - 1].lower()
            if any(name in text for name in rejected):
                continue
        if m.kind == "python" and m.how in _IMPRECISE and any(v.startswith(m.value + ".") for v in precise):
            continue
        out.append(m)
    return out


#: A 32-bit interpreter, as reports show it: collect_env's "Python version: 3.7 (32-bit runtime)" (pytorch#47354),
#: the interpreter banner's "[MSC v.1932 32 bit (Intel)]" (AUTOMATIC1111/stable-diffusion-webui#10592), the
#: installer's default folder "Python37-32" (pytorch#41005), a sentence's "(Windows10 32bit)".
_BITS32 = re.compile(r"\(32-bit runtime\)|\[MSC v\.\d{3,5} 32 bit \(Intel\)\]|\bPython3\d{1,2}-32\b|"
                     r"\b(?:windows|win)\s{0,2}(?:7|8|10|11)?\s{0,2}(?:x86\s{0,2})?(?:\(|,\s{0,2})?\s{0,2}32[- ]?bit\b|"
                     r"\b32[- ]?bit\s{1,2}(?:python|windows|interpreter)\b", re.IGNORECASE)
_BITS_HEDGE = re.compile(r"\b(?:not|instead|rather|if|whether|64[- ]?bit)\b", re.IGNORECASE)
#: Mention kind: the interpreter (or the Windows it runs on) is 32-bit.
PYTHON_32BIT = "python_32bit"


def thirty_two_bit(lines: list[str], offset: int) -> Iterator[Mention]:
    """A 32-bit Python or Windows, in a report that is about PyTorch (which has no 32-bit wheels)."""
    if not any("torch" in line.lower() for line in lines):
        return
    for i, line in enumerate(lines):
        if "32" not in line:
            continue
        for sentence in sentences(line):
            found = _BITS32.search(sentence)
            if found and not _BITS_HEDGE.search(sentence):
                yield Mention(PYTHON_32BIT, found.group(0), offset + i + 1, MESSAGE, "a 32-bit interpreter")
                return


EXTRACTORS = (interpreter, printed_versions, inline_answers, bare_driver, torch_template, plain_torch_installs,
              thirty_two_bit)
