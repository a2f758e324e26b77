"""envguard: make deep-learning environments correct and reproducible.

Only ``__version__`` lives here. The CLI and the JSON schemas are the public
contract; the Python modules are internal and may change between releases.
"""

from __future__ import annotations

__version__ = "0.1.0"
