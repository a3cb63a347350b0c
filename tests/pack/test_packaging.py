"""What a wheel installs: everything under the one import name `pytest_physlaw` (PyPI has `coupling`,
`fixtures` and `laws`), no absolute import of a repo-only name, and the proxies, the scene kit and the
law pack working from that layout alone. setuptools' own `build_py` lays the package out as the wheel
holds it (a pure-Python wheel is that tree plus metadata), in about a second; the full non-editable
`pip install .` into a fresh venv is checked by hand (docs/ci.md, "Installing: import names")."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REPO_ONLY = {"coupling", "fixtures", "laws", "tests", "conftest"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as a wheel lays it out, built from a copy of the sources the wheel takes."""
    src, lib = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("lib")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src)
    for name in ("pytest_physlaw", "coupling", "fixtures"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py",
                    "--build-lib", str(lib)], cwd=src, check=True, capture_output=True)
    return lib


def _modules(lib: Path) -> list[Path]:
    return sorted(lib.rglob("*.py"))


def test_one_top_level_name(built: Path) -> None:
    files = {p.relative_to(built).as_posix() for p in _modules(built)}
    assert {f.split("/")[0] for f in files} == {"pytest_physlaw"}
    assert {"pytest_physlaw/coupling/proxies.py", "pytest_physlaw/scenes/settled.py",
            "pytest_physlaw/scenes/coupling/scenes.py", "pytest_physlaw/pack/laws.py"} <= files
    subjects = {"solver", "coupling", "warp", "mjx", "newton"}  # every subject's package, each with its one plugin
    assert {f"pytest_physlaw/scenes/{s}/{m}.py" for s in subjects for m in ("__init__", "plugin")} <= files


def test_no_absolute_import_of_a_repo_only_name(built: Path) -> None:
    for path in _modules(built):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            bad = [n for n in names if n.split(".")[0] in REPO_ONLY]
            assert not bad, f"{path.relative_to(built)}:{node.lineno} imports {bad}"


INSTALLED = """
import sys
import pytest_physlaw.kit as kit
from pytest_physlaw.coupling import TensorProxy, proxy
from pytest_physlaw.scenes import settled
from pytest_physlaw.scenes.coupling import scenes as coupling_scenes
from pytest_physlaw.scenes.solver import scenes as solver_scenes
assert kit.__file__.startswith(sys.argv[1]), kit.__file__  # the built tree, not this checkout
assert kit.names() == ("pytest_physlaw.coupling", "pytest_physlaw.scenes"), kit.names()
p = proxy(coupling_scenes.platen("slider"), "platen", tensor=True)
assert isinstance(p, TensorProxy) and kit.coupling().TensorProxy is TensorProxy
assert not {"coupling", "fixtures", "laws"} & set(sys.modules), sorted(sys.modules)
print("ok", round(p.mass, 3))
"""


def test_the_installed_layout_imports_and_runs_the_pack(built: Path, tmp_path: Path) -> None:
    """From a folder outside the repo, with only the built tree on the path: the kit, then the pack."""
    env = {**os.environ, "PYTHONPATH": str(built)}
    out = subprocess.run([sys.executable, "-c", INSTALLED, str(built)], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("ok"), out.stderr
    (tmp_path / "tower.xml").write_text(subprocess.run(
        [sys.executable, "-c", "from pytest_physlaw.scenes.solver.scenes import tower_xml; print(tower_xml(3))"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--physlaw-model=tower.xml"],
                         cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    # xfailed: the release's known defects beside the step that every model of a kind shares (on 3.14.0 a tower of
    # boxes resized and saved: mujoco_versions.KNOWN_DEFECTS), each named in the report
    assert re.fullmatch(r"\d+ passed(, \d+ skipped)?(, \d+ xfailed)? in [\d.]+s", run.stdout.rstrip().splitlines()[-1]), \
        run.stdout[-2000:]
