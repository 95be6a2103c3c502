"""Registration rules (SPEC 1): every refusal is clear and changes nothing."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import IntegrityError, close_old_connections, connection, transaction

from tournaments.errors import NotAllowed, RegistrationError
from tournaments.models import Pair, PairMember, Round
from tournaments.services import registration
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db


def snapshot():
    return (
        list(Pair.objects.order_by("id").values()),
        list(PairMember.objects.order_by("id").values()),
    )


@pytest.fixture
def open_tournament(make_tournament, t0):
    return make_tournament(start_at=t0, registration_opens_at=t0 - timedelta(days=2))


@pytest.fixture
def before(t0):
    return t0 - timedelta(hours=1)


def test_propose_then_confirm_registers_in_confirmation_order(open_tournament, make_user, before):
    a, b, c, d = (make_user() for _ in range(4))
    first = registration.propose_pair(
        tournament=open_tournament, proposer=a, partner_username=b.username, now=before
    )
    second = registration.propose_pair(
        tournament=open_tournament, proposer=c, partner_username=d.username.upper(), now=before
    )
    assert first.status == "pending" and first.registration_no is None
    # The second pair confirms first, so it is registration no. 1 (SPEC 1: order kept).
    registration.confirm_pair(pair=second, user=d, now=before + timedelta(minutes=1))
    registration.confirm_pair(pair=first, user=b, now=before + timedelta(minutes=2))
    first.refresh_from_db()
    second.refresh_from_db()
    assert (second.registration_no, first.registration_no) == (1, 2)
    assert first.status == second.status == "confirmed"
    assert first.confirmed_at == before + timedelta(minutes=2)


@pytest.mark.parametrize(
    "case",
    ["same_player", "unknown_partner", "empty_partner", "not_open_yet", "already_in_pair"],
)
def test_refused_proposals_change_nothing(case, open_tournament, make_user, before, t0):
    a, b, c = make_user(), make_user(), make_user()
    registration.propose_pair(
        tournament=open_tournament, proposer=b, partner_username=c.username, now=before
    )
    kwargs = {"tournament": open_tournament, "proposer": a, "now": before}
    expected = {
        "same_player": (a.username, "two different players"),
        "unknown_partner": ("nobody-here", "no player called"),
        "empty_partner": ("  ", "Name your partner"),
        "not_open_yet": (b.username, "opens at"),
        "already_in_pair": (c.username, "already in a pair"),
    }[case]
    if case == "not_open_yet":
        kwargs["now"] = open_tournament.registration_opens_at - timedelta(seconds=1)
    state = snapshot()
    with pytest.raises(RegistrationError, match=expected[1]):
        registration.propose_pair(partner_username=expected[0], **kwargs)
    assert snapshot() == state


def test_registration_closes_when_round_one_starts(open_tournament, register_pairs, make_user, t0):
    pending_a, pending_b = make_user(), make_user()
    pending = registration.propose_pair(
        tournament=open_tournament,
        proposer=pending_a,
        partner_username=pending_b.username,
        now=t0 - timedelta(minutes=5),
    )
    register_pairs(open_tournament, 4)
    advance(now=t0)
    assert Round.objects.filter(tournament=open_tournament, number=1).exists()
    # A proposal the partner never confirmed lapses at the start.
    assert not Pair.objects.filter(pk=pending.pk).exists()
    x, y = make_user(), make_user()
    state = snapshot()
    with pytest.raises(RegistrationError, match="closed"):
        registration.propose_pair(
            tournament=open_tournament, proposer=x, partner_username=y.username, now=t0
        )
    with pytest.raises(RegistrationError, match="closed"):
        registration.register_pair(
            by=None, tournament=open_tournament, usernames=[x.username, y.username], now=t0
        )
    assert snapshot() == state


def test_only_the_partner_confirms_and_only_once(open_tournament, make_user, before):
    a, b, stranger = make_user(), make_user(), make_user()
    pair = registration.propose_pair(
        tournament=open_tournament, proposer=a, partner_username=b.username, now=before
    )
    for user in (a, stranger):
        state = snapshot()
        with pytest.raises(NotAllowed):
            registration.confirm_pair(pair=pair, user=user, now=before)
        assert snapshot() == state
    registration.confirm_pair(pair=pair, user=b, now=before)
    state = snapshot()
    with pytest.raises(RegistrationError, match="already registered"):
        registration.confirm_pair(pair=pair, user=b, now=before)
    assert snapshot() == state


def test_cancel_pending_frees_both_players(open_tournament, make_user, before):
    a, b, c = make_user(), make_user(), make_user()
    pair = registration.propose_pair(
        tournament=open_tournament, proposer=a, partner_username=b.username, now=before
    )
    with pytest.raises(NotAllowed):
        registration.cancel_pair(pair=pair, user=c)
    registration.cancel_pair(pair=pair, user=b)
    assert not Pair.objects.filter(pk=pair.pk).exists()
    again = registration.propose_pair(
        tournament=open_tournament, proposer=b, partner_username=c.username, now=before
    )
    assert again.status == "pending"


def test_cancel_refuses_a_registered_pair(open_tournament, make_user, before):
    a, b = make_user(), make_user()
    pair = registration.propose_pair(
        tournament=open_tournament, proposer=a, partner_username=b.username, now=before
    )
    registration.confirm_pair(pair=pair, user=b, now=before)
    state = snapshot()
    with pytest.raises(RegistrationError, match="withdraw"):
        registration.cancel_pair(pair=pair, user=a)
    assert snapshot() == state


def test_withdraw_rules(open_tournament, register_pairs, make_user, organiser, before):
    pair, other = register_pairs(open_tournament, 2)
    stranger = make_user()
    with pytest.raises(NotAllowed):
        registration.withdraw_pair(pair=pair, by=stranger, now=before)
    registration.withdraw_pair(pair=pair, by=pair.player2, now=before)
    pair.refresh_from_db()
    assert pair.withdrawn_at == before
    state = snapshot()
    with pytest.raises(RegistrationError, match="already withdrawn"):
        registration.withdraw_pair(pair=pair, by=organiser, now=before)
    assert snapshot() == state
    registration.withdraw_pair(pair=other, by=organiser, now=before)


def test_a_player_in_two_pairs_is_impossible_in_the_database(open_tournament, register_pairs):
    (pair,) = register_pairs(open_tournament, 1)
    with pytest.raises(IntegrityError), transaction.atomic():
        PairMember.objects.create(tournament=open_tournament, pair=pair, user=pair.player1)


def test_the_same_players_may_play_in_another_tournament(make_tournament, make_user, before):
    a, b = make_user(), make_user()
    for _ in range(2):
        registration.register_pair(
            by=None, tournament=make_tournament(), usernames=[a.username, b.username], now=before
        )
    assert Pair.objects.filter(player1=a).count() == 2


@pytest.mark.django_db(transaction=True)
def test_racing_double_registration_lets_exactly_one_through(make_tournament, make_user, t0):
    """Many threads at once try to put the same player in a pair: one wins."""
    tournament = make_tournament()
    star = make_user("star")
    partners = [make_user() for _ in range(6)]
    barrier = threading.Barrier(len(partners))
    outcomes = []

    def attempt(partner):
        close_old_connections()
        try:
            barrier.wait()
            registration.register_pair(
                by=None,
                tournament=tournament,
                usernames=[star.username, partner.username],
                now=t0 - timedelta(hours=1),
            )
            outcomes.append("ok")
        except RegistrationError as error:
            outcomes.append(str(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt, args=(p,)) for p in partners]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("ok") == 1
    assert all("already in a pair" in o for o in outcomes if o != "ok")
    assert PairMember.objects.filter(tournament=tournament, user=star).count() == 1
    assert list(
        Pair.objects.filter(tournament=tournament).values_list("registration_no", flat=True)
    ) == [1]


@pytest.mark.django_db(transaction=True)
def test_database_constraint_holds_without_the_service_lock(make_tournament, make_user):
    """Even bypassing the tournament lock, two concurrent inserts cannot both commit."""
    tournament = make_tournament()
    star, p1, p2 = make_user(), make_user(), make_user()
    barrier = threading.Barrier(2)
    results = []

    def insert(partner):
        close_old_connections()
        try:
            with transaction.atomic():
                pair = Pair.objects.create(tournament=tournament, player1=star, player2=partner)
                barrier.wait()
                PairMember.objects.create(tournament=tournament, pair=pair, user=star)
            results.append("ok")
        except IntegrityError:
            results.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=insert, args=(p,)) for p in (p1, p2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["ok", "refused"]
