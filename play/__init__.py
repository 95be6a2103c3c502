"""The rules of play at the system's tables (RULES 9): pure Python, no Django.

A board at a table is a ``BoardState`` built from its actions; it never changes, so a
refused action changes nothing and replaying the stored actions rebuilds it exactly.

Actions (immutable records; each checks its own form and raises ``IllegalAction``)
    Call(seat, call, alert=None)   call "P", "X", "XX" or "1C" … "7NT" ("7N" is read 7NT)
    Card(seat, card)               card "SA", "HT", "D2"; ``seat`` is the player acting,
                                   so declarer sends dummy's cards
    Claim(seat, tricks, statement="")  ``tricks`` of the remaining tricks for the
                                   claimer's side (a concession is a claim of fewer, e.g.
                                   0), with the claimer's line of play
    ClaimResponse(seat, accept)    an opponent of the claimer accepts or rejects
Building
    BoardState.start(deal, dealer, vulnerability)   deal: PBN "N:AKQ.T98.… …" (or seat ->
                                                    cards); raises DealError if malformed
    state.apply(action) -> BoardState               new state, or IllegalAction(reason)
    state.allows(action) -> bool
    BoardState.replay(deal, dealer, vulnerability, actions)
Queries
    turn (seat to call, or hand to play: dummy's seat when dummy plays), actor (who must
    act: declarer for dummy), legal_calls(), legal_cards(), is_auction_over, passed_out,
    contract (scoring.Contract), declarer, dummy, opening_lead, tricks (completed
    ``Trick``s: leader, cards, winner), current_trick, tricks_won {"NS", "EW"},
    pending_claim, claim_answers_awaited, claim_outcome() (a pending claim's sums),
    accepted_claim, is_over, result() -> Result
    (contract, declarer, tricks, lead, ns_score by scoring.contract_score)
Visibility
    hand_of(seat) cards still held, dummy_visible (after the opening lead),
    visible_seats(seat) whose hands ``seat`` may see now (the claimer's too while a
    claim waits: Law 68)

Refusals carry an English ``message`` template marked for translation and its
``params`` apart, like the scoring engine's (``tournaments.errors.scoring_message``
translates them).
"""

from .actions import BIDS, DOUBLE, PASS, REDOUBLE, Action, Call, Card, Claim, ClaimResponse
from .board import BoardState, ClaimOutcome, Result, Trick, trick_winner
from .cards import DECK, parse_deal, sort_hand
from .errors import DealError, IllegalAction, PlayError

__all__ = [
    "BIDS",
    "DECK",
    "DOUBLE",
    "PASS",
    "REDOUBLE",
    "Action",
    "BoardState",
    "Call",
    "Card",
    "Claim",
    "ClaimOutcome",
    "ClaimResponse",
    "DealError",
    "IllegalAction",
    "PlayError",
    "Result",
    "Trick",
    "parse_deal",
    "sort_hand",
    "trick_winner",
]
