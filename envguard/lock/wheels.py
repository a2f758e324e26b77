"""Read one small file out of a wheel without downloading it: a local file (a --find-links folder) through
zipfile, a remote one through HTTP range requests of its central directory and that member only. Used to
learn the build a wheel really is (``torchvision/version.py`` says ``0.29.2+cu132``) when its metadata does
not say: PyPI builds carry no ``+cuXYZ`` label in their version."""

from __future__ import annotations

import io
import logging
import os
import re
import ssl
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass

logger = logging.getLogger(__name__)

#: A server that ignores Range: read the whole file only up to this size (torchvision is ~8 MB; torch is GBs).
FULL_READ_LIMIT = 64 << 20
_BLOCK = 64 << 10
_MEMBER_LIMIT = 64 << 20


@dataclass(frozen=True, slots=True)
class WheelFile:
    """Where the resolver found one file of a pin."""

    name: str
    version: str
    url: str


def _context() -> ssl.SSLContext:
    cafile = next((os.environ[k] for k in ("SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE") if os.environ.get(k)),
                  None)
    return ssl.create_default_context(cafile=cafile)


class _RangeReader(io.RawIOBase):
    """A seekable read-only view of a remote file, fetched in blocks with HTTP Range requests."""

    def __init__(self, url: str, timeout_s: float) -> None:
        super().__init__()
        self.url, self.timeout_s, self.pos, self.ctx = url, timeout_s, 0, _context()
        self.blocks: dict[int, bytes] = {}
        self.size = 0
        self.whole: bytes | None = None
        tail = self._get(f"bytes=-{_BLOCK}")
        if tail is None:
            raise OSError(f"{url}: no answer")
        status, headers, body = tail
        if status == 206:
            m = re.search(r"/(\d+)\s*$", headers.get("content-range", ""))
            if not m:
                raise OSError(f"{url}: Range answer without a size")
            self.size = int(m.group(1))
            start = self.size - len(body)
            self.blocks[start] = body
        else:
            self.whole, self.size = body, len(body)

    def _get(self, byte_range: str) -> tuple[int, dict[str, str], bytes] | None:
        # NOTE: read_member hands only http(s) URLs to this class.
        req = urllib.request.Request(self.url, headers={"Range": byte_range, "User-Agent": "envguard"})  # noqa: S310
        with urllib.request.urlopen(req, timeout=self.timeout_s, context=self.ctx) as resp:  # noqa: S310
            status = int(resp.status)
            length = int(resp.headers.get("Content-Length") or 0)
            if status == 200 and length > FULL_READ_LIMIT:
                raise OSError(f"{self.url}: the server ignores Range requests and the file is {length} bytes")
            body = resp.read(FULL_READ_LIMIT + 1)
            if len(body) > FULL_READ_LIMIT:
                raise OSError(f"{self.url}: the server ignores Range requests and the file is too large to read")
            return status, {k.lower(): v for k, v in resp.headers.items()}, body

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self.pos, 2: self.size}[whence]
        self.pos = max(0, base + offset)
        return self.pos

    def _cached(self, start: int, n: int) -> bytes | None:
        for begin, data in self.blocks.items():
            if begin <= start and start + n <= begin + len(data):
                return data[start - begin:start - begin + n]
        return None

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            n = self.size - self.pos
        n = max(0, min(n, self.size - self.pos))
        if not n:
            return b""
        if self.whole is not None:
            data = self.whole[self.pos:self.pos + n]
        else:
            data = self._cached(self.pos, n) or b""
            if not data:
                end = min(self.size, self.pos + max(n, _BLOCK)) - 1
                got = self._get(f"bytes={self.pos}-{end}")
                if got is None or got[0] != 206:
                    raise OSError(f"{self.url}: Range request not honoured")
                self.blocks[self.pos] = got[2]
                data = got[2][:n]
        self.pos += len(data)
        return data


def read_member(url: str, member: str, *, timeout_s: float = 60.0) -> str | None:
    """The text of ``member`` inside the wheel at ``url`` (``file://``, a path, or http(s)); None when the wheel
    has no such member or cannot be read (the caller reports "unknown")."""
    parsed = urllib.parse.urlparse(url)
    try:
        if parsed.scheme in ("", "file"):
            path = urllib.request.url2pathname(parsed.path) if parsed.scheme == "file" else url
            with zipfile.ZipFile(path) as zf:
                return _member(zf, member)
        if parsed.scheme not in ("http", "https"):
            return None
        with zipfile.ZipFile(_RangeReader(url, timeout_s)) as zf:
            return _member(zf, member)
    except (OSError, zipfile.BadZipFile, ValueError) as exc:
        logger.info("cannot read %s from %s: %s", member, url, exc)
        return None


def _member(zf: zipfile.ZipFile, member: str) -> str | None:
    try:
        info = zf.getinfo(member)
    except KeyError:
        return None
    if info.file_size > _MEMBER_LIMIT:
        return None
    return zf.read(info).decode("utf-8", "replace")


_VERSION = re.compile(r"""^__version__\s*=\s*['"]([^'"\n]{1,80})['"]""", re.M)


def embedded_version(url: str, package: str, *, timeout_s: float = 60.0) -> str | None:
    """``__version__`` of ``PACKAGE/version.py`` in the wheel (torch, torchvision, torchaudio write their build
    there: ``0.29.2+cu132``), or None when unknown."""
    text = read_member(url, f"{package}/version.py", timeout_s=timeout_s)
    if text is None:
        return None
    m = _VERSION.search(text)
    return m.group(1) if m else None


_INSTALL_TIME = ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json", "RECORD.jws", "RECORD.p7s")


def files_digest(record: str) -> str:
    """sha256 over the sorted "path<TAB>hash" lines of the files a wheel puts into site-packages, from its
    RECORD text: install-time files, bytecode, scripts (``../``) and ``.data`` left out, so a wheel's RECORD and
    the installed one give the same value. probes/_installed.py computes it the same way; keep them in step."""
    import csv
    import hashlib

    lines = []
    for row in csv.reader(record.splitlines()):
        if len(row) < 2 or not row[0]:
            continue
        rel, algo_hash = row[0], row[1]
        top = rel.split("/", 1)[0]
        if (not algo_hash.startswith("sha256=") or rel.startswith(("../", "/")) or top.endswith(".data")
                or rel.endswith(".pyc") or (top.endswith(".dist-info") and rel.rsplit("/", 1)[-1] in _INSTALL_TIME)):
            continue
        lines.append(rel + "\t" + algo_hash[len("sha256="):])
    return "sha256:" + hashlib.sha256("\n".join(sorted(lines)).encode("utf-8")).hexdigest()


def record_digest(url: str, *, timeout_s: float = 60.0) -> str | None:
    """files_digest of the RECORD inside the wheel at ``url``; None when it cannot be read."""
    parsed = urllib.parse.urlparse(url)
    try:
        if parsed.scheme in ("", "file"):
            source: object = urllib.request.url2pathname(parsed.path) if parsed.scheme == "file" else url
        elif parsed.scheme in ("http", "https"):
            source = _RangeReader(url, timeout_s)
        else:
            return None
        with zipfile.ZipFile(source) as zf:  # type: ignore[call-overload] # reason: a path or a file-like
            names = [n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/RECORD")]
            if len(names) != 1:
                return None
            text = _member(zf, names[0]) if zf.getinfo(names[0]).file_size <= (64 << 20) else None
    except (OSError, zipfile.BadZipFile, ValueError) as exc:
        logger.info("cannot read the RECORD of %s: %s", url, exc)
        return None
    return files_digest(text) if text is not None else None
