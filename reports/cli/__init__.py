"""The `convbound` command: a thin shell over the layers, one module per command group.

Each module named ``cmd_*.py`` in this package defines ``register(cli: click.Group) -> None``;
``main`` discovers them, so a command group lands without editing a shared file.
"""
