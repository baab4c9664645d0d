"""A ban takes effect on open sessions too: the next request of a banned user logs them out."""

from django.contrib.auth import logout


class BannedUserLogoutMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and getattr(user, "is_banned", False):
            logout(request)
        return self.get_response(request)
