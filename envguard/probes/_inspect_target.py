"""Runs INSIDE the target interpreter: report Python, distributions and framework build files as JSON.

Rules for this file: standard library only, Python 3.8 syntax, imports no framework and
nothing from envguard, prints exactly one JSON document on stdout.
"""

import sys

# NOTE: run with -c, so sys.path[0] is the working directory: drop it before any other import, so a stray json.py
# or torch/ folder (or a *.dist-info) where envguard was started can neither shadow a module nor be reported.
if sys.path and sys.path[0] == "":
    del sys.path[0]

import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402

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
    import ast

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
    import ast

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


def _headers(text):
    """Name, Version and Requires-Dist from a METADATA/PKG-INFO header block (no email parser: it is slow)."""
    name = version = None
    requires = []
    for line in text.split("\n\n", 1)[0].splitlines():
        if line[:1] in (" ", "\t"):
            continue
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip().lower()
        value = value.strip()
        if key == "name" and name is None:
            name = value
        elif key == "version" and version is None:
            version = value
        elif key == "requires-dist":
            requires.append(value)
    return name, version, requires


def _read(path, limit=4 << 20):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(limit)
    except OSError:
        return None


def _record_libs(info_dir, base, dist_name, dist_version):
    text = _read(os.path.join(info_dir, "RECORD"))
    out = []
    for line in (text or "").splitlines():
        rel = line.rsplit(",", 2)[0].strip('"')
        leaf = os.path.basename(rel)
        if (leaf.startswith(_LIB_HINTS) and ".so" in leaf) or leaf in ("cudnn_version.h", "nccl.h"):
            out.append({"dist": dist_name, "version": dist_version, "path": os.path.normpath(os.path.join(base, rel))})
    return out


def _distributions():
    """Installed distributions in sys.path order (the first of a name is the one that imports)."""
    dists = []
    libs = []
    seen = set()
    for entry in sys.path:
        folder = entry or os.getcwd()
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for leaf in names:
            if leaf.endswith(".dist-info"):
                meta = os.path.join(folder, leaf, "METADATA")
            elif leaf.endswith(".egg-info"):
                meta = os.path.join(folder, leaf, "PKG-INFO") if os.path.isdir(os.path.join(folder, leaf)) else os.path.join(folder, leaf)
            else:
                continue
            text = _read(meta, 1 << 20)
            if not text:
                continue
            name, version, requires = _headers(text)
            if not name:
                continue
            key = re.sub(r"[-_.]+", "-", name).lower()
            if key in seen:  # shadowed by an earlier sys.path entry: not what imports
                continue
            seen.add(key)
            dists.append({"name": name, "version": version or "", "requires": requires})
            if key.startswith("nvidia-") and leaf.endswith(".dist-info"):
                libs.extend(_record_libs(os.path.join(folder, leaf), folder, name, version or ""))
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
