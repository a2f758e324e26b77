"""Launchers that check the interpreter themselves (Stable Diffusion web UI): their warning is a warning until
pip then finds no torch for that Python (real lines; each source in a comment)."""

from __future__ import annotations

from envguard.findings import Severity
from tests.reports import worst_severity as _findings

RULE = "=" * 110
BANNER = RULE + """
INCOMPATIBLE PYTHON VERSION

This program is tested with 3.10.6 Python, but you have {python}.
If you encounter an error with "RuntimeError: Couldn't install torch." message,
or any other error regarding unsuccessful package (library) installation,
please downgrade (or upgrade) to the latest version of 3.10 Python
and delete current Python and "venv" folder in WebUI's directory.
""" + RULE

#: AUTOMATIC1111/stable-diffusion-webui#10703: torch 2.0.1 installs under 3.11.3 (the failure was elsewhere).
INSTALLS = BANNER.format(python="3.11.3") + """
Python 3.11.3 (tags/v3.11.3:f3909b8, Apr  4 2023, 23:49:59) [MSC v.1934 64 bit (AMD64)]
Version: v1.2.1
Installing torch and torchvision
Collecting torch==2.0.1
"""

#: AUTOMATIC1111/stable-diffusion-webui#17372 (quoted in a comment): no torch 2.7.0 for 3.14.2.
NO_TORCH = BANNER.format(python="3.14.2") + """
Python 3.14.2 (tags/v3.14.2:df79316, Dec  5 2025, 17:18:21) [MSC v.1944 64 bit (AMD64)]
Version: 1.10.1
Installing torch and torchvision
ERROR: Could not find a version that satisfies the requirement torch==2.7.0 (from versions: 2.9.0, \
2.9.0+cu128, 2.9.1, 2.9.1+cu128)
ERROR: No matching distribution found for torch==2.7.0
"""




def test_the_untested_python_banner_alone_is_a_warning() -> None:
    assert _findings(INSTALLS).get("python-unsupported") is Severity.WARNING


def test_with_pip_finding_no_torch_it_is_the_cause() -> None:
    assert _findings(NO_TORCH).get("python-unsupported") is Severity.ERROR
