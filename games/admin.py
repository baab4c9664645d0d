"""The games in the admin: rooms (rule settings, kick, close), hands (read-only, all cards once over, share links), chat
(hide), reports (the queue), house variants, the moderation log (read-only), and the dashboard.

Every write goes through games.moderation (a reason, a permission, a log row); nothing here edits
a table's state, a hand or the log directly.
"""

from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import admin_approvals, moderation, services  # noqa: F401 (admin_approvals registers the buy-in requests' list)
from games.engine import rules_from
from games.engine.errors import RulesError
from games.models import (
    ChatMessage,
    Club,
    ClubJoinRequest,
    ClubMember,
    GameSetting,
    Hand,
    HandEvent,
    HandShare,
    HouseVariant,
    ModerationLog,
    Report,
    Room,
    Seat,
)
from games.rules_form import RulesForm
from games.services import GameError
from wallets.admin import ReadOnlyMixin


class ReasonForm(forms.Form):
    reason = forms.CharField(label=gettext_lazy("Reason"), widget=forms.Textarea(attrs={"rows": 3}), max_length=2000)


def _form_page(request, admin_site, *, title: str, form, obj=None, extra=None):
    context = {**admin_site.each_context(request), "title": title, "form": form, "object": obj, **(extra or {})}
    return TemplateResponse(request, "admin/games/form_page.html", context)


# --- rooms ----------------------------------------------------------------------------------------------


class SeatInline(ReadOnlyMixin, admin.TabularInline):
    model = Seat
    fields = ["user", "role", "position", "bot", "buy_in", "connected", "away", "joined_at", "kick"]
    readonly_fields = fields
    extra = 0

    def get_queryset(self, request):
        return super().get_queryset(request).filter(left_at__isnull=True).select_related("user")

    @admin.display(description=gettext_lazy("moderation"))
    def kick(self, seat):
        url = reverse("admin:games_room_kick", args=[seat.room_id, seat.user_id])
        return format_html('<a href="{}">{}</a>', url, _("Kick…"))


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = ["code", "preset", "kind", "currency", "host", "status", "created_at", "moderate"]
    list_filter = ["status", "preset", "kind", "currency", "approve_buy_ins", "spectators"]
    search_fields = ["code", "host__username"]
    readonly_fields = ["code", "invite_token", "host", "preset", "overrides", "rules", "currency", "kind", "bot_level",
                       "buy_in_min", "buy_in_max", "approve_buy_ins", "status", "created_at", "closed_at"]
    inlines = [SeatInline]
    date_hierarchy = "created_at"

    def has_add_permission(self, request) -> bool:
        return False  # rooms are opened by hosts from the lobby

    def save_model(self, request, obj, form, change) -> None:
        """The spectators setting goes through its service: the room's sockets hear of it (docs/rules.md,
        "Spectators")."""
        if change and "spectators" in form.changed_data:
            try:
                services.spectators_set(room_id=obj.pk, user=request.user, mode=obj.spectators)
            except GameError as e:
                raise PermissionDenied(e.message) from None
        super().save_model(request, obj, form, change)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # a room with hands is history; close it instead

    @admin.display(description=gettext_lazy("moderation"))
    def moderate(self, room):
        if not room.is_open:
            return "—"
        return format_html('<a href="{}">{}</a> · <a href="{}">{}</a>',
                           reverse("admin:games_room_rules", args=[room.pk]), _("Rules…"),
                           reverse("admin:games_room_close", args=[room.pk]), _("Close…"))

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<int:pk>/rules/", view(self.rules_view), name="games_room_rules"),
            path("<int:pk>/close/", view(self.close_view), name="games_room_close"),
            path("<int:pk>/kick/<int:user_id>/", view(self.kick_view), name="games_room_kick"),
            *super().get_urls(),
        ]

    def _room(self, request, pk) -> Room:
        if not request.user.has_perm("games.moderate_room"):
            raise PermissionDenied
        return get_object_or_404(Room, pk=pk)

    def rules_view(self, request, pk):
        """The room's rule settings, one typed field per engine knob; applies from the next hand."""
        room = self._room(request, pk)
        data = request.POST or None
        form = RulesForm(room.preset, data, initial_rules=room.rules)
        reason = ReasonForm(data, prefix="why")
        if request.method == "POST" and form.is_valid() and reason.is_valid():
            try:
                moderation.room_rules_change(room=room, overrides=form.overrides, by=request.user,
                                             reason=reason.cleaned_data["reason"])
            except GameError as e:
                form.add_error(None, e.message)
            else:
                messages.success(request, _("The new rules apply from the next hand."))
                return redirect("admin:games_room_change", room.pk)
        return _form_page(request, self.admin_site, title=_("Rules of room %(code)s") % {"code": room.code},
                          form=form, obj=room, extra={"reason_form": reason, "rules_stats": True,
                                                      "preset": room.preset})

    def close_view(self, request, pk):
        room = self._room(request, pk)
        form = ReasonForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            moderation.room_close(room=room, by=request.user, reason=form.cleaned_data["reason"])
            messages.success(request, _("Room %(code)s is closed; every stack was released.") % {"code": room.code})
            return redirect("admin:games_room_change", room.pk)
        return _form_page(request, self.admin_site, title=_("Close room %(code)s") % {"code": room.code},
                          form=form, obj=room)

    def kick_view(self, request, pk, user_id):
        room = self._room(request, pk)
        user = get_object_or_404(get_user_model(), pk=user_id)
        form = ReasonForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                moderation.seat_kick(room=room, user=user, by=request.user, reason=form.cleaned_data["reason"])
            except GameError as e:
                form.add_error(None, e.message)
            else:
                messages.success(request, _("%(name)s leaves the table after the current hand.")
                                 % {"name": user.public_name})
                return redirect("admin:games_room_change", room.pk)
        return _form_page(request, self.admin_site, form=form, obj=room,
                          title=_("Kick %(name)s from room %(code)s") % {"name": user.public_name, "code": room.code})


# --- hands ----------------------------------------------------------------------------------------------


class HandEventInline(ReadOnlyMixin, admin.TabularInline):
    model = HandEvent
    fields = ["version", "seq", "actor", "type", "data"]
    readonly_fields = fields
    extra = 0
    ordering = ["version", "seq"]


class HandShareInline(ReadOnlyMixin, admin.TabularInline):
    """Who made a share link of the hand, and whether it is revoked (the token is the link: not shown)."""

    model = HandShare
    fields = ["created_by", "created_at", "revoked_at"]
    readonly_fields = fields
    extra = 0

    def has_view_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("games.view_hand")


@admin.register(Hand)
class HandAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Read-only, with every card once the hand is over (moderators only). "View on site" opens the record, which
    moderators may read."""

    list_display = ["__str__", "room", "number", "started_at", "ended_at", "players_list", "record"]
    list_select_related = ["room"]
    search_fields = ["room__code", "players__user__username"]
    date_hierarchy = "started_at"
    readonly_fields = ["record", "room", "number", "rules", "commitment", "seed", "started_at", "ended_at", "summary"]
    inlines = [HandEventInline, HandShareInline]

    def has_view_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("games.view_hand")

    def get_inlines(self, request, obj):
        """A hand in play shows no events: its face-down cards are their owners' alone until it ends, for moderators
        too (docs/rules.md, "Who may read a hand record"), who may sit at a table themselves."""
        if obj is not None and not obj.is_over:
            return [HandShareInline]
        return self.inlines

    @admin.display(description=gettext_lazy("players"))
    def players_list(self, hand):
        return ", ".join(f"{p.user.username} {p.delta:+d}" for p in hand.players.select_related("user"))

    @admin.display(description=gettext_lazy("record"))
    def record(self, hand):
        if not hand.is_over:
            return _("in play")
        return format_html('<a href="{}">{}</a>', hand.get_absolute_url(), _("record"))


# --- chat and reports -----------------------------------------------------------------------------------


def _with_reason(modeladmin, request, queryset, *, title: str, apply):
    """An admin action that asks for a reason first (an intermediate page), then applies `apply`."""
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    if "apply" in request.POST and form.is_valid():
        done = 0
        for obj in queryset:
            try:
                apply(obj, form.cleaned_data["reason"])
                done += 1
            except GameError as e:
                modeladmin.message_user(request, f"{obj}: {e.message}", messages.ERROR)
        modeladmin.message_user(request, _("%(n)s done.") % {"n": done}, messages.SUCCESS)
        return None
    return _form_page(request, modeladmin.admin_site, title=title, form=form, extra={
        "action": request.POST.get("action"), "selected": queryset.values_list("pk", flat=True)})


class ModerationQueueAdmin(admin.ModelAdmin):
    """Rows that players create (chat, reports): never added or deleted here; moderators act on them
    through actions that need the moderate_room permission and a reason."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_moderate_permission(self, request) -> bool:
        return request.user.has_perm("games.moderate_room")


@admin.register(ChatMessage)
class ChatMessageAdmin(ModerationQueueAdmin):
    list_display = ["created_at", "room", "user", "text", "hidden"]
    list_filter = ["hidden"]
    search_fields = ["text", "user__username", "room__code"]
    date_hierarchy = "created_at"
    readonly_fields = ["room", "user", "text", "hidden", "created_at"]
    actions = ["hide"]

    @admin.action(description=gettext_lazy("Hide the selected messages…"), permissions=["moderate"])
    def hide(self, request, queryset):
        return _with_reason(self, request, queryset.select_related("room", "user"), title=_("Hide chat messages"),
                            apply=lambda m, why: moderation.chat_hide(message=m, by=request.user, reason=why))


@admin.register(Report)
class ReportAdmin(ModerationQueueAdmin):
    list_display = ["created_at", "status", "reporter", "target_user", "room", "reason", "context"]
    list_filter = ["status"]
    search_fields = ["reason", "reporter__username", "target_user__username", "room__code"]
    readonly_fields = ["reporter", "target_user", "room", "message", "reason", "status", "created_at", "resolved_by",
                       "resolved_at", "resolution", "context"]
    actions = ["mark_actioned", "mark_dismissed"]

    @admin.display(description=gettext_lazy("context"))
    def context(self, report):
        """Links to the chat around the reported message and the room's hands."""
        if report.room_id is None:
            return "—"
        chat = reverse("admin:games_chatmessage_changelist") + f"?room__id__exact={report.room_id}"
        if report.message_id:
            chat += f"&id__gte={max(report.message_id - 10, 0)}&id__lte={report.message_id + 10}"
        hands = reverse("admin:games_hand_changelist") + f"?room__id__exact={report.room_id}"
        return format_html('<a href="{}">{}</a> · <a href="{}">{}</a>', chat, _("chat"), hands, _("hands"))

    def _resolve(self, request, queryset, status, title):
        return _with_reason(self, request, queryset, title=title, apply=lambda r, why: moderation.report_resolve(
            report=r, by=request.user, status=status, resolution=why))

    @admin.action(description=gettext_lazy("Mark actioned…"), permissions=["moderate"])
    def mark_actioned(self, request, queryset):
        return self._resolve(request, queryset, Report.Status.ACTIONED, _("Mark reports actioned"))

    @admin.action(description=gettext_lazy("Dismiss…"), permissions=["moderate"])
    def mark_dismissed(self, request, queryset):
        return self._resolve(request, queryset, Report.Status.DISMISSED, _("Dismiss reports"))

    def lookup_allowed(self, lookup, value, request=None):
        return True


ChatMessageAdmin.lookup_allowed = ReportAdmin.lookup_allowed  # the report's context links filter by id range


@admin.register(ModerationLog)
class ModerationLogAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Append-only: nobody can add, change or delete a row here (the database refuses it too)."""

    list_display = ["created_at", "actor", "action", "target_user", "room", "reason"]
    list_filter = ["action"]
    search_fields = ["actor__username", "target_user__username", "room__code", "reason"]
    date_hierarchy = "created_at"
    readonly_fields = ["created_at", "actor", "action", "target_user", "room", "message", "reason", "details"]

    def has_view_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("games.view_moderationlog")


# --- house variants ---------------------------------------------------------------------------------------


class HouseVariantForm(forms.ModelForm):
    """Name and game, then the game's rule settings as typed fields (never raw JSON)."""

    class Meta:
        model = HouseVariant
        fields = ["name", "description", "preset", "club", "active"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        preset = (self.data.get("preset") if self.is_bound else None) or self.instance.preset or \
            self.initial.get("preset") or "ten-half"
        if preset not in dict(self.fields["preset"].choices):
            preset = "ten-half"
        initial = rules_from(preset, self.instance.overrides or {}).to_json() if self.instance.pk and \
            self.instance.preset == preset else None
        self.rules_form = RulesForm(preset, self.data if self.is_bound else None, initial_rules=initial,
                                    prefix="rules")
        self.fields.update({f"rules-{name}": field for name, field in self.rules_form.fields.items()})

    def clean(self):
        data = super().clean()
        if not self.rules_form.is_valid():
            for name, errors in self.rules_form.errors.items():
                for error in errors:
                    self.add_error(f"rules-{name}" if name != "__all__" else None, error)
        return data

    def save(self, commit=True):
        self.instance.overrides = self.rules_form.overrides
        try:
            rules_from(self.instance.preset, self.instance.overrides)
        except RulesError as e:  # the form validated them; this only guards a preset changed under it
            raise ValueError(e.message) from None
        return super().save(commit)


@admin.register(HouseVariant)
class HouseVariantAdmin(admin.ModelAdmin):
    form = HouseVariantForm
    list_display = ["name", "preset", "club", "active", "created_by", "created_at"]
    list_filter = ["preset", "active", ("club", admin.EmptyFieldListFilter)]
    search_fields = ["name"]

    def get_fieldsets(self, request, obj=None):
        form = self.form(instance=obj, initial={"preset": request.GET.get("preset")})
        rules = [name for name in form.fields if name.startswith("rules-")]
        return [(None, {"fields": ["name", "description", "preset", "club", "active"]}),
                (_("Rule settings (change the game, save, then adjust)"), {"fields": rules})]

    def get_form(self, request, obj=None, change=False, **kwargs):
        return self.form

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


# --- clubs -------------------------------------------------------------------------------------------------


class ClubMemberInline(admin.TabularInline):
    model = ClubMember
    fields = ["user", "role", "joined_at", "muted_until"]
    readonly_fields = ["joined_at"]
    raw_id_fields = ["user"]
    extra = 0


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "join_code", "open_joining", "members_create_rooms", "members_count",
                    "created_at", "dissolved_at"]
    list_filter = ["open_joining", ("dissolved_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "owner__username", "join_code"]
    readonly_fields = ["invite_token", "join_code", "created_at", "dissolved_at"]
    raw_id_fields = ["owner"]
    inlines = [ClubMemberInline]

    @admin.display(description=gettext_lazy("members"))
    def members_count(self, club):
        return club.members.count()


@admin.register(ClubJoinRequest)
class ClubJoinRequestAdmin(admin.ModelAdmin):
    list_display = ["club", "user", "status", "created_at", "decided_by", "decided_at"]
    list_filter = ["status"]
    search_fields = ["club__name", "user__username"]
    readonly_fields = ["club", "user", "status", "created_at", "decided_by", "decided_at"]


@admin.register(GameSetting)
class GameSettingAdmin(admin.ModelAdmin):
    """Per-game platform switches: a game marked not available in clubs cannot open there."""

    list_display = ["preset", "available_in_clubs"]
    list_editable = ["available_in_clubs"]


# --- the dashboard on the admin index --------------------------------------------------------------------


def dashboard() -> dict:
    hour_ago = timezone.now() - timedelta(hours=1)
    return {
        "open_rooms": Room.objects.filter(status=Room.Status.OPEN).count(),
        "seated_players": Seat.objects.filter(left_at__isnull=True, user__is_bot=False).count(),
        "hands_last_hour": Hand.objects.filter(ended_at__gte=hour_ago).count(),
        "open_reports": Report.objects.filter(status=Report.Status.OPEN).count(),
        "rooms_by_game": list(Room.objects.filter(status=Room.Status.OPEN).values("preset")
                              .annotate(n=Count("pk", filter=Q(status=Room.Status.OPEN))).order_by("preset")),
    }


_index = admin.site.index


def _index_with_dashboard(request, extra_context=None):
    return _index(request, {**(extra_context or {}), "dashboard": dashboard()})


admin.site.index = _index_with_dashboard
