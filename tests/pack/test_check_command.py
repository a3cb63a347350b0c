"""`pytest-physlaw check PATH... [pytest options]`: the model law pack alone on a robot-description
folder, from the command line as CI runs it (a subprocess): only the models run (not the project's
tests), the project's ini applies, pytest's options pass through, the per-model summary follows the law
table, and the exit status is pytest's (0 pass, 1 a finding, 2 a named model that does not compile,
4 usage, 5 no model)."""

from __future__ import annotations

import json
import subprocess
import sys
from fnmatch import fnmatch

import pytest

CART_POLE = """<mujoco model="cart-pole">
  <option><flag contact="disable"/></option>
  <worldbody>
    <body name="cart"><joint name="slide" type="slide" axis="1 0 0"/><geom size="0.1 0.05 0.03" type="box" mass="{mass}"/>
      <body name="pole"><inertial pos="0 0 0.5" mass="0.2" diaginertia="9.8e-05 9.8e-05 9.8e-05"/>
        <joint name="hinge" axis="0 1 0"/>
        <geom size="0.005 0.25" pos="0 0 0.25" quat="0 1 0 0" type="capsule" mass="0"/><geom size="0.035" pos="0 0 0.5" mass="0"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""
SCENE = '<mujoco><include file="robot.xml"/><worldbody><light pos="0 0 3"/></worldbody></mujoco>'
FRAGMENT = '<mujocoinclude><geom size="0.1"/></mujocoinclude>'
NOT_ON_ITS_OWN = '<mujoco><worldbody><body><joint type="hinge"/><geom size="0.1" class="from_the_scene"/></body></worldbody></mujoco>'
# a 1 kg arm held level needs 2.45 N m; its 1 N m motor cannot give it
WEAK_ARM = """<mujoco><worldbody><body name="arm" pos="0 0 1"><joint name="shoulder" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/></body></worldbody>
  <actuator><motor joint="shoulder" gear="1" ctrlrange="-1 1" ctrllimited="true"/></actuator></mujoco>"""
INI = "[pytest]\nphyslaw_model_steps = 100\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with its own (failing) test, an ini, and a folder of robots: a robot, the scene that
    includes it, an include fragment, a robot part that compiles only inside its scene, a non-MJCF XML,
    and copies of that part in a hidden folder and in a virtual environment (never searched)."""
    robots = pytester.path / "robots"
    for folder in ("parts", ".hidden", "venv"):
        (robots / folder).mkdir(parents=True)
    (robots / "robot.xml").write_text(CART_POLE.format(mass=1))
    (robots / "scene.xml").write_text(SCENE)
    (robots / "parts" / "arm.xml").write_text(FRAGMENT)
    (robots / "part.xml").write_text(NOT_ON_ITS_OWN)
    (robots / "notes.xml").write_text("<config><robot>not a model</robot></config>")
    (robots / ".hidden" / "x.xml").write_text(NOT_ON_ITS_OWN)
    (robots / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (robots / "venv" / "y.xml").write_text(NOT_ON_ITS_OWN)
    pytester.makeini(INI)
    pytester.makepyfile(test_project="def test_the_project_own_test():\n    assert False\n")
    return pytester


def check(pytester: pytest.Pytester, *args: str) -> subprocess.CompletedProcess:
    """`pytest-physlaw check ARGS` run in the project's folder, as `python -m pytest_physlaw`."""
    return subprocess.run([sys.executable, "-m", "pytest_physlaw", "check", *args], cwd=pytester.path,
                          capture_output=True, text=True, timeout=600)


def models_section(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if " models " in line and line.startswith("="))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("=")), len(lines))
    return lines[start + 1:end]


def run_models(path) -> dict[str, dict]:
    return {m["path"]: m for m in json.loads(path.read_text())["run"]["models"]}


def test_check_runs_the_folder_models_alone_and_lists_what_it_left_out(project: pytest.Pytester) -> None:
    done = check(project, "robots", "--law-report=r.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_the_project_own_test" not in done.stdout  # the project's tests and testpaths do not run
    section = models_section(done.stdout)
    assert section[0].split() == ["model", "laws", "passed", "failed", "skipped", "xfailed", "time"]
    rows = {line.split()[0]: line.split() for line in section[1:] if line.startswith("robots/")}  # not "covered"
    assert set(rows) == {"robots/robot.xml", "robots/scene.xml"}  # a robot and the scene that includes it: both
    assert all(r[3] == "0" and r[-1] == "s" for r in rows.values())  # no failure; a time in seconds
    assert "2 models checked (2 passed, 0 with findings); 3 files left out (not models)" in done.stdout
    left = "\n".join(section[section.index("left out (not models):"):])
    assert "robots/parts/arm.xml" in left and "an include fragment (root <mujocoinclude>)" in left
    assert "robots/part.xml" in left and "cannot compile this file on its own" in left and "from_the_scene" in left
    assert "robots/notes.xml" in left and "not MJCF (root <config>)" in left
    assert ".hidden" not in done.stdout and "venv" not in done.stdout
    models = run_models(project.path / "r.json")
    assert {p: m["status"] for p, m in models.items()} == {
        "robots/robot.xml": "model", "robots/scene.xml": "model", "robots/parts/arm.xml": "not a model",
        "robots/part.xml": "not a model", "robots/notes.xml": "not a model"}
    assert "seconds" not in json.dumps(models)  # times change every run; a report keeps its bytes


@pytest.mark.parametrize("args, code, says", [
    (["robots/part.xml"], 2, "robots/part.xml: MuJoCo * cannot compile this model*from_the_scene*"),
    (["robots/parts"], 5, "*0 models checked*1 file left out*"),
    (["robots/nowhere"], 4, "*--physlaw-model robots/nowhere: no such file or folder*"),
    (["robots/venv/.."], 0, "*2 models checked*"),
    ([], 4, "*--physlaw-models-only: no model given*"),
    (["robots", "-q", "test_project.py"], 4, "*runs the models alone, but test paths were given too: test_project.py*"),
], ids=["named-does-not-compile", "only-fragments", "missing", "dotdot", "nothing", "a-test-path"])
def test_check_exits_as_pytest_does(project: pytest.Pytester, args: list[str], code: int, says: str) -> None:
    done = check(project, *args)
    assert done.returncode == code, done.stdout + done.stderr
    assert any(fnmatch(line, says) for line in (done.stdout + done.stderr).splitlines()), done.stdout + done.stderr


def test_a_folder_without_any_xml_file_is_a_usage_error(project: pytest.Pytester) -> None:
    (project.path / "empty" / ".git").mkdir(parents=True)
    (project.path / "empty" / ".git" / "config.xml").write_text("<mujoco/>")  # hidden: not searched
    done = check(project, "empty")
    assert done.returncode == 4 and "no .xml file in this folder" in done.stderr


def test_a_finding_exits_1_and_an_accepted_one_0(pytester: pytest.Pytester) -> None:
    (pytester.path / "arms").mkdir()
    (pytester.path / "arms" / "weak.xml").write_text(WEAK_ARM)
    pytester.makeini(INI)
    done = check(pytester, "arms", "-k", "hold_the_start_pose")
    assert done.returncode == 1, done.stdout
    section = models_section(done.stdout)
    assert section[1].split()[:6] == ["arms/weak.xml", "1", "0", "1", "0", "0"]
    assert section[2].split() == ["failed", "model-actuator-authority:", "load_over_authority"]
    pytester.makeini(INI + "physlaw_model_accept =\n    arms/weak.xml model-actuator-authority: the demo arm is weak\n")
    done = check(pytester, "arms", "-k", "hold_the_start_pose")
    assert done.returncode == 0, done.stdout
    section = models_section(done.stdout)
    assert section[1].split()[:6] == ["arms/weak.xml", "1", "0", "0", "0", "1"]
    assert section[2].split() == ["accepted", "model-actuator-authority:", "load_over_authority"]


def test_check_passes_pytest_options_through(project: pytest.Pytester) -> None:
    """-k, -v/-q, -n 2 and the plugin's path options reach pytest; the gate fails a changed model."""
    select = ["-k", "figures or settled"]
    done = check(project, "robots", *select, "-v", "--law-save-baseline=base.json", "--law-markdown=m.md")
    assert done.returncode == 0, done.stdout
    base = json.loads((project.path / "base.json").read_text())
    assert {law["law"] for law in base["laws"]} == {"model-figures", "model-settled-pose"}
    assert {law["path"] for law in base["laws"]} == {"robots/robot.xml", "robots/scene.xml"}
    assert "PASSED" in done.stdout  # -v
    md = (project.path / "m.md").read_text()
    assert "### Models" in md and "| `robots/robot.xml` | 2 | 2 | 0 | 0 | 0 |" in md
    assert "### Left out (not models)" in md and "| `robots/parts/arm.xml` | not a model | an include fragment" in md
    done = check(project, "robots", *select, "-q", "-n", "2", "--law-baseline=base.json", "--law-report=r.json")
    assert done.returncode == 0, done.stdout
    section = models_section(done.stdout)
    assert [line.split()[:6] for line in section[1:3]] == [["robots/robot.xml", "2", "2", "0", "0", "0"],
                                                           ["robots/scene.xml", "2", "2", "0", "0", "0"]]
    assert "left out (not models):" not in done.stdout and "3 files left out" in done.stdout  # -q: the count
    assert run_models(project.path / "r.json")["robots/part.xml"]["status"] == "not a model"  # -n 2: workers' skips
    (project.path / "robots" / "robot.xml").write_text(CART_POLE.format(mass=1.5))
    done = check(project, "robots", *select, "--law-baseline=base.json")
    assert done.returncode == 1, done.stdout
    assert "law regressions" in done.stdout and "total_mass" in done.stdout


def test_check_keeps_the_project_ini_and_its_models(project: pytest.Pytester) -> None:
    """The ini's horizon applies; without PATH the ini's physlaw_models run, with PATH those alone."""
    project.makeini(INI + "physlaw_models = robots/robot.xml\n")
    done = check(project, "-k", "figures", "--law-report=r.json")
    assert done.returncode == 0, done.stdout
    (law,) = json.loads((project.path / "r.json").read_text())["laws"]
    assert law["path"] == "robots/robot.xml" and "of 100 steps" in law["checks"][-1]["why"]
    done = check(project, "robots/scene.xml", "-k", "figures", "--law-report=r.json")
    assert done.returncode == 0, done.stdout
    assert [law["path"] for law in json.loads((project.path / "r.json").read_text())["laws"]] == ["robots/scene.xml"]


def test_check_help_states_the_exit_statuses() -> None:
    done = subprocess.run([sys.executable, "-m", "pytest_physlaw", "check", "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    assert "exit status (pytest's):" in done.stdout and "5  no model" in done.stdout
    listing = subprocess.run([sys.executable, "-m", "pytest_physlaw", "--help"], capture_output=True, text=True)
    assert "check" in listing.stdout


def test_a_named_model_that_does_not_compile_is_listed_as_an_error_with_the_line_at_fault(pytester: pytest.Pytester) -> None:
    """Not among the files that are not models, and with MuJoCo's second line: the element and the line."""
    pytester.path.joinpath("rope.xml").write_text("""<mujoco>
  <worldbody>
    <body name="rope" pos="0 0 1">
      <composite type="rope" count="21 1 1" spacing="0.04"><geom type="capsule" size=".01 .015"/></composite>
    </body>
  </worldbody>
</mujoco>""")
    done = check(pytester, "rope.xml")
    assert done.returncode == 2, done.stdout + done.stderr
    section = models_section(done.stdout)
    assert "left out (not models):" not in section
    errors = "\n".join(section[section.index("not checked (errors):"):])
    assert "rope.xml  collection error: MuJoCo" in errors and "Element 'composite', line 4" in errors
