"""Team matches and team events (SPEC 11), pure Python, no Django.

- `vp`: the WBF 2013 continuous 20-VP scale with its rounding correction
  (`victory_points`, `match_vps`, `vp_table`), the bye's VPs (`bye_vps`, default 12).
- `match`: a match's score from both rooms' NS scores (`score_match`): board IMPs, the
  unplayed-board policy in team IMPs, A+/A/A− as ±3/0, carry-over, several stanzas
  converted once, VPs or IMPs only (knock-out).
- `schedule`: round robins by Berger tables (`round_robin`) and Swiss teams seated by
  `pairing`'s engine on VP totals (`first_round`, `swiss_round`).
- `ranking`: standings by VPs, head-to-head VPs, IMP quotient, registration (`rank_teams`);
  who earns master points (`players_with_master_points`).

Every refusal is a `TeamsError` (a `scoring.ScoringError`) with a message fit to show.
"""

from .errors import TeamsError
from .match import (
    AVG,
    AVG_MINUS,
    AWAY,
    HOME,
    NOT_PLAYED,
    POLICIES,
    Adjusted,
    BoardResult,
    BoardScore,
    CutOff,
    MatchScore,
    Played,
    Side,
    board_imps,
    score_board,
    score_match,
)
from .ranking import (
    TIE_HEAD_TO_HEAD,
    TIE_QUOTIENT,
    TIE_REGISTRATION,
    MatchRecord,
    TeamEntry,
    TeamStanding,
    earns_master_points,
    imp_quotient,
    players_with_master_points,
    rank_teams,
)
from .schedule import Fixture, Round, TeamState, first_round, round_robin, swiss_round
from .vp import (
    DEFAULT_BYE_VP,
    MAX_BOARDS,
    MIN_BOARDS,
    bye_vps,
    match_vps,
    plain_table,
    validate_boards,
    victory_points,
    vp_hundredths,
    vp_table,
)

__all__ = [
    "AVG",
    "AVG_MINUS",
    "AWAY",
    "DEFAULT_BYE_VP",
    "HOME",
    "MAX_BOARDS",
    "MIN_BOARDS",
    "NOT_PLAYED",
    "POLICIES",
    "TIE_HEAD_TO_HEAD",
    "TIE_QUOTIENT",
    "TIE_REGISTRATION",
    "Adjusted",
    "BoardResult",
    "BoardScore",
    "CutOff",
    "Fixture",
    "MatchRecord",
    "MatchScore",
    "Played",
    "Round",
    "Side",
    "TeamEntry",
    "TeamState",
    "TeamStanding",
    "TeamsError",
    "board_imps",
    "bye_vps",
    "earns_master_points",
    "first_round",
    "imp_quotient",
    "match_vps",
    "plain_table",
    "players_with_master_points",
    "rank_teams",
    "round_robin",
    "score_board",
    "score_match",
    "swiss_round",
    "validate_boards",
    "victory_points",
    "vp_hundredths",
    "vp_table",
]
