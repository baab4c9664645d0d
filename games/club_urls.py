from django.urls import path

from . import again_views
from . import club_views as views

app_name = "clubs"

urlpatterns = [
    path("", views.club_list, name="list"),
    path("join/", views.join_code, name="join_code"),
    path("invite/<slug:token>/", views.invite, name="invite"),
    path("<int:pk>/", views.club_page, name="club"),
    path("<int:pk>/join/", views.join, name="join"),
    path("<int:pk>/leave/", views.leave, name="leave"),
    path("<int:pk>/requests/<int:request_id>/", views.decide, name="decide"),
    path("<int:pk>/members/<int:user_id>/", views.member, name="member"),
    path("<int:pk>/settings/", views.settings_view, name="settings"),
    path("<int:pk>/dissolve/", views.dissolve, name="dissolve"),
    path("<int:pk>/rooms/", views.room_create, name="room_create"),
    path("<int:pk>/nights/", again_views.club_nights, name="nights"),
    path("<int:pk>/rules/", again_views.club_rules_save, name="rules_save"),
    path("<int:pk>/rules/<int:set_id>/delete/", again_views.club_rules_delete, name="rules_delete"),
]
