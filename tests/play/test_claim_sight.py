"""Claims (Law 68, issue 24): while a claim waits for its answers the claimer's cards are
faced for the three others, the claim's sums are known, and a rejected claim hides the
hand again; the claimer's statement travels with the claim."""

from __future__ import annotations

import pytest

import play

# North holds every spade, East every heart, South every diamond, West every club.
DEAL = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"


def opened() -> play.BoardState:
    """1S by North, passed out around; East has led the ace of hearts."""
    state = play.BoardState.start(DEAL, "N", "None")
    for seat, call in (("N", "1S"), ("E", "P"), ("S", "P"), ("W", "P")):
        state = state.apply(play.Call(seat, call))
    return state.apply(play.Card("E", "HA"))


def test_the_claimers_hand_is_faced_while_the_claim_waits_and_hidden_after_a_rejection():
    state = opened()
    assert state.visible_seats("E") == {"E", "S"}  # own hand and dummy
    claimed = state.apply(play.Claim("N", 12, "trumps from the top"))
    for seat in ("E", "S", "W"):
        assert "N" in claimed.visible_seats(seat), seat
    assert claimed.visible_seats("W") == {"W", "S", "N"}
    rejected = claimed.apply(play.ClaimResponse("E", False))
    assert rejected.pending_claim is None
    assert rejected.visible_seats("E") == {"E", "S"}
    assert rejected.visible_seats("W") == {"W", "S"}


def test_a_defenders_claim_faces_the_defenders_hand():
    claimed = opened().apply(play.Claim("E", 1))
    assert claimed.visible_seats("N") == {"N", "S", "E"}
    assert claimed.visible_seats("W") == {"W", "S", "E"}


def test_before_any_claim_no_seat_sees_more_than_before():
    state = opened()
    assert state.claim_outcome() is None
    assert state.visible_seats("N") == {"N", "S"}
    assert state.visible_seats("W") == {"W", "S"}


@pytest.mark.parametrize(
    ("seat", "tricks", "total", "declarer_tricks", "made", "over", "under"),
    [
        ("N", 12, 12, 12, True, 5, 0),  # 1S making six over
        ("N", 5, 5, 5, False, 0, 2),  # declarer concedes: two down
        ("E", 3, 3, 10, True, 3, 0),  # a defender claims three: declarer makes ten
        ("W", 13, 13, 0, False, 0, 7),
    ],
)
def test_a_pending_claim_says_its_total_and_the_contracts_outcome(
    seat, tricks, total, declarer_tricks, made, over, under
):
    outcome = opened().apply(play.Claim(seat, tricks)).claim_outcome()
    assert outcome == play.ClaimOutcome(
        won=0,
        total=total,
        declarer_tricks=declarer_tricks,
        made=made,
        overtricks=over,
        undertricks=under,
    )


def test_the_sums_count_the_tricks_already_won():
    state = opened()
    # Dummy (declarer plays it) and West discard, North ruffs East's ace.
    for seat, card in (("N", "D2"), ("W", "C2"), ("N", "S2")):
        state = state.apply(play.Card(seat, card))
    assert state.tricks_won == {"NS": 1, "EW": 0}  # North ruffed
    outcome = state.apply(play.Claim("N", 12)).claim_outcome()
    assert outcome is not None
    assert (outcome.won, outcome.total, outcome.declarer_tricks) == (1, 13, 13)


def test_a_statement_is_text_or_nothing():
    assert play.Claim("N", 3).statement == ""
    assert play.Claim("N", 3, None).statement == ""  # type: ignore[arg-type]
    with pytest.raises(play.IllegalAction):
        play.Claim("N", 3, 7)  # type: ignore[arg-type]
    # A replay rebuilds the claim with its statement: a resend compares equal.
    claimed = opened().apply(play.Claim("N", 12, "drawing trumps"))
    again = play.BoardState.replay(DEAL, "N", "None", claimed.actions)
    assert again.pending_claim == play.Claim("N", 12, "drawing trumps")
