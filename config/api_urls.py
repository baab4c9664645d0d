"""The JSON API under /api/ (docs/api.md): the account's endpoints (accounts/api.py) and the games' (games/api.py).
Any other /api/ path answers a JSON 404, not the site's HTML page."""

from django.urls import path, re_path

from accounts import api as accounts_api
from accounts import push_api
from games import api as games_api
from games import rules_code_api, spectator_api

app_name = "api"

urlpatterns = [
    path("tokens/", accounts_api.sign_in, name="sign_in"),
    path("tokens/current/", accounts_api.sign_out, name="sign_out"),
    path("me/", accounts_api.me, name="me"),
    path("push/subscribe/", push_api.subscribe, name="push_subscribe"),
    path("push/unsubscribe/", push_api.unsubscribe, name="push_unsubscribe"),
    path("push/preferences/", push_api.preferences, name="push_preferences"),
    path("games/", games_api.games, name="games"),
    path("rooms/", games_api.rooms, name="rooms"),
    path("rooms/<str:code>/", games_api.room, name="room"),
    path("rooms/<str:code>/hands/", games_api.room_hands, name="room_hands"),
    path("rooms/<str:code>/seat/", spectator_api.room_seat, name="room_seat"),
    path("records/", games_api.records, name="records"),
    path("hands/<slug:key>/", games_api.hand, name="hand"),
    path("rules/codes/", rules_code_api.rules_codes_make, name="rules_codes"),
    path("rules/codes/<str:code>/", rules_code_api.rules_code, name="rules_code"),
    re_path(r"^(?P<path>.*)$", accounts_api.not_found),
]
