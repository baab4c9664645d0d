"""The ledger in the admin is read-only. The one write is a moderator adjustment, which
goes through services.adjustment_create and is open to superusers only."""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _

from . import services
from .forms import AdjustmentForm
from .models import Account, Entry, Transaction


class ReadOnlyMixin:
    """For a ModelAdmin or an inline whose rows nobody adds, changes or deletes in the admin (the ledger
    here; games.admin's hands and moderation log too)."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class EntryInline(ReadOnlyMixin, admin.TabularInline):
    model = Entry
    fields = ["account", "amount"]
    readonly_fields = fields
    extra = 0


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "created_at", "kind", "currency", "memo", "hand_ref", "created_by"]
    list_filter = ["kind", "currency"]
    search_fields = ["idempotency_key", "memo", "hand_ref", "created_by__username"]
    readonly_fields = ["kind", "currency", "idempotency_key", "memo", "hand_ref", "created_by", "created_at"]
    inlines = [EntryInline]
    date_hierarchy = "created_at"

    def get_urls(self):
        return [
            path("adjust/", self.admin_site.admin_view(self.adjust_view), name="wallets_transaction_adjust"),
            *super().get_urls(),
        ]

    def changelist_view(self, request, extra_context=None):
        extra_context = {**(extra_context or {}), "can_adjust": request.user.is_superuser}
        return super().changelist_view(request, extra_context)

    def adjust_view(self, request):
        # Superusers only: moderators may read the ledger but never write to it.
        if not request.user.is_superuser:
            raise PermissionDenied
        form = AdjustmentForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                txn = services.adjustment_create(
                    user=data["user"],
                    currency=data["currency"],
                    amount=data["amount"],
                    reason=data["reason"],
                    by=request.user,
                    idempotency_key=data["idempotency_key"],
                )
            except services.WalletError as error:
                form.add_error(None, error.message)
            else:
                messages.success(request, _("Adjustment #%(id)s recorded.") % {"id": txn.pk})
                return redirect(reverse("admin:wallets_transaction_change", args=[txn.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Adjust a wallet"),
            "form": form,
        }
        return TemplateResponse(request, "admin/wallets/adjust.html", context)


@admin.register(Entry)
class EntryAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "transaction", "account", "amount"]
    list_select_related = ["transaction", "account"]
    search_fields = ["account__user__username", "transaction__hand_ref"]
    list_filter = ["account__currency", "account__kind"]


@admin.register(Account)
class AccountAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "kind", "currency", "user", "name", "seat_ref", "balance", "closed_at"]
    list_filter = ["kind", "currency"]
    search_fields = ["user__username", "seat_ref", "name"]
