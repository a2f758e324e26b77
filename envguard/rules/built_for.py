"""A compiled torch extension installed from wheels built for another torch release than the one installed.

mmcv-full's prebuilt wheels are published per CUDA and per torch release ("pip install mmcv-full -f
https://download.openmmlab.com/mmcv/dist/{cu_version}/{torch_version}/index.html", mmcv's installation guide; only
the 1.x.0 builds are published, since "PyTorch is usually compatible between 1.x.0 and 1.x.1"), and PyG's
torch-scatter/torch-sparse/pyg-lib wheels likewise (https://data.pyg.org/whl/torch-{TORCH}+{CUDA}.html, local
versions such as ``+pt21cu121``). Their compiled operators link against torch's C++ library, whose ABI changes
between minor releases, so a build for torch 1.6 beside torch 1.10 fails to load its ``_ext`` module (undefined
symbols): open-mmlab/mmdetection#3490 (mmcv-full for torch 1.5.0 when conda had just installed PyTorch 1.6.0; fixed
by installing PyTorch 1.5.0). Report mode only: the report reader names the build (``BUILT_FOR_TORCH_KEY``).
"""

from __future__ import annotations

from collections.abc import Iterator

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import build_evidence, ev, version
from envguard.snapshot import BUILT_FOR_TORCH_KEY, Snapshot, stated_parts

SOURCE = ("https://mmcv.readthedocs.io/en/v1.4.4/get_started/installation.html ; "
          "https://pytorch-geometric.readthedocs.io/en/latest/install/installation.html ; "
          "https://github.com/open-mmlab/mmdetection/issues/3490 ; https://github.com/open-mmlab/mmcv/issues/1734")


class BuiltForTorchRule:
    """The torch release an extension's wheels were built for against the torch the report installs."""

    id = "built-for-torch"
    summary = "compiled torch extensions (mmcv-full, PyG) were built for the installed torch release"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """At most one companion-mismatch error."""
        said = snapshot.environment.get(BUILT_FOR_TORCH_KEY)
        torch = snapshot.framework("torch")
        if said is None or torch is None or not torch.version_known:
            return
        package, built, where = stated_parts(said, 3)
        have, want = version(torch.version), version(built)
        if have is None or want is None or (have.major, have.minor) == (want.major, want.minor):
            return
        series = f"{have.major}.{have.minor}"
        yield Finding(
            "companion-mismatch", Severity.ERROR,
            f"{package} was installed from wheels built for torch {built}, but torch {torch.version} is installed: "
            f"its compiled operators link against one torch release's C++ library and do not load against "
            f"torch {series}.",
            (ev(f"{package} built for", f"torch {built}", where), build_evidence(torch, snapshot)),
            f"install the {package} build made for torch {series} (mmcv-full: -f "
            f"https://download.openmmlab.com/mmcv/dist/<cuXXX>/torch{series}/index.html, or `mim install mmcv-full`; "
            f"PyG: -f https://data.pyg.org/whl/torch-{series}.0+<cuXXX>.html), or the torch {built} it was built for",
            SOURCE, "torch",
        )
