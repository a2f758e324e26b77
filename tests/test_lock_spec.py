"""envguard.lock.spec: the versioned lock document, its fingerprint and the input checks."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
from typing import Any

import pytest

from envguard.errors import InputError, LockError
from envguard.lock.spec import (
    LOCK_SCHEMA,
    IndexUse,
    LockedPackage,
    LockSpec,
    LockTarget,
    check_name,
    check_url,
    check_version,
)

HA = "sha256:" + "a" * 64
HB = "sha256:" + "b" * 64
HC = "sha256:" + "c" * 64
CU124 = "https://download.pytorch.org/whl/cu124"


def _spec(**changes: Any) -> LockSpec:
    spec = LockSpec(
        target=LockTarget("3.11", "linux-x86_64", "12.4", "cu124", "9.1.0.70", "2.21.5", "525.60.13"),
        packages=(
            LockedPackage("Torch", "2.5.1", (HB, HA), requested=True),
            LockedPackage("filelock", "3.16.1", (HC,)),
        ),
        indexes=(IndexUse(CU124, "torch 2.5 cu124 builds"),),
        mode="request",
        requirements=("torch==2.5.*",),
        resolver="uv 0.5.1",
        envguard_version="1.2.3",
        matrices=("torch v1 (retrieved 2026-11-30)",),
        skipped=(("mypkg", "editable install (file:///src): no index file to hash"),),
    )
    return dataclasses.replace(spec, **changes)


# ---- round trip and canonical JSON ------------------------------------------------------------


def test_round_trip_to_dict_from_dict_is_identity_up_to_package_and_hash_order() -> None:
    spec = _spec()
    back = LockSpec.from_dict(spec.to_dict())
    assert back.target == spec.target
    assert back.indexes == spec.indexes
    assert back.mode == "request"
    assert back.requirements == ("torch==2.5.*",)
    assert back.resolver == "uv 0.5.1"
    assert back.envguard_version == "1.2.3"
    assert back.matrices == ("torch v1 (retrieved 2026-11-30)",)
    assert back.skipped == spec.skipped
    assert back.schema_version == LOCK_SCHEMA == 1
    # Packages come back sorted by normalized name, hashes sorted; the name keeps its spelling.
    assert back.packages == (
        LockedPackage("filelock", "3.16.1", (HC,), requested=False),
        LockedPackage("Torch", "2.5.1", (HA, HB), requested=True),
    )
    assert back.fingerprint == spec.fingerprint
    assert back.to_json() == spec.to_json()


def test_to_dict_layout() -> None:
    d = _spec().to_dict()
    assert set(d) == {"schema_version", "generator", "fingerprint", "mode", "requirements", "target", "indexes",
                      "packages", "skipped"}
    assert d["generator"] == {"envguard": "1.2.3", "resolver": "uv 0.5.1",
                              "matrices": ["torch v1 (retrieved 2026-11-30)"]}
    assert d["target"] == {"python": "3.11", "platform": "linux-x86_64", "cuda": "12.4", "variant": "cu124",
                           "cudnn": "9.1.0.70", "nccl": "2.21.5", "driver_floor": "525.60.13"}
    assert d["packages"] == [
        {"name": "filelock", "version": "3.16.1", "hashes": [HC], "requested": False},
        {"name": "Torch", "version": "2.5.1", "hashes": [HA, HB], "requested": True},
    ]
    assert d["indexes"] == [{"url": CU124, "reason": "torch 2.5 cu124 builds"}]
    assert d["skipped"] == [{"name": "mypkg", "reason": "editable install (file:///src): no index file to hash"}]


def test_to_json_is_sorted_indented_newline_terminated_and_order_independent() -> None:
    spec = _spec()
    text = spec.to_json()
    assert text.endswith("}\n")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    top_keys = [line.split('"')[1] for line in text.splitlines() if line.startswith('  "')]
    assert top_keys == sorted(top_keys)
    assert top_keys[0] == "fingerprint"
    shuffled = dataclasses.replace(spec, packages=tuple(reversed(spec.packages)))
    assert shuffled.to_json() == text
    assert spec.to_json() == text  # deterministic across calls


def test_package_lookup_normalizes_names() -> None:
    spec = _spec()
    pkg = spec.package("TORCH")
    assert pkg is not None and pkg.name == "Torch"
    assert spec.package("FileLock") is not None
    assert spec.package("numpy") is None


def test_locked_package_key_and_local() -> None:
    assert LockedPackage("Nvidia_CUDNN.cu12", "9.1.0.70", ()).key == "nvidia-cudnn-cu12"
    assert LockedPackage("torch", "2.5.1+cu124", ()).local == "cu124"
    assert LockedPackage("torch", "2.5.1", ()).local is None


# ---- fingerprint ------------------------------------------------------------------------------


def test_golden_fingerprint_pins_the_canonical_form() -> None:
    """sha256 over compact, key-sorted JSON of target, [key, version, sorted hashes] by key, sorted index URLs."""
    canonical = (
        '{"indexes":["https://download.pytorch.org/whl/cu124"],'
        '"packages":[["filelock","3.16.1",["' + HC + '"]],'
        '["torch","2.5.1",["' + HA + '","' + HB + '"]]],'
        '"target":{"cuda":"12.4","cudnn":"9.1.0.70","driver_floor":"525.60.13","nccl":"2.21.5",'
        '"platform":"linux-x86_64","python":"3.11","variant":"cu124"}}'
    )
    expected = "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
    assert _spec().fingerprint == expected


def test_golden_fingerprint_of_a_cpu_lock_without_indexes() -> None:
    spec = LockSpec(LockTarget("3.10", "linux-aarch64", None), (LockedPackage("numpy", "2.1.3", (HA,)),))
    canonical = (
        '{"indexes":[],"packages":[["numpy","2.1.3",["' + HA + '"]]],'
        '"target":{"cuda":null,"cudnn":null,"driver_floor":null,"nccl":null,'
        '"platform":"linux-aarch64","python":"3.10","variant":null}}'
    )
    assert spec.fingerprint == "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def test_fingerprint_ignores_provenance_and_request_details() -> None:
    base = _spec().fingerprint
    assert _spec(envguard_version="9.9.9").fingerprint == base
    assert _spec(resolver="pip 24.2").fingerprint == base
    assert _spec(matrices=()).fingerprint == base
    assert _spec(mode="current", requirements=("x==1",), skipped=()).fingerprint == base
    assert _spec(indexes=(IndexUse(CU124, "another reason"),)).fingerprint == base


def test_fingerprint_changes_with_what_determines_the_environment() -> None:
    spec = _spec()
    base = spec.fingerprint
    torch = spec.packages[0]
    changed_version = (dataclasses.replace(torch, version="2.5.0"), spec.packages[1])
    changed_hash = (dataclasses.replace(torch, hashes=(HA,)), spec.packages[1])
    assert _spec(packages=changed_version).fingerprint != base
    assert _spec(packages=changed_hash).fingerprint != base
    assert _spec(packages=spec.packages[:1]).fingerprint != base
    assert _spec(indexes=()).fingerprint != base
    assert _spec(target=dataclasses.replace(spec.target, python="3.12")).fingerprint != base
    assert _spec(target=dataclasses.replace(spec.target, driver_floor=None)).fingerprint != base


def test_fingerprint_independent_of_package_hash_and_index_order() -> None:
    spec = _spec(indexes=(IndexUse(CU124, "a"), IndexUse("https://example.org/simple", "b")))
    reordered = dataclasses.replace(
        spec,
        packages=(LockedPackage("filelock", "3.16.1", (HC,)), LockedPackage("torch", "2.5.1", (HA, HB))),
        indexes=tuple(reversed(spec.indexes)),
    )
    assert reordered.fingerprint == spec.fingerprint


# ---- from_dict validation ---------------------------------------------------------------------


def _doc() -> dict[str, Any]:
    return copy.deepcopy(_spec().to_dict())


@pytest.mark.parametrize("data", [[], "text", 1, None])
def test_from_dict_rejects_non_objects(data: Any) -> None:
    with pytest.raises(LockError, match=r"lock.json is not a JSON object"):
        LockSpec.from_dict(data, "my/lock.json")


@pytest.mark.parametrize("version", [2, 0, "1", None])
def test_from_dict_rejects_unknown_schema_version(version: Any) -> None:
    doc = _doc()
    doc["schema_version"] = version
    expected = "has no schema_version" if version is None else f"schema_version {version!r} is not supported"
    with pytest.raises(LockError, match=expected):
        LockSpec.from_dict(doc)


def test_from_dict_without_schema_version_is_rejected() -> None:
    doc = _doc()
    del doc["schema_version"]
    with pytest.raises(LockError, match=r"has no schema_version"):
        LockSpec.from_dict(doc)


@pytest.mark.parametrize("path", [("target",), ("packages",), ("target", "python"), ("target", "platform")])
def test_from_dict_rejects_missing_fields(path: tuple[str, ...]) -> None:
    doc = _doc()
    holder: dict[str, Any] = doc
    for key in path[:-1]:
        holder = holder[key]
    del holder[path[-1]]
    with pytest.raises(LockError, match=f"missing or malformed field '{path[-1]}'"):
        LockSpec.from_dict(doc)


@pytest.mark.parametrize("field", ["name", "version"])
def test_from_dict_rejects_package_without_name_or_version(field: str) -> None:
    doc = _doc()
    del doc["packages"][0][field]
    with pytest.raises(LockError, match=r"missing or malformed field"):
        LockSpec.from_dict(doc)


def test_from_dict_rejects_wrong_types() -> None:
    doc = _doc()
    doc["target"]["python"] = 3.11
    with pytest.raises(LockError, match=r"expected a string"):
        LockSpec.from_dict(doc)


@pytest.mark.parametrize(("field", "value"), [("generator", "x"), ("generator", ["x"])])
def test_from_dict_rejects_a_non_object_generator(field: str, value: Any) -> None:
    doc = _doc()
    doc[field] = value
    with pytest.raises(LockError, match=r"missing or malformed field"):
        LockSpec.from_dict(doc)


@pytest.mark.parametrize("bad", ["md5:" + "a" * 32, "sha256:" + "A" * 64, "sha256:" + "a" * 63, "a" * 64])
def test_from_dict_rejects_bad_hash_format(bad: str) -> None:
    doc = _doc()
    doc["packages"][0]["hashes"] = [bad]
    with pytest.raises(LockError, match=r"filelock: malformed hash"):
        LockSpec.from_dict(doc)


@pytest.mark.parametrize("name", ["a;b", "../x", "-torch", "torch ", ""])
def test_from_dict_rejects_bad_names(name: str) -> None:
    doc = _doc()
    doc["packages"][0]["name"] = name
    with pytest.raises(LockError, match=r"is not a valid distribution name"):
        LockSpec.from_dict(doc)


def test_from_dict_rejects_bad_versions_and_urls() -> None:
    doc = _doc()
    doc["packages"][0]["version"] = "latest"
    with pytest.raises(LockError, match=r"'latest' is not a PEP 440 version"):
        LockSpec.from_dict(doc)
    doc = _doc()
    doc["indexes"][0]["url"] = "file:///srv/wheels"
    with pytest.raises(LockError, match=r"is not a plain http"):
        LockSpec.from_dict(doc)


def test_from_dict_rejects_hand_edited_content() -> None:
    doc = _doc()
    doc["packages"][1]["version"] = "2.5.0"  # torch, hand-edited; fingerprint left as it was
    with pytest.raises(LockError, match=r"does not match its content") as info:
        LockSpec.from_dict(doc, "envguard.lock.json")
    assert doc["fingerprint"] in str(info.value)
    doc = _doc()
    doc["packages"][0]["hashes"] = [HA]
    with pytest.raises(LockError, match=r"edited by hand"):
        LockSpec.from_dict(doc)


def test_from_dict_accepts_provenance_edits_and_an_unsigned_lock_only_when_allowed() -> None:
    doc = _doc()
    doc["generator"]["envguard"] = "0.0.1"
    assert LockSpec.from_dict(doc).envguard_version == "0.0.1"
    doc = _doc()
    del doc["fingerprint"]
    del doc["generator"]
    # Deleting the fingerprint must not make a hand-edited lock acceptable (issue 12 item 6).
    doc["packages"][0]["version"] = "9.9.9"
    with pytest.raises(LockError, match=r"has no fingerprint.*--allow-unsigned"):
        LockSpec.from_dict(doc)
    doc = _doc()
    del doc["fingerprint"]
    del doc["generator"]
    spec = LockSpec.from_dict(doc, allow_unsigned=True)
    assert spec.resolver == "" and spec.fingerprint == _spec().fingerprint


def test_files_digest_is_part_of_the_fingerprint_and_validated() -> None:
    plain = _spec()
    pinned = LockSpec(plain.target, tuple(dataclasses.replace(p, files="sha256:" + "a" * 64) for p in plain.packages))
    assert pinned.fingerprint != LockSpec(plain.target, plain.packages).fingerprint
    back = LockSpec.from_dict(json.loads(pinned.to_json()))
    assert back.packages[0].files == "sha256:" + "a" * 64
    doc = json.loads(pinned.to_json())
    doc["packages"][0]["files"] = "md5:1"
    with pytest.raises(LockError, match="malformed files digest"):
        LockSpec.from_dict(doc)


def test_lock_error_is_an_input_error() -> None:
    assert issubclass(LockError, InputError)


# ---- the checks -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["torch", "nvidia-cudnn-cu12", "zope.interface", "A", "a_b"])
def test_check_name_accepts(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["a;b", "../x", "a b", "x/y", "-x", "x-", "", "a\nb", 'a"b'])
def test_check_name_rejects(name: str) -> None:
    with pytest.raises(LockError, match=r"--find-links name .* is not a valid distribution name"):
        check_name(name, "--find-links name")


@pytest.mark.parametrize("version", ["2.5.1+cu124", "1.0rc1", "1!2.0", "2024.1.post0"])
def test_check_version_accepts(version: str) -> None:
    assert check_version(version, "x") == version


@pytest.mark.parametrize("version", ["latest", "1.0 ; rm", "", "1..0"])
def test_check_version_rejects(version: str) -> None:
    with pytest.raises(LockError, match=r"^pkg: "):
        check_version(version, "pkg")


@pytest.mark.parametrize("url", [CU124, "http://localhost:8080/simple", "https://mirror.example.org/pypi/simple/"])
def test_check_url_accepts(url: str) -> None:
    assert check_url(url) == url


@pytest.mark.parametrize("url", [
    "file:///x", "http://a b", "ftp://example.org/", 'https://x.org/"', "https://x.org/'", "https://x.org/\nb",
    "https://x.org/a\nRUN x", "https://user:pw@x.org/", "https://x.org/?q=1", "//x.org", "",
])
def test_check_url_rejects(url: str) -> None:
    with pytest.raises(LockError, match=r"--extra-index-url .* is not a plain http"):
        check_url(url, "--extra-index-url")


def test_check_url_rejects_trailing_newline() -> None:
    with pytest.raises(LockError):
        check_url("https://x.org/simple\n")


def test_check_name_rejects_trailing_newline() -> None:
    with pytest.raises(LockError):
        check_name("torch\n")


def test_check_version_rejects_trailing_newline() -> None:
    with pytest.raises(LockError):
        check_version("2.5.1\n", "torch")


def test_from_dict_rejects_hash_with_trailing_newline() -> None:
    doc = _doc()
    doc["packages"][0]["hashes"] = [HC + "\n"]
    del doc["fingerprint"]
    with pytest.raises(LockError):
        LockSpec.from_dict(doc)
