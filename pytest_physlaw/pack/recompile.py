"""A model's MJCF compiled anew with some of its settings changed (MuJoCo's MjSpec): the second computation of the
laws that compare a model with another compile of itself (its geometry's volume, its static bodies fused).

Before MuJoCo 3.14 the compile runs in a child process that hands the model back as an MJB: MjSpec's compile of a
scene with included meshes crashes the interpreter on 3.3.4 to 3.8.1 (a segmentation fault on gymnasium-robotics'
Fetch and kitchen, and on dm_control's manipulator on 3.5.0); a crash there is an error naming the release, not
the end of the run."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable

import mujoco

from pytest_physlaw import mujoco_versions

IN_PROCESS = (3, 14)  # from this release on MjSpec's compile is trusted in the test process


def fuses_static(path: str) -> bool:
    """Whether the MJCF at `path` fuses its static bodies (`<compiler fusestatic="true"/>`). Such a spec's compile
    removes the fused bodies from the spec itself (so an edit after it is of another spec: the recompile law skips it),
    and MuJoCo 3.14.0 crashes the process attaching it into a scene (a segmentation fault on the corpus's fusestatic
    table three times of three, on the buoyant arm two of three): the attach sequences run it in a child process."""
    from pytest_physlaw.pack.twofold import mjcf_text  # the file's text, read apart from MuJoCo

    try:
        return any(c.get("fusestatic", "false") == "true" for c in mjcf_text.root(path).iter("compiler"))
    except mjcf_text.Unreadable:
        return False


def compiled(build: Callable[[str], mujoco.MjModel], path: str, isolated: bool = False) -> mujoco.MjModel:
    """`build(path)`: a module-level function of this package that compiles the MJCF at `path` through MjSpec, run
    here from MuJoCo 3.14 on (unless `isolated`) and in a child process before. Raises ValueError with MuJoCo's
    message where the compile fails, RuntimeError where it crashes."""
    if build.__module__ == "__main__":  # the child process imports it by name
        raise TypeError(f"{build.__name__} must live in an importable module, not a script's __main__")
    if mujoco_versions.version() >= IN_PROCESS and not isolated:
        with warnings.catch_warnings():  # MjSpec's notes on attached models' option conflicts are not findings
            warnings.simplefilter("ignore", UserWarning)
            return build(path)
    with tempfile.TemporaryDirectory() as folder:
        mjb = os.path.join(folder, "model.mjb")
        code = (f"import sys, mujoco\nfrom {build.__module__} import {build.__name__} as build\n"
                "mujoco.mj_saveModel(build(sys.argv[1]), sys.argv[2], None)")
        done = subprocess.run([sys.executable, "-c", code, path, mjb], capture_output=True, text=True)
        if done.returncode < 0:
            raise RuntimeError(f"MuJoCo {mujoco.__version__}'s MjSpec compile crashed (signal {-done.returncode})")
        if done.returncode:
            raise ValueError((done.stderr.strip().splitlines() or ["the compile failed"])[-1])
        return mujoco.MjModel.from_binary_path(mjb)
