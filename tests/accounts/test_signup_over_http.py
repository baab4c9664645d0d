"""A real daphne server: a visitor signs up, logs out and logs back in over HTTP."""

import http.cookiejar
import re
import urllib.parse
import urllib.request

import pytest

from tests.servers import daphne


class Browser:
    """Just enough of a browser: cookies, CSRF token, form posts, redirects."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> tuple[int, str, str]:
        with self.opener.open(self.base + path, timeout=15) as r:
            return r.status, r.geturl(), r.read().decode()

    def post(self, path: str, data: dict) -> tuple[int, str, str]:
        _, _, page = self.get(path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        body = urllib.parse.urlencode({"csrfmiddlewaretoken": token, **data}).encode()
        req = urllib.request.Request(self.base + path, data=body, headers={"Referer": self.base + path})
        with self.opener.open(req, timeout=15) as r:
            return r.status, r.geturl(), r.read().decode()


@pytest.mark.django_db(transaction=True)
def test_a_visitor_signs_up_and_logs_in_on_the_real_daphne_server():
    with daphne() as base:
        b = Browser(base)
        status, _, home = b.get("/")
        assert status == 200 and "Ten and a Half" in home

        status, url, page = b.post("/accounts/signup/", {
            "username": "mei", "email": "mei@example.com",
            "password1": "a-long-table-password", "password2": "a-long-table-password",
        })
        assert status == 200
        assert "/accounts/signup/" not in url, page[:2000]  # the form did not come back with errors
        _, _, profile = b.get("/profile/")
        assert "@mei" in profile

        b.post("/accounts/logout/", {})
        _, url, _ = b.get("/profile/")
        assert "/accounts/login/" in url  # logged out: the profile sends us to log in

        status, url, _ = b.post("/accounts/login/", {"login": "mei", "password": "a-long-table-password"})
        _, _, profile = b.get("/profile/")
        assert "@mei" in profile
