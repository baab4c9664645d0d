from datetime import timedelta
from urllib.parse import urlsplit

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .models import ApiToken, PushPreferences, PushSubscription, User

DURATIONS = {"1h": timedelta(hours=1), "24h": timedelta(hours=24), "7d": timedelta(days=7),
             "30d": timedelta(days=30), "forever": None}


class ModerateUserForm(forms.Form):
    action = forms.ChoiceField(label=gettext_lazy("Action"), choices=[
        ("ban", gettext_lazy("Ban")), ("mute", gettext_lazy("Mute")),
        ("unban", gettext_lazy("Lift the ban")), ("unmute", gettext_lazy("Lift the mute"))])
    duration = forms.ChoiceField(label=gettext_lazy("For"), initial="24h", choices=[
        ("1h", gettext_lazy("1 hour")), ("24h", gettext_lazy("24 hours")), ("7d", gettext_lazy("7 days")),
        ("30d", gettext_lazy("30 days")), ("forever", gettext_lazy("permanently"))])
    reason = forms.CharField(label=gettext_lazy("Reason"), widget=forms.Textarea(attrs={"rows": 3}), max_length=2000)


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    fieldsets = BaseUserAdmin.fieldsets + (
        ("Profile", {"fields": ("display_name", "avatar_colour")}),
        ("Moderation", {"fields": ("banned_until", "muted_until", "is_bot")}),
    )
    readonly_fields = ["banned_until", "muted_until", "is_bot"]  # set through "Moderate…", which logs why
    list_display = ("username", "display_name", "email", "is_staff", "is_active", "banned_until", "muted_until",
                    "date_joined", "moderate")
    list_filter = BaseUserAdmin.list_filter + ("is_bot",)
    search_fields = ("username", "display_name", "email")

    @admin.display(description=gettext_lazy("moderation"))
    def moderate(self, user):
        return format_html('<a href="{}">{}</a>', reverse("admin:accounts_user_moderate", args=[user.pk]),
                           _("Moderate…"))

    def get_urls(self):
        return [path("<int:pk>/moderate/", self.admin_site.admin_view(self.moderate_view),
                     name="accounts_user_moderate"), *super().get_urls()]

    def moderate_view(self, request, pk):
        """Ban or mute (or lift it) with a reason: games.moderation does it and logs it."""
        from games import moderation
        from games.services import GameError

        if not (request.user.has_perm("games.ban_user") or request.user.has_perm("games.mute_user")):
            raise PermissionDenied
        target = get_object_or_404(User, pk=pk)
        form = ModerateUserForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            action, reason = form.cleaned_data["action"], form.cleaned_data["reason"]
            duration = DURATIONS[form.cleaned_data["duration"]]
            try:
                if action == "ban":
                    moderation.user_ban(user=target, by=request.user, reason=reason, duration=duration)
                elif action == "mute":
                    moderation.user_mute(user=target, by=request.user, reason=reason, duration=duration)
                elif action == "unban":
                    moderation.user_unban(user=target, by=request.user, reason=reason)
                else:
                    moderation.user_unmute(user=target, by=request.user, reason=reason)
            except GameError as e:
                form.add_error(None, e.message)
            else:
                done = {"ban": _("%(name)s is banned."), "mute": _("%(name)s is muted."),
                        "unban": _("%(name)s is no longer banned."), "unmute": _("%(name)s is no longer muted.")}
                messages.success(request, done[action] % {"name": target})
                return redirect("admin:accounts_user_changelist")
        context = {**self.admin_site.each_context(request), "form": form, "object": target,
                   "title": _("Moderate %(name)s") % {"name": target.public_name}}
        return TemplateResponse(request, "admin/games/form_page.html", context)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Read-only: a token is created and revoked by its owner (profile page, API); its secret is stored nowhere."""

    list_display = ("name", "user", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "user__username")
    fields = ("user", "name", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class _ReadOnly(admin.ModelAdmin):
    """A player's own settings, made on their profile: moderators read them, nobody edits them here."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(PushSubscription)
class PushSubscriptionAdmin(_ReadOnly):
    """The browsers that receive notifications; their keys are not shown (they encrypt, nobody needs to read them)."""

    list_display = ("user", "service", "created_at", "last_used_at")
    search_fields = ("user__username",)
    fields = ("user", "endpoint", "created_at", "last_used_at")
    readonly_fields = fields

    @admin.display(description=gettext_lazy("push service"))
    def service(self, sub):
        return urlsplit(sub.endpoint).hostname


@admin.register(PushPreferences)
class PushPreferencesAdmin(_ReadOnly):
    list_display = ("user", "your_turn", "next_hand", "club_room", "night_again")
    search_fields = ("user__username",)
