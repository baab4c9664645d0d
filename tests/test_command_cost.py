"""`benchmarks/command_cost.py --state`: what a command spends on the table's whole state and meta, measured on the
rows it is given, on PostgreSQL with a scratch table that it always drops."""

import importlib.util
from pathlib import Path

import orjson
import pytest
from django.db import connection

_spec = importlib.util.spec_from_file_location(
    "command_cost", Path(__file__).resolve().parent.parent / "benchmarks" / "command_cost.py")
command_cost = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(command_cost)

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _scratch_tables() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE 'hp_state_cost_%%'")
        return [name for (name,) in cursor.fetchall()]


def _rows(users) -> list[tuple[bytes, bytes]]:
    from games import services
    from games.models import Table
    from wallets.models import Currency

    room = services.room_create(host=users[0], preset="ten-half", currency=Currency.POINTS)
    rows = []
    for user in users:
        services.action_submit(room_id=room.pk, user=user, action="sit", args={"buy_in": room.buy_in_max})
        table = Table.objects.get(pk=room.pk)
        rows.append((orjson.dumps(table.state), orjson.dumps(table.meta)))
    return rows


def test_the_state_parts_are_measured_on_the_rows_given_and_the_scratch_table_is_dropped(django_user_model):
    rows = _rows([django_user_model.objects.create_user(f"cc{i}") for i in range(3)])
    parts = command_cost.state_parts(rows, rounds=2, updates=20)
    assert parts["rows"] == 3
    assert parts["state_bytes"] == round(sum(len(s) for s, _m in rows) / 3)
    assert parts["meta_bytes"] == round(sum(len(m) for _s, m in rows) / 3)
    assert all(parts[k] > 0 for k in ("parse_us", "encode_us", "engine_copy_us"))
    # Measured where the backend is on this machine (CI's is), and the scratch table gone either way.
    assert parts["write_us"] is not None and parts["read_us"] is not None
    assert _scratch_tables() == []


def test_a_failed_measurement_still_drops_its_scratch_table(django_user_model, monkeypatch):
    rows = _rows([django_user_model.objects.create_user("cc-fail")])
    calls = iter(range(100))

    def failing_backend_cpu():  # the second reading (inside the UPDATE loop) fails
        if next(calls) >= 2:
            raise OSError("gone")
        return 1, 0.0

    monkeypatch.setattr(command_cost, "backend_cpu", failing_backend_cpu)
    with pytest.raises(OSError):
        command_cost.state_parts(rows, rounds=1, updates=5)
    assert _scratch_tables() == []
