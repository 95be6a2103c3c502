"""The format seam (docs/ARCHITECTURE.md, "The format seam"): the pages, the console, the
exports and the reads serve every format without asking which it is. They look a
format's parts up in one registry each, by `Tournament.format_key`; only the format's own
modules (a movement's pages, a team event's export) tell their own settings apart.

These tests fail when a shared page, view, export or selector branches on the kind of
event again (`is_teams`, a comparison with a `Seating`, `Contestants` or `FormatKey`
value), and when a format is missing from a registry."""

from __future__ import annotations

import ast
import re
import subprocess
from dataclasses import fields
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.template.loader import get_template

from tournaments.exports import EXPORTS, pbn, usebio
from tournaments.models import (
    EVENT_FORMATS,
    Contestants,
    FormatKey,
    Round,
    Seating,
    Tournament,
    played_in,
)
from tournaments.selectors.seating import SEAT_READERS
from tournaments.services.formats import FORMATS, format_of
from tournaments.views.format_pages import PAGES, FormatPages

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("views", "exports", "selectors", "templatetags")

# A format's own modules and templates, where it tells its own settings apart: these
# serve one format only, so asking which of its kinds an event is asks no other format.
FORMAT_OWN = {
    # The movement's pages: a movement given as data, or a generated Mitchell or Howell.
    "tournaments/views/movement.py",
    "templates/tournaments/movement.html",
    # The movement's reads: the stored movement, or the one the settings generate.
    "tournaments/selectors/movements.py",
    # A team event's export: Swiss teams or a round robin.
    "tournaments/exports/team_data.py",
    # A movement's position labels ("3NS") from the movement an event stores.
    "tournaments/selectors/pair_labels.py",
    # A team event's own pages: a pairs event has no team page.
    "tournaments/views/teams.py",
}

# The commit before the pages asked the format (082d948): its branches, found again.
SEAM_CHANGED = "082d948"

KINDS = {"Seating", "Contestants", "FormatKey"}
KIND_NAMES = {"seating", "contestants", "contestant", "format_key"}
KIND_VALUES = {str(v) for v in (*Seating.values, *Contestants.values, *FormatKey)}


def _names_kind(node: ast.AST) -> bool:
    """`tournament.seating`, `seating`, `t["contestants"]`, `tournament.format_key`."""
    if isinstance(node, ast.Attribute):
        return node.attr in KIND_NAMES
    if isinstance(node, ast.Name):
        return node.id in KIND_NAMES
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value in KIND_NAMES
    return False


def _is_kind_value(node: ast.AST) -> bool:
    """`Seating.SWISS`, `Contestants.TEAMS`, `FormatKey.TEAM_MATCHES`, "swiss", or a
    collection of them."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_kind_value(element) for element in node.elts)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id in KINDS
    return isinstance(node, ast.Constant) and node.value in KIND_VALUES


def python_branches(source: str) -> list[int]:
    """The lines of `source` that ask the kind of event."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "is_teams":
            lines.append(node.lineno)
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_is_kind_value(o) for o in operands) and (
                any(_names_kind(o) for o in operands)
                or any(isinstance(o, ast.Attribute) and o.attr == "key" for o in operands)
            ):
                lines.append(node.lineno)
    return sorted(set(lines))


TEMPLATE_BRANCH = re.compile(
    r"is_teams|\b(seating|contestants?|format_key)\s*(==|!=|\bin\b)|"
    r"(==|!=)\s*\w+\.(seating|contestants?|format_key)\b"
)


def template_branches(source: str) -> list[int]:
    return [n for n, line in enumerate(source.splitlines(), 1) if TEMPLATE_BRANCH.search(line)]


def _shared_files():
    for package in PACKAGES:
        for path in sorted((ROOT / "tournaments" / package).rglob("*.py")):
            yield path, python_branches
    for path in sorted((ROOT / "templates").rglob("*.html")):
        yield path, template_branches


def test_the_checks_see_a_branch_on_the_kind_of_event():
    assert python_branches("if tournament.is_teams:\n    pass\n") == [1]
    assert python_branches("x = 1\nswiss = tournament.seating == Seating.SWISS\n") == [2]
    assert python_branches("if t.contestants != 'teams':\n    pass\n") == [1]
    assert python_branches("if format_of(t).contestant == Contestants.TEAMS:\n    pass\n") == [1]
    assert python_branches("if format_of(t).key == FormatKey.TEAM_MATCHES:\n    pass\n") == [1]
    assert python_branches("if t.format_key in (FormatKey.SWISS_PAIRS,):\n    pass\n") == [1]
    # Comparing two seatings (a form's choice with the stored one) asks no kind.
    assert python_branches("same = chosen['seating'] == tournament.seating\n") == []
    assert template_branches("{% if tournament.is_teams %}x{% endif %}") == [1]
    assert template_branches('a\n{% if tournament.seating != "swiss" %}x{% endif %}') == [2]
    assert template_branches("{% if movement.given %}x{% endif %}") == []


def test_the_checks_see_the_branches_the_seam_replaced():
    before = {
        "tournaments/views/console.py": [203, 220, 277, 282, 288, 298, 460, 465],
        "tournaments/views/public.py": [169, 237],
        "tournaments/views/play.py": [264],
        "tournaments/exports/__init__.py": [18, 24],
        "tournaments/selectors/seating.py": [40],
    }
    templates = {
        "templates/tournaments/_tournament_head.html": [7, 13],
        "templates/tournaments/tournament.html": [7, 12, 15],
        "templates/console/_head.html": [2],
        "templates/console/_progress.html": [38],
        "templates/console/console.html": [7, 11, 50],
        "templates/console/seating.html": [6, 8],
        "templates/console/_movement.html": [1, 11],
    }
    for found, paths in ((python_branches, before), (template_branches, templates)):
        for path, lines in paths.items():
            source = subprocess.run(
                ["git", "show", f"{SEAM_CHANGED}:{path}"], cwd=ROOT, capture_output=True, text=True
            ).stdout
            if not source:
                pytest.skip("the history before the seam is not in this checkout")
            assert found(source) == lines, path


def test_no_shared_page_view_export_or_read_asks_the_kind_of_event():
    found = []
    for path, branches in _shared_files():
        where = str(path.relative_to(ROOT))
        if where in FORMAT_OWN:
            continue
        found += [f"{where}:{line}" for line in branches(path.read_text(encoding="utf-8"))]
    assert found == [], "ask the format (its registries), not the kind of event"


def test_is_teams_is_asked_nowhere_in_the_pages_exports_and_reads():
    found = [
        str(path.relative_to(ROOT))
        for path, _branches in _shared_files()
        if "is_teams" in path.read_text(encoding="utf-8")
    ]
    assert found == []


def test_each_format_has_an_entry_in_each_registry():
    keys = set(FORMATS)
    assert keys == set(FormatKey)
    assert set(SEAT_READERS) == keys
    assert set(EXPORTS) == keys
    assert set(PAGES) == keys
    for key, event_format in FORMATS.items():
        assert event_format.key == key
        assert event_format.contestant in Contestants
        assert isinstance(event_format.has_movement_page, bool)
    for key, export in EXPORTS.items():
        assert callable(export.collect), key
        assert callable(getattr(pbn, export.render)), key
        assert callable(getattr(usebio, export.render)), key
    for key, pages in PAGES.items():
        assert pages.format is FORMATS[key]
        for field in fields(FormatPages):
            part = getattr(pages, field.name)
            if field.type == "str" and part:
                if field.name == "entry" or field.name == "progress_grid":
                    continue  # a context name, a CSS class
                get_template(part)  # the fragment exists
            elif "Callable" in str(field.type) and part is not None:
                assert callable(part), (key, field.name)


@pytest.mark.parametrize(
    ("contestants", "seating", "key"),
    [
        (Contestants.PAIRS, Seating.SWISS, FormatKey.SWISS_PAIRS),
        (Contestants.PAIRS, Seating.MITCHELL, FormatKey.MOVEMENT_PAIRS),
        (Contestants.PAIRS, Seating.HOWELL, FormatKey.MOVEMENT_PAIRS),
        (Contestants.PAIRS, Seating.MOVEMENT, FormatKey.MOVEMENT_PAIRS),
        (Contestants.TEAMS, Seating.SWISS, FormatKey.TEAM_MATCHES),
        (Contestants.TEAMS, Seating.ROUND_ROBIN, FormatKey.TEAM_MATCHES),
    ],
)
def test_an_event_names_its_format_once(contestants, seating, key):
    tournament = Tournament(contestants=contestants, seating=seating)
    assert tournament.format_key == key
    assert format_of(tournament) is FORMATS[key]
    assert format_of(tournament).has_movement_page == (key == FormatKey.MOVEMENT_PAIRS)
    assert format_of(tournament).contestant == contestants


def test_the_events_and_a_format_filter_are_format_key_inverted(make_tournament):
    """`played_in` asks the database what `format_key` asks a row: every kind of tournament
    the constraints allow is found by its own format's filter and no other, and the club's
    weeks are the only tournaments that are not events (home, console, clock, robots)."""
    made = []
    for contestants in Contestants.values:
        for seating in Seating.values:
            try:
                with transaction.atomic():
                    made.append(make_tournament(contestants=contestants, seating=seating))
            except (IntegrityError, ValidationError):
                continue  # a kind the constraints refuse (teams by a Mitchell)
    assert {t.format_key for t in made} == set(FormatKey)
    for t in made:
        Round.objects.create(
            tournament=t, number=1, starts_at=t.start_at, ends_at=t.start_at + t.round_length
        )
    for key in FormatKey:
        assert set(Tournament.objects.filter(played_in(frozenset({key})))) == {
            t for t in made if t.format_key == key
        }
        assert set(
            Round.objects.filter(played_in(frozenset({key}), via="tournament__")).values_list(
                "tournament_id", flat=True
            )
        ) == {t.pk for t in made if t.format_key == key}
    assert set(Tournament.objects.events()) == {t for t in made if t.format_key != FormatKey.CLUB}
    assert set(FormatKey) - {FormatKey.CLUB} == EVENT_FORMATS
