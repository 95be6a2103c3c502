"""The OpenAPI schema and the interactive docs, which must work without the internet."""

from __future__ import annotations

import hashlib
import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from tournaments.models import ApiToken

pytestmark = pytest.mark.django_db


def test_openapi_schema_lists_every_operation():
    response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["info"]["version"] == "1"
    operations = {
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if method in {"get", "post", "put", "delete"}
    }
    base = "/api/v1/tournaments/{tournament_id}"
    assert operations == {
        ("POST", "/api/v1/players"),
        ("POST", "/api/v1/tournaments"),
        ("GET", "/api/v1/tournaments"),
        ("GET", base),
        ("POST", base + "/pairs"),
        ("POST", base + "/pairs/{pair_id}/withdraw"),
        ("POST", base + "/start"),
        ("GET", base + "/rounds/{number}"),
        ("POST", base + "/rounds/{number}/close"),
        ("PUT", base + "/rounds/{number}/tables/{table}/boards/{board}"),
        # A director's adjusted score (A+, A, A- a side).
        ("PUT", base + "/rounds/{number}/tables/{table}/boards/{board}/adjustment"),
        ("GET", base + "/standings"),
        ("GET", base + "/boards/{board}"),
        ("GET", base + "/export.pbn"),
        ("GET", base + "/export.xml"),
        # A movement event's movement (RULES 10).
        ("GET", base + "/movement"),
        ("PUT", base + "/movement"),
        # Online play (docs/PLAY_PROTOCOL.md).
        ("GET", base + "/rounds/{number}/tables/{table}/boards/{board}/view"),
        ("POST", base + "/rounds/{number}/tables/{table}/boards/{board}/actions"),
        ("POST", base + "/rounds/{number}/tables/{table}/swap"),
        # A team event's teams (RULES 11).
        ("GET", base + "/teams"),
        ("POST", base + "/teams"),
        ("GET", base + "/teams/{team_id}"),
        ("POST", base + "/teams/{team_id}/confirm"),
        ("POST", base + "/teams/{team_id}/decline"),
        ("POST", base + "/teams/{team_id}/cancel"),
        ("PUT", base + "/teams/{team_id}/line-up"),
        ("POST", base + "/teams/{team_id}/withdraw"),
        # The team ladder (RULES 11).
        ("GET", "/api/v1/ladders/{ladder_id}"),
        ("POST", "/api/v1/ladders/{ladder_id}/challenges"),
        ("POST", "/api/v1/ladders/{ladder_id}/challenges/{challenge_id}/accept"),
        ("POST", "/api/v1/ladders/{ladder_id}/challenges/{challenge_id}/decline"),
        ("POST", "/api/v1/ladders/{ladder_id}/challenges/{challenge_id}/result"),
        # A team event's matches, a match's score card and the team standings.
        ("GET", base + "/matches"),
        ("GET", base + "/matches/{match_id}"),
        ("GET", base + "/team-standings"),
        # A broadcast's snapshot (RULES 12, Vugraph).
        ("GET", "/api/v1/broadcasts/{broadcast_id}"),
        # Vugraph LIN (RULES 12.1): a match's and a table's file, import one, read one.
        ("GET", base + "/matches/{match_id}/export.lin"),
        ("GET", base + "/rounds/{number}/tables/{table}/export.lin"),
        ("POST", "/api/v1/vugraph/imports"),
        ("GET", "/api/v1/vugraph/imports/{import_id}"),
        # The club (RULES 13): the Rate, the lobby and its actions, boards, standings.
        ("GET", "/api/v1/club/rate"),
        ("GET", "/api/v1/club/players/{user_id}/rate"),
        ("GET", "/api/v1/club/lobby"),
        ("POST", "/api/v1/club/tables"),
        ("POST", "/api/v1/club/tables/{table_id}/sit"),
        ("POST", "/api/v1/club/tables/{table_id}/robots"),
        ("POST", "/api/v1/club/tables/{table_id}/leave"),
        ("POST", "/api/v1/club/wait"),
        ("POST", "/api/v1/club/wait/stop"),
        ("GET", "/api/v1/club/boards"),
        ("GET", "/api/v1/club/deals/{deal_id}"),
        ("GET", "/api/v1/club/standings/{system}"),
        # A seat for a program (SPEC 14, Blue Chip): reserve it (the ticket), give it back.
        ("POST", base + "/rounds/{number}/tables/{table}/seats/{seat}/program"),
        ("DELETE", base + "/rounds/{number}/tables/{table}/seats/{seat}/program"),
    }
    put = schema["paths"][base + "/rounds/{number}/tables/{table}/boards/{board}"]["put"]
    assert put["security"] == [{"TokenAuth": []}]
    assert "security" not in schema["paths"][base]["get"]  # reads are public
    schemes = schema["components"]["securitySchemes"].values()
    # Bearer tokens everywhere; online play also takes a logged-in player's session.
    assert {"bearer"} == {s["scheme"] for s in schemes if s["type"] == "http"}
    assert {s["in"] for s in schemes if s["type"] == "apiKey"} <= {"cookie"}


def test_docs_page_and_its_assets_are_served_locally():
    client = Client()
    page = client.get("/api/v1/docs")
    assert page.status_code == 200
    html = page.content.decode()
    # Every asset the page loads is on this server: no CDN, nothing external.
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert urls and all(url.startswith("/api/v1/docs/assets/") for url in urls), urls
    assert "http://" not in html and "https://" not in html
    assert '"url": "/api/v1/openapi.json"' in html
    for url in urls:
        asset = client.get(url)
        assert asset.status_code == 200, url
        body = b"".join(asset.streaming_content)
        assert len(body) > 100, url
        assert b"cdn.jsdelivr" not in body and b"unpkg.com" not in body
    bundle = client.get("/api/v1/docs/assets/swagger-ui-bundle.js")
    assert bundle["Content-Type"].startswith("text/javascript") or bundle[
        "Content-Type"
    ].startswith("application/javascript")


def test_only_known_assets_are_served():
    client = Client()
    assert client.get("/api/v1/docs/assets/__init__.py").status_code == 404
    assert client.get("/api/v1/docs/assets/..%2F..%2Fmain.py").status_code == 404


def test_api_token_command_issues_a_key_it_stores_only_hashed(make_user):
    user = make_user("carol")
    out = StringIO()
    call_command("api_token", "carol", stdout=out)
    key = out.getvalue().strip()
    assert re.fullmatch(r"[0-9a-f]{40}", key)
    token = ApiToken.objects.get(user=user)
    assert token.key_hash == hashlib.sha256(key.encode()).hexdigest() and token.prefix == key[:8]
    stored = json.dumps(list(ApiToken.objects.values()), default=str)
    assert key not in stored  # the key itself is nowhere in the database
    again = StringIO()
    call_command("api_token", "CAROL", stdout=again)  # a second token; both work
    second = again.getvalue().strip()
    assert second != key and ApiToken.objects.filter(user=user, revoked_at=None).count() == 2
    reset = StringIO()
    call_command("api_token", "carol", "--reset", stdout=reset)
    assert reset.getvalue().strip() not in (key, second)
    assert ApiToken.objects.filter(user=user, revoked_at=None).count() == 1


def test_api_token_command_for_an_unknown_user():
    with pytest.raises(CommandError, match="no user"):
        call_command("api_token", "ghost", stdout=StringIO())


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_swagger_ui_renders_without_the_internet(live_server):
    """In a real Chromium with every request off this server refused: the docs render."""
    from tests.support.browser.pw import chromium, new_page, shot

    outside: list[str] = []

    def only_this_server(route):
        if route.request.url.startswith(live_server.url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    with chromium() as browser:
        page = new_page(browser)
        page.route("**/*", only_this_server)
        page.goto(f"{live_server.url}/api/v1/docs")
        page.wait_for_selector(".swagger-ui .opblock", timeout=10_000)
        # 14, + the online play's 3 (view, actions, swap) + PATCH scoring-settings and
        # schedule (issue 14.2) + GET and PUT movement (issue 25) + a team event's 8
        # registration operations and 3 reads (issue 26) + the ladder's 5 (issue 26)
        # + the club's Rate 2 and the club's 10 (issue 28)
        assert page.locator(".swagger-ui .opblock").count() == 57
        assert "Swiss pairs director API" in page.locator(".swagger-ui .title").inner_text()
        shot(page, "api-docs")
    assert outside == []
