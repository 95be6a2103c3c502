"""Admin for API tokens: listed by user and prefix (the key itself is never stored),
issued with the key shown once, revoked by an action."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..models import ApiToken
from ..services import tokens


class IssueTokenForm(forms.ModelForm):
    expires_in_days = forms.IntegerField(
        label=_("Expires in (days)"),
        required=False,
        min_value=1,
        max_value=tokens.MAX_EXPIRY_DAYS,
        help_text=_("Empty: the token works until it is revoked."),
    )

    class Meta:
        model = ApiToken
        fields = ("user",)

    def clean_user(self):
        user = self.cleaned_data["user"]
        if not user.is_active:
            raise forms.ValidationError(_("This user is not active."))
        return user


class ValidFilter(admin.SimpleListFilter):
    title = _("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("valid", _("valid")), ("refused", _("expired or revoked"))]

    def queryset(self, request, queryset):
        now = timezone.now()
        valid = queryset.filter(revoked_at__isnull=True).exclude(expires_at__lte=now)
        if self.value() == "valid":
            return valid
        if self.value() == "refused":
            return queryset.exclude(pk__in=valid.values("pk"))
        return queryset


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = (
        "prefix_shown",
        "user",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
        "status",
    )
    list_filter = (ValidFilter,)
    list_select_related = ("user",)
    search_fields = ("prefix", "user__username")
    ordering = ("-created_at",)
    raw_id_fields = ("user",)
    actions = ["revoke"]
    readonly_fields = (
        "prefix",
        "user",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
        "status",
    )

    @admin.display(description=_("prefix"), ordering="prefix")
    def prefix_shown(self, token: ApiToken) -> str:
        return f"{token.prefix}…"

    @admin.display(description=_("status"))
    def status(self, token: ApiToken) -> str:
        return str(token.refusal(timezone.now()) or _("valid"))

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = IssueTokenForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is not None else ()

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("user", "expires_in_days")
        return self.readonly_fields

    def save_model(self, request, obj, form, change):
        if change:
            return
        # Issued by the service; this admin only ever sees the key here, once.
        token, key = tokens.issue_token(
            user=form.cleaned_data["user"],
            expires_in_days=form.cleaned_data.get("expires_in_days"),
        )
        obj.pk = token.pk
        obj.refresh_from_db()
        self.message_user(
            request,
            _(
                "The new token's key (copy it now: it is not stored and will not be "
                "shown again): %(key)s"
            )
            % {"key": key},
            messages.WARNING,
        )

    @admin.action(description=_("Revoke the selected tokens"), permissions=["change"])
    def revoke(self, request, queryset):
        count = tokens.revoke_tokens(tokens=list(queryset))
        self.message_user(
            request,
            ngettext("Revoked %(n)d token.", "Revoked %(n)d tokens.", count) % {"n": count},
            messages.SUCCESS,
        )
