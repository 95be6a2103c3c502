"""BBO's vugraph LIN files, read and written, and a match replayed through the rules of
play (SPEC 12): pure Python, no Django.

Reading and writing (`lin`)
    read_lin(text) -> VugraphMatch          LinError("shape") if not a two-room vugraph file
    read_lin_bytes(data) -> VugraphMatch    UTF-8, else Latin-1
    write_lin(match) -> str                 reading it back gives the same match
    read_result(text) -> ClaimedResult | None      one `rs` entry ("4HE+1", "P")
    result_text(contract, declarer, tricks) -> ClaimedResult   an `rs` entry for a result
The match as data (`model`): VugraphMatch (vg, rs, pn, boards), Board (open, closed),
    Room (hands, dealer, vulnerability, calls, cards, claim, notes), LinCall, Note,
    ClaimedResult; OPEN, CLOSED, ROOMS; LIN_SEATS (S, W, N, E: md's and pn's order)
Replaying (`replay`)
    replay(room, board) -> play.BoardState  the room at its end; LinError saying why not
    replay_room(match, board, room) -> RoomOutcome   result, rs entry, agreement, problem
    replay_match(match, *, policy=LENIENT) -> MatchOutcome   STRICT raises the first problem
    import_lin(text, *, policy=LENIENT) -> MatchOutcome
    MatchOutcome: boards (BoardOutcome: open, closed, imps to team1), problems, scored,
    imps (team1, team2), score (carry-over + IMPs), stubs_left_out, absent
Figures (`figures`): `python -m vugraph.figures ../shared/lin`, a table for BENCHMARKS.md.

Every refusal is a LinError (a ValueError): ``kind`` (errors.KINDS), ``board``, ``room``,
``details`` and an English ``message`` that says where and why.
"""

from .errors import KINDS, LinError
from .lin import read_lin, read_lin_bytes, read_result, result_text, write_lin
from .model import (
    CLOSED,
    LIN_SEATS,
    OPEN,
    ROOMS,
    Board,
    ClaimedResult,
    Hands,
    LinCall,
    Note,
    Room,
    VugraphMatch,
)
from .replay import (
    LENIENT,
    POLICIES,
    STRICT,
    BoardOutcome,
    MatchOutcome,
    RoomOutcome,
    import_lin,
    replay,
    replay_match,
    replay_room,
)

__all__ = [
    "CLOSED",
    "KINDS",
    "LENIENT",
    "LIN_SEATS",
    "OPEN",
    "POLICIES",
    "ROOMS",
    "STRICT",
    "Board",
    "BoardOutcome",
    "ClaimedResult",
    "Hands",
    "LinCall",
    "LinError",
    "MatchOutcome",
    "Note",
    "Room",
    "RoomOutcome",
    "VugraphMatch",
    "import_lin",
    "read_lin",
    "read_lin_bytes",
    "read_result",
    "replay",
    "replay_match",
    "replay_room",
    "result_text",
    "write_lin",
]
