"""Players in templates: `{{ user|player_name }}` is `models.player_name`, the one rule
for the name a page shows (the display name, else the username)."""

from __future__ import annotations

from django import template

from tournaments.models import player_name as _player_name

register = template.Library()


@register.filter
def player_name(user) -> str:
    return _player_name(user)
