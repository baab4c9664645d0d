import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse

User = get_user_model()


@pytest.fixture(autouse=True)
def _clear_rate_limits():
    cache.clear()
    yield
    cache.clear()


@pytest.mark.django_db
def test_home_page_says_what_the_site_is_and_links_to_sign_up_and_log_in(client):
    page = client.get("/").content.decode()
    assert "banker card games" in page
    assert reverse("account_signup") in page and reverse("account_login") in page


@pytest.mark.django_db
def test_profile_saves_display_name_and_avatar_colour(client):
    user = User.objects.create_user("lin", "lin@example.com", "pw-long-enough-1")
    client.force_login(user)
    r = client.post(reverse("profile"), {"display_name": "Lin the Bank", "avatar_colour": "#2a9d8f"})
    assert r.status_code == 302
    user.refresh_from_db()
    assert (user.display_name, user.avatar_colour, user.public_name) == ("Lin the Bank", "#2a9d8f", "Lin the Bank")


@pytest.mark.django_db
def test_profile_refuses_a_colour_outside_the_palette(client):
    user = User.objects.create_user("lin", "lin@example.com", "pw-long-enough-1")
    client.force_login(user)
    r = client.post(reverse("profile"), {"display_name": "x", "avatar_colour": "red"})
    assert r.status_code == 200 and "avatar_colour" in r.context["form"].errors
    user.refresh_from_db()
    assert user.display_name == ""


@pytest.mark.django_db
def test_repeated_failed_logins_are_rate_limited(client):
    User.objects.create_user("lin", "lin@example.com", "pw-long-enough-1")
    for _ in range(5):
        r = client.post(reverse("account_login"), {"login": "lin", "password": "wrong"})
        assert "Too many failed login attempts" not in r.content.decode()
    # After five failures even the right password is refused while the limit lasts.
    r = client.post(reverse("account_login"), {"login": "lin", "password": "pw-long-enough-1"})
    assert "Too many failed login attempts" in r.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_admin_login_goes_through_the_rate_limited_login(client):
    r = client.get("/admin/login/?next=/admin/")
    assert r.status_code == 302 and r["Location"].startswith(reverse("account_login"))


@pytest.mark.django_db
def test_password_reset_sends_an_email(client, mailoutbox):
    User.objects.create_user("lin", "lin@example.com", "pw-long-enough-1")
    client.post(reverse("account_reset_password"), {"email": "lin@example.com"})
    assert len(mailoutbox) == 1 and "lin@example.com" in mailoutbox[0].to


@pytest.mark.django_db
def test_sign_up_sends_an_email_verification(client, mailoutbox):
    client.post(reverse("account_signup"), {"username": "mei", "email": "mei@example.com",
                                            "password1": "a-long-table-password", "password2": "a-long-table-password"})
    assert User.objects.filter(username="mei").exists()
    assert any("mei@example.com" in m.to for m in mailoutbox)


@pytest.mark.django_db
def test_seed_demo_creates_accounts_only_in_an_empty_database():
    from django.core.management import call_command

    call_command("seed_demo")
    assert User.objects.filter(is_superuser=True, username="admin").exists()
    n = User.objects.count()
    call_command("seed_demo")
    assert User.objects.count() == n
