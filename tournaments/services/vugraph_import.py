"""A vugraph LIN file imported as a finished match (RULES 12): an organiser uploads BBO's
two-room file; both rooms of every board are replayed through the rules of play by the
pure core (`vugraph.replay_match`), each result scored by Law 77 and IMPed, and the match
is kept as an `ImportedMatch` with the file's text and the outcome.

How a file is decided:

- who: `tournaments.add_tournament` (the organisers);
- the file: at most `MAX_LIN_BYTES` (2 MB; the largest real file we know is 30 KB), not
  empty, UTF-8 (else Latin-1, as the core reads it), no control character and none that
  turns text around (the names and alerts reach every spectator), and a two-room vugraph
  LIN file (`vg`, then boards);
- strict: the first room the rules refuse (an illegal call or card, an impossible claim,
  a result that contradicts `rs`, a missing room, …) refuses the whole file, saying
  "Board 12, open room: …"; lenient: the file is imported and those rooms are marked, the
  score counting only the boards both rooms completed.

One transaction; a refusal is a `ServiceError` and stores nothing.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import vugraph

from ..errors import ServiceError
from ..models import ImportedMatch, ImportPolicy
from ..validators import hostile_character, typed_text
from .permissions import ADD_TOURNAMENT, require

MAX_LIN_BYTES = 2 * 1024 * 1024
TITLE_MAX_LENGTH = 200
_TEAM_MAX_LENGTH = 100
_SEGMENT_MAX_LENGTH = 100
_CARRY_LIMIT = Decimal(1_000_000)

ROOM_NAMES = {
    vugraph.OPEN: gettext_lazy("open room"),
    vugraph.CLOSED: gettext_lazy("closed room"),
}
# What each kind of refusal (vugraph.KINDS) means, in the reader's language; the core's
# English sentence follows it with the details (which call, trick, card).
KIND_NAMES = {
    "shape": gettext_lazy("the file cannot be read as a vugraph match"),
    "missing_room": gettext_lazy("the board is not in the file in this room"),
    "stub": gettext_lazy("an empty placeholder board, with no deal"),
    "deal": gettext_lazy("the deal is not four hands of 13 different cards"),
    "deal_differs": gettext_lazy("the deal, dealer or vulnerability is not the open room's"),
    "illegal_call": gettext_lazy("a call the rules of play refuse"),
    "illegal_card": gettext_lazy("a card the rules of play refuse"),
    "illegal_claim": gettext_lazy("a claim (mc) that cannot be"),
    "unfinished": gettext_lazy("the auction or play stops before the board is over"),
    "claim_contradicts": gettext_lazy("the claim (mc) is not what the play gave"),
    "disagrees": gettext_lazy("the result in rs is not what the auction and play give"),
}


class LinRefused(ServiceError):
    """A LIN file refused as a whole; ``board`` and ``room`` say where when a room did."""

    def __init__(self, message: str, *, kind: str = "", board=None, room=None):
        super().__init__(message)
        self.kind, self.board, self.room = kind, board, room


def room_refusal(error: vugraph.LinError) -> str:
    """A refused room in words: "Board 12, open room: <what it means> (<the core's
    details>)"; the file as a whole when the error names no board."""
    if error.board is None:
        return _("This is not a vugraph LIN file: %(reason)s") % {"reason": error.message}
    detail = error.message
    prefix = f"Board {error.board}, {error.room} room: "
    if detail.startswith(prefix):
        detail = detail[len(prefix) :]
    return _("Board %(board)s, %(room)s: %(kind)s (%(detail)s)") % {
        "board": error.board,
        "room": ROOM_NAMES.get(error.room or "", error.room or ""),
        "kind": KIND_NAMES.get(error.kind, error.kind),
        "detail": detail.rstrip("."),
    }


def decoded(data: bytes) -> str:
    """The file's text as `vugraph.read_lin_bytes` reads it: UTF-8, else Latin-1."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def import_lin_file(
    *,
    by,
    data: bytes,
    policy: str,
    title: str | None = None,
    now: datetime | None = None,
) -> ImportedMatch:
    """Import the LIN file `data` as a finished match under `policy` ("strict" or
    "lenient"); `title` instead of the file's own. Refuses (nothing stored) without the
    permission, for a file that is empty, too big, not text or not LIN, and under the
    strict policy for its first refused room."""
    require(by, ADD_TOURNAMENT)
    if policy not in ImportPolicy.values:
        raise ServiceError(_("The policy is strict or lenient."))
    if not isinstance(data, bytes | bytearray):
        raise ServiceError(_("Send the LIN file itself."))
    if len(data) > MAX_LIN_BYTES:
        raise ServiceError(
            _("The file is %(size)s KB: a LIN file may be at most %(max)s MB.")
            % {"size": (len(data) + 1023) // 1024, "max": MAX_LIN_BYTES // (1024 * 1024)}
        )
    text = decoded(bytes(data))
    if not text.strip().lstrip("\ufeff"):
        raise ServiceError(_("The file is empty."))
    found = hostile_character(text, multiline=True)
    if found is not None:
        raise ServiceError(
            _(
                "This is not a LIN text file: it holds a control character or one that "
                "changes the direction of text (U+%(code)04X)."
            )
            % {"code": ord(found[1])}
        )
    chosen = _title(title)
    try:
        match = vugraph.read_lin(text)
    except vugraph.LinError as error:
        raise LinRefused(room_refusal(error), kind=error.kind) from None
    try:
        outcome = vugraph.replay_match(match, policy=policy)
    except vugraph.LinError as error:
        raise LinRefused(
            room_refusal(error), kind=error.kind, board=error.board, room=error.room
        ) from None
    if not outcome.boards:
        raise ServiceError(_("The file has no board to import."))
    for carry in match.carry_over:
        if abs(carry) >= _CARRY_LIMIT:
            raise ServiceError(_("The carry-over in vg is not a number of IMPs."))
    with transaction.atomic():
        return ImportedMatch.objects.create(
            title=(chosen or match.title or _("Imported match"))[:TITLE_MAX_LENGTH],
            segment=match.segment[:_SEGMENT_MAX_LENGTH],
            home_team=(match.teams[0] or _("Team 1"))[:_TEAM_MAX_LENGTH],
            away_team=(match.teams[1] or _("Team 2"))[:_TEAM_MAX_LENGTH],
            home_carry_over=match.carry_over[0],
            away_carry_over=match.carry_over[1],
            text=text,
            policy=policy,
            outcome=outcome_json(outcome),
            imported_by=by,
            imported_at=now or timezone.now(),
        )


def _title(title: str | None) -> str:
    if title is None:
        return ""
    try:
        return typed_text(title, max_length=TITLE_MAX_LENGTH)
    except ValidationError as error:
        raise ServiceError(" ".join(error.messages)) from None


def outcome_json(outcome: vugraph.MatchOutcome) -> dict[str, Any]:
    """What is kept of a replay: each board's rooms (accepted, or refused with the kind
    and the core's reason; the replayed result and the `rs` entry), its IMPs to team 1,
    the IMPs won by each team and each team's score (carry-over included, as text)."""
    first, second = outcome.score
    return {
        "boards": [
            {
                "number": board.number,
                "imps": board.imps,
                "rooms": {name: _room_json(board.room(name)) for name in vugraph.ROOMS},
            }
            for board in outcome.boards
        ],
        "imps": list(outcome.imps),
        "score": [str(first), str(second)],
        "refused": len(outcome.problems),
        "stubs_left_out": list(outcome.stubs_left_out),
        "absent": list(outcome.absent),
    }


def _room_json(room: vugraph.RoomOutcome) -> dict[str, Any]:
    result = room.result
    played = None
    if result is not None:
        played = {
            "state": "played" if result.contract is not None else "passed_out",
            "contract": str(result.contract) if result.contract is not None else None,
            "declarer": result.declarer,
            "tricks": result.tricks if result.contract is not None else None,
            "ns_score": result.ns_score,
        }
    problem = room.problem
    return {
        "accepted": problem is None,
        "kind": problem.kind if problem is not None else None,
        "reason": problem.message if problem is not None else None,
        "result": played,
        "claimed": room.claimed.text if room.claimed is not None else None,
        "agrees": room.agrees,
    }
