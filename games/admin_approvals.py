"""The admin's read-only list of buy-ins that waited for a host's approval (games/services/approvals.py): who asked,
in which room, for how much, and what the host answered. Registered by games/admin.py importing this module."""

from django.contrib import admin

from games.models import BuyInRequest
from wallets.admin import ReadOnlyMixin


@admin.register(BuyInRequest)
class BuyInRequestAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["room", "user", "kind", "amount", "asked_at", "deadline", "outcome", "answered_at"]
    list_filter = ["kind", "outcome"]
    search_fields = ["room__code", "user__username"]
    date_hierarchy = "asked_at"
    list_select_related = ["room", "user"]
