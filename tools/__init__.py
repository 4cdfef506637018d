"""qlower's test oracles and benchmark scripts (`qlower_tools`, see pyproject.toml)."""
