"""What the admin's actions share: calling a service and saying what happened, and the
one confirmation page for an action that asks before it acts."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from ..errors import ServiceError
from ..services.permissions import RUN_CLOCK

CONFIRM_TEMPLATE = "admin/tournaments/confirm_action.html"

Outcome = TypeVar("Outcome")


class RunsClock:
    """Admin actions declaring `permissions=[RUN_CLOCK_CODENAME]` are offered only to
    users holding it; the service checks it again."""

    def has_run_clock_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(RUN_CLOCK)


def run_action(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    label: str,
    service: Callable[..., Outcome],
    /,
    *,
    describe: Callable[[Outcome], Iterable[str | Promise]] | None = None,
    **kwargs: Any,
) -> Outcome | None:
    """Call `service(**kwargs)` and tell the organiser how it went, as "label: …".

    A refusal is an error message, never a 500. Success says what `describe(outcome)`
    says, or "done".
    """
    try:
        outcome = service(**kwargs)
    except ServiceError as error:
        modeladmin.message_user(request, f"{label}: {error}", messages.ERROR)
        return None
    # Clock events start with the tournament's name, which is already the label.
    said = describe(outcome) if describe else ()
    details = [str(d).removeprefix(f"{label}: ") for d in said if d]
    detail = "; ".join(details) or _("done")
    modeladmin.message_user(request, f"{label}: {detail}", messages.SUCCESS)
    return outcome


def confirmed(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet,
    form_class: type[forms.Form],
    *,
    action: str,
    title: str | Promise,
    apply: Callable[[forms.Form], None],
) -> HttpResponse | None:
    """An action that asks first: the confirmation page (`form_class` for whatever the
    organiser must give, the selected objects listed) until it comes back with "apply"
    and a valid form; then `apply(form)`, and back to the list."""
    if "apply" not in request.POST:
        form = form_class()
    else:
        form = form_class(request.POST)
        if form.is_valid():
            apply(form)
            return None
    return render(
        request,
        CONFIRM_TEMPLATE,
        {
            **modeladmin.admin_site.each_context(request),  # the site's header and links
            "form": form,
            "queryset": queryset,
            "action": action,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
            "opts": modeladmin.model._meta,
            "title": title,
        },
    )
