"""The locked settings in admin and the API, and the rank titles' thresholds (issue 14,
points 2 and 3): read-only once started, changed only through "change settings and
re-score the whole event"; a threshold typo is refused and nothing saved."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.support.api import Api, assert_error, english, token_for  # noqa: F401  (fixture)
from tournaments.models import RankTitle, SettingsChange, Tournament
from tournaments.services import clock, titles

pytestmark = pytest.mark.django_db

TOURNAMENTS = reverse("admin:tournaments_tournament_changelist")
TITLES = reverse("admin:tournaments_ranktitle_changelist")
LOCKED = (
    "scoring_method",
    "completion_threshold",
    "unplayed_policy",
    "neuberg",
    "rounds",
    "boards_per_round",
)


@pytest.fixture
def running(make_tournament, register_pairs, director):
    now = timezone.now()
    tournament = make_tournament(
        start_at=now + timedelta(hours=1),
        registration_opens_at=now - timedelta(days=1),
        round_length=timedelta(minutes=30),
    )
    register_pairs(tournament, 4, now=now)
    clock.start_now(by=director, tournament=tournament)
    tournament.refresh_from_db()
    return tournament


@pytest.fixture
def director_client(client, director):
    client.force_login(director)
    return client


def messages_of(response) -> list[tuple[str, str]]:
    return [(m.level_tag, str(m)) for m in response.context["messages"]]


def test_admin_shows_the_locked_settings_read_only_once_started(
    director_client, make_tournament, running
):
    scheduled = make_tournament(start_at=timezone.now() + timedelta(days=1))
    page = director_client.get(reverse("admin:tournaments_tournament_change", args=[scheduled.pk]))
    form = page.context["adminform"].form
    assert set(LOCKED) <= set(form.fields)

    page = director_client.get(reverse("admin:tournaments_tournament_change", args=[running.pk]))
    form = page.context["adminform"].form
    assert not set(LOCKED) & set(form.fields)
    assert {"round_length", "gap_length"} <= set(form.fields)
    assert b"Change settings and re-score" in page.content


def test_a_post_of_a_locked_field_is_ignored(director_client, running):
    url = reverse("admin:tournaments_tournament_change", args=[running.pk])
    page = director_client.get(url)
    form = page.context["adminform"].form
    data = {name: form[name].value() for name in form.fields}
    data = {k: ("" if v is None else v) for k, v in data.items()}
    data["round_length"] = "00:40:00"
    data["completion_threshold"] = "5"  # read-only: not in the form, ignored
    for prefix in ("pairs", "round_set", "settings_changes"):
        for key in ("TOTAL_FORMS", "INITIAL_FORMS", "MIN_NUM_FORMS", "MAX_NUM_FORMS"):
            data[f"{prefix}-{key}"] = "0"
    response = director_client.post(url, data, follow=True)
    assert response.status_code == 200
    running.refresh_from_db()
    assert running.completion_threshold == 70
    assert running.round_length == timedelta(minutes=40)


def test_the_admin_action_asks_then_rescores_and_records(director_client, director, running):
    clock.close_round_now(tournament=running, by=director)
    data = {"action": "change_scoring_settings", "_selected_action": [str(running.pk)]}
    page = director_client.post(TOURNAMENTS, data)
    assert page.status_code == 200
    assert page.context["form"]["scoring_method"].value() == "IMP"

    # Not confirmed: the page again, nothing changed.
    form = {
        "scoring_method": "MP", "completion_threshold": "70", "unplayed_policy": "not_played",
        "datum_rounding": "half_even",
        "rounds": "3", "boards_per_round": "2", "reason": "The flyer said MP", "apply": "1",
    }  # fmt: skip
    page = director_client.post(TOURNAMENTS, {**data, **form})
    assert "confirm" in page.context["form"].errors
    assert Tournament.objects.get(pk=running.pk).scoring_method == "IMP"

    response = director_client.post(TOURNAMENTS, {**data, **form, "confirm": "on"}, follow=True)
    [(level, text)] = messages_of(response)
    assert level == "success", text
    assert "scoring method: Total IMPs (cross-IMPs) → Matchpoints" in text
    assert Tournament.objects.get(pk=running.pk).scoring_method == "MP"
    record = SettingsChange.objects.get()
    assert (record.changed_by, record.reason) == (director, "The flyer said MP")

    # A contradiction is the service's message, as an error; nothing changes.
    bad = {**form, "scoring_method": "MP", "boards_per_round": "4", "confirm": "on"}
    response = director_client.post(TOURNAMENTS, {**data, **bad}, follow=True)
    [(level, text)] = messages_of(response)
    assert level == "error" and "Boards per round cannot change" in text
    assert Tournament.objects.get(pk=running.pk).boards_per_round == 2
    assert SettingsChange.objects.count() == 1

    # The record is shown, never edited.
    page = director_client.get(reverse("admin:tournaments_settingschange_changelist"))
    assert b"The flyer said MP" in page.content
    assert director_client.get(reverse("admin:tournaments_settingschange_add")).status_code == 403


@pytest.mark.usefixtures("english")
def test_the_api_changes_settings_and_refuses_contradictions(
    director,
    make_user,
    running,  # noqa: F811
):
    api = Api(token_for(director))
    path = f"/tournaments/{running.pk}/scoring-settings"
    response = api._send(
        "patch", path, {"completion_threshold": 60, "reason": "agreed at the meeting"}, None, None
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["change"]["before"] == {"completion_threshold": "70.00"}
    assert body["change"]["after"] == {"completion_threshold": "60.00"}
    assert body["tournament"]["completion_threshold"] == 60

    def refused(status, fragment, body, token=None):
        before = list(Tournament.objects.filter(pk=running.pk).values())
        assert_error(api._send("patch", path, body, token, None), status, fragment)
        assert list(Tournament.objects.filter(pk=running.pk).values()) == before
        assert SettingsChange.objects.count() == 1

    refused(409, "Boards per round cannot change", {"boards_per_round": 3, "reason": "r"})
    refused(400, "percentage from 1 to 100", {"completion_threshold": 0, "reason": "r"})
    refused(400, "reason", {"scoring_method": "MP", "reason": " "})
    refused(422, "reason", {"scoring_method": "MP"})
    staff = make_user(staff=False)
    staff.is_staff = True
    staff.save()
    refused(403, "Only a tournament director", {"rounds": 4, "reason": "r"}, token_for(staff))


# --- rank titles ------------------------------------------------------------------------


def thresholds() -> list[Decimal]:
    return list(RankTitle.objects.order_by("level").values_list("min_master_points", flat=True))


@pytest.mark.usefixtures("english")
def test_a_threshold_typo_is_refused_by_the_service_and_nothing_is_saved(
    director,
):
    before = thresholds()
    with pytest.raises(titles.TitleThresholdsInvalid, match="must increase"):
        titles.set_title_thresholds(changes={3: Decimal(2000)}, by=director)  # 2000 for 5
    with pytest.raises(titles.TitleThresholdsInvalid, match="must be 0"):
        titles.set_title_thresholds(changes={1: Decimal(1)}, by=director)
    assert thresholds() == before
    titles.set_title_thresholds(changes={2: before[1] + Decimal("0.5")}, by=director)
    assert thresholds()[1] == before[1] + Decimal("0.5")


def test_a_threshold_typo_is_refused_in_admin_list_and_form(director_client):
    before = thresholds()
    rows = list(RankTitle.objects.order_by("level"))
    data = {
        "form-TOTAL_FORMS": str(len(rows)), "form-INITIAL_FORMS": str(len(rows)),
        "form-MIN_NUM_FORMS": "0", "form-MAX_NUM_FORMS": "1000", "_save": "Save",
    }  # fmt: skip
    for index, row in enumerate(rows):
        data[f"form-{index}-id"] = str(row.pk)
        data[f"form-{index}-min_master_points"] = str(row.min_master_points)
    data["form-2-min_master_points"] = "2000"
    page = director_client.post(TITLES, data)
    assert page.status_code == 200
    assert "must increase" in str(page.context["cl"].formset.non_form_errors())
    assert thresholds() == before

    # Two edits that only make sense together are checked together and accepted.
    data["form-2-min_master_points"] = str(before[2] + 1)
    data["form-3-min_master_points"] = str(before[3] + 1)
    response = director_client.post(TITLES, data)
    assert response.status_code == 302
    assert thresholds()[2:4] == [before[2] + 1, before[3] + 1]

    # The single title's form is checked against the whole sequence too.
    title = rows[2]
    url = reverse("admin:tournaments_ranktitle_change", args=[title.pk])
    form = {"name_zh": title.name_zh, "name_en": title.name_en, "min_master_points": "2000"}
    page = director_client.post(url, form)
    assert page.status_code == 200
    assert "must increase" in str(page.context["adminform"].form.non_field_errors())
    assert RankTitle.objects.get(pk=title.pk).min_master_points == before[2] + 1


def test_a_title_is_renamed_through_the_titles_service_and_a_hostile_name_refused(
    director_client, director
):
    title = RankTitle.objects.get(level=3)
    url = reverse("admin:tournaments_ranktitle_change", args=[title.pk])
    points = str(title.min_master_points)
    renamed = {"name_zh": " 新名 ", "name_en": "New name", "min_master_points": points}
    assert director_client.post(url, renamed).status_code == 302
    title.refresh_from_db()
    assert (title.name_zh, title.name_en) == ("新名", "New name")

    hostile = {**renamed, "name_en": "Gold\u202elife"}
    page = director_client.post(url, hostile)
    assert page.status_code == 200
    assert "direction of text" in str(page.context["adminform"].form.errors)
    assert RankTitle.objects.get(pk=title.pk).name_en == "New name"
    # The list cannot add or remove one of the twelve.
    assert director_client.get(reverse("admin:tournaments_ranktitle_add")).status_code == 403

    with pytest.raises(titles.TitleThresholdsInvalid, match="direction of text"):
        titles.update_title(
            level=3, name_zh="新名", name_en="Gold\u202elife",
            min_master_points=title.min_master_points, by=director,
        )  # fmt: skip


def test_the_api_changes_round_length_and_gap_of_rounds_not_yet_opened(director, running):
    api = Api(token_for(director))
    path = f"/tournaments/{running.pk}/schedule"
    response = api._send("patch", path, {"round_minutes": 25, "gap_minutes": 5}, None, None)
    assert response.status_code == 200, response.content
    assert (response.json()["round_minutes"], response.json()["gap_minutes"]) == (25, 5)
    current = running.round_set.current()
    assert current.ends_at - current.starts_at == timedelta(minutes=30)  # open: unchanged
    before = list(Tournament.objects.filter(pk=running.pk).values())
    assert_error(api._send("patch", path, {"round_minutes": 0}, None, None), 400, "round length")
    assert list(Tournament.objects.filter(pk=running.pk).values()) == before


def test_a_finished_event_shows_its_timetable_read_only(director_client, director, running):
    Tournament.objects.filter(pk=running.pk).update(status="finished")
    page = director_client.get(reverse("admin:tournaments_tournament_change", args=[running.pk]))
    assert not {"round_length", "gap_length"} & set(page.context["adminform"].form.fields)
