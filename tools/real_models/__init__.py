"""Part of `qlower_tools` (tools/pyproject.toml)."""
