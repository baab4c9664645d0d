"""A run's setup in the command's process (Django): the account pool, their logins over HTTP, the rooms."""

from __future__ import annotations

import http.client
import logging
import random
import re
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from http.cookies import SimpleCookie
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password
from django.contrib.sessions.models import Session
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from games import services
from games.models import Room
from loadgen import LoadTestError
from loadgen.targets import Target
from wallets import services as wallets
from wallets.models import Account, Currency

SEATS = 4
POOL_PREFIX = "loadtest-"
# Turn timers as long as the rules allow: a timeout applied while a client's command is on its way would
# turn that command into an error frame that says nothing about the server's speed.
LONG_TIMERS = {"bet_seconds": 600, "act_seconds": 600, "bank_seconds": 600}
LOGINS_PER_ADDRESS = 4  # allauth: 30 logins a minute and 5 attempts under way (login_failed) per address


def ensure_accounts(count: int) -> list:
    """The first `count` accounts of the pool, created when missing, with at least half their points."""
    User = get_user_model()
    names = [f"{POOL_PREFIX}{i:05d}" for i in range(count)]
    existing = {u.username: u for u in User.objects.filter(username__in=names)}
    for name in names:
        if name not in existing:
            # No usable password yet: one is set right before a login (log_in below).
            existing[name] = User.objects.create_user(name, f"{name}@loadtest.invalid", None,
                                                      display_name=f"Load {name[len(POOL_PREFIX):]}")
    users = [existing[n] for n in names]
    balances = dict(Account.objects.filter(user__in=users, currency=Currency.POINTS, kind=Account.Kind.AVAILABLE)
                    .values_list("user_id", "balance"))
    for u in users:
        if balances.get(u.pk, 0) < settings.PRACTICE_POINTS_CEILING // 2:
            wallets.points_refill(user=u)
    return users


def reusable_sessions(users) -> dict[int, str]:
    """user id -> the key of a valid session of that user (made by an earlier run's HTTP login)."""
    wanted = {str(u.pk): u for u in users}
    found: dict[int, str] = {}
    quiet = logging.getLogger("django.security.SuspiciousSession")
    level, quiet.level = quiet.level, logging.CRITICAL  # sessions signed with another SECRET_KEY: not ours to use
    try:
        sessions = [(s.session_key, s.get_decoded()) for s in
                    Session.objects.filter(expire_date__gt=timezone.now() + timedelta(hours=1)).iterator()]
    finally:
        quiet.level = level
    for key, data in sessions:
        u = wanted.get(str(data.get(SESSION_KEY)))
        if u is not None and constant_time_compare(data.get(HASH_SESSION_KEY, ""), u.get_session_auth_hash()):
            found[u.pk] = key
    return found


def _set_cookies(response) -> dict[str, str]:
    jar = SimpleCookie()
    for header in response.headers.get_all("Set-Cookie") or []:
        jar.load(header)
    return {name: morsel.value for name, morsel in jar.items()}


def http_login(target: Target, username: str, password: str, source: str | None = None) -> str:
    """Log in through allauth's form (GET for the CSRF token, POST the form); returns the session cookie."""
    conn = http.client.HTTPConnection(target.host, target.port, timeout=120,
                                      source_address=(source, 0) if source else None)
    try:
        conn.request("GET", "/accounts/login/")
        r = conn.getresponse()
        page = r.read().decode(errors="replace")
        cookies = _set_cookies(r)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if r.status != 200 or token is None or settings.CSRF_COOKIE_NAME not in cookies:
            raise LoadTestError(f"login page of {target.http}: HTTP {r.status} (is it a HalfPoint server on plain "
                                "HTTP? with DEBUG=0 set SECURE_SSL_REDIRECT=0 behind no proxy)")
        form = urlencode({"csrfmiddlewaretoken": token.group(1), "login": username, "password": password})
        conn.request("POST", "/accounts/login/", body=form, headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"{settings.CSRF_COOKIE_NAME}={cookies[settings.CSRF_COOKIE_NAME]}",
            "Origin": target.http, "Referer": f"{target.http}/accounts/login/",
        })
        r = conn.getresponse()
        page = r.read().decode(errors="replace")
        session = _set_cookies(r).get(settings.SESSION_COOKIE_NAME)
        if r.status not in (302, 303) or not session:
            why = re.search(r'(?s)class="errorlist[^>]*>(.*?)</ul>', page)
            why = re.sub(r"<[^>]+>", " ", why.group(1)).strip() if why else ""
            raise LoadTestError(f"login of {username} at {target.http} failed: HTTP {r.status} {why}".strip())
        return session
    finally:
        conn.close()


class QuickHasher(PBKDF2PasswordHasher):
    # The server verifies a stored hash with the iterations written in it, then upgrades it to the full count:
    # it still pays one full hash per login, this process pays almost nothing to set passwords.
    iterations = 1_000


def log_in(users, targets: list[Target], *, fresh: bool = False, log=print) -> dict[int, str]:
    """user id -> session cookie: reused when valid, else a real login over HTTP."""
    cookies = {} if fresh else reusable_sessions(users)
    todo = [u for u in users if u.pk not in cookies]
    if not todo:
        return cookies
    passwords = {u.pk: uuid.uuid4().hex for u in todo}
    for u in todo:
        u.password = make_password(passwords[u.pk], hasher=QuickHasher())
    get_user_model().objects.bulk_update(todo, ["password"], batch_size=500)
    spread = all(t.host.startswith("127.") for t in targets)
    octet = random.randint(2, 254)  # a new set of addresses each run: allauth counts per address per minute

    def one(i_user):
        i, u = i_user
        k = i // LOGINS_PER_ADDRESS
        source = f"127.{octet}.{k // 250}.{k % 250 + 1}" if spread else None
        return u.pk, http_login(targets[i % len(targets)], u.username, passwords[u.pk], source)

    log(f"logging {len(todo)} accounts in over HTTP (one full password hash each on the server)...")
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=4 * len(targets)) as pool:
        for pk, cookie in pool.map(one, enumerate(todo)):
            cookies[pk] = cookie
    log(f"  {len(todo)} logins in {time.monotonic() - started:.1f} s")
    return cookies


def close_pool_rooms(room_ids: list[int] | None = None) -> int:
    """Close the given rooms, or every open room a pool account hosts (left by an interrupted run)."""
    rooms = Room.objects.filter(status=Room.Status.OPEN).select_related("host")
    rooms = rooms.filter(pk__in=room_ids) if room_ids is not None else rooms.filter(
        host__username__startswith=POOL_PREFIX)
    n = 0
    for room in rooms:
        services.room_close(room_id=room.pk, by=room.host)
        n += 1
    return n


def create_rooms(hosts, preset: str, overrides: dict | None):
    rules = {**LONG_TIMERS, **(overrides or {})}
    return [services.room_create(host=h, preset=preset, overrides=rules, currency=Currency.POINTS) for h in hosts]
