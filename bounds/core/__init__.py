"""The ground floor: cross-cutting basics every layer uses (errors, strict JSON, seeds, statistics).

Nothing here imports anything of ours outside ``bounds.core`` (``tests/test_layers.py`` checks it), so
any layer, the CLI and users' plugins can use it without loading sympy, torch or the registry of results.
"""
