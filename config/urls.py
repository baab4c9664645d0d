from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.urls import include, path

from accounts import views as account_views

# The admin's own login has no rate limit: send it through allauth's, which has one.
admin.autodiscover()
admin.site.login = secure_admin_login(admin.site.login)
admin.site.site_header = "HalfPoint administration"

urlpatterns = [
    path("", account_views.home, name="home"),
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("profile/", account_views.profile, name="profile"),
    path("wallet/", include("wallets.urls")),
    path("", include("games.urls")),
]
