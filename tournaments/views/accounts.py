"""Sign-up and the player profile (log in / log out are Django's own views)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _

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


class PasswordResetView(auth_views.PasswordResetView):
    """Django's password reset with the site's templates, and a limit per address
    (PASSWORD_RESET_RATE) so the form cannot be used to flood someone's mailbox: over
    it the form answers 429 with a message and sends nothing."""

    def post(self, request, *args, **kwargs):
        rate = getattr(settings, "PASSWORD_RESET_RATE", None)
        wait = limits.hit("password-reset", limits.client_address(request), rate)
        if wait is not None:
            refusal = _(
                "Too many password reset requests from your address: try again in "
                "%(minutes)d minutes."
            ) % {"minutes": max(1, round(wait / 60))}
            context = self.get_context_data(form=self.get_form(), refusal=refusal)
            return self.render_to_response(context, status=429)
        return super().post(request, *args, **kwargs)


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
