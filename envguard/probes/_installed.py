"""Runs INSIDE the target interpreter (stdlib only, py3.8 syntax): list installed distributions for
`envguard lock --from-current` and `envguard verify`, with how each was installed (direct_url.json,
INSTALLER) and, when asked (argv "--records"), whether the files on disk still match their RECORD hashes.
Prints one JSON object on stdout. Never imports an installed package."""

import base64
import hashlib
import importlib.util
import json
import marshal
import os
import re
import sys

_CHUNK = 1 << 20


def _read(path, limit=1 << 22):
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


def _headers(text):
    name = version = None
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        key = key.strip().lower()
        if key == "name" and name is None:
            name = value.strip()
        elif key == "version" and version is None:
            version = value.strip()
    return name, version


def _digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(_CHUNK)
            if not block:
                break
            h.update(block)
    return base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode("ascii")


_INSTALL_TIME = ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json", "RECORD.jws", "RECORD.p7s")


def _rows(text):
    """(path, "sha256=..." or "") of each RECORD line."""
    for row in text.splitlines():
        # NOTE: RECORD is CSV; paths with commas are quoted. The hash and size are the last two fields.
        if row.startswith('"'):
            end = row.find('",', 1)
            rel, rest = row[1:end].replace('""', '"'), row[end + 2:]
        else:
            rel, _, rest = row.partition(",")
        if rel:
            yield rel, rest.split(",")[0]


def files_digest(text):
    """sha256 over the sorted "path<TAB>hash" lines of the files a wheel puts into site-packages: the same
    value from a wheel's RECORD and from the installed one (install-time files, bytecode, scripts and .data
    left out). envguard.lock.wheels computes it the same way; keep the two in step."""
    lines = []
    for rel, algo_hash in _rows(text):
        top = rel.split("/", 1)[0]
        if (not algo_hash.startswith("sha256=") or rel.startswith(("../", "/")) or top.endswith(".data")
                or rel.endswith(".pyc") or (top.endswith(".dist-info") and rel.rsplit("/", 1)[-1] in _INSTALL_TIME)):
            continue
        lines.append(rel + "\t" + algo_hash[len("sha256="):])
    return "sha256:" + hashlib.sha256("\n".join(sorted(lines)).encode("utf-8")).hexdigest()


def _check_record(info_dir, base, hash_files=True):
    text = _read(os.path.join(info_dir, "RECORD"), 1 << 26)
    if not text:
        return {"checked": 0, "mismatched": [], "missing": [], "error": "no RECORD file"}
    checked = 0
    mismatched = []
    missing = []
    for rel, algo_hash in _rows(text):
        if not algo_hash.startswith("sha256="):
            continue
        path = os.path.normpath(os.path.join(base, rel))
        checked += 1
        try:
            if not hash_files:
                if not os.path.isfile(path):
                    missing.append(rel)
            elif _digest(path) != algo_hash[len("sha256="):]:
                mismatched.append(rel)
        except OSError:
            missing.append(rel)
    return {"checked": checked if hash_files else 0, "mismatched": mismatched[:50], "missing": missing[:50],
            "mismatched_count": len(mismatched), "missing_count": len(missing), "files_digest": files_digest(text)}


def _pyc_ok(pyc, source):
    """Whether a __pycache__ file is the compilation of its source: the source hash of a hash-based pyc, or
    (timestamp pycs) its code object equal to compiling the source now."""
    try:
        with open(pyc, "rb") as fh:
            data = fh.read(1 << 26)
        with open(source, "rb") as fh:
            src = fh.read(1 << 26)
    except OSError:
        return True
    if len(data) < 16 or data[:4] != importlib.util.MAGIC_NUMBER:
        return True  # another interpreter's bytecode: this one never loads it
    flags = int.from_bytes(data[4:8], "little")
    if flags & 1:
        return data[8:16] == importlib.util.source_hash(src)
    m = re.search(r"\.opt-(\d)\.pyc$", pyc)
    try:
        code = marshal.loads(data[16:])
        return code == compile(src, source, "exec", dont_inherit=True, optimize=int(m.group(1)) if m else 0)
    except (ValueError, EOFError, TypeError, SyntaxError):
        return False


def _scan(folder, owned_tops, recorded, pycs):
    """Files under the locked packages' folders that no RECORD lists, every .pth, and bytecode that is not
    its source's."""
    unrecorded = []
    bytecode = []
    tag = getattr(sys.implementation, "cache_tag", None) or ""
    for top in sorted(owned_tops):
        root = os.path.join(folder, top)
        if not os.path.isdir(root):
            continue
        for here, dirs, files in os.walk(root):
            dirs.sort()
            for leaf in sorted(files):
                path = os.path.join(here, leaf)
                rel = os.path.relpath(path, folder).replace(os.sep, "/")
                listed = recorded.get(rel)
                if listed is not None and (listed[1].startswith("sha256=") or not leaf.endswith(".pyc")):
                    continue  # hash-checked against RECORD (or a RECORD entry without a hash that is not bytecode)
                if os.path.basename(here) == "__pycache__" and leaf.endswith(".pyc"):
                    stem = leaf.split(".", 1)[0]
                    source = os.path.join(os.path.dirname(here), stem + ".py")
                    if tag and "." + tag + "." not in leaf:
                        continue  # another interpreter's bytecode
                    if not os.path.exists(source):
                        unrecorded.append(rel)
                    elif pycs and not _pyc_ok(path, source):
                        bytecode.append(rel)
                    continue
                unrecorded.append(rel)
    pth = [leaf for leaf in sorted(os.listdir(folder)) if leaf.endswith(".pth")]
    return unrecorded, bytecode, pth


#: What virtualenv (20.x; also uv before 0.4 and the tools built on them: tox, pipx, hatch, poetry) writes into a
#: new environment's site-packages: a one-line .pth that imports its _virtualenv.py (a distutils patch).
VIRTUALENV_PTH = "_virtualenv.pth"
VIRTUALENV_OWNER = "(the virtualenv that created this environment)"


def _virtualenv_own(folder):
    """True when folder's _virtualenv.pth is the creator's: this interpreter is a virtual environment, the file
    is exactly ``import _virtualenv`` and _virtualenv.py lies beside it (its content varies by version)."""
    if sys.prefix == getattr(sys, "base_prefix", sys.prefix):
        return False
    try:
        with open(os.path.join(folder, VIRTUALENV_PTH), encoding="utf-8") as fh:
            text = fh.read(200)
    except (OSError, UnicodeDecodeError):
        return False
    return text.strip() == "import _virtualenv" and os.path.isfile(os.path.join(folder, "_virtualenv.py"))


def main():
    records = "--records" in sys.argv[1:] or "--scan" in sys.argv[1:]
    hash_files = "--records" in sys.argv[1:]
    only = set()
    for arg in sys.argv[1:]:
        if arg.startswith("--only="):
            only.update(x for x in arg[len("--only="):].split(",") if x)
    out = []
    seen = set()
    sites = {}
    for entry in sys.path:
        folder = entry or os.getcwd()
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for leaf in names:
            if not leaf.endswith(".dist-info"):
                continue
            info_dir = os.path.join(folder, leaf)
            name, version = _headers(_read(os.path.join(info_dir, "METADATA"), 1 << 20))
            if not name:
                continue
            key = re.sub(r"[-_.]+", "-", name).lower()
            if key in seen:
                continue
            seen.add(key)
            item = {"name": name, "version": version or "", "installer": _read(os.path.join(info_dir, "INSTALLER")).strip() or None,
                    "direct_url": None, "editable": False}
            raw = _read(os.path.join(info_dir, "direct_url.json"))
            if raw:
                try:
                    doc = json.loads(raw)
                    item["direct_url"] = doc.get("url")
                    item["editable"] = bool((doc.get("dir_info") or {}).get("editable"))
                except ValueError:
                    item["direct_url"] = "unreadable direct_url.json"
            site = sites.setdefault(folder, {"recorded": {}, "tops": set()})
            text = _read(os.path.join(info_dir, "RECORD"), 1 << 26) if records else ""
            for rel, algo_hash in _rows(text):
                site["recorded"][os.path.normpath(rel).replace(os.sep, "/")] = (key, algo_hash)
                top = rel.split("/", 1)[0]
                if (not only or key in only) and "/" in rel and not rel.startswith("..") and \
                        not top.endswith((".dist-info", ".data")) and top != "__pycache__":
                    site["tops"].add(top)
            if records and (not only or key in only):
                item["record"] = _check_record(info_dir, folder, hash_files)
            out.append(item)
    scan = None
    if records:
        scan = {"unrecorded": [], "bytecode": [], "pth": [], "unrecorded_count": 0, "bytecode_count": 0}
        for folder, site in sorted(sites.items()):
            unrecorded, bytecode, pth = _scan(folder, site["tops"], site["recorded"], hash_files)
            scan["unrecorded_count"] += len(unrecorded)
            scan["bytecode_count"] += len(bytecode)
            scan["unrecorded"] += [os.path.join(folder, p) for p in unrecorded][:50]
            scan["bytecode"] += [os.path.join(folder, p) for p in bytecode][:50]
            for leaf in pth:
                owner, algo_hash = site["recorded"].get(leaf, (None, ""))
                intact = False
                if owner is not None and algo_hash.startswith("sha256="):
                    try:
                        intact = _digest(os.path.join(folder, leaf)) == algo_hash[len("sha256="):]
                    except OSError:
                        intact = False
                if owner is None and leaf == VIRTUALENV_PTH and _virtualenv_own(folder):
                    owner, intact = VIRTUALENV_OWNER, True
                scan["pth"].append({"path": os.path.join(folder, leaf), "owner": owner if intact else None})
    ver = sys.version_info
    sys.stdout.write(json.dumps({"installed_version": 1, "python": "%d.%d.%d" % (ver[0], ver[1], ver[2]),
                                 "platform": sys.platform, "distributions": out, "scan": scan}))
    sys.stdout.write("\n")


main()
