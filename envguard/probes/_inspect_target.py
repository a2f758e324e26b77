"""Runs INSIDE the target interpreter: report Python, distributions and framework build files as JSON.

Rules for this file: standard library only, Python 3.8 syntax, imports no framework and
nothing from envguard, prints exactly one JSON document on stdout.
"""

import ast
import json
import os
import platform
import re
import sys

try:
    from importlib import metadata as _md
except ImportError:  # pragma: no cover - Python < 3.8
    _md = None

_ASSIGN = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*(?::\s*[^=]+)?=\s*(.+?)\s*$")
_LIB_HINTS = ("libcud", "libnccl", "libcublas", "libnvrtc", "libnvjitlink", "libcufft", "libcusparse")


def _python():
    prefix = sys.prefix
    base = getattr(sys, "base_prefix", prefix)
    return {
        "executable": sys.executable,
        "version": "%d.%d.%d" % sys.version_info[:3],
        "implementation": platform.python_implementation(),
        "platform": sys.platform,
        "machine": platform.machine(),
        "prefix": prefix,
        "base_prefix": base,
        "virtualenv": prefix != base or hasattr(sys, "real_prefix"),
        "conda_prefix": os.environ.get("CONDA_PREFIX") or (prefix if os.path.isdir(os.path.join(prefix, "conda-meta")) else None),
        "free_threaded": bool(getattr(sys, "_is_gil_enabled", None)) and not sys._is_gil_enabled(),
    }


def _simple_assignments(path):
    """name -> literal for top-level `name = 'literal'` lines of a small generated file."""
    out = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(200000)
    except OSError:
        return None
    for line in text.splitlines():
        match = _ASSIGN.match(line)
        if not match:
            continue
        try:
            out[match.group(1)] = ast.literal_eval(match.group(2))
        except (ValueError, SyntaxError):
            continue
    return out


def _build_info(path):
    """TensorFlow's generated build_info.py: a dict literal or `build_info['k'] = v` lines."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return None
    info = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == "build_info":
                key = target.slice
                if hasattr(ast, "Index") and isinstance(key, ast.Index):  # Python 3.8
                    key = key.value  # type: ignore[attr-defined]
                try:
                    info[ast.literal_eval(key)] = ast.literal_eval(node.value)
                except ValueError:
                    pass
            elif isinstance(target, ast.Name) and target.id == "build_info":
                value = node.value
                if isinstance(value, ast.Call) and value.args:
                    value = value.args[0]
                try:
                    literal = ast.literal_eval(value)
                except ValueError:
                    continue
                if isinstance(literal, dict):
                    info.update(literal)
                elif isinstance(literal, (list, tuple)):
                    info.update(dict(literal))
    return {str(k): v for k, v in info.items()}


def _package_dir(name):
    """Folder of a top-level package, found without importing it."""
    for entry in sys.path:
        if not entry:
            entry = os.getcwd()
        candidate = os.path.join(entry, name)
        if os.path.isfile(os.path.join(candidate, "__init__.py")):
            return candidate
    return None


def _frameworks():
    found = {}
    torch_dir = _package_dir("torch")
    if torch_dir:
        found["torch"] = {"dir": torch_dir, "version_py": _simple_assignments(os.path.join(torch_dir, "version.py"))}
    for name in ("torchvision", "torchaudio"):
        pkg = _package_dir(name)
        if pkg:
            found[name] = {"dir": pkg, "version_py": _simple_assignments(os.path.join(pkg, "version.py"))}
    tf_dir = _package_dir("tensorflow")
    if tf_dir:
        path = os.path.join(tf_dir, "python", "platform", "build_info.py")
        found["tensorflow"] = {"dir": tf_dir, "build_info": _build_info(path) if os.path.isfile(path) else None}
    jaxlib_dir = _package_dir("jaxlib")
    if jaxlib_dir:
        found["jaxlib"] = {"dir": jaxlib_dir, "version_py": _simple_assignments(os.path.join(jaxlib_dir, "version.py"))}
    paddle_dir = _package_dir("paddle")
    if paddle_dir:
        path = os.path.join(paddle_dir, "version", "__init__.py")
        found["paddle"] = {"dir": paddle_dir, "version_py": _simple_assignments(path)}
    return found


def _distributions():
    if _md is None:
        return [], []
    dists = []
    libs = []
    seen = set()
    for dist in _md.distributions():
        try:
            name = dist.metadata["Name"]
        except Exception:  # noqa: BLE001 - a broken METADATA must not hide the others
            name = None
        if not name:
            continue
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:  # shadowed by an earlier sys.path entry: not what imports
            continue
        seen.add(key)
        dists.append({"name": name, "version": dist.version or "", "requires": list(dist.requires or [])})
        if key.startswith("nvidia-") or key in ("cuda-toolkit",):
            for f in dist.files or ():
                text = str(f)
                base = os.path.basename(text)
                if base.startswith(_LIB_HINTS) and ".so" in base or base in ("cudnn_version.h", "nccl.h"):
                    libs.append({"dist": name, "version": dist.version, "path": str(dist.locate_file(f))})
    return dists, libs


def main():
    dists, libs = _distributions()
    doc = {
        "inspect_version": 1,
        "python": _python(),
        "distributions": dists,
        "wheel_files": libs,
        "frameworks": _frameworks(),
    }
    sys.stdout.write(json.dumps(doc, default=str))
    sys.stdout.write("\n")


main()
