from django.contrib.auth import views as auth_views
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import path

from . import converters, views  # noqa: F401  (converters: registers `<id:…>`)
from .views import (
    broadcasts,
    club,
    club_rate,
    console,
    console_ladder,
    ladder,
    matches,
    movement,
    teams,
    vugraph,
)

# Row numbers in URLs are `<id:…>`: digits that fit a 64-bit integer, any other is a 404.

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    # Accounts
    path("accounts/signup/", views.signup, name="signup"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Password reset: Django's views, the site's templates (templates/registration/).
    path(
        "accounts/password-reset/",
        views.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "accounts/password-reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    # Browsers ask for /favicon.ico whatever the page says; the hashed name is looked up
    # per request (at import the static manifest may not be read yet).
    path("favicon.ico", lambda request: HttpResponsePermanentRedirect(static("favicon.svg"))),
    path("players/<str:username>/", views.profile, name="profile"),
    # A tournament and its public pages
    path("t/<id:tournament_id>/", views.tournament, name="tournament"),
    path("t/<id:tournament_id>/standings/", views.standings_fragment, name="standings_fragment"),
    path("t/<id:tournament_id>/results/", views.results, name="results"),
    path("t/<id:tournament_id>/boards/<id:number>/", views.board, name="board"),
    path("t/<id:tournament_id>/matches/<id:match_id>/", matches.match, name="match"),
    # Vugraph LIN (RULES 12): a match's two rooms, one table's boards, once public
    path("t/<id:tournament_id>/matches/<id:match_id>.lin", vugraph.match_lin, name="match_lin"),
    path(
        "t/<id:tournament_id>/rounds/<id:round_number>/tables/<id:table_number>.lin",
        vugraph.table_lin,
        name="table_lin",
    ),
    path("t/<id:tournament_id>/pairs/<id:pair_id>/", views.pair, name="pair"),
    path("t/<id:tournament_id>/pairs/<id:pair_id>/card/", views.score_card, name="score_card"),
    path(
        "t/<id:tournament_id>/rounds/<id:number>/seating/",
        views.seating_sheet,
        name="seating_sheet",
    ),
    # A movement's paper (seatings by a movement only: a Swiss event's is a 404). Travel
    # cards are addressed by the movement's position, as the club scorers number pairs.
    path("t/<id:tournament_id>/movement/", movement.movement, name="movement"),
    path("t/<id:tournament_id>/movement/tables/", movement.table_cards, name="movement_tables"),
    path(
        "t/<id:tournament_id>/movement/tables/<id:number>/",
        movement.table_cards,
        name="movement_table",
    ),
    path("t/<id:tournament_id>/movement/pairs/", movement.travel_cards, name="movement_travel"),
    path(
        "t/<id:tournament_id>/movement/pairs/<id:position>/",
        movement.travel_cards,
        name="movement_pair",
    ),
    # Registration
    path("t/<id:tournament_id>/register/", views.propose_pair, name="propose_pair"),
    path(
        "t/<id:tournament_id>/pairs/<id:pair_id>/confirm/",
        views.confirm_pair,
        name="confirm_pair",
    ),
    path("t/<id:tournament_id>/pairs/<id:pair_id>/cancel/", views.cancel_pair, name="cancel_pair"),
    path(
        "t/<id:tournament_id>/pairs/<id:pair_id>/withdraw/",
        views.withdraw_pair,
        name="withdraw_pair",
    ),
    # A team event's teams (RULES 11)
    path("t/<id:tournament_id>/teams/register/", teams.propose_team, name="propose_team"),
    path("t/<id:tournament_id>/teams/<id:team_id>/", teams.team, name="team"),
    path(
        "t/<id:tournament_id>/teams/<id:team_id>/confirm/", teams.confirm_team, name="confirm_team"
    ),
    path(
        "t/<id:tournament_id>/teams/<id:team_id>/decline/", teams.decline_team, name="decline_team"
    ),
    path("t/<id:tournament_id>/teams/<id:team_id>/cancel/", teams.cancel_team, name="cancel_team"),
    path(
        "t/<id:tournament_id>/teams/<id:team_id>/line-up/",
        teams.set_line_up,
        name="team_line_up",
    ),
    path(
        "t/<id:tournament_id>/teams/<id:team_id>/withdraw/",
        teams.withdraw_team,
        name="withdraw_team",
    ),
    # The team ladder (RULES 11)
    path("ladders/", ladder.ladders, name="ladders"),
    path("ladders/<id:ladder_id>/", ladder.ladder, name="ladder"),
    path("ladders/<id:ladder_id>/enter/", ladder.ladder_enter, name="ladder_enter"),
    path("ladders/<id:ladder_id>/challenge/", ladder.ladder_challenge, name="ladder_challenge"),
    path(
        "ladders/<id:ladder_id>/challenges/<id:challenge_id>/accept/",
        ladder.ladder_accept,
        name="ladder_accept",
    ),
    path(
        "ladders/<id:ladder_id>/challenges/<id:challenge_id>/decline/",
        ladder.ladder_decline,
        name="ladder_decline",
    ),
    path("ladders/<id:ladder_id>/teams/<id:team_id>/", ladder.ladder_team, name="ladder_team"),
    # A table is addressed as its players and the director name it: round and table
    # number. Its result sheet (the four players at the table only), and the table in
    # the browser (online tournaments: the four players, organisers, kibitzers).
    path(
        "t/<id:tournament_id>/rounds/<id:round_number>/tables/<id:table_number>/",
        views.table,
        name="table",
    ),
    path(
        "t/<id:tournament_id>/rounds/<id:round_number>/tables/<id:table_number>/play/",
        views.play_table,
        name="play_table",
    ),
    path(
        "t/<id:tournament_id>/rounds/<id:round_number>/tables/<id:table_number>/program/",
        views.play_table_program,
        name="play_table_program",
    ),
    # The sheet's poll names the table by its id: the page passes it, nobody types it,
    # and the hot path saves the look-up.
    path(
        "t/<id:tournament_id>/tables/<id:table_id>/updates/",
        views.table_updates,
        name="table_updates",
    ),
    # The old addresses by the table's internal id: 301 to the new ones.
    path(
        "t/<id:tournament_id>/tables/<id:table_id>/",
        views.table_by_id,
        {"play": False},
        name="table_by_id",
    ),
    path(
        "t/<id:tournament_id>/tables/<id:table_id>/play/",
        views.table_by_id,
        {"play": True},
        name="play_table_by_id",
    ),
    # A broadcast (RULES 12, Vugraph): both rooms of a match, or one online table, live
    path("broadcasts/<id:broadcast_id>/", broadcasts.broadcast, name="broadcast"),
    path(
        "broadcasts/<id:broadcast_id>/comments/",
        broadcasts.comment,
        name="broadcast_comment",
    ),
    # Vugraph LIN files imported as finished matches (RULES 12)
    # The club's Rate (RULES 13): the list, and a player's Rate week by week.
    # The club (RULES 13): the lobby and its actions, a player's boards, a deal's field,
    # the week's standings per system; the organiser's membership page.
    path("club/", club.lobby, name="club_lobby"),
    path("club/open/", club.open_table, name="club_open"),
    path("club/sit/", club.sit, name="club_sit"),
    path("club/wait/", club.wait, name="club_wait"),
    path("club/stop-waiting/", club.stop_waiting, name="club_stop_waiting"),
    path("club/robots/", club.robots, name="club_robots"),
    path("club/leave/", club.leave, name="club_leave"),
    path("club/boards/", club.my_boards, name="club_my_boards"),
    path("club/deals/<id:deal_id>/", club.deal, name="club_deal"),
    path("club/standings/", club.standings, name="club_standings"),
    path("club/standings/<slug:system>/", club.standings, name="club_standings_system"),
    path("console/club/members/", club.members, name="console_club_members"),
    path("club/rate/", club_rate.rate_list, name="club_rate_list"),
    path("club/players/<id:user_id>/", club_rate.player, name="club_rate_player"),
    path("vugraph/", vugraph.imported_list, name="vugraph_list"),
    path("vugraph/import/", vugraph.import_lin, name="vugraph_import"),
    path("vugraph/<id:match_id>/", vugraph.imported_match, name="vugraph_match"),
    path("vugraph/<id:match_id>.lin", vugraph.imported_match_lin, name="vugraph_match_lin"),
    # The director's console (staff): one page per tournament
    path("console/", console.index, name="console_index"),
    path("console/new/", console.new_tournament, name="console_new"),
    path("console/ladders/", console_ladder.ladders, name="console_ladders"),
    path("console/ladders/<id:ladder_id>/", console_ladder.ladder, name="console_ladder"),
    path(
        "console/ladders/<id:ladder_id>/challenges/<id:challenge_id>/<slug:name>/",
        console_ladder.challenge_action,
        name="console_ladder_challenge",
    ),
    path("console/<id:tournament_id>/", console.console, name="console"),
    path("console/<id:tournament_id>/progress/", console.progress, name="console_progress"),
    path("console/<id:tournament_id>/seating/", console.seating, name="console_seating"),
    path("console/<id:tournament_id>/do/<slug:name>/", console.action, name="console_action"),
    path(
        "console/<id:tournament_id>/tables/<id:table_id>/extra-time/",
        console.extra_time,
        name="console_extra_time",
    ),
    path(
        "console/<id:tournament_id>/tables/<id:table_id>/robot/",
        console.robot,
        name="console_robot",
    ),
    path(
        "console/<id:tournament_id>/tables/<id:table_id>/program/",
        console.program,
        name="console_program",
    ),
    path(
        "console/<id:tournament_id>/tables/<id:table_id>/boards/<id:number>/",
        console.result,
        name="console_result",
    ),
    path(
        "console/<id:tournament_id>/broadcasts/start/",
        broadcasts.start,
        name="console_broadcast_start",
    ),
    path(
        "console/<id:tournament_id>/broadcasts/<id:broadcast_id>/delay/",
        broadcasts.delay,
        name="console_broadcast_delay",
    ),
    path(
        "console/<id:tournament_id>/broadcasts/<id:broadcast_id>/end/",
        broadcasts.end,
        name="console_broadcast_end",
    ),
    path(
        "console/<id:tournament_id>/teams/<id:team_id>/withdraw/",
        console.withdraw_team,
        name="console_withdraw_team",
    ),
]
