"""The tests' own setup: matplotlib's drawing modules imported once, before any test runs.

pytester's in-process runs drop, when they end, every module first imported during them. A plot drawn inside one
(the history plot, the solver plots) would import matplotlib's figure, canvas and ticker modules there, and a later
test would import them afresh beside the classes the rest of matplotlib still holds: two Rectangle classes, and
`set_clip_path` refusing one (seen under pytest-xdist, where the order of the tests differs from the serial run's).
"""

try:  # matplotlib is in the dev extra; without it the plot tests skip
    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.figure  # noqa: F401
    import matplotlib.ticker  # noqa: F401
except ImportError:
    pass
