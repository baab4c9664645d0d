from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .forms import ProfileForm
from .models import ApiToken
from .tokens import TokenError, token_create, token_revoke


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """The profile form, and the user's API tokens: a post with `token` creates ("create") or revokes ("revoke")
    one instead (docs/api.md, "Authentication")."""
    token_action = request.POST.get("token") if request.method == "POST" else None
    new_secret = None
    if token_action == "create":
        try:
            _token, new_secret = token_create(user=request.user, name=request.POST.get("token_name", ""))
        except TokenError as e:
            messages.error(request, e.message)
            return redirect("profile")
    elif token_action == "revoke":
        token_id = request.POST.get("token_id", "")
        if token_id.isascii() and token_id.isdigit() and token_revoke(user=request.user, token_id=int(token_id)):
            messages.success(request, _("Token revoked."))
        return redirect("profile")
    form = ProfileForm(request.POST if request.method == "POST" and token_action is None else None,
                       instance=request.user)
    if form.is_bound and form.is_valid():
        form.save()
        if "display_name" in form.changed_data:
            # The new name shows at every table the player sits at, live (a new version of each table).
            from games.services import display_name_sync

            display_name_sync(user=request.user)
        messages.success(request, _("Profile saved."))
        return redirect("profile")
    # The new secret is shown in this answer only: it is stored nowhere, as a hash.
    return render(request, "accounts/profile.html", {
        "form": form, "new_secret": new_secret,
        "tokens": ApiToken.objects.filter(user=request.user, revoked_at__isnull=True),
    })


@require_POST
def screen_reader(request: HttpRequest) -> JsonResponse:
    """The screen-reader mode on (`on=1`) or off (`on=0`) on the player's profile, from the table's menu or its V key
    (static/js/blind.js); the profile form sets it too. Any other value is refused (400) and changes nothing. Codes,
    not sentences: the page words them."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "not_logged_in"}, status=403)
    value = request.POST.get("on")
    if value not in ("0", "1"):
        return JsonResponse({"error": "bad_value"}, status=400)
    on = value == "1"
    if request.user.screen_reader != on:
        request.user.screen_reader = on
        request.user.save(update_fields=["screen_reader"])
    return JsonResponse({"on": on})
