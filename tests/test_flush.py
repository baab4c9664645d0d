"""Each transactional test starts from what Django's flush leaves (tests/flush.py): no row of the test before, and
the content types and permissions post_migrate makes."""

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType

from accounts.models import User
from games.models import Room
from tests.games.sockets import create_room


@pytest.mark.parametrize("turn", range(3))
@pytest.mark.django_db(transaction=True)
def test_each_transactional_test_starts_with_no_row_of_the_one_before(turn):
    assert not User.objects.exists() and not Room.objects.exists()
    assert ContentType.objects.filter(app_label="games", model="room").exists()
    assert Permission.objects.filter(codename="change_room").exists()
    create_room(User.objects.create_user(f"flush-{turn}"), "ten-half")  # a room, its table, the host's wallet
