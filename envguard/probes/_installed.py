"""Runs INSIDE the target interpreter (stdlib only, py3.8 syntax): list installed distributions for
`envguard lock --from-current` and `envguard verify`, with how each was installed (direct_url.json,
INSTALLER) and, when asked (argv "--records"), whether the files on disk still match their RECORD hashes.
Prints one JSON object on stdout. Never imports an installed package."""

import base64
import hashlib
import json
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


def _check_record(info_dir, base):
    text = _read(os.path.join(info_dir, "RECORD"), 1 << 26)
    if not text:
        return {"checked": 0, "mismatched": [], "missing": [], "error": "no RECORD file"}
    checked = 0
    mismatched = []
    missing = []
    for row in text.splitlines():
        # NOTE: RECORD is CSV; paths with commas are quoted. The hash and size are the last two fields.
        if row.startswith('"'):
            end = row.find('",', 1)
            rel, rest = row[1:end].replace('""', '"'), row[end + 2:]
        else:
            rel, _, rest = row.partition(",")
        algo_hash = rest.split(",")[0]
        if not rel or not algo_hash.startswith("sha256="):
            continue
        path = os.path.normpath(os.path.join(base, rel))
        checked += 1
        try:
            if _digest(path) != algo_hash[len("sha256="):]:
                mismatched.append(rel)
        except OSError:
            missing.append(rel)
    return {"checked": checked, "mismatched": mismatched[:50], "missing": missing[:50],
            "mismatched_count": len(mismatched), "missing_count": len(missing)}


def main():
    records = "--records" in sys.argv[1:]
    only = set()
    for arg in sys.argv[1:]:
        if arg.startswith("--only="):
            only.update(x for x in arg[len("--only="):].split(",") if x)
    out = []
    seen = set()
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
            if records and (not only or key in only):
                item["record"] = _check_record(info_dir, folder)
            out.append(item)
    ver = sys.version_info
    sys.stdout.write(json.dumps({"installed_version": 1, "python": "%d.%d.%d" % (ver[0], ver[1], ver[2]),
                                 "platform": sys.platform, "distributions": out}))
    sys.stdout.write("\n")


main()
