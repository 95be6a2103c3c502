"""A result given both as "+1"/"="/"-2" and as tricks must say the same thing; when the
two disagree neither is guessed and nothing is stored."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.support.api import Api, assert_error, result_path, snapshot, table_of, token_for
from tournaments.errors import ResultRefused
from tournaments.forms import ResultForm
from tournaments.models import BoardResult
from tournaments.services import results

pytestmark = [pytest.mark.usefixtures("english")]


@pytest.mark.parametrize(
    ("contract", "result", "tricks", "means"),
    [("4S", "+1", 3, 11), ("3NT", "=", 10, 9), ("2H", "-2", 8, 6), ("7NT", "=", 0, 13)],
)
def test_the_service_refuses_a_result_and_tricks_that_disagree(contract, result, tricks, means):
    entry = results.ContractEntry(contract=contract, declarer="N", result=result, tricks=tricks)
    with pytest.raises(ResultRefused) as raised:
        results.validate_entry(entry)
    assert str(raised.value) == (
        f"The result {result} and {tricks} tricks disagree: {result} in {contract} is "
        f"{means} tricks. Give one of them, or both alike."
    )


def test_the_service_takes_both_when_they_agree():
    entry = results.ContractEntry(contract="4S", declarer="N", result="+1", tricks=11)
    assert results.validate_entry(entry)["tricks"] == 11


@pytest.mark.django_db
def test_the_api_refuses_plus_one_with_three_tricks(api_running):
    tournament, _pairs = api_running
    api = Api(token_for(table_of(tournament, 1, 1).ns_pair.player1))
    before = snapshot()
    body = {"contract": "4S", "declarer": "N", "result": "+1", "tricks": 3}
    assert_error(api.put(result_path(tournament), body), 400, "disagree")
    assert snapshot() == before
    assert not BoardResult.objects.filter(state="played").exists()

    body["tricks"] = 11
    response = api.put(result_path(tournament), body)
    assert response.status_code == 200 and response.json()["tricks"] == 11


def test_the_table_page_form_sends_only_one_of_them():
    # The page's form checks the pair itself and passes the service one value, so it
    # cannot hand over a contradiction.
    fields = {"level": "4", "strain": "S", "declarer": "N", "result": "+1", "tricks": "11"}
    form = ResultForm(fields)
    assert form.is_valid(), form.errors
    assert (form.entry.result, form.entry.tricks) == ("+1", None)
    form = ResultForm({**fields, "tricks": "3"})
    assert not form.is_valid() and "disagree" in str(form.errors["tricks"])


@pytest.mark.django_db
def test_the_admin_change_form_refuses_them_too(client, organiser, api_running):
    tournament, _pairs = api_running
    table = table_of(tournament, 1, 1)
    stored = results.submit_result(
        table=table,
        board_number=1,
        entry=results.ContractEntry(contract="4S", declarer="N", tricks=10),
        user=organiser,
    )
    client.force_login(organiser)
    url = reverse("admin:tournaments_boardresult_change", args=[stored.pk])
    form = {
        "contract": "4S",
        "declarer": "N",
        "tricks": "3",
        "result_text": "+1",
        "lead": "",
        "adjustment_reason": "",
        "_save": "Save",
    }
    before = snapshot()
    response = client.post(url, form)
    assert response.status_code == 200
    assert "disagree" in response.content.decode()
    assert snapshot() == before
