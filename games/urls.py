from django.urls import path

from . import again_views, ledger_views, rules_code_views, spectator_views, views

app_name = "games"

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("lobby/create/", views.create, name="create"),
    path("lobby/practice/", views.practice, name="practice"),
    path("join/", views.join, name="join"),
    path("join/<slug:token>/", views.invite, name="invite"),
    path("r/<str:code>/", views.room, name="room"),
    path("r/<str:code>/sit/", spectator_views.room_sit, name="room_sit"),
    path("r/<str:code>/hands/", views.room_hands, name="room_hands"),
    path("r/<str:code>/hands/<int:number>/", views.room_hand, name="room_hand"),
    path("r/<str:code>/chain/", views.room_chain, name="room_chain"),
    path("r/<str:code>/chain.json", views.room_chain_json, name="room_chain_json"),
    path("r/<str:code>/ledger/", ledger_views.room_ledger, name="room_ledger"),
    path("r/<str:code>/ledger.json", ledger_views.room_ledger_json, name="room_ledger_json"),
    path("r/<str:code>/ledger.csv", ledger_views.room_ledger_csv, name="room_ledger_csv"),
    path("r/<str:code>/settle.png", ledger_views.room_settle_png, name="room_settle_png"),
    path("r/<str:code>/ledger/share/", ledger_views.room_ledger_share, name="room_ledger_share"),
    path("r/<str:code>/ledger/share/revoke/", ledger_views.room_ledger_share_revoke, name="room_ledger_share_revoke"),
    path("r/<str:code>/again/", again_views.room_again, name="room_again"),
    path("nights/", again_views.past_nights, name="past_nights"),
    path("settle/<slug:token>/", ledger_views.ledger_shared, name="ledger_shared"),
    path("settle/<slug:token>.png", ledger_views.ledger_shared_png, name="ledger_shared_png"),
    path("records/", views.records, name="records"),
    path("records.csv", views.records_csv, name="records_csv"),
    path("hands/shared/<slug:token>/", views.hand_shared, name="hand_shared"),
    path("hands/shared/<slug:token>/record.json", views.hand_shared_json, name="hand_shared_json"),
    path("hands/<slug:key>/", views.hand, name="hand"),
    path("hands/<slug:key>/record.json", views.hand_json, name="hand_json"),
    path("hands/<slug:key>/share/", views.hand_share, name="hand_share"),
    path("hands/<slug:key>/share/revoke/", views.hand_share_revoke, name="hand_share_revoke"),
    path("rules/<slug:preset>/", views.rules, name="rules"),
    path("rules/code/<str:code>/", rules_code_views.rules_code, name="rules_code"),
    path("rules/code/<str:code>/qr.svg", rules_code_views.rules_code_qr, name="rules_code_qr"),
    path("rules/code/<str:code>/create/", rules_code_views.rules_code_create, name="rules_code_create"),
    path("verify/", views.verify, name="verify"),
    path("verify/distribution/", views.distribution_view, name="distribution"),
]
