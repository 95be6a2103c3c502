"""Sign-up and the player profile (log in / log out are Django's own views)."""

from __future__ import annotations

from django.contrib.auth import get_user_model, login
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language

from .. import limits, selectors
from ..forms import SignupForm
from ..services.board_scoring import title_for

User = get_user_model()


def safe_next(request, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


def signup(request):
    if request.user.is_authenticated:
        return redirect(safe_next(request, "home"))
    if request.method == "POST":
        refusal = limits.signup_refusal(request)
        if refusal is not None:  # nothing read from the form, nothing written
            context = {"form": SignupForm(), "next": safe_next(request, ""), "refusal": refusal}
            return render(request, "registration/signup.html", context, status=429)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(safe_next(request, "home"))
    return render(
        request, "registration/signup.html", {"form": form, "next": safe_next(request, "")}
    )


def profile(request, username: str):
    player = get_object_or_404(User.objects.select_related("profile"), username=username)
    master_points = player.profile.master_points
    title = title_for(master_points)
    title_name = ""
    if title is not None:
        title_name = title.name_zh if (get_language() or "").startswith("zh") else title.name_en
    return render(
        request,
        "tournaments/profile.html",
        {
            "player": player,
            "master_points": master_points,
            "title": title,
            "title_name": title_name,
            "history": selectors.player_history(user=player),
        },
    )
