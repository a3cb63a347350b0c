"""Where `pytest-physlaw upgrade` installs the plugin from into each side's environment: the checkout it runs from,
else the origin pip recorded (`direct_url.json`, PEP 610), else the index's same release, else a wheel of the
installed files; an install from none names every origin tried. Nothing here installs from a network."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from pytest_physlaw import __version__, plugin_origin, upgrade


def _direct(**info) -> str:
    return json.dumps(info)


def test_a_local_folder_is_installed_from_again_editable_or_not(tmp_path: Path) -> None:
    url = tmp_path.as_uri()
    assert plugin_origin.recorded_origin(_direct(url=url, dir_info={})).pip_args == (str(tmp_path),)
    editable = plugin_origin.recorded_origin(_direct(url=url, dir_info={"editable": True}))
    assert editable.pip_args == ("-e", str(tmp_path))
    assert plugin_origin.recorded_origin(_direct(url=(tmp_path / "gone").as_uri(), dir_info={})) is None


def test_a_wheel_file_a_url_and_a_vcs_commit(tmp_path: Path) -> None:
    wheel = tmp_path / "pytest_physlaw-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    assert plugin_origin.recorded_origin(_direct(url=wheel.as_uri(), archive_info={})).pip_args == (str(wheel),)
    assert plugin_origin.recorded_origin(_direct(url=(tmp_path / "x.whl").as_uri(), archive_info={})) is None
    url = "https://example.org/pytest_physlaw-0.1.0.tar.gz"
    assert plugin_origin.recorded_origin(_direct(url=url, archive_info={"hash": "sha256=0"})).pip_args == (url,)
    vcs = plugin_origin.recorded_origin(_direct(url="https://example.org/physlaw.git",
                                                vcs_info={"vcs": "git", "commit_id": "abc123"}))
    assert vcs.pip_args == ("git+https://example.org/physlaw.git@abc123",) and "abc123" in vcs.what


def test_no_recorded_origin_from_an_index_install() -> None:
    assert plugin_origin.recorded_origin(None) is None


class _Dist:
    """An installed distribution as importlib.metadata gives it: its files and its direct_url.json."""

    def __init__(self, root: Path, direct_url: str | None) -> None:
        self.root, self.direct_url, self.version = root, direct_url, __version__
        self.metadata = {"Name": "pytest-physlaw"}
        self.files = [Path(p) for p in ("pytest_physlaw/__init__.py", "pytest_physlaw-0.1.0.dist-info/METADATA",
                                        "pytest_physlaw-0.1.0.dist-info/RECORD", "../../../bin/pytest-physlaw",
                                        "pytest_physlaw/__pycache__/__init__.cpython-311.pyc")]
        for f in self.files:
            (root / f).parent.mkdir(parents=True, exist_ok=True)
            (root / f).write_text(f"# {f}\n")

    def read_text(self, name: str) -> str | None:
        return self.direct_url if name == "direct_url.json" else None

    def locate_file(self, path) -> Path:
        return self.root / path


def test_a_non_editable_install_takes_its_recorded_origin_then_the_index_then_a_wheel(tmp_path, monkeypatch) -> None:
    site = tmp_path / "env/lib/site-packages"
    site.mkdir(parents=True)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    dist = _Dist(site, _direct(url=checkout.as_uri(), dir_info={}))
    monkeypatch.setattr(plugin_origin, "source_root", lambda: None)
    monkeypatch.setattr(plugin_origin, "installed", lambda: dist)
    found = plugin_origin.origins()
    assert [o.pip_args for o in found[:2]] == [(str(checkout),), (f"pytest-physlaw=={__version__}",)]
    assert found[2].wheel_of is dist
    dist.direct_url = None  # installed from an index: the index, then the wheel
    assert [o.pip_args for o in plugin_origin.origins()][0] == (f"pytest-physlaw=={__version__}",)


def test_the_wheel_of_the_installed_files_holds_them_and_a_record(tmp_path) -> None:
    (tmp_path / "site").mkdir()
    wheel = plugin_origin.build_wheel(_Dist(tmp_path / "site", None), tmp_path)
    assert wheel.name == f"pytest_physlaw-{__version__}-py3-none-any.whl"
    names = zipfile.ZipFile(wheel).namelist()
    assert "pytest_physlaw/__init__.py" in names and f"pytest_physlaw-{__version__}.dist-info/METADATA" in names
    assert f"pytest_physlaw-{__version__}.dist-info/RECORD" in names
    assert not any(n.endswith(".pyc") or ".." in n for n in names)


def test_a_checkout_installs_itself_editable() -> None:
    root = plugin_origin.source_root()
    assert root is not None and plugin_origin.origins()[0].pip_args == ("-e", str(root))


def test_an_install_from_no_origin_names_each_one_tried(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(plugin_origin, "origins", lambda: [
        plugin_origin.Origin("the folder /gone", ("/gone",)),
        plugin_origin.Origin(f"the index's pytest-physlaw=={__version__}", (f"pytest-physlaw=={__version__}",))])

    def refuse(cmd, what):
        raise upgrade.UpgradeError(f"{what} failed (exit 1):\n  ERROR: No matching distribution found")
    monkeypatch.setattr(upgrade, "_run", refuse)
    side = upgrade.Side("to", ("mujoco==3.14.0",), tmp_path)
    with pytest.raises(upgrade.UpgradeError) as raised:
        upgrade.install_plugin(side, ["pip", "install"])
    assert "the folder /gone" in str(raised.value) and "the index's pytest-physlaw" in str(raised.value)


def test_a_wheel_of_an_installed_distribution_installs_offline(tmp_path) -> None:
    """The last way, for real: a wheel built of a pure-Python distribution's installed files (pluggy, installed
    beside pytest) installs with pip, no index, and holds the same modules."""
    import subprocess
    import sys
    from importlib import metadata

    dist = metadata.distribution("pluggy")
    wheel = plugin_origin.build_wheel(dist, tmp_path)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                           "--disable-pip-version-check", "--target", str(tmp_path / "site"), str(wheel)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    installed = Path(dist.locate_file("pluggy/__init__.py")).read_bytes()
    assert (tmp_path / "site/pluggy/__init__.py").read_bytes() == installed
    assert (tmp_path / f"site/pluggy-{dist.version}.dist-info/METADATA").is_file()
