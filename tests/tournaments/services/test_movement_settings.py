"""A tournament's seating settings (RULES 10; issue 25 item 5): Swiss or a movement, one
winner or two, a movement given as data — checked when the tournament is created and when
the seating changes before round 1, refused with the rule broken and nothing stored."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import movements
from tournaments.errors import ServiceError
from tournaments.models import Pair, Round, Seating, Tournament
from tournaments.services import settings_change, setup
from tournaments.services.clock import advance
from tournaments.services.formats.movement_rules import MovementRefused, explain
from tournaments.services.settings_change import SettingsLocked

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def create(by, t0, **settings):
    fields = {
        "name": "Movement night",
        "start_at": t0,
        "registration_opens_at": t0 - timedelta(days=2),
        "rounds": 7,
        "boards_per_round": 2,
        "round_minutes": 20,
        "scoring": "MP",
    }
    fields.update(settings)
    return setup.create_tournament(by=by, now=t0 - timedelta(days=1), **fields)


def a_mitchell() -> movements.Movement:
    return movements.mitchell(7, 2)


@pytest.mark.parametrize(
    ("seating", "winners", "arrow_switch"),
    [
        ("swiss", 1, False),
        ("mitchell", 2, False),
        ("howell", 1, False),
    ],
)
def test_a_tournament_is_created_with_its_seating(organiser, t0, seating, winners, arrow_switch):
    made = create(organiser, t0, seating=seating, winners=winners, arrow_switch=arrow_switch)
    made.refresh_from_db()
    assert (made.seating, made.winners, made.arrow_switch) == (seating, winners, arrow_switch)
    assert made.movement is None  # generated when round 1 starts, for the pairs then
    assert made.neuberg == (seating != "swiss")  # Neuberg on by default for a movement


def test_neuberg_can_be_turned_off_for_a_movement(organiser, t0):
    assert not create(organiser, t0, seating="mitchell", neuberg=False).neuberg


def test_winners_not_said_are_what_the_seating_gives(organiser, t0):
    assert create(organiser, t0, seating="mitchell").winners == 2
    assert create(organiser, t0, seating="howell").winners == 1
    assert create(organiser, t0, seating="swiss").winners == 1


def test_a_movement_given_as_json_or_asc_is_stored_as_data(organiser, t0):
    movement = a_mitchell()
    from_json = create(
        organiser, t0, seating="movement", winners=2, movement=movements.to_json(movement)
    )
    from_asc = create(
        organiser, t0, seating="movement", winners=2, movement=movements.to_asc(movement)
    )
    assert movements.from_json(from_json.movement) == movement
    assert movements.from_json(from_asc.movement).rounds == movement.rounds


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"seating": "swiss", "winners": 2}, "Swiss seating ranks one field"),
        ({"seating": "howell", "winners": 2}, "in a Howell every pair moves"),
        # Every table plays the round's boards: a Mitchell's NS and EW pairs are never
        # compared, switched or not, so one list would rank pairs no board compared.
        ({"seating": "mitchell", "winners": 2, "arrow_switch": True}, "never compares"),
        ({"seating": "mitchell", "arrow_switch": True}, "never compares"),
        ({"seating": "mitchell", "winners": 1}, "A Mitchell has two winners"),
        (
            {"seating": "movement", "winners": 1, "movement": movements.to_json(a_mitchell())},
            "every pair keeps its direction",
        ),
        ({"seating": "howell", "arrow_switch": True}, "Arrow-switch is for a Mitchell"),
        ({"seating": "mitchell", "winners": 3}, "one winner or two"),
        ({"seating": "mitchell", "winners": True}, "one winner or two"),
        ({"seating": "knockout"}, "The seating is one of"),
        ({"seating": "movement"}, "needs the movement"),
        ({"seating": "mitchell", "movement": {"kind": "mitchell"}}, "needs the seating"),
        ({"seating": "movement", "movement": "not a movement"}, "malformed"),
        ({"seating": "movement", "movement": "{not json"}, "neither valid JSON"),
        ({"seating": "movement", "movement": 7}, "Give the movement as JSON"),
        # Even the largest Howell offered (8 tables) has 15 rounds.
        ({"seating": "howell", "rounds": 20}, "A Howell movement has at most 15 rounds, not 20"),
    ],
)
def test_a_seating_that_breaks_a_rule_is_refused_and_nothing_stored(organiser, t0, settings, says):
    with pytest.raises(MovementRefused) as refused:
        create(organiser, t0, **settings)
    assert says.lower() in str(refused.value).lower()
    assert not Tournament.objects.exists()


def test_a_given_movement_must_fit_the_rounds_and_boards(organiser, t0):
    data = movements.to_json(a_mitchell())
    with pytest.raises(MovementRefused, match="has 7 rounds and the tournament 6"):
        create(organiser, t0, seating="movement", movement=data, rounds=6)
    with pytest.raises(MovementRefused, match="plays 2 boards a round and the tournament 3"):
        create(organiser, t0, seating="movement", movement=data, boards_per_round=3)
    assert not Tournament.objects.exists()


def test_two_winners_need_a_given_movement_whose_pairs_keep_their_direction(organiser, t0):
    switched = movements.mitchell(7, 2, arrow_switch=True)
    assert switched.directions is None
    with pytest.raises(MovementRefused, match="plays both NS and EW"):
        create(organiser, t0, seating="movement", winners=2, movement=movements.to_json(switched))
    assert not Tournament.objects.exists()


# --- a broken movement, each rule --------------------------------------------------------


def _replace_encounter(movement, round_index, table_index, **change):
    rounds = [list(r) for r in movement.rounds]
    rounds[round_index][table_index] = dataclasses.replace(
        rounds[round_index][table_index], **change
    )
    return dataclasses.replace(movement, rounds=tuple(tuple(r) for r in rounds))


def seated_twice(movement, r, t):
    """Table t's EW pair replaced by the NS pair of another table of the same round."""
    other = movement.rounds[r][(t + 1) % movement.tables]
    return _replace_encounter(movement, r, t, ew=other.ns)


def replayed(movement, r, t):
    """Table t plays, in round r > 0, the boards its NS pair (a Mitchell's stays put)
    played in round 0."""
    r = max(r, 1)
    return _replace_encounter(movement, r, t, boards=movement.rounds[0][t].boards)


def met_again(movement, r, t):
    """Table t's pairs in round r > 0 are the pairs of its round 0."""
    r = max(r, 1)
    first = movement.rounds[0][t]
    return _replace_encounter(movement, r, t, ns=first.ns, ew=first.ew)


BREAKS = {
    "pair_twice_in_round": seated_twice,
    "board_replayed": replayed,
    "repeat_meeting": met_again,
}


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rule=st.sampled_from(sorted(BREAKS)),
    round_index=st.integers(0, 6),
    table_index=st.integers(0, 6),
    as_asc=st.booleans(),
)
def test_a_broken_movement_is_refused_with_the_rule_it_breaks(
    organiser, t0, rule, round_index, table_index, as_asc
):
    broken = BREAKS[rule](a_mitchell(), round_index, table_index)
    found = [problem.rule for problem in movements.problems(broken)]
    assert rule in found  # the core sees the break that was made
    data = movements.to_asc(broken) if as_asc else movements.to_json(broken)
    with pytest.raises(MovementRefused) as refused:
        create(organiser, t0, seating="movement", movement=data)
    # The first rule broken, in the services' one wording of it.
    try:
        movements.verify(movements.from_asc(data) if as_asc else broken)
    except movements.MovementError as first:
        assert refused.value.rule == first.rule
        assert str(refused.value) == explain(first)
    else:  # an .ASC file can't even say it: malformed
        assert refused.value.rule == "shape"
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("rule", [r for r in movements.RULES if r not in ("shape", "size")])
def test_each_rule_reads_in_chinese(rule):
    error = movements.MovementError(rule, "in English", round=2, table=3, position=5)
    with translation.override("zh-hans"):
        text = explain(error)
    assert "第 2 轮" in text and "第 3 桌" in text and "第 5 对" in text, text
    assert "English" not in text and rule not in text, text
    assert explain(error) != text  # and in English outside it


def test_a_malformed_movement_keeps_the_cores_words_for_what_is_wrong():
    error = movements.MovementError("shape", "Round 3 has no tables.", round=3)
    assert explain(error) == "The movement is malformed (round 3): Round 3 has no tables."


# --- changing the seating before round 1 ----------------------------------------------


def test_the_seating_changes_until_round_1_starts_and_not_after(organiser, t0, register_pairs):
    made = create(organiser, t0, seating="swiss")
    changed = settings_change.change_movement(
        tournament=made, by=organiser, seating="mitchell", winners=2
    )
    assert (changed.seating, changed.winners, changed.neuberg) == ("mitchell", 2, True)
    data = movements.to_json(a_mitchell())
    changed = settings_change.change_movement(
        tournament=made, by=organiser, seating="movement", winners=2, movement=data
    )
    assert changed.seating == "movement" and movements.from_json(changed.movement) == a_mitchell()
    # Refused combinations leave the settings as they were.
    before = Tournament.objects.values().get(pk=made.pk)
    with pytest.raises(MovementRefused):
        settings_change.change_movement(tournament=made, by=organiser, seating="howell", winners=2)
    assert Tournament.objects.values().get(pk=made.pk) == before
    # A given movement fixes the rounds and boards per round too.
    with pytest.raises(SettingsLocked, match="has 7 rounds and the tournament 6"):
        settings_change.change_scoring_settings(
            tournament=made, by=organiser, changes={"rounds": 6}, reason="shorter"
        )
    register_pairs(made, 14)
    advance(now=t0)
    made.refresh_from_db()
    assert Round.objects.filter(tournament=made).count() == 1
    before = Tournament.objects.values().get(pk=made.pk)
    with pytest.raises(SettingsLocked, match="has started"):
        settings_change.change_movement(tournament=made, by=organiser, seating="howell")
    assert Tournament.objects.values().get(pk=made.pk) == before
    assert Pair.objects.filter(tournament=made, position__isnull=False).count() == 14
    # Running, the event may stop early (a partial movement), never outrun the movement.
    with pytest.raises(SettingsLocked, match="has 7 rounds: the tournament cannot have 8"):
        settings_change.change_scoring_settings(
            tournament=made, by=organiser, changes={"rounds": 8}, reason="longer"
        )
    settings_change.change_scoring_settings(
        tournament=made, by=organiser, changes={"rounds": 6}, reason="the room closes early"
    )
    made.refresh_from_db()
    assert made.rounds == 6


def test_changing_the_seating_needs_the_power(make_user, organiser, t0):
    made = create(organiser, t0)
    with pytest.raises(ServiceError):
        settings_change.change_movement(tournament=made, by=make_user(), seating=Seating.HOWELL)
    made.refresh_from_db()
    assert made.seating == "swiss"
