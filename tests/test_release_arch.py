"""Paddle 1.x knowledge and the release-level arch bound, on real report text (sources in the comments)."""

from __future__ import annotations

from envguard.findings import Severity
from envguard.knowledge import Matrices, load_matrices
from envguard.reports import extract, parse_environments
from envguard.rules import run_rules
from envguard.rules.release_arch import ReleaseArchRule

M: Matrices = load_matrices()


def _kinds(lines: list[str]) -> set[tuple[str, str, str]]:
    return {(m.kind, m.key, m.value) for m in extract.prose(lines, 0)}


def test_chinese_version_word_is_read_in_prose() -> None:
    # https://github.com/PaddlePaddle/Paddle/issues/27751
    assert ("package", "paddlepaddle", "1.8") in _kinds(["1.paddle版本1.8-1.8.5均试过不行。"])
    # https://github.com/PaddlePaddle/Paddle/issues/47662
    assert ("cuda_text", "", "11.1") in _kinds(["cuda版本：11.1"])
    assert ("cudnn", "", "8.1") in _kinds(["cudnn版本： 8.1"])
    # https://github.com/PaddlePaddle/models/issues/5360
    got = _kinds(["cuda版本是10.1， cudnn是7.6.5，paddle 安装的是2.1.3。"])
    assert ("cuda_text", "", "10.1") in got and ("cudnn", "", "7.6.5") in got
    # https://github.com/PaddlePaddle/Paddle/issues/69096
    line = "nvcc --version查看cuda的版本是11.8，随后在paddle官网安装建议版本的paddlepaddle-gpu，"
    assert ("cuda_text", "", "11.8") in _kinds([line])


def test_paddle_1x_post_suffix_names_cuda_major_and_cudnn_major() -> None:
    # https://github.com/PaddlePaddle/PaddleSeg/issues/507 (1.8.5.post97 = CUDA 9.0 + cuDNN 7, not CUDA 9.7)
    envs = parse_environments("GeForce RTX 2080 Ti\npip3 install paddlepaddle-gpu==1.8.5.post97\n", "t", M)
    paddle = next(b for e in envs for b in e.snapshot.frameworks if b.name == "paddle")
    assert (paddle.cuda, paddle.accelerator) == ("9.0", "cuda")


def test_paddle_18_has_no_build_for_ampere() -> None:
    # https://github.com/PaddlePaddle/Paddle/issues/27751 (maintainer: published 1.8 packages support up to sm_75)
    text = ("显卡为MSI RTX3080 主机为MSI P100。WIN10 64位专业版。\n1.paddle版本1.8-1.8.5均试过不行。\n")
    envs = parse_environments(text, "t", M)
    found = [f for e in envs for f in ReleaseArchRule().check(e.snapshot, M)]
    assert [f.code for f in found] == ["arch-unsupported"] and found[0].severity is Severity.ERROR
    assert "8.6" in found[0].message and "CUDA 10.0" in found[0].message


def test_paddle_18_on_turing_is_fine() -> None:
    # https://github.com/PaddlePaddle/Paddle/issues/17863 era: an RTX 2060 (sm_75) is covered by CUDA 10.0 builds
    envs = parse_environments("GPU：Geforce RTX2060\npaddle版本1.8.4\n", "t", M)
    assert not [f for e in envs for f in ReleaseArchRule().check(e.snapshot, M)]
    errors = {f.code for e in envs for f in run_rules(e.snapshot, M, notes=e.notes).findings
              if f.severity is Severity.ERROR}
    assert "arch-unsupported" not in errors


def test_paddle_18_release_row() -> None:
    release = M.paddle.release("1.8.5")
    assert release is not None and {v.cuda for v in release.variants} == {"10.0", "9.0"}
    assert M.paddle.build("1.8.2") is not None and M.paddle.build("1.8.2").cuda == "10.0"  # type: ignore[union-attr]
