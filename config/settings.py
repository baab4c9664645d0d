"""HalfPoint settings, read from the environment.

Every value has a safe development default so `make run` and `make test` work on a
machine with nothing but Python: SQLite, the in-memory channel layer and a Celery broker
in a SQLite file. Production sets DEBUG=0 and the variables in README.md.
"""

import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
_DEV_SECRET = "dev-only-insecure-key-do-not-use-in-production-0123456789abcdefghijklmnop"
SECRET_KEY = os.environ.get("SECRET_KEY") or _DEV_SECRET
if not DEBUG and SECRET_KEY == _DEV_SECRET:
    raise RuntimeError("SECRET_KEY must be set when DEBUG=0")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",  # first, so `runserver` is the ASGI server too
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "allauth",
    "allauth.account",
    "accounts",
    "wallets",
    "games",
    "loadgen",  # `manage.py loadtest` only; the product never imports it
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files, before anything a static file does not need
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.language.UserLanguageMiddleware",  # the language saved on the profile, over the browser's
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "accounts.middleware.BannedUserLogoutMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None
# `runserver` (daphne's): its WebSocket message limits, as the Procfile and deploy/systemd set them (games/arrivals.py,
# SERVER_MESSAGE_MAX).
DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE = DAPHNE_WEBSOCKET_MAX_FRAME_SIZE = 4 * 1024 * 1024

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "games.invite.context",  # the header's log-in and sign-up keep where the visitor was going
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite serialises writers; wait for the lock instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    # Every transaction takes the write lock when it begins: SQLite has no SELECT ... FOR UPDATE, so
    # this is what serialises commands on a table across the web process and the Celery worker.
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
    # A file, not memory, so a real server started by a test (tests/servers.py) shares it;
    # one per test process so two runs in one checkout do not delete each other's.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / f".test-db-{os.getpid()}.sqlite3")}
elif env_bool("DB_POOL", False):
    # psycopg's pool, a few connections per process shared by its threads: under daphne every request and
    # socket call runs in its own thread, so DB_CONN_MAX_AGE would keep one connection per thread until
    # PostgreSQL runs out, and 0 opens a new one per call (docs/performance.md, "A connection pool").
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django refuses persistent connections with a pool
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 2, "max_size": int(os.environ.get("DB_POOL_SIZE", "8")), "timeout": 30}
# A streaming replica of the primary, read by the pages that only read (records, hand records, leaderboards, rules);
# every write and the table's locked path stay on the primary (config/db_router.py; docs/deploy.md, "A read replica").
DATABASE_REPLICA_URL = os.environ.get("DATABASE_REPLICA_URL", "")
if DATABASE_REPLICA_URL:
    DATABASES["replica"] = {
        **dj_database_url.parse(DATABASE_REPLICA_URL, conn_max_age=DATABASES["default"]["CONN_MAX_AGE"]),
        "OPTIONS": dict(DATABASES["default"].get("OPTIONS", {})),
        "TEST": {"MIRROR": "default"},  # the tests' database has no replica: the alias reads the same one
    }
    MIDDLEWARE += ["config.db_router.PrimaryPinMiddleware"]  # a browser that has just written reads the primary
DATABASE_ROUTERS = ["config.db_router.ReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer, cache, Celery --------------------------------------
# REDIS_URL names one Redis server, or several separated by commas: the channel layer shards channels and groups
# over all of them (channels-redis `hosts`; it does not support Redis Cluster); the cache and Celery's broker use
# the first (docs/deploy.md, "Adding hosts").
REDIS_URLS = env_list("REDIS_URL", "")
REDIS_URL = REDIS_URLS[0] if REDIS_URLS else ""
if REDIS_URL:
    # REDIS_CHANNEL_LAYER picks channels-redis's layer: "core" (RedisChannelLayer, lists in Redis) or "pubsub"
    # (RedisPubSubChannelLayer). "pubsub" measures faster; "core" stays the default until the Redis-restart fault
    # tests have run on "pubsub" (docs/performance.md, "Channel layer").
    if os.environ.get("REDIS_CHANNEL_LAYER", "core") == "pubsub":
        CHANNEL_LAYERS = {
            "default": {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer", "CONFIG": {"hosts": REDIS_URLS}}
        }
    else:
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {"hosts": REDIS_URLS, "capacity": 1500, "expiry": 30},
            }
        }
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
    CELERY_BROKER_URL = REDIS_URL
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    # A table of the database, so the web process reads what the worker writes (the rules statistics' progress)
    # with no server; `make run` creates it (createcachetable), as the test runner does in the test database.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "django_cache"}}
    # Celery's messages in a SQLite file, each written and read in a transaction: no process can read one half
    # written, and the worker drops one it cannot read instead of stopping (config/broker.py). No task stores a
    # result (CELERY_TASK_IGNORE_RESULT), so there is no result backend.
    CELERY_BROKER_URL = "sqlite:///" + os.environ.get("CELERY_BROKER_DB", str(BASE_DIR / ".celery-broker.sqlite3"))
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {"connect_args": {"timeout": 20}}  # seconds to wait for another's write
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-task leaves the message for another worker
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Threads, not forked children: a wake is a short database transaction, and in a prefork child Celery's Django
# fixup closes the whole connection pool (DB_POOL=1) after every task, so each wake would open new PostgreSQL
# connections (docs/performance.md, "One pending wake per table; Celery on threads"). A killed worker's tasks
# come back either way (acks late).
CELERY_WORKER_POOL = "threads"
CELERY_WORKER_CONCURRENCY = 4
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
# The sweeper applies whatever a lost or late task left overdue, and arms the wakes coming within
# GAMES_WAKE_HORIZON_SECONDS (games/tasks.py).
GAMES_SWEEP_SECONDS = 3.0
CELERY_BEAT_SCHEDULE: dict = {"games-sweep": {"task": "games.sweep", "schedule": GAMES_SWEEP_SECONDS},
                              "games-distribution": {"task": "games.distribution_refresh", "schedule": 3600.0}}
CELERY_TIMEZONE = "UTC"

# --- Accounts ----------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = os.environ.get("ACCOUNT_EMAIL_VERIFICATION", "optional")
ACCOUNT_UNIQUE_EMAIL = True
# Confirming the address in the browser that signed up logs the player in and takes them where they were going
# (an invite's room: games/invite.py), instead of to a second log-in.
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
# allauth's rate limits are on by default and count in the cache (Redis in production);
# the admin login is routed through allauth's login in config/urls.py so it is limited too.
ACCOUNT_RATE_LIMITS = {
    "login_failed": "5/5m/ip,5/5m/key",
    "signup": "20/h/ip",
    "reset_password": "20/m/ip,5/m/key",
}
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"

# --- Email -------------------------------------------------------------------
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "HalfPoint <noreply@halfpoint.localhost>")

# --- i18n, static -------------------------------------------------------------
LANGUAGE_CODE = "en"
# Each language by its own name in its own script, as the language menu shows it in every language, never translated
# (accounts/templatetags/languages.py); docs/glossary.md holds the game terms.
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文"), ("it", "Italiano"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True
# Numbers in pages are grouped the reader's way (12,345 · 12.345); what a machine reads (an input's value, a data-*
# attribute, a hidden id) is written with |unlocalize. config/formats/ brings Django's Spanish and Chinese grouping in
# line with the browsers' (Intl, CLDR), so the server's pages and the table's scripts agree. Dates are shown in the
# viewer's own time zone by static/js/format.js, over the server's UTC text (accounts/templatetags/formats.py).
USE_THOUSAND_SEPARATOR = True
FORMAT_MODULE_PATH = ["config.formats"]
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
# The app serves its own static files (WhiteNoise), behind any proxy or none. With DEBUG=0 they are what collectstatic
# gathered: our scripts and stylesheets minified (config/static.py), compressed, with hashed names cached for a year.
# With DEBUG=1 (`make run`, the tests) WhiteNoise finds them where they are, under their plain names, with no
# collectstatic; the test runner's DEBUG=False does not change that, since these read the environment's DEBUG.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage" if DEBUG
                    else "config.static.MinifiedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# --- Security (production: DEBUG=0) --------------------------------------------
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the table's JS reads it for form posts
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# No inline script or style anywhere: templates load static files, and scripts set styles through the CSSOM
# (tests/e2e/test_csp.py). 'self' in connect-src covers the table's WebSocket, ws: and wss: on this host (CSP 3);
# img-src takes data: for the blank favicon. worker-src and manifest-src name what script-src and default-src allow, the
# service worker and the web app manifest (config/pwa.py), so a narrower default-src cannot drop them unnoticed.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "worker-src": [SELF],
        "manifest-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
# Browser features no page uses, off for every script.
PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: [] for feature in ("accelerometer", "camera", "display-capture", "geolocation", "gyroscope",
                                "magnetometer", "microphone", "midi", "payment", "usb")
}
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"daphne": {"level": "WARNING"}, "django.channels.server": {"level": "WARNING"}},
}

# --- HalfPoint -----------------------------------------------------------------
WELCOME_BEANS = int(os.environ.get("WELCOME_BEANS", "10000"))
DAILY_BONUS_BEANS = int(os.environ.get("DAILY_BONUS_BEANS", "1000"))
PRACTICE_POINTS_CEILING = int(os.environ.get("PRACTICE_POINTS_CEILING", "10000"))

# --- Web Push (accounts/push.py, games/notify.py; docs/deploy.md, "Push notifications") ----------------------
# The site's VAPID key pair, base64url: the public key as an uncompressed P-256 point (the browsers'
# applicationServerKey), the private key as its raw 32 bytes (or a PEM file's path); the subject a mailto: the push
# services may write to. Without all three no page offers notifications and nothing is queued.
VAPID_PUBLIC_KEY = os.environ.get("VAPID_PUBLIC_KEY", "")
VAPID_PRIVATE_KEY = os.environ.get("VAPID_PRIVATE_KEY", "")
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "")
# The push services a subscription may name (".example.com": its subdomains too). The server posts to whatever
# endpoint a browser sends, so any other host is refused: the site is no relay to an address of the sender's choice.
PUSH_SERVICE_HOSTS = env_list("PUSH_SERVICE_HOSTS", "fcm.googleapis.com,updates.push.services.mozilla.com,"
                                                    ".push.apple.com,.notify.windows.com")

# --- Live tables (games/) ---------------------------------------------------------------
GAMES_BOT_SECONDS = float(os.environ.get("GAMES_BOT_SECONDS", "1.0"))  # a bot's human-like pause
GAMES_NEXT_HAND_SECONDS = float(os.environ.get("GAMES_NEXT_HAND_SECONDS", "6.0"))  # time to read the results
# A table's wake further off than this gets no Celery task yet: a turn's timer is mostly beaten by the player, and a
# task sent for it would be one more for nothing. The beat sweeper (every GAMES_SWEEP_SECONDS) arms each wake once it
# comes within this horizon (games/services/clock.py, `sweep`): keep it well above GAMES_SWEEP_SECONDS.
GAMES_WAKE_HORIZON_SECONDS = float(os.environ.get("GAMES_WAKE_HORIZON_SECONDS", "10.0"))
# A seat away this long leaves the table and its chips go back to the wallet (docs/rules.md, "Away").
GAMES_AWAY_RELEASE_MINUTES = int(os.environ.get("GAMES_AWAY_RELEASE_MINUTES", "10"))
# How often each web process checks that its connections saw the latest table version (repairs a lost
# message; with the in-memory layer it is how Celery's moves reach the browser).
GAMES_RESYNC_SECONDS = float(os.environ.get("GAMES_RESYNC_SECONDS", "5.0" if REDIS_URL else "1.0"))
# Threads of a web process that run its sockets' database calls (games/consumers.py, `db`): commands of
# different tables wait for PostgreSQL side by side instead of one after another. 0, the default, keeps
# asgiref's single shared thread (SQLite serialises every command anyway); set it on PostgreSQL, as `make bench`
# does with 8 (docs/performance.md, "Database threads").
GAMES_DB_THREADS = int(os.environ.get("GAMES_DB_THREADS", "0"))
WALLETS_LIVE_SEAT_REFS = "games.selectors.live_seat_refs"
WALLETS_PLACES = "games.wallet_places.wallet_places"  # the wallet page's room and hand words
