from django.urls import path

from . import views

app_name = "games"

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("lobby/create/", views.create, name="create"),
    path("lobby/practice/", views.practice, name="practice"),
    path("join/", views.join, name="join"),
    path("join/<str:token>/", views.invite, name="invite"),
    path("r/<str:code>/", views.room, name="room"),
    path("r/<str:code>/hands/", views.room_hands, name="room_hands"),
    path("r/<str:code>/hands/<int:number>/", views.room_hand, name="room_hand"),
    path("r/<str:code>/chain/", views.room_chain, name="room_chain"),
    path("r/<str:code>/chain.json", views.room_chain_json, name="room_chain_json"),
    path("records/", views.records, name="records"),
    path("records.csv", views.records_csv, name="records_csv"),
    path("hands/shared/<slug:token>/", views.hand_shared, name="hand_shared"),
    path("hands/shared/<slug:token>/record.json", views.hand_shared_json, name="hand_shared_json"),
    path("hands/<slug:key>/", views.hand, name="hand"),
    path("hands/<slug:key>/record.json", views.hand_json, name="hand_json"),
    path("hands/<slug:key>/share/", views.hand_share, name="hand_share"),
    path("hands/<slug:key>/share/revoke/", views.hand_share_revoke, name="hand_share_revoke"),
    path("rules/<slug:preset>/", views.rules, name="rules"),
    path("verify/", views.verify, name="verify"),
    path("verify/distribution/", views.distribution_view, name="distribution"),
]
