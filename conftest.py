"""The suite's scene fixtures, registered for laws/ and tests/ alike."""

pytest_plugins = [
    "fixtures.solver_fixtures",
    "fixtures.bench_fixtures",
    "fixtures.coupling_fixtures",
    "fixtures.warp_fixtures",
    "fixtures.newton_fixtures",
]
