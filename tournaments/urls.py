from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

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
    path("players/<str:username>/", views.profile, name="profile"),
    # A tournament and its public pages
    path("t/<int:tournament_id>/", views.tournament, name="tournament"),
    path("t/<int:tournament_id>/standings/", views.standings_fragment, name="standings_fragment"),
    path("t/<int:tournament_id>/results/", views.results, name="results"),
    path("t/<int:tournament_id>/boards/<int:number>/", views.board, name="board"),
    path("t/<int:tournament_id>/pairs/<int:pair_id>/", views.pair, name="pair"),
    # Registration
    path("t/<int:tournament_id>/register/", views.propose_pair, name="propose_pair"),
    path(
        "t/<int:tournament_id>/pairs/<int:pair_id>/confirm/",
        views.confirm_pair,
        name="confirm_pair",
    ),
    path(
        "t/<int:tournament_id>/pairs/<int:pair_id>/cancel/", views.cancel_pair, name="cancel_pair"
    ),
    path(
        "t/<int:tournament_id>/pairs/<int:pair_id>/withdraw/",
        views.withdraw_pair,
        name="withdraw_pair",
    ),
    # A table's result sheet (the four players at the table only)
    path("t/<int:tournament_id>/tables/<int:table_id>/", views.table, name="table"),
    path(
        "t/<int:tournament_id>/tables/<int:table_id>/updates/",
        views.table_updates,
        name="table_updates",
    ),
    # The table in the browser (online tournaments): the four players, organisers
    # watching, anyone once the round has closed.
    path(
        "t/<int:tournament_id>/tables/<int:table_id>/play/",
        views.play_table,
        name="play_table",
    ),
]
