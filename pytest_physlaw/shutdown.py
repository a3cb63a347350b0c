"""The pytest process's exit without the interpreter's last garbage collections.

At exit CPython collects every reference cycle left in the process before it clears the modules. After
MJX and MuJoCo Warp are imported that is hundreds of thousands of objects (each Warp kernel keeps its
parsed source), and the collections cost seconds that free memory the operating system is about to
take back anyway: `pytest -m law` here exited 2.3-2.4 s sooner with them skipped (two runs each, warm,
19.8 and 21.1 s against 17.4 and 18.8 s). `skip_final_collection` freezes the heap (`gc.freeze`) in an
`atexit` handler: the handlers of the libraries imported later (JAX, Warp) run before it, and a cycle
still alive at exit is left to the operating system instead of being finalized, which Python never
promised anyway ("It is not guaranteed that __del__() methods are called for objects that still exist
when the interpreter exits", the data model's `object.__del__`); files, reports and caches are written
before (pytest's session end and unconfigure).
"""

from __future__ import annotations

import atexit
import gc

_registered = False


def skip_final_collection() -> None:
    """Once per process: at exit, after the handlers registered later, move every object to the permanent
    generation, which the interpreter's final collections skip."""
    global _registered
    if not _registered:
        atexit.register(gc.freeze)
        _registered = True
