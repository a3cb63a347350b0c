"""The suite's scene fixtures, one plugin per subject of laws/, registered for laws/ and tests/ alike."""

pytest_plugins = [
    "fixtures.benchmarks",
    "fixtures.solver.plugin",
    "fixtures.coupling.plugin",
    "fixtures.warp.plugin",
    "fixtures.mjx.plugin",
    "fixtures.newton.plugin",
]
