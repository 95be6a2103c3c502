"""The table by keyboard (issue 24, item 7): four desktop pages (English and Chinese) bid
and play a whole board with the keys alone — typed calls ("1c", "x", "xx", "p", "1n",
"3n"), typed cards ("sq", "10" as "t" or "1" "0", a rank alone when only one legal card
has it), the arrow keys to move among the playable cards, Enter to confirm. A key only
chooses (the control takes the focus): nothing is played before Enter. The help says
so in both languages."""

from __future__ import annotations

import pytest

from scoring import SEATS
from tests.support.browser.pw import shot
from tests.support.browser.table import (
    actor_of,
    armed,
    offered,
    play_url,
    seat_page,
    table_server,
    views,
    wait_seq,
)
from tests.support.online_ws import open_online_round, seated_users
from tournaments.models import BoardResult

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGS = {"N": "en", "E": "zh-hans", "S": "en", "W": "zh-hans"}
# From the dealer on, as typed: 1♣, double, redouble, pass, 1NT, pass, 3NT, three passes.
AUCTION = [("1c", "1C"), ("x", "X"), ("xx", "XX"), ("p", "P"), ("1n", "1NT"), ("p", "P"),
           ("3n", "3NT"), ("p", "P"), ("p", "P"), ("p", "P")]  # fmt: skip
CHOSEN = "() => document.activeElement && document.activeElement.dataset.key"


def chosen(page) -> str | None:
    return page.evaluate(CHOSEN)


def type_keys(page, keys: str) -> None:
    for key in keys:
        page.keyboard.press(key)


def keys_for(card: str, legal: list[str], played: int) -> str:
    """How a player types `card`: its rank alone when no other legal card has it, else
    suit then rank (and now and then rank then suit, or a ten as "10")."""
    rank = card[1].lower()
    if sum(1 for other in legal if other[1] == card[1]) == 1 and played % 3 == 0:
        return "10" if rank == "t" and played % 2 else rank
    suit = card[0].lower()
    return rank + suit if played % 3 == 1 else suit + ("10" if rank == "t" else rank)


def test_a_whole_board_by_keyboard(make_tournament, register_pairs, tmp_path):
    first_round, tables = open_online_round(make_tournament, register_pairs, boards=2)
    table = tables[0]
    users = seated_users(table)
    with table_server(tmp_path) as (base, browser):
        pages = {seat: seat_page(browser, base, users[seat], lang=LANGS[seat]) for seat in SEATS}
        for page in pages.values():
            page.goto(base + play_url(table))
        wait_seq(pages.values(), 0)
        # The help, in the page's language.
        assert "1n" in pages["N"].inner_text("#bt-help")
        assert "Enter" in pages["N"].inner_text("#bt-help")
        assert "输入叫品" in pages["E"].inner_text("#bt-help")

        seq = 0
        for i, (keys, call) in enumerate(AUCTION):
            actor = actor_of(views(table, users))
            page = pages[actor]
            armed(page)
            if i == 0:
                # A call is chosen, not made: "7s" then Escape leaves the auction as it was.
                type_keys(page, "7s")
                assert chosen(page) == "call-7S"
                page.keyboard.press("Escape")
                assert chosen(page) is None
                assert page.get_attribute("#bt", "data-seq") == "0"
            type_keys(page, keys)
            assert chosen(page) == f"call-{call}", (actor, keys, chosen(page))
            if i == 0:
                shot(page, f"table-keyboard-{actor}-{LANGS[actor]}-chosen")
            page.keyboard.press("Enter")
            seq += 1
            wait_seq(pages.values(), seq)
        now = views(table, users)
        assert [entry["call"] for entry in now["N"]["auction"]] == [call for _k, call in AUCTION]
        assert now["N"]["contract"] == "3NT"

        played_cards = []
        for played in range(52):
            now = views(table, users)
            actor = actor_of(now)
            page = pages[actor]
            legal = now[actor]["legal"]
            armed(page)
            if played % 5 == 4:
                # The arrow keys: → from nothing chooses the first playable card, and on.
                order = offered(page, "button.bt-card.playable", "card")
                steps = min(2, len(order))
                for _ in range(steps):
                    page.keyboard.press("ArrowRight")
                card = order[steps - 1]
            else:
                card = sorted(legal)[played % len(legal)]
                type_keys(page, keys_for(card, legal, played))
            assert chosen(page) == f"card-{card}", (actor, card, chosen(page))
            if played == 9:
                shot(page, f"table-keyboard-{actor}-{LANGS[actor]}-card-chosen")
            page.keyboard.press("Enter")
            played_cards.append(card)
            seq += 1
            wait_seq(pages.values(), seq)
        now = views(table, users)
        assert [entry["card"] for entry in now["N"]["play"]] == played_cards
        result = BoardResult.objects.get(table=table, board__number=1)
        assert result.played_online and result.contract.startswith("3NT")
        for page in pages.values():
            page.wait_for_selector("#bt-result")
