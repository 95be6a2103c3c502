"""The home and profile pages: tournament cards, a player's pending proposals and the
pairs and teams they played in."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db.models import Count, Q, Sum
from django.utils import timezone

from ..models import (
    MasterPointAward,
    Pair,
    PairStatus,
    Round,
    Team,
    Tournament,
    TournamentStatus,
)
from .common import PAIR_PLAYERS


@dataclass
class TournamentCard:
    tournament: Tournament
    pair_count: int
    round: Round | None = None
    winners: list[Pair] = field(default_factory=list)
    registration_open: bool = False


def tournament_cards(*, now: datetime | None = None, limit: int = 20) -> dict[str, list]:
    """Home page: upcoming, running and finished tournaments (a few queries in all)."""
    now = now or timezone.now()
    tournaments = list(
        Tournament.objects.events()
        .annotate(n_pairs=Count("pairs", filter=Q(pairs__status=PairStatus.CONFIRMED)))
        .order_by("-start_at")[: limit * 3]
    )
    ids = [t.id for t in tournaments]
    # Each tournament's current round (as `RoundQuerySet.current`: the highest number),
    # for all of them in one query: the last one read wins.
    latest: dict[int, Round] = {}
    for r in Round.objects.filter(tournament_id__in=ids).order_by("tournament_id", "number"):
        latest[r.tournament_id] = r
    winners: dict[int, list[Pair]] = defaultdict(list)
    for pair in (
        Pair.objects.filter(tournament_id__in=ids, rank__in=[1, 2, 3])
        .select_related(*PAIR_PLAYERS)
        .order_by("-field", "rank")  # two winners (RULES 10): the NS podium, then the EW
    ):
        winners[pair.tournament_id].append(pair)
    groups: dict[str, list] = {"upcoming": [], "running": [], "finished": []}
    for t in tournaments:
        card = TournamentCard(
            tournament=t, pair_count=t.n_pairs, round=latest.get(t.id), winners=winners[t.id]
        )
        if t.status == TournamentStatus.FINISHED:
            groups["finished"].append(card)
        elif t.status == TournamentStatus.SCHEDULED and card.round is None:
            card.registration_open = t.registration_opens_at <= now
            groups["upcoming"].append(card)
        else:
            groups["running"].append(card)
    groups["upcoming"].reverse()  # soonest first
    return {k: v[:limit] for k, v in groups.items()}


def open_proposals(*, user) -> tuple[list[Pair], list[Pair]]:
    """(made, received): `user`'s pending proposals in tournaments still taking entries,
    in one query (home page)."""
    if not user.is_authenticated:
        return [], []
    return _made_and_received(
        Pair.objects.filter(
            status=PairStatus.PENDING, tournament__status=TournamentStatus.SCHEDULED
        )
        .filter(Q(player1=user) | Q(player2=user))
        .select_related("tournament", *PAIR_PLAYERS)
        .order_by("tournament__start_at", "proposed_at", "id"),
        user,
    )


def _made_and_received(pending: Iterable[Pair], user) -> tuple[list[Pair], list[Pair]]:
    made: list[Pair] = []
    received: list[Pair] = []
    for pair in pending:
        (made if pair.player1_id == user.pk else received).append(pair)
    return made, received


def proposals_in(*, tournament: Tournament, user) -> tuple[list[Pair], list[Pair]]:
    """(made, received): `user`'s pending proposals in `tournament`, in one query. None
    once the tournament has started: the clock's start lapses them."""
    if not user.is_authenticated or tournament.status != TournamentStatus.SCHEDULED:
        return [], []
    return _made_and_received(
        Pair.objects.filter(tournament=tournament, status=PairStatus.PENDING)
        .filter(Q(player1=user) | Q(player2=user))
        .select_related(*PAIR_PLAYERS)
        .order_by("proposed_at", "id"),
        user,
    )


@dataclass(frozen=True)
class HistoryLine:
    """One event of a player's history: the pair they played in, or their team (a team's
    players are its `TeamMember`s: its pairs have no `PairMember` rows), with what the
    event gave them."""

    tournament: Tournament
    pair: Pair | None = None
    team: Team | None = None
    master_points: Decimal | None = None

    @property
    def rank(self) -> int | None:
        return self.team.rank if self.team is not None else self.pair.rank if self.pair else None


def player_history(*, user) -> list[HistoryLine]:
    """Every registered pair and confirmed team of the player, newest tournament first
    (profile page). Three queries."""
    pairs = (
        Pair.objects.filter(members__user=user, status=PairStatus.CONFIRMED)
        .select_related("tournament", *PAIR_PLAYERS)
        .order_by()
    )
    teams = Team.objects.filter(
        members__user=user, members__confirmed_at__isnull=False, status=PairStatus.CONFIRMED
    ).select_related("tournament")
    team_list = list(teams)
    # A team's master points go to each of its players who played enough (SPEC 7, 11).
    earned = dict(
        MasterPointAward.objects.filter(user=user, team__in=team_list)
        .values("team_id")
        .annotate(points=Sum("points"))
        .values_list("team_id", "points")
    )
    lines = [HistoryLine(p.tournament, pair=p, master_points=p.master_points) for p in pairs]
    lines += [HistoryLine(t.tournament, team=t, master_points=earned.get(t.pk)) for t in team_list]
    lines.sort(key=lambda line: (line.tournament.start_at, line.tournament.pk), reverse=True)
    return lines
