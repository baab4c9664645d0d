from django.urls import path

from . import views

app_name = "games"

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("r/<str:code>/", views.room, name="room"),
    path("join/<str:token>/", views.invite, name="invite"),
    path("records/", views.records, name="records"),
    path("hands/<int:pk>/", views.hand, name="hand"),
]
