from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.urls import include, path

from accounts import language
from accounts import views as account_views
from config.health import healthz
from config.pwa import manifest, offline, service_worker
from config.static import CompactJavaScriptCatalog
from games import views as games_views

# The admin's own login has no rate limit: send it through allauth's, which has one.
admin.autodiscover()
admin.site.login = secure_admin_login(admin.site.login)
admin.site.site_header = "HalfPoint administration"

urlpatterns = [
    path("", account_views.home, name="home"),
    path("healthz", healthz, name="healthz"),  # docs/deploy.md, "Health check"
    # The installable app (docs/deploy.md, "Installable app"): the worker at the root so that its scope is the site.
    path("manifest.webmanifest", manifest, name="manifest"),
    path("manifest.<str:lang>.webmanifest", manifest, name="manifest_in"),  # a page links its language's
    path("sw.js", service_worker, name="service_worker"),
    path("offline/", offline, name="offline"),
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("api/", include("config.api_urls")),  # the JSON API (docs/api.md)
    path("profile/", account_views.profile, name="profile"),
    path("profile/screen-reader/", account_views.screen_reader, name="screen_reader"),  # static/js/blind.js
    # The JS strings (gettext in static/js), in the visitor's language: the pages that check a deal load them all, the
    # others go without the check's sentences (a third of what the table page would load).
    path("jsi18n/", CompactJavaScriptCatalog.as_view(leave_out=(
        "fair-deal check", "house rule", "screen reader", "quick phrase", "night record", "buy-in approval", "table vote",
        "tv mode")),
         name="javascript-catalog"),
    # The house rules' words (static/js/house.js adds them to the page's catalog with their modules).
    path("jsi18n/house/", CompactJavaScriptCatalog.as_view(only=("house rule",)), name="javascript-catalog-house"),
    # The screen-reader mode's words (static/js/blind.js adds them to the page's catalog when the mode is on).
    path("jsi18n/blind/", CompactJavaScriptCatalog.as_view(only=("screen reader",)), name="javascript-catalog-blind"),
    # The quick phrases' words (static/js/phrases.js adds them to the page's catalog on the first phrase or tap).
    path("jsi18n/phrases/", CompactJavaScriptCatalog.as_view(only=("quick phrase",)), name="javascript-catalog-phrases"),
    # The closed table's words and the ledger's log and matrix (static/js/closed.js, ledger.js add them).
    path("jsi18n/night/", CompactJavaScriptCatalog.as_view(only=("night record",)), name="javascript-catalog-night"),
    # The words of buy-ins the host approves (static/js/buy-in-approval.js adds them with its first frame).
    path("jsi18n/approve/", CompactJavaScriptCatalog.as_view(only=("buy-in approval",)), name="javascript-catalog-approve"),
    # The words of the votes at the table (static/js/vote.js adds them with its module).
    path("jsi18n/vote/", CompactJavaScriptCatalog.as_view(only=("table vote",)), name="javascript-catalog-vote"),
    # Spectators by consent's words (static/js/tv.js adds them with its module).
    path("jsi18n/tv/", CompactJavaScriptCatalog.as_view(only=("tv mode",)), name="javascript-catalog-tv"),
    path("jsi18n/fair/", CompactJavaScriptCatalog.as_view(), name="javascript-catalog-fair"),
    # The language menu (templates/_language.html): the cookie, and the profile of a logged-in user.
    path("i18n/setlang/", language.set_language, name="set_language"),
    path("wallet/", include("wallets.urls")),
    path("rules/stats/", games_views.rules_stats_view, name="rules_stats"),
    path("clubs/", include("games.club_urls")),
    path("", include("games.urls")),
]
