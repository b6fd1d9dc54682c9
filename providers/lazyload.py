"""``"package.module:Name"`` → the object, imported on first use (registries stay cheap)."""
from __future__ import annotations

import importlib
from typing import Any


def load_symbol(spec: str) -> Any:
    """Raises ImportError/AttributeError when the module or name is missing."""
    module_name, _, name = spec.partition(":")
    return getattr(importlib.import_module(module_name), name)
