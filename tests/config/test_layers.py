"""The layers (docs/ARCHITECTURE.md) are import-linter's contracts in pyproject.toml, run
by `make lint` and `make test`. These tests show that the check fails when an arrow runs
back up, for each kind of back arrow the contracts exist to stop, and passes on the code
as it is: a copy of the packages is checked with one import added."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The packages the contracts name, as pyproject.toml lists them (a new core is copied too).
PACKAGES = tuple(
    tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
)
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("layers")
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, target / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", target / "pyproject.toml")
    return target


def lint(where: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=where,
        env={"PYTHONPATH": str(where), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_code_as_it_is_keeps_every_contract(copy):
    checked = lint(copy)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "BROKEN" not in checked.stdout


@pytest.mark.parametrize(
    ("module", "arrow", "broken"),
    [
        # a writer reaching up into the socket server
        ("tournaments/services/clock.py", "from ..sockets import consumers", "Layers"),
        # a read reaching up into the writers
        ("tournaments/selectors/records.py", "from ..services import history", "Layers"),
        # the plumbing reading the models
        ("tournaments/push/channel.py", "from .. import models", "Push is plumbing"),
        # the pages and the socket server are siblings, not layers of each other
        ("tournaments/views/play.py", "from ..sockets import pool", "Layers"),
        # a pure core importing Django
        ("pairing/matching.py", "import django.db", "pure cores"),
        # the club's rules reaching into the app
        ("club/duplicate.py", "from tournaments import models", "pure cores"),
    ],
)
def test_an_arrow_back_up_breaks_its_contract(copy, tmp_path, module, arrow, broken):
    where = tmp_path / "code"
    shutil.copytree(copy, where)
    path = where / module
    source = path.read_text()
    # After the module's docstring and `from __future__`, where an import goes.
    anchor = "from __future__ import annotations\n"
    assert anchor in source, module
    path.write_text(source.replace(anchor, f"{anchor}{arrow}  # noqa\n", 1))
    checked = lint(where)
    assert checked.returncode != 0, checked.stdout
    assert "BROKEN" in checked.stdout
    assert broken in checked.stdout.split("Broken contracts")[-1], checked.stdout
