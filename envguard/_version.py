"""The release version (its own module so that nothing needs to import the package root)."""

from __future__ import annotations

__version__ = "0.1.0"
