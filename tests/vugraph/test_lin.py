"""The LIN reader and writer on small hand-written files: each quirk of the format, each
refusal with its place and reason, and the exact shape the writer gives BBO's viewers."""

from __future__ import annotations

from decimal import Decimal

import pytest

from scoring import Contract
from vugraph import (
    CLOSED,
    OPEN,
    STRICT,
    ClaimedResult,
    LinError,
    import_lin,
    read_lin,
    read_result,
    replay_match,
    write_lin,
)

# Board 1 of 001_00100 (2004 Olympiad, Spain v France), cut to its first tricks: 4♥ by
# East; dealer 3 = North; hands S, W, N, E.
DEAL = "3ST962H7DQT92CJ743,S543HKQJ82DKJ4CA9,SA7HT963DA653CT65,SKQJ8HA54D87CKQ82"
AUCTION = "mb|P|mb|1N|mb|P|mb|2d|mb|P|mb|2h|mb|P|mb|3N|mb|P|mb|4h|mb|P|mb|P|mb|P|"
TRICKS = "pc|s9|pc|s3|pc|sA|pc|s8|pg||\npc|s7|pc|sJ|pc|s2|pc|s4|pg||\n"
HEAD = "vg|Test,Round 1,I,1,1,Home,0,Away,0|\nrs|4HE+2,4HE+1|\npn|a,b,c,d,e,f,g,h|pg||\n"


def lin(open_room: str, closed_room: str | None = None, head: str = HEAD) -> str:
    text = head + f"qx|o1|md|{DEAL}|sv|0|{open_room}"
    if closed_room is not None:
        text += f"qx|c1|md|{DEAL}|sv|0|{closed_room}"
    return text


PLAYED = AUCTION + "pg||\n" + TRICKS + "mc|12|pg||\n"


def test_a_room_is_read_into_its_deal_calls_cards_and_claim():
    match = read_lin(lin(PLAYED, AUCTION + TRICKS + "mc|11|"))
    room = match.board(1).open
    assert room.dealer == "N" and room.vulnerability == "None"
    east = ("SK", "SQ", "SJ", "S8", "HA", "H5", "H4", "D8", "D7", "CK", "CQ", "C8", "C2")
    assert room.hand("E") == east  # the fourth hand given
    calls = ("P", "1NT", "P", "2D", "P", "2H", "P", "3NT", "P", "4H", "P", "P", "P")
    assert tuple(c.call for c in room.calls) == calls
    assert room.cards == ("S9", "S3", "SA", "S8", "S7", "SJ", "S2", "S4")
    assert room.claim == 12
    outcome = replay_match(match)
    assert outcome.boards[0].open.result.ns_score == -480
    assert outcome.boards[0].closed.result.ns_score == -450
    assert outcome.boards[0].imps == -1 and outcome.score == (Decimal(0), Decimal(1))


def test_three_hands_are_enough_the_fourth_is_what_they_are_not_dealt():
    three = DEAL.rsplit(",", 1)[0] + ","
    match = read_lin(lin(PLAYED).replace(DEAL, three))
    assert match.board(1).open.hands == read_lin(lin(PLAYED)).board(1).open.hands


def test_tags_ignore_case_line_ends_and_noise_and_unknown_tags_are_kept_apart():
    text = lin(PLAYED).replace("mb|", "MB|").replace("pc|", "Pc|").replace("\n", "\r\n")
    text = "pf|y|\r\n" + text.replace("qx|o1|", "qx|o1|st||zz|unknown thing|")
    match = read_lin(text)
    assert match == read_lin(lin(PLAYED))  # ignored tags are not data
    assert match.ignored == (("zz", "unknown thing"),)


def test_alerts_explanations_and_commentary():
    auction = AUCTION.replace("mb|1N|", "mb|1N!|an|15-17|").replace("mb|2d|", "mb|2d|an| |")
    room_text = "nt|before the first call|pg||" + auction + "nt|after the auction|pg||"
    room_text += "pc|s9|nt|a thought|pg||pc|s3|mc|10|"
    match = read_lin(lin(room_text))
    room = match.board(1).open
    assert room.calls[1].alerted and room.calls[1].explanation == "15-17"
    assert not room.calls[3].alerted and room.calls[3].explanation == ""
    assert room.calls[0].explanation is None
    assert [(n.at, n.text) for n in room.notes] == [
        (0, "before the first call"),
        (13, "after the auction"),
        (14, "a thought"),
    ]
    assert read_lin(write_lin(match)) == match


def test_rs_entries():
    assert read_result("4HE+1") == ClaimedResult("4HE+1", Contract(4, "H"), "E", 11)
    assert read_result("3NWx-2") == ClaimedResult("3NWx-2", Contract(3, "NT", 1), "W", 7)
    assert read_result("6SNxx=").contract == Contract(6, "S", 2)
    assert read_result("4SW") == ClaimedResult("4SW", Contract(4, "S"), "W", None)
    assert read_result("P").passed_out and read_result("PASS").passed_out
    assert read_result("") is None and read_result("  ") is None
    assert not read_result("4S?").readable and not read_result("7NN+1").readable


def test_what_is_not_a_vugraph_file_is_refused_with_where():
    with pytest.raises(LinError, match="no vg line: this is not a two-room vugraph file"):
        read_lin(f"pn|a,b,c,d|md|{DEAL}|{AUCTION}")
    with pytest.raises(LinError, match=r"mb\|P\| comes before the first qx") as refused:
        read_lin(HEAD + AUCTION)
    assert refused.value.kind == "shape"
    with pytest.raises(LinError, match=r"qx\|x1\| is not a room and board"):
        read_lin(HEAD + "qx|x1|")
    with pytest.raises(LinError, match="board 1, open room appears twice") as refused:
        read_lin(lin(PLAYED) + "qx|o1|")
    assert (refused.value.board, refused.value.room) == (1, OPEN)
    with pytest.raises(LinError, match="vg's first board must be a board number"):
        read_lin(lin(PLAYED, head=HEAD.replace("I,1,1", "I,one,1")))
    with pytest.raises(LinError, match="carry-over for Home must be a number"):
        read_lin(lin(PLAYED, head=HEAD.replace("Home,0", "Home,lots")))
    with pytest.raises(LinError, match="a LIN file is text"):
        read_lin(b"vg|")  # type: ignore[arg-type]


def _refusal(text: str, room: str = OPEN) -> LinError:
    outcome = import_lin(text)
    problem = outcome.boards[0].room(room).problem
    assert problem is not None and outcome.boards[0].imps is None
    with pytest.raises(LinError) as refused:
        import_lin(text, policy=STRICT)
    assert refused.value == problem
    return problem


def test_each_refusal_names_its_board_room_and_reason():
    closed = AUCTION + TRICKS + "mc|11|"
    problem = _refusal(lin(AUCTION.replace("mb|2h|", "mb|1h|") + "mc|10|", closed))
    assert problem.kind == "illegal_call"
    assert problem.message == (
        "Board 1, open room: call 6 (1H by E) is refused: insufficient bid: 1H is not "
        "higher than 2D."
    )
    problem = _refusal(lin(AUCTION + "pc|s9|pc|sA|mc|12|", closed))
    assert problem.kind == "illegal_card"
    assert problem.message == (
        "Board 1, open room: trick 1, card 2: SA from N's hand is refused: not your turn: "
        "W is to play."
    )
    problem = _refusal(lin(AUCTION + "pc|s9|pc|sK|mc|12|", closed))  # declarer's own card
    assert problem.details["rule"] == "SK is not in W's hand"  # for dummy's
    problem = _refusal(lin(AUCTION + "pc|s9|pc|s3|pc|hT|mc|12|", closed))
    assert problem.details["rule"] == "you must follow suit: play a ♠"
    problem = _refusal(lin(AUCTION + TRICKS + "pc|s9|mc|12|", closed))
    assert problem.message.endswith("S9 is in nobody's hand (played already?).")
    problem = _refusal(lin(AUCTION + TRICKS, closed))
    assert problem.kind == "unfinished"
    assert problem.message == (
        "Board 1, open room: the play stops after 8 cards (2 tricks complete), with no claim (mc)."
    )
    problem = _refusal(lin("mb|P|mb|1N|mb|P|", closed))
    assert problem.message.endswith("the auction stops after 3 calls, with no claim (mc).")
    problem = _refusal(lin(AUCTION, closed))
    assert problem.message.endswith(
        "the auction is over but no card is played and there is no claim (mc)."
    )
    problem = _refusal(lin(AUCTION + "mc|10|", closed))
    assert problem.kind == "illegal_claim"
    assert "claims are made during the play, after the opening lead" in problem.message
    problem = _refusal(lin(AUCTION + TRICKS + "mc|0|", closed))  # East won trick 2
    assert problem.message.endswith(
        "mc|0| says declarer's side takes 0 tricks in all, but it has won 1 and 11 remain."
    )
    problem = _refusal(lin(AUCTION + TRICKS + "mc|13|", closed))
    assert problem.details == {"claim": 13}
    problem = _refusal(lin("mb|P|mb|P|mb|P|mb|P|mc|3|", closed))
    assert problem.kind == "claim_contradicts"
    problem = _refusal(lin(PLAYED.replace("mc|12|", "mc|11|"), closed))
    assert problem.kind == "disagrees"
    assert problem.message == (
        "Board 1, open room: rs says 4HE+2 (12 tricks) but the auction and play give "
        "4HE+1 (11 tricks)."
    )
    problem = _refusal(lin(PLAYED), room=CLOSED)
    assert problem.kind == "missing_room"
    problem = _refusal(lin(PLAYED).replace(DEAL, DEAL.replace("SA7", "SK7")), room=OPEN)
    assert problem.kind == "deal" and "SK is dealt twice" in problem.message
    problem = _refusal(
        lin(PLAYED, closed.replace("", "")).replace(
            f"qx|c1|md|{DEAL}|sv|0|", f"qx|c1|md|{DEAL}|sv|b|"
        ),
        room=CLOSED,
    )
    assert problem.kind == "deal_differs" and "vulnerability" in problem.message


def test_a_stub_inside_vg_range_is_refused_outside_it_is_left_out():
    closed = AUCTION + TRICKS + "mc|11|"
    stub = "qx|o2|pg||sv||pg||\nqx|c2|pg||sv||pg||\n"
    outcome = import_lin(lin(PLAYED, closed) + stub)
    assert outcome.stubs_left_out == (2,) and len(outcome.boards) == 1
    inside = HEAD.replace("I,1,1", "I,1,2")
    outcome = import_lin(lin(PLAYED, closed, head=inside) + stub)
    assert [p.kind for p in outcome.problems] == ["stub", "stub"]
    assert (
        outcome.problems[0].message == "Board 2, open room: no deal (an empty placeholder board)."
    )


def test_a_passed_out_board_scores_nothing_and_mc_0_is_no_claim():
    text = lin("mb|p|mb|p|mb|p|mb|p|mc|0|", "mb|P|mb|P|mb|P|mb|P|")
    text = text.replace("rs|4HE+2,4HE+1|", "rs|P,PASS|")
    outcome = import_lin(text, policy=STRICT)
    assert outcome.boards[0].imps == 0
    assert all(r.result.ns_score == 0 and r.agrees for r in outcome.rooms)


def test_the_writer_writes_the_shape_bbo_viewers_read():
    match = read_lin(lin(PLAYED, AUCTION.replace("mb|1N|", "mb|1N!|an|15-17|") + TRICKS + "mc|11|"))
    assert write_lin(match) == (
        "vg|Test,Round 1,I,1,1,Home,0,Away,0|\n"
        "rs|4HE+2,4HE+1|\n"
        "pn|a,b,c,d,e,f,g,h|pg||\n"
        f"qx|o1|md|{DEAL}|sv|o|mb|p|mb|1N|mb|p|mb|2D|mb|p|mb|2H|mb|p|mb|3N|mb|p|mb|4H|"
        "mb|p|mb|p|mb|p|pg||\n"
        "pc|s9|pc|s3|pc|sA|pc|s8|pg||\n"
        "pc|s7|pc|sJ|pc|s2|pc|s4|pg||\n"
        "mc|12|pg||\n"
        f"qx|c1|md|{DEAL}|sv|o|mb|p|mb|1N!|an|15-17|mb|p|mb|2D|mb|p|mb|2H|mb|p|mb|3N|mb|p|"
        "mb|4H|mb|p|mb|p|mb|p|pg||\n"
        "pc|s9|pc|s3|pc|sA|pc|s8|pg||\n"
        "pc|s7|pc|sJ|pc|s2|pc|s4|pg||\n"
        "mc|11|pg||\n"
    )


def test_the_writer_refuses_what_lin_cannot_say():
    match = read_lin(lin(PLAYED))
    with pytest.raises(LinError, match="LIN has no way to write"):
        write_lin(match.__class__(**{**match.__dict__, "teams": ("A,B", "C")}))
    with pytest.raises(LinError, match=r"nt cannot hold 'a \| b'"):
        write_lin(match.__class__(**{**match.__dict__, "notes": ("a | b",)}))
