"""Django admin: where organisers run events. Every action calls a service.

One module per family of pages, each registering its own: `tournament` (the clock's
actions, rounds, heartbeat), `pairs`, `results` (boards, results, scores), `players`
(profiles, rank titles, master points), `teams` (teams and matches, read only), `tokens`
(API tokens). What their actions share
is in `actions`; every action that asks before it acts uses the one confirmation page,
templates/admin/tournaments/confirm_action.html.
"""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from . import pairs, players, results, teams, tokens, tournament  # noqa: F401  (they register)

admin.site.site_header = _("Swiss pairs tournament director")
admin.site.site_title = _("Swiss pairs")
