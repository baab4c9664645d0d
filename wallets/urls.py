from django.urls import path

from . import views

app_name = "wallets"

urlpatterns = [
    path("", views.wallet, name="wallet"),
    path("daily-bonus/", views.daily_bonus, name="daily_bonus"),
    path("points-refill/", views.points_refill, name="points_refill"),
]
