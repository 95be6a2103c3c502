"""API tokens: only a hash is stored, several per user, expiry and revocation (command,
admin), refused with 401 and the reason; existing plain-text keys survive the migration."""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone

from tests.support.api import Api, assert_error, result_path, snapshot, table_of, token_for
from tournaments.models import ApiToken, BoardResult
from tournaments.services import tokens

pytestmark = pytest.mark.django_db

BODY = {"contract": "2H", "declarer": "N", "tricks": 8}


def issue(username: str, *args: str) -> str:
    out = StringIO()
    call_command("api_token", username, *args, stdout=out)
    return out.getvalue().strip()


def test_only_a_hash_of_the_key_is_stored(make_user):
    user = make_user()
    token, key = tokens.issue_token(user=user)
    row = ApiToken.objects.filter(pk=token.pk).values().get()
    assert key not in str(row)
    assert row["key_hash"] == hashlib.sha256(key.encode()).hexdigest()
    assert row["prefix"] == key[:8] and len(key) == 40


def test_a_user_may_hold_several_working_tokens(api_running):
    tournament, _pairs = api_running
    player = table_of(tournament, 1, 1).ns_pair.player1
    first, second = tokens.issue_token(user=player)[1], tokens.issue_token(user=player)[1]
    assert Api(first).put(result_path(tournament), BODY).status_code == 200
    assert Api(second).put(result_path(tournament), BODY).status_code == 200


@pytest.mark.parametrize("how", ["revoked", "expired"])
def test_a_revoked_or_expired_token_is_refused_with_401_and_the_reason(api_running, english, how):
    tournament, _pairs = api_running
    player = table_of(tournament, 1, 1).ns_pair.player1
    key = token_for(player)
    token = ApiToken.objects.get(key_hash=ApiToken.hash_key(key))
    if how == "revoked":
        tokens.revoke_tokens(tokens=[token])
    else:
        ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(1))
    before = snapshot()
    response = Api(key).put(result_path(tournament), BODY)
    assert_error(
        response, 401, f"This API token {'was revoked' if how == 'revoked' else 'has expired'}"
    )
    assert response["WWW-Authenticate"] == "Bearer"
    assert snapshot() == before and not BoardResult.objects.exists()


def test_a_token_works_until_it_expires(api_running, english):
    tournament, _pairs = api_running
    player = table_of(tournament, 1, 1).ns_pair.player1
    token, key = tokens.issue_token(user=player, expires_in_days=2)
    assert token.expires_at > timezone.now() + timedelta(days=1, hours=23)
    assert Api(key).put(result_path(tournament), BODY).status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now())
    assert_error(Api(key).put(result_path(tournament), BODY), 401, "expired")


def test_command_expiry_list_and_revoke(make_user):
    ann = make_user("ann")
    make_user("bob")
    key = issue("ann", "--expires-in-days", "30")
    token = ApiToken.objects.get(user=ann)
    assert timedelta(days=29) < token.expires_at - timezone.now() <= timedelta(days=30)
    other = issue("bob")
    listing = StringIO()
    call_command("api_token", "--list", stdout=listing)
    lines = listing.getvalue().splitlines()
    assert any(f"{key[:8]}…" in line and "ann" in line and "valid until" in line for line in lines)
    assert any(f"{other[:8]}…" in line and "bob" in line for line in lines)
    assert not any(key in line or other in line for line in lines)  # never the key itself
    only_ann = StringIO()
    call_command("api_token", "ann", "--list", stdout=only_ann)
    assert "bob" not in only_ann.getvalue()

    revoked = StringIO()
    call_command("api_token", "--revoke", key[:8], stdout=revoked)
    assert "Revoked token" in revoked.getvalue()
    token.refresh_from_db()
    assert token.revoked_at is not None
    bob_token = ApiToken.objects.get(user__username="bob")
    call_command("api_token", "--revoke", str(bob_token.pk), stdout=StringIO())
    bob_token.refresh_from_db()
    assert bob_token.revoked_at is not None
    again = StringIO()
    call_command("api_token", "--revoke", str(bob_token.pk), stdout=again)
    assert "already revoked" in again.getvalue()
    listing = StringIO()
    call_command("api_token", "--list", stdout=listing)
    assert listing.getvalue().count("This API token was revoked.") == 2


def test_command_refusals(make_user, english):
    make_user("cy")
    with pytest.raises(CommandError, match="No API token"):
        call_command("api_token", "--revoke", "ffffffff", stdout=StringIO())
    with pytest.raises(CommandError, match="1 to 3650 days"):
        call_command("api_token", "cy", "--expires-in-days", "0", stdout=StringIO())
    with pytest.raises(CommandError, match="Name the user"):
        call_command("api_token", stdout=StringIO())
    # Two tokens whose prefixes share the characters given: name one by id instead.
    user = make_user()
    for suffix in "ab":
        token = ApiToken(user=user)
        token.set_key("abcd123" + suffix + "0" * 32)
        token.save()
    with pytest.raises(CommandError, match="Several API tokens"):
        call_command("api_token", "--revoke", "abcd123", stdout=StringIO())
    assert not ApiToken.objects.filter(revoked_at__isnull=False).exists()


def test_admin_lists_and_revokes_tokens(organiser, make_user, english):
    player = make_user("dora")
    token, key = tokens.issue_token(user=player)
    kept, _ = tokens.issue_token(user=player)
    client = Client()
    client.force_login(organiser)
    page = client.get("/admin/tournaments/apitoken/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f"{key[:8]}…" in html and "dora" in html and key not in html
    response = client.post(
        "/admin/tournaments/apitoken/",
        {"action": "revoke", "_selected_action": [token.pk]},
        follow=True,
    )
    assert "Revoked 1 token." in response.content.decode()
    token.refresh_from_db()
    kept.refresh_from_db()
    assert token.revoked_at is not None and kept.revoked_at is None
    assert (
        "This API token was revoked." in client.get("/admin/tournaments/apitoken/").content.decode()
    )


def test_admin_issues_a_token_and_shows_its_key_once(organiser, make_user, english):
    player = make_user("eve")
    client = Client()
    client.force_login(organiser)
    response = client.post(
        "/admin/tournaments/apitoken/add/",
        {"user": player.pk, "expires_in_days": "7"},
        follow=True,
    )
    html = response.content.decode()
    key = re.search(r"will not be shown again\): ([0-9a-f]{40})", html).group(1)
    token = ApiToken.objects.get(user=player)
    assert token.key_hash == ApiToken.hash_key(key) and token.expires_at is not None
    assert key not in client.get(f"/admin/tournaments/apitoken/{token.pk}/change/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_migration_hashes_existing_keys_so_they_keep_working(django_user_model):
    """A key handed out before hashing (stored in plain text) still authenticates."""
    from tournaments.services.tokens import token_user

    executor = MigrationExecutor(connection)
    hashing = executor.loader.graph.node_map[("tournaments", "0009_api_token_hash")]
    before = next(parent.key for parent in hashing.parents if parent.key[0] == "tournaments")
    latest = executor.loader.graph.leaf_nodes("tournaments")
    try:
        executor.migrate([before])
        old_apps = executor.loader.project_state([before]).apps
        User = old_apps.get_model("auth", "User")
        OldToken = old_apps.get_model("tournaments", "ApiToken")
        user = User.objects.create(username="legacy", is_active=True)
        OldToken.objects.create(user=user, key="legacy" + "0" * 34)
        executor = MigrationExecutor(connection)
        executor.migrate(latest)
    finally:
        MigrationExecutor(connection).migrate(latest)
    token = ApiToken.objects.get(user__username="legacy")
    assert token.prefix == "legacy00" and token.key_hash == ApiToken.hash_key("legacy" + "0" * 34)
    found = token_user("legacy" + "0" * 34)
    assert found is not None and found[1].username == "legacy"
