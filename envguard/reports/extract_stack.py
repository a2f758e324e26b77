"""Versions of the packages that sit on top of the frameworks (vLLM, transformers, xformers, flash-attn, Keras, ...).

envguard does not judge these packages, but a report that names them has been read: "vllm 0.2.0 has this problem,
updating to 0.2.1.post1 fixed it" states the software the report is about, and saying so is better than "no
environment facts found". Shapes, one each (bounded patterns on lines already cut to ``segment.MAX_LINE_CHARS``):

- tool fields: vLLM's collect_env ("vLLM Version: 0.7.1", padded "vLLM Version                 : 0.9.2"),
  ``transformers-cli env`` / ``diffusers-cli env`` ("- `transformers` version: 4.40.0", "- Accelerate version:
  0.30.1", "- xFormers version: 0.0.25");
- banners: vLLM's "vLLM API server version 0.5.3.post1", "Initializing an LLM engine (v0.6.4.post1) with config",
  "Initializing a V1 LLM engine (v0.9.1) with config";
- pip freeze lines of the names ``extract.packages`` does not list ("transformers==4.40.0");
- sentences: "i used vllm 0.2.0", "vllm版本v0.3.2", "transformers version is 4.36.2" (never when the sentence hedges).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envguard.reports.mentions import MESSAGE, PROSE, TOOL, Mention
from envguard.sentences import window
from envguard.snapshot import normalize_name

__all__ = ["stack_packages"]

_VERSION = (r"(\d{1,3}\.\d{1,4}(?:\.\d{1,4})?(?:\.post\d{1,3}|\.dev\d{1,12}|rc\d{1,3}|[ab]\d{1,3})?"
            r"(?:\+[\w.]{1,40})?)")
#: Packages read here; "accelerate", "optimum" and "peft" are ordinary words too, so only their field and pip shapes.
_NAMES = (r"vllm|transformers|xformers|flash[-_]attn|bitsandbytes|diffusers|deepspeed|sglang|lmdeploy|tensorrt[-_]llm|"
          r"tensorrt|triton|onnx\s?runtime(?:-gpu)?|ultralytics|mmcv(?:-full)?|detectron2|llama[-_]cpp[-_]python|"
          r"auto[-_]gptq|autoawq|horovod|huggingface[-_]hub|safetensors|keras|tf[-_]keras")
_FIELD_ONLY = r"accelerate|optimum|peft|trl"
#: "vLLM Version: 0.7.1" (collect_env), the "- `transformers` version: 4.40.0" fields of the HF env commands and
#: dependency lists ("transformers: 4.53.1").
_FIELD = re.compile(rf"^\s{{0,8}}(?:[-*]\s{{1,4}})?`?({_NAMES}|{_FIELD_ONLY})`?(?:\s{{1,2}}version)?\s{{0,40}}:"
                    rf"\s{{0,8}}`?v?{_VERSION}", re.IGNORECASE)
_VLLM_BANNER = re.compile(r"\bvLLM API server version " + _VERSION
                          + r"|\bInitializing an? (?:V\d )?LLM engine \(v" + _VERSION + r"\) with config")
#: pip freeze lines the framework listing (extract.packages) leaves out.
_FREEZE = re.compile(rf"^\s{{0,4}}(transformers|accelerate|diffusers|deepspeed|peft|trl|sglang|lmdeploy|optimum|"
                     rf"tensorrt[-_]llm|tensorrt|mmcv(?:-full)?|huggingface[-_]hub|safetensors|keras|tf[-_]keras)\s{{0,2}}==\s{{0,2}}"
                     rf"{_VERSION}\s*$", re.IGNORECASE)
#: A sentence naming one: "vllm 0.2.0", "vllm==0.4.2", "vLLM v0.3.2", "vllm版本v0.3.2", "transformers version is 4.36".
_PROSE = re.compile(rf"(?<![\w./-])({_NAMES})(?:\s{{0,2}}(?:version|版本|ver\.?)\s{{0,2}}"
                    rf"(?:is\s{{1,2}}|[:\uff1a]\s{{0,2}})?|\s{{0,2}}={{1,2}}\s{{0,2}}|\s{{1,2}}|@)v?{_VERSION}(?!\w|\.\w)",
                    re.IGNORECASE)
#: A sentence that negates, conditions or asks states no fact about the reporter's software.
#: ("could" is not one: "I could run it successfully by moving back to ultralytics 8.0.40" states what ran,
#: ultralytics/ultralytics#1367.)
#: ("before," / "previously": "I used onnxruntime-gpu==1.18.1 before, ... after upgrading to ...==1.19.0",
#: microsoft/onnxruntime#21769: the version used before is not the one the report is about; "before running" is
#: no such word.)
_HEDGE = re.compile(r"\b(?:not|n't|never|without|if|would|should|instead of|rather than|supposed to|"
                    r"requires?|required|needs?|e\.g|for example|such as|latest|newer than|older than|"
                    r"before(?=\s{0,2}[,.;])|previously)\b", re.IGNORECASE)
_HEDGE_WINDOW = 32


def stack_packages(lines: list[str], offset: int) -> Iterator[Mention]:
    """Versions of vLLM, transformers, xformers, flash-attn and their kin, as package mentions."""
    for i, line in enumerate(lines):
        if not line.strip() or len(line) > 2000:
            continue
        n = offset + i + 1
        field = _FIELD.match(line)
        if field:
            yield Mention("package", field.group(2), n, TOOL, f"field: {field.group(1)} version",
                          _dist(field.group(1)))
            continue
        freeze = _FREEZE.match(line)
        if freeze:
            yield Mention("package", freeze.group(2), n, TOOL, "pip freeze", _dist(freeze.group(1)))
            continue
        banner = _VLLM_BANNER.search(line)
        if banner:
            yield Mention("package", banner.group(1) or banner.group(2), n, MESSAGE, "vLLM banner", "vllm")
            continue
        if line.lstrip().startswith(("File ", "/", "|")) or "site-packages" in line:
            continue
        for found in _PROSE.finditer(line):
            if not _HEDGE.search(window(line, found.start(), found.end(), _HEDGE_WINDOW)):
                yield Mention("package", found.group(2), n, PROSE, "text", _dist(found.group(1)))


def _dist(name: str) -> str:
    key = normalize_name(name.replace(" ", ""))
    return {"flash-attention": "flash-attn", "huggingface-hub": "huggingface-hub"}.get(key, key)
