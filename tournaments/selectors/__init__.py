"""Reads for pages, API and exports: plain data built from a bounded number of queries.

Every function here costs a fixed number of queries whatever the field size, so a
2,000-pair event's standings, results and board pages stay fast. One module per page
family; callers use the names re-exported here (`selectors.standings(...)`):

- `common`: a pair's players, a player's name as plain data, the registered pairs;
- `home`: tournament cards, a player's proposals and history (home, profile);
- `results`: the standings rows and the results grid (tournament and results pages);
- `boards`: the public boards, a board's traveller (who may see a hand or a result:
  `tournaments.visibility`);
- `pairs`: a pair's event round by round;
- `scorecard`: a pair's personal score card, board by board;
- `seating`: a round's seating, where a player sits now;
- `table`: a table's sheet and the snapshot its poll compares;
- `live`: the live version every polling page and live cache keys on;
- `history`: a board's result history, for organisers;
- `movements` (imported by module, `selectors.movements.…`): a tournament's movement,
  the positions its pairs hold, and its paper (`movement_sheet`, `balance_view`: the
  movement page, the table guide cards, the travel cards);
- `pair_labels` (imported by module): the number a page prints for a pair, its movement
  position's label ("3NS") or its registration number.

The rules they read by live in the models: the current round is
`Round.objects….current()`, a player's name `models.display_name`, a player's side of a
table `Table.side_of`, and the standings order `scoring.standing_key`.
"""

from .boards import BoardLine, board_detail, closed_board_numbers
from .common import PAIR_PLAYERS, PlayerName, confirmed_pairs, player
from .history import FieldChange, HistoryLine, result_history
from .home import (
    TournamentCard,
    open_proposals,
    player_history,
    proposals_in,
    tournament_cards,
)
from .live import live_version
from .pairs import PairRound, pair_history
from .results import FieldStandings, StandingRow, board_score_grid, by_field, standings
from .scorecard import CardBoard, CardRound, score_card
from .seating import (
    TABLE_PAIRS,
    SeatedPair,
    SeatingRow,
    boards_played,
    current_tables,
    round_seating,
    round_with_boards,
    seat_of_user,
)
from .table import TableBoard, TableSnapshot, table_sheet, table_snapshot

__all__ = [
    "PAIR_PLAYERS",
    "TABLE_PAIRS",
    "BoardLine",
    "CardBoard",
    "CardRound",
    "FieldChange",
    "FieldStandings",
    "HistoryLine",
    "PairRound",
    "PlayerName",
    "SeatedPair",
    "SeatingRow",
    "StandingRow",
    "TableBoard",
    "TableSnapshot",
    "TournamentCard",
    "board_detail",
    "board_score_grid",
    "by_field",
    "closed_board_numbers",
    "confirmed_pairs",
    "current_tables",
    "live_version",
    "open_proposals",
    "pair_history",
    "player",
    "player_history",
    "proposals_in",
    "result_history",
    "round_seating",
    "round_with_boards",
    "boards_played",
    "score_card",
    "seat_of_user",
    "standings",
    "table_sheet",
    "table_snapshot",
    "tournament_cards",
]
