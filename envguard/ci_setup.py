"""What `envguard init ci` reads from this machine before it renders: where this envguard was installed from (its
PEP 610 ``direct_url.json``), as the command that installs the same envguard on a CI runner, and whether the lock
the pre-commit hook would verify exists.

The name "envguard" on the public package index belongs to an unrelated project, so the default install command
is never ``pip install envguard``: it is the pinned source this copy came from, or nothing (and `init ci` asks for
``--install-cmd``).
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any
from urllib.parse import unquote, urlsplit

from envguard.errors import InputError

DIST_NAME = "envguard"
#: ``vcs_info.vcs`` → the pip URL scheme prefix (PEP 610 names these four).
_VCS_PREFIX = {"git": "git+", "hg": "hg+", "bzr": "bzr+", "svn": "svn+"}
_EXAMPLE = "--install-cmd \"python3 -m pip install 'envguard @ git+https://git.example.com/ml/envguard@v0.1.0'\""
#: The longest install command `init ci` renders (scaffold's --install-cmd check allows 400 characters).
_MAX = 400


@dataclass(frozen=True, slots=True)
class InstallSource:
    """Where this envguard came from: the command that installs the same on a runner, or why there is none."""

    #: The install command, or None when the source cannot be known or reached from a runner.
    command: str | None
    #: What the source is ("git https://... at commit abc123", "the wheel /dist/envguard-0.1.0-...whl") or why
    #: there is no command.
    detail: str


def _pip(requirement: str) -> str:
    return f"python3 -m pip install {shlex.quote(requirement)}"


def install_source(direct_url: Mapping[str, Any] | None, version: str) -> InstallSource:
    """The install command for the source described by ``direct_url`` (PEP 610; None: installed from an index)."""
    if direct_url is None:
        return InstallSource(None, f"envguard {version} was installed from a package index, and the name envguard "
                                   "on the public index belongs to an unrelated project")
    url = direct_url.get("url")
    if not isinstance(url, str) or not url:
        return InstallSource(None, "its direct_url.json has no url")
    parts = urlsplit(url)
    local = parts.scheme == "file"
    vcs = direct_url.get("vcs_info")
    if isinstance(vcs, Mapping):
        kind, commit = vcs.get("vcs"), vcs.get("commit_id")
        if kind not in _VCS_PREFIX or not isinstance(commit, str) or not commit:
            return InstallSource(None, f"it came from a {kind} repository without a commit id")
        if local:
            return InstallSource(None, f"it came from the local repository {unquote(parts.path)}, which a runner "
                                       "cannot reach")
        subdir = direct_url.get("subdirectory")
        fragment = f"#subdirectory={subdir}" if isinstance(subdir, str) and subdir else ""
        command = _pip(f"{DIST_NAME} @ {_VCS_PREFIX[kind]}{url}@{commit}{fragment}")
        return _checked(command, f"{kind} {url} at commit {commit}")
    archive = direct_url.get("archive_info")
    if isinstance(archive, Mapping):
        if local:
            path = unquote(parts.path)
            return _checked(f"python3 -m pip install {shlex.quote(path)}", f"the file {path}")
        hashes = archive.get("hashes")
        legacy = archive.get("hash")
        sha256 = hashes.get("sha256") if isinstance(hashes, Mapping) else None
        if sha256 is None and isinstance(legacy, str) and legacy.startswith("sha256="):
            sha256 = legacy.removeprefix("sha256=")
        pinned = f"{url}#sha256={sha256}" if isinstance(sha256, str) and sha256 and "#" not in url else url
        return _checked(_pip(f"{DIST_NAME} @ {pinned}"), f"the archive {url}")
    info = direct_url.get("dir_info")
    if isinstance(info, Mapping):
        how = "an editable install of" if info.get("editable") else "an install of"
        where = unquote(parts.path) if local else url
        return InstallSource(None, f"it is {how} the local folder {where}, which a runner does not have")
    return InstallSource(None, "its direct_url.json names no vcs_info, archive_info or dir_info")


def _checked(command: str, detail: str) -> InstallSource:
    if len(command) > _MAX or not command.isascii() or not command.isprintable():
        return InstallSource(None, f"{detail} gives an install command that is not one short line of ASCII")
    return InstallSource(command, detail)


def read_direct_url(name: str = DIST_NAME) -> tuple[Mapping[str, Any] | None, str]:
    """This installation's direct_url.json (None when it has none) and version.

    :raises InputError: when the distribution's metadata is missing or its direct_url.json is not JSON.
    """
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise InputError(f"no installed {name} distribution found (its metadata tells where it came from): "
                         f"give {_EXAMPLE}") from None
    text = dist.read_text("direct_url.json")
    if text is None:
        return None, dist.version
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}'s direct_url.json is not JSON ({exc.msg}): give {_EXAMPLE}") from None
    return (doc if isinstance(doc, Mapping) else None), dist.version


def default_install_cmd() -> str:
    """The command that installs this envguard on a runner: its pinned source, from its install record.

    :raises InputError: when that cannot be known (installed from an index, from a local folder ...), saying so.
    """
    direct_url, version = read_direct_url()
    source = install_source(direct_url, version)
    if source.command is None:
        raise InputError(f"cannot tell how a runner installs this envguard: {source.detail}; give {_EXAMPLE}")
    return source.command


def ci_inputs(kinds: tuple[str, ...] | list[str], out_dir: str, lock: str, install_cmd: str | None,
              ) -> tuple[str | None, bool]:
    """For `envguard init ci`: the install command (given, or defaulted from this envguard's source when the GitHub
    or GitLab job needs one) and whether it was defaulted.

    :raises InputError: the pre-commit hook's lock is missing, or no install command is given and none can be known.
    """
    if "pre-commit" in kinds and (why := missing_lock(out_dir, lock)) is not None:
        raise InputError(why)
    if install_cmd is not None or not {"github", "gitlab"} & set(kinds):
        return install_cmd, False
    return default_install_cmd(), True


def missing_lock(out_dir: str, lock: str) -> str | None:
    """Why the pre-commit hook must not be written for ``lock`` (relative to the repository root ``out_dir``), or
    None when the lock is there."""
    if os.path.exists(os.path.join(out_dir, lock)):
        return None
    return (f"--pre-commit: the hook would verify {lock}, which is not in {out_dir}: write it first (envguard lock "
            f"... -o {out_dir}), give --lock with the lock's path, or leave the hook out (--github --gitlab)")
