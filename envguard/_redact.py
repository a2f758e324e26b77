"""What envguard must never write: credentials in URLs, secret-looking variables, home folder names.

Snapshots, ``check`` JSON, fingerprints, ``preflight.json`` and lock files are committed and shared; error
lines end up in CI logs. Everything printed or written passes through here first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["SECRET_NAME_PARTS", "environment_for_record", "is_secret_name", "redact_urls", "tilde_home"]

#: ``scheme://userinfo@``: searched from each "://" only (userinfo holds no "/", so runs never overlap).
_USERINFO = re.compile(r"://[^/@\s]*@")
#: A variable whose name contains one of these is never recorded, whatever the allow-list says.
SECRET_NAME_PARTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
#: Variables holding folders or folder lists in which a home folder is written as ``~``.
PATH_VARIABLES = frozenset({"PATH", "PYTHONPATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "VIRTUAL_ENV", "CONDA_PREFIX"})
_HOME_DIR = re.compile(r"(?<![^\s:=;])/(?:home|Users)/([^/:\s;]+)")


def redact_urls(text: str) -> str:
    """``text`` with the userinfo of every URL replaced: ``https://user:SECRET@host`` → ``https://***@host``."""
    return _USERINFO.sub("://***@", text) if "://" in text else text


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (``NCCL_IB_HCA_PASSWORD``)."""
    upper = name.upper()
    return any(part in upper for part in SECRET_NAME_PARTS)


def tilde_home(value: str, home: str | None) -> str:
    """Folder names with the home folder written as ``~`` (``$HOME``) or ``~user`` (``/home/user``)."""
    if home and len(home) > 1:
        home = home.rstrip("/")
        value = re.sub(rf"(?<![^\s:=;]){re.escape(home)}(?=/|:|;|$|\s)", "~", value)
    return _HOME_DIR.sub(lambda m: f"~{m.group(1)}", value)


def environment_for_record(
    env: Mapping[str, str], names: frozenset[str] | set[str] | tuple[str, ...], prefixes: tuple[str, ...] = (),
) -> dict[str, str]:
    """The allow-listed variables of ``env`` as they may be written: no secret-named variable, URL userinfo
    redacted, home folders as ``~`` in folder lists."""
    home = env.get("HOME")
    out: dict[str, str] = {}
    for key, value in sorted(env.items()):
        if not (key in names or key.startswith(prefixes)) or is_secret_name(key):
            continue
        clean = redact_urls(value)
        out[key] = tilde_home(clean, home) if key in PATH_VARIABLES else clean
    return out
