"""A movement's settings checked, and the movements core's refusals said to a person
(RULES 10): the one place where a `movements.MovementError` becomes a message.

Creating a tournament (`setup`), changing its seating before round 1
(`settings_change.change_movement`), the start (`movement_pairs`), the console and the API
all refuse a movement through `refusal`, so each rule reads the same everywhere, in
English and Chinese.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.utils.translation import gettext as _

import movements

from ...errors import ServiceError
from ...models import PlayMode, Seating

# The fields the movements offered seat (SPEC 10, `movements.for_pairs`): a Mitchell of
# 3 to 30 tables, a Howell of 2 to 8.
PAIRS_OFFERED = {Seating.MITCHELL: (5, 60), Seating.HOWELL: (3, 16)}


class MovementRefused(ServiceError):
    """A movement (or a seating setting) that breaks a rule; `rule` is the core's code."""

    def __init__(self, message: str, *, rule: str = "") -> None:
        super().__init__(message)
        self.rule = rule


def _rule_text(rule: str) -> str:
    # One sentence per rule of SPEC 10, as an organiser reads it.
    texts = {
        "shape": _("The movement is malformed"),
        "pair_twice_in_round": _("A pair is seated twice in one round"),
        "board_replayed": _("A pair plays a board twice"),
        "repeat_meeting": _("Two pairs meet more than once"),
        "unequal_plays": _("A board is not played the same number of times as the others"),
        "mitchell_direction": _(
            "In a two-winner movement a pair changes direction, or two pairs of the same "
            "direction meet"
        ),
        "howell_incomplete": _("In this complete Howell two pairs never meet"),
        "size": _("There is no such movement for this number of tables or rounds"),
    }
    return texts.get(rule, _("The movement breaks a rule (%(rule)s)") % {"rule": rule})


def _where(details: dict[str, Any]) -> str:
    parts = []
    labels = (
        ("round", _("round %(n)s")),
        ("table", _("table %(n)s")),
        ("position", _("pair %(n)s")),
        ("board", _("board %(n)s")),
    )
    for key, text in labels:
        if details.get(key) is not None:
            parts.append(text % {"n": details[key]})
    return _(", ").join(parts)


def _size_text(details: dict[str, Any]) -> str:
    """No such movement: what the core's details say is out of range."""
    if details.get("available") is not None:
        return _("The movement has %(n)s rounds, not %(r)s.") % {
            "n": details["available"],
            "r": details.get("rounds"),
        }
    if details.get("pairs") is not None:
        return _("There is no such movement for %(n)s pairs.") % {"n": details["pairs"]}
    if details.get("tables") is not None:
        return _("There is no such movement for %(n)s tables.") % {"n": details["tables"]}
    return _rule_text("size") + _(".")


def explain(error: movements.MovementError) -> str:
    """What `error` means to an organiser: the rule and where it is broken. A malformed
    movement also gets the core's own words for what is wrong (English: the core is plain
    Python, without translations), since "malformed" alone would not say where to look."""
    details = getattr(error, "details", None) or {}
    if error.rule == "size":
        return _size_text(details)
    where = _where(details)
    text = _rule_text(error.rule)
    if where:
        text = _("%(rule)s (%(where)s)") % {"rule": text, "where": where}
    if error.rule == "shape" or error.rule not in movements.RULES:
        return _("%(rule)s: %(detail)s") % {"rule": text, "detail": str(error)}
    return text + _(".")


def no_movement(*, seating: str, pairs: int, error: movements.MovementError) -> str:
    """Why a Mitchell or a Howell cannot be generated for `pairs` pairs (the start refuses
    with it, the console shows it before round 1)."""
    kind = Seating(seating).label
    details = getattr(error, "details", None) or {}
    if error.rule == "size" and details.get("available") is not None:
        return _(
            "A %(kind)s for %(n)s pairs has %(a)s rounds, not %(r)s: give the tournament "
            "%(a)s rounds or fewer."
        ) % {"kind": kind, "n": pairs, "a": details["available"], "r": details.get("rounds")}
    if error.rule == "size":
        low, high = PAIRS_OFFERED[Seating(seating)]
        return _("There is no %(kind)s for %(n)s pairs: it is for %(low)s to %(high)s pairs.") % {
            "kind": kind,
            "n": pairs,
            "low": low,
            "high": high,
        }
    return explain(error)


def refusal(error: movements.MovementError) -> MovementRefused:
    return MovementRefused(explain(error), rule=error.rule)


def parse_movement(data: object, *, boards_per_round: int) -> movements.Movement:
    """An organiser's movement as data: the JSON form (`movements.to_json`, a dict or its
    text) or the text of an `.ASC` movement file (whose board groups are
    `boards_per_round` boards each: the standard file does not say); refused with the
    rule it breaks."""
    try:
        if isinstance(data, dict):
            return movements.from_json(data)
        if isinstance(data, bytes):
            raw = data
            try:
                data = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                # Older club scorers write their files in a single-byte code page.
                data = raw.decode("latin-1")
        if isinstance(data, str) and data.strip():
            text = data.strip()
            if text.startswith("{"):
                import json  # only a pasted JSON text needs it

                try:
                    parsed = json.loads(text)
                except ValueError:
                    raise MovementRefused(
                        _("The movement is neither valid JSON nor an .ASC movement file."),
                        rule="shape",
                    ) from None
                if not isinstance(parsed, dict):
                    raise MovementRefused(_("A movement in JSON is an object."), rule="shape")
                return movements.from_json(parsed)
            return movements.from_asc(text, boards_per_round=boards_per_round)
    except movements.MovementError as error:
        raise refusal(error) from None
    raise MovementRefused(
        _("Give the movement as JSON or as the text of an .ASC movement file."), rule="shape"
    )


def check_given(movement: movements.Movement, *, rounds: int, boards_per_round: int) -> None:
    """A given movement passes every check of SPEC 10 and fits the tournament's rounds and
    boards per round."""
    try:
        movements.verify(movement)
    except movements.MovementError as error:
        raise refusal(error) from None
    if movement.round_count != rounds:
        raise MovementRefused(
            _(
                "The movement has %(m)s rounds and the tournament %(t)s: give the tournament "
                "%(m)s rounds, or a movement of %(t)s."
            )
            % {"m": movement.round_count, "t": rounds},
            rule="size",
        )
    if movement.boards_per_round != boards_per_round:
        raise MovementRefused(
            _(
                "The movement plays %(m)s boards a round and the tournament %(t)s: give the "
                "tournament %(m)s boards per round."
            )
            % {"m": movement.boards_per_round, "t": boards_per_round},
            rule="size",
        )


def _offered(seating: str, *, rounds: int, boards_per_round: int, arrow_switch: bool) -> None:
    """Some field size has a generated movement of `rounds` rounds: refused when even
    the largest Mitchell or Howell offered has fewer."""
    largest = PAIRS_OFFERED[Seating(seating)][1]
    error: movements.MovementError | None = None
    for pairs in (largest, largest - 1):
        try:
            movements.for_pairs(
                pairs,
                kind=seating,  # "mitchell" | "howell"
                boards_per_round=boards_per_round,
                rounds=rounds,
                arrow_switch=arrow_switch,
            )
            return
        except movements.MovementError as found:
            error = found
    assert error is not None
    available = (getattr(error, "details", None) or {}).get("available")
    if error.rule == "size" and available is not None:
        raise MovementRefused(
            _("A %(kind)s has at most %(a)s rounds, not %(r)s.")
            % {"kind": Seating(seating).label, "a": available, "r": rounds},
            rule="size",
        )
    raise refusal(error)


def checked_seating(
    *,
    seating: object,
    winners: object,
    arrow_switch: object,
    movement: object,
    rounds: int,
    boards_per_round: int,
    boards_travel: object = False,
    play: str = PlayMode.ENTERED,
) -> dict[str, Any]:
    """The seating settings as the model stores them (`seating`, `winners`,
    `arrow_switch`, `movement`: the JSON form or None, `boards_travel`), or refused with
    a `MovementRefused` saying which rule the combination breaks. Writes nothing.
    `play`: the tournament's play mode (board sets travel only face to face)."""
    if seating not in Seating.values:
        raise MovementRefused(
            _("The seating is one of %(choices)s.") % {"choices": ", ".join(Seating.values)}
        )
    if not isinstance(boards_travel, bool):
        raise MovementRefused(_("Board sets travel or not (true or false)."))
    if boards_travel and seating == Seating.SWISS:
        raise MovementRefused(
            _("Board sets travel as a movement says: Swiss seating plays the round's boards "
              "at every table.")
        )  # fmt: skip
    if boards_travel and play == PlayMode.ONLINE:
        raise MovementRefused(
            _("Online every table of a round plays the round's boards; board sets travel "
              "only face to face (results entered).")
        )  # fmt: skip
    if winners is None:
        # Not said: what the seating gives (a Mitchell's two fields, one field otherwise;
        # an arrow-switched Mitchell's merged field).
        winners = 2 if seating == Seating.MITCHELL and arrow_switch is not True else 1
    if isinstance(winners, bool) or winners not in (1, 2):
        raise MovementRefused(_("A tournament has one winner or two (1 or 2)."))
    if not isinstance(arrow_switch, bool):
        raise MovementRefused(_("Arrow-switch is on or off (true or false)."))
    if arrow_switch and seating != Seating.MITCHELL:
        raise MovementRefused(
            _("Arrow-switch is for a Mitchell: its NS and EW pairs swap in some rounds.")
        )
    # With duplicated boards (every table of a round on the round's boards, RULES 10) a
    # Mitchell's NS pairs are compared only with NS pairs and its EW pairs with EW pairs,
    # switched rounds or not: one list would rank pairs no board ever compared. An
    # arrow-switch merges the fields only when board sets travel between tables.
    if arrow_switch and not boards_travel:
        raise MovementRefused(
            _(
                "Arrow-switch needs board sets that travel (face to face): when every table "
                "of a round plays the round's boards, switching the tables never compares an "
                "NS pair with an EW pair. For one winner online choose a Howell."
            )
        )
    if seating == Seating.MITCHELL and winners == 1 and not arrow_switch:
        raise MovementRefused(
            _(
                "A Mitchell has two winners: its NS pairs and its EW pairs are never "
                "compared on a board, so they cannot be ranked in one list. For one winner "
                "choose a Howell, or an arrow-switch with board sets that travel."
            )
        )
    if movement is not None and seating != Seating.MOVEMENT:
        raise MovementRefused(
            _("A movement given as data needs the seating “movement” (not %(s)s).") % {"s": seating}
        )
    given: movements.Movement | None = None
    if seating == Seating.MOVEMENT:
        if movement is None:
            raise MovementRefused(
                _("The seating “movement” needs the movement: as JSON, or an .ASC file.")
            )
        given = parse_movement(movement, boards_per_round=boards_per_round)
        check_given(given, rounds=rounds, boards_per_round=boards_per_round)
        if boards_travel:
            check_sets(given)
    elif seating != Seating.SWISS:
        _offered(
            seating, rounds=rounds, boards_per_round=boards_per_round, arrow_switch=arrow_switch
        )
    if given is not None and winners == 1 and given.directions is not None:
        raise MovementRefused(
            _(
                "In this movement every pair keeps its direction, so its NS and EW pairs are "
                "never compared on a board: give it two winners."
            ),
            rule="mitchell_direction",
        )
    if winners == 2:
        if seating == Seating.SWISS:
            raise MovementRefused(
                _("Two winners need a movement whose pairs keep their direction: Swiss "
                  "seating ranks one field.")
            )  # fmt: skip
        if seating == Seating.HOWELL:
            raise MovementRefused(
                _("Two winners need a movement whose pairs keep their direction: in a Howell "
                  "every pair moves, so it has one winner.")
            )  # fmt: skip
        if seating == Seating.MITCHELL and arrow_switch:
            raise MovementRefused(
                _("An arrow-switched Mitchell has one winner: its NS and EW fields merge.")
            )
        if given is not None and given.directions is None:
            raise MovementRefused(
                _("Two winners need a movement whose pairs keep their direction: in this "
                  "movement some pair plays both NS and EW.")
            )  # fmt: skip
    return {
        "seating": seating,
        "winners": winners,
        "arrow_switch": arrow_switch,
        "movement": movements.to_json(given) if given is not None else None,
        "boards_travel": boards_travel,
    }


def check_sets(movement: movements.Movement) -> None:
    """Board sets that travel are physical sets: each table of each round plays one run
    of consecutive boards (`Table.first_board` … `last_board`), and one set is at no more
    than two tables of a round (two tables share it, passing the boards, as a relay
    Mitchell does). Refused otherwise."""
    for number, round in enumerate(movement.rounds, start=1):
        at = defaultdict(list)
        for encounter in round:
            at[encounter.boards].append(encounter.table)
        for boards, tables in at.items():
            if len(tables) > 2:
                raise MovementRefused(
                    _(
                        "For board sets that travel a set is at one table of a round, or "
                        "shared by two; in round %(r)s boards %(b)s are at tables %(t)s. "
                        "Play the event with duplicated boards, or give a movement whose "
                        "sets travel."
                    )
                    % {
                        "r": number,
                        "b": ", ".join(map(str, boards)),
                        "t": ", ".join(map(str, sorted(tables))),
                    },
                    rule="board_sets",
                )
        for encounter in round:
            run = list(encounter.boards)
            if run != list(range(run[0], run[-1] + 1)):
                raise MovementRefused(
                    _(
                        "For board sets that travel each table plays one set of consecutive "
                        "boards; table %(t)s of round %(r)s plays %(b)s."
                    )
                    % {"t": encounter.table, "r": number, "b": ", ".join(map(str, run))},
                    rule="board_sets",
                )
