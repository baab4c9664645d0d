import pytest
from django.contrib.auth.models import Group, Permission
from django.test import Client
from django.urls import reverse

from wallets import services
from wallets.models import Currency, Transaction
from wallets.selectors import balances_for

from .conftest import BONUS, CEILING, WELCOME, key, make_player

pytestmark = pytest.mark.django_db


def test_the_wallet_page_needs_a_login(client):
    r = client.get(reverse("wallets:wallet"))
    assert r.status_code == 302 and reverse("account_login") in r["Location"]


def test_the_wallet_page_shows_balances_on_tables_and_each_movement(client, alice, bob):
    a = services.hold_create(user=alice, currency="beans", amount=400, seat_ref="room:42:seat:1", idempotency_key=key())
    b = services.hold_create(user=bob, currency="beans", amount=400, seat_ref="room:42:seat:2", idempotency_key=key())
    services.hand_settle(
        currency="beans",
        movements={a.pk: -30, b.pk: 30},
        idempotency_key=key(),
        memo="Ten and a Half, hand 7",
        hand_ref="room-42-hand-7",
    )
    client.force_login(alice)
    page = client.get(reverse("wallets:wallet")).content.decode()
    assert f"<td>{WELCOME - 400}</td><td>370</td>" in page
    assert f"<td>{CEILING}</td><td>0</td>" in page
    # One line per movement, in words; the ledger's own references and memos stay inside (test_history.py).
    assert "A hand" in page and '<span class="n">−30</span> beans' in page and "Buy-in" in page
    assert "room-42-hand-7" not in page and "room:42:seat:1" not in page


def test_the_daily_bonus_button_claims_once_a_day(client, alice):
    client.force_login(alice)
    assert client.get(reverse("wallets:daily_bonus")).status_code == 405
    client.post(reverse("wallets:daily_bonus"))
    r = client.post(reverse("wallets:daily_bonus"), follow=True)
    assert "already claimed" in r.content.decode()
    assert balances_for(alice)["beans"]["available"] == WELCOME + BONUS


def test_the_buttons_need_the_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(reverse("wallets:daily_bonus")).status_code == 403
    assert balances_for(alice)["beans"]["available"] == WELCOME


def test_the_refill_button_tops_points_up(client, alice):
    services.hold_create(user=alice, currency="points", amount=120, seat_ref="s:1", idempotency_key=key())
    client.force_login(alice)
    r = client.post(reverse("wallets:points_refill"), follow=True)
    assert "+120" in r.content.decode()
    r = client.post(reverse("wallets:points_refill"), follow=True)
    assert "already at the ceiling" in r.content.decode()
    assert balances_for(alice)["points"]["available"] == CEILING


# --- admin ----------------------------------------------------------------------------


def test_the_ledger_admin_is_read_only(client, admin_user, alice):
    client.force_login(admin_user)
    txn = Transaction.objects.filter(kind="welcome").first()
    assert client.get(reverse("admin:wallets_transaction_changelist")).status_code == 200
    assert client.get(reverse("admin:wallets_transaction_change", args=[txn.pk])).status_code == 200
    assert client.get(reverse("admin:wallets_entry_changelist")).status_code == 200
    assert client.get(reverse("admin:wallets_account_changelist")).status_code == 200
    assert client.get(reverse("admin:wallets_transaction_add")).status_code == 403
    assert client.post(reverse("admin:wallets_transaction_delete", args=[txn.pk]), {"post": "yes"}).status_code == 403
    assert Transaction.objects.filter(pk=txn.pk).exists()


def test_a_superuser_adjusts_through_the_admin_once_even_if_the_form_is_sent_twice(client, admin_user, alice):
    client.force_login(admin_user)
    form = client.get(reverse("admin:wallets_transaction_adjust")).context["form"]
    data = {
        "username": "alice",
        "currency": Currency.BEANS,
        "amount": "-75",
        "reason": "reported bug #3",
        "idempotency_key": form.initial["idempotency_key"],
    }
    r1 = client.post(reverse("admin:wallets_transaction_adjust"), data)
    r2 = client.post(reverse("admin:wallets_transaction_adjust"), data)
    assert r1.status_code == r2.status_code == 302
    adjustment = Transaction.objects.get(kind="adjustment")
    assert (adjustment.created_by, adjustment.memo) == (admin_user, "reported bug #3")
    assert balances_for(alice)["beans"]["available"] == WELCOME - 75


def test_the_adjustment_form_needs_a_reason_and_a_real_player(client, admin_user):
    client.force_login(admin_user)
    r = client.post(
        reverse("admin:wallets_transaction_adjust"),
        {"username": "nobody", "currency": "beans", "amount": "5", "reason": " ", "idempotency_key": "adjustment:1"},
    )
    assert r.status_code == 200 and {"username", "reason"} <= set(r.context["form"].errors)
    assert not Transaction.objects.filter(kind="adjustment").exists()


def test_a_moderator_cannot_adjust_from_the_admin(client, alice):
    moderator = make_player("mod", is_staff=True)
    group, _created = Group.objects.get_or_create(name="Moderators")
    group.permissions.set(Permission.objects.filter(content_type__app_label="wallets"))
    moderator.groups.add(group)
    client.force_login(moderator)
    assert client.get(reverse("admin:wallets_transaction_changelist")).status_code == 200  # may read
    assert "Adjust a wallet" not in client.get(reverse("admin:wallets_transaction_changelist")).content.decode()
    r = client.post(
        reverse("admin:wallets_transaction_adjust"),
        {"username": "alice", "currency": "beans", "amount": "5", "reason": "gift", "idempotency_key": "adjustment:2"},
    )
    assert r.status_code == 403
    assert not Transaction.objects.filter(kind="adjustment").exists()
