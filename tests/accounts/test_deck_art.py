"""The deck art of the Spanish-suited deck (accounts.models.DECK_ART): kept on the user, chosen in the profile form,
refused when it is not one of the choices, and carried to every page on <html data-deck-art> for static/js/cards.js."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.forms import ProfileForm
from accounts.models import DECK_ART

User = get_user_model()
pytestmark = pytest.mark.django_db

CHOICES = ["", "baraja", "napoletane", "letters"]
BAD = ["piacentine", "Napoletane", " baraja", "baraja ", "french", "0", "<script>", "napoletane" * 3, "\u0000"]


def make(username="lola", **fields):
    return User.objects.create_user(username, f"{username}@example.com", "pw-long-enough-1", **fields)


def test_the_choices_are_the_language_default_and_three_arts():
    assert [value for value, _label in DECK_ART] == CHOICES


def test_a_new_user_follows_the_language_and_a_choice_is_kept():
    user = make()
    assert user.deck_art == ""
    for art in CHOICES:
        user.deck_art = art
        user.full_clean()
        user.save()
        user.refresh_from_db()
        assert user.deck_art == art


@pytest.mark.parametrize("bad", BAD)
def test_the_model_refuses_an_art_outside_the_choices(bad):
    user = make(deck_art="letters")
    user.deck_art = bad
    with pytest.raises(ValidationError) as e:
        user.full_clean()
    assert "deck_art" in e.value.message_dict


@pytest.mark.parametrize("art", CHOICES)
def test_the_form_takes_each_choice(art):
    user = make(deck_art="letters")
    form = ProfileForm({"display_name": "Lola", "avatar_colour": "#2a9d8f", "deck_art": art}, instance=user)
    assert form.is_valid(), form.errors
    form.save()
    user.refresh_from_db()
    assert user.deck_art == art


@pytest.mark.parametrize("bad", BAD)
def test_the_form_refuses_bad_input_and_changes_nothing(bad):
    user = make(deck_art="baraja")
    form = ProfileForm({"display_name": "Lola", "avatar_colour": "#2a9d8f", "deck_art": bad}, instance=User.objects.get(pk=user.pk))
    assert not form.is_valid()
    assert list(form.errors) == ["deck_art"]
    user.refresh_from_db()
    assert (user.deck_art, user.display_name) == ("baraja", "")


def test_the_profile_page_saves_the_choice_and_every_page_carries_it(client):
    user = make(language="it")
    client.force_login(user)
    page = client.get(reverse("profile")).content.decode()
    assert 'name="deck_art"' in page and "js/deck-art.js" in page
    assert "data-deck-art" not in page  # no choice: cards.js follows the page's language
    r = client.post(reverse("profile"), {"display_name": "Lola", "avatar_colour": "#2a9d8f", "deck_art": "baraja"})
    assert r.status_code == 302
    user.refresh_from_db()
    assert user.deck_art == "baraja"
    assert 'data-deck-art="baraja"' in client.get(reverse("games:lobby")).content.decode()


@pytest.mark.parametrize("bad", ["piacentine", "<script>"])
def test_the_profile_page_refuses_bad_input_with_the_reason(client, bad):
    user = make(deck_art="napoletane")
    client.force_login(user)
    r = client.post(reverse("profile"), {"display_name": "Changed", "avatar_colour": "#2a9d8f", "deck_art": bad})
    assert r.status_code == 200
    assert r.context["form"].errors.as_data()["deck_art"][0].code == "invalid_choice"
    user.refresh_from_db()
    assert (user.deck_art, user.display_name) == ("napoletane", "")
