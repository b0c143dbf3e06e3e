"""VEYLTAK settings: one module, read from the environment.

Defaults are safe for a laptop: DEBUG off, SQLite (WAL, immediate transactions), a Celery broker
on disk and a file cache, so `make run` needs no servers. DATABASE_URL, CELERY_BROKER_URL and
REDIS_URL switch to PostgreSQL and Redis/RabbitMQ. See docs/configuration.md for every variable.
"""

import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from veyltak_site.env import (
    env_bool,
    env_choice,
    env_dir,
    env_float,
    env_int,
    env_list,
    env_networks,
    env_rate,
    env_str,
    env_token,
    env_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VEYLTAK_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)


def _local_secret_key() -> str:
    # Generated once per checkout and kept in var/ (ignored by git), so sessions survive restarts
    # without a secret ever being committed.
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = env_str("SECRET_KEY", "") or _local_secret_key()
if len(SECRET_KEY) < 32:
    raise ImproperlyConfigured("SECRET_KEY must be at least 32 characters long.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served by the app itself (strict CSP, no CDN)
    "allauth",
    "allauth.account",
    "allauth.mfa",  # staff sign in with a second factor (TOTP); accounts/admin.py
    "veyltak_site",
    "game",
    "accounts",
    "shop",
]

MIDDLEWARE = [
    # First: every answer gets its request id and is counted and timed, whoever made it.
    "veyltak_site.telemetry.RequestTelemetryMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "veyltak_site.headers.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After WhiteNoise, which answers static files with its own caching headers.
    "veyltak_site.middleware.PrivateCacheMiddleware",
    # Before CommonMiddleware: an unknown /api/ path is a JSON 404, not a slash redirect.
    "veyltak_site.middleware.RequestBoundaryMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "veyltak_site.urls"
# A refused post counts at the `csrf_refused` limit, then answers 429 (veyltak_site/csrf.py).
CSRF_FAILURE_VIEW = "veyltak_site.csrf.csrf_failure"
WSGI_APPLICATION = "veyltak_site.wsgi.application"
ASGI_APPLICATION = "veyltak_site.asgi.application"

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
                "django.template.context_processors.csp",
                "shop.context_processors.signs",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = env_url(
    "DATABASE_URL",
    f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
    schemes={"sqlite", "postgres", "postgresql", "pgsql"},
)
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0)
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers run beside the writer; IMMEDIATE takes the write lock when a transaction
    # starts, so two writers queue instead of failing half-way with "database is locked".
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
test_name = env_str("DATABASE_TEST_NAME", "")
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The tests' SQLite database is a file, not memory: the live server's threads and a worker
    # process each open a connection of their own (a database in memory shared between threads
    # locks whole tables: "database table is locked").
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"{test_name or 'test'}.sqlite3")}
elif test_name:
    DATABASES["default"]["TEST"] = {"NAME": test_name}
USING_POSTGRES = DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache (rate limits, age-gate locks) ------------------------------------------------------
REDIS_URL = env_url("REDIS_URL", "", schemes={"redis", "rediss"})
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "veyltak_site.cache.RedisCache", "LOCATION": REDIS_URL}}
    # Sessions (the guest id, the age gate's pass and lock) are read on every API request:
    # from Redis, written through to the database (which stays the record, so a cache flush
    # only costs a read). Saves one database query per request.
    SESSION_ENGINE = "veyltak_site.sessions"
else:
    # A real cache shared by every local process (web workers, Celery), unlike LocMemCache.
    CACHES = {
        "default": {
            "BACKEND": "veyltak_site.cache.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

# --- Celery -----------------------------------------------------------------------------------
CELERY_BROKER_URL = env_url(
    "CELERY_BROKER_URL",
    "filesystem://",
    schemes={"filesystem", "redis", "rediss", "amqp", "amqps", "pyamqp", "memory"},
)
if CELERY_BROKER_URL.startswith("filesystem://"):
    # The embedded broker: kombu's file transport with atomic writes, broken messages set aside
    # and one consumer per folder (veyltak_site/broker.py).
    BROKER_DIR = VAR_DIR / "broker"
    (BROKER_DIR / "queue").mkdir(parents=True, exist_ok=True)
    (BROKER_DIR / "control").mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT = "veyltak_site.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "control_folder": str(BROKER_DIR / "control"),
        # The default 1 s poll would make the player wait about a second for every rival plan.
        "polling_interval": 0.1,
    }
else:
    BROKER_DIR = None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# The longest Celery's timer thread sleeps (default 1 s): a stopping worker waits out that sleep.
CELERY_WORKER_TIMER_PRECISION = 0.2
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Tasks reuse the worker's database connection as requests do (CONN_MAX_AGE, health checks:
# veyltak_site/celery.py), instead of Celery's default of a new connection for every task.
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 10_000, minimum=0)
# Each worker records in the cache that it is alive every WORKER_HEARTBEAT_SECONDS; /healthz
# calls a worker silent for WORKER_SILENT_SECONDS "degraded" (heists still finish through the
# web fallback, only slower).
WORKER_HEARTBEAT_SECONDS = env_float("WORKER_HEARTBEAT_SECONDS", 5.0, minimum=0.1)
WORKER_SILENT_SECONDS = env_float("WORKER_SILENT_SECONDS", 30.0, minimum=1.0)
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULE: dict = {
    # Close heists nobody has sealed for HEIST_ABANDON_MINUTES (game.services).
    "abandon-stale-heists": {"task": "game.abandon_stale_heists", "schedule": 10 * 60.0},
    # Delete expired sessions (every guest visit can make one) and the age gate's records of
    # browsers long gone (accounts.services.sessions_clear_expired).
    "clear-expired-sessions": {"task": "accounts.clear_expired_sessions", "schedule": 60 * 60.0},
}

# --- Game -------------------------------------------------------------------------------------
# How old a night may get without a worker sealing the rival's plan before the heist view (which
# the board polls) seals it itself. No request waits: the seal route answers 409
# rival_not_sealed until the rival has sealed (DESIGN.md section 3, step 5).
RIVAL_FALLBACK_SECONDS = env_float("RIVAL_FALLBACK_SECONDS", 3.0)
# How long after a heist's end the result page and the debrief route wait for the worker's
# debrief before working it out themselves (DESIGN.md section 10; no worker, a lost task).
DEBRIEF_FALLBACK_SECONDS = env_float("DEBRIEF_FALLBACK_SECONDS", 20.0)
# The nice value of the thread that works a debrief out (0: the process's own), so debriefs
# yield the cores to requests and rival turns (game.services.debriefs.at_low_priority).
DEBRIEF_NICE = env_int("DEBRIEF_NICE", 10, minimum=0, maximum=19)
# Minutes without a seal after which an active heist is closed as abandoned.
HEIST_ABANDON_MINUTES = env_int("HEIST_ABANDON_MINUTES", 60 * 24, minimum=1)
# Heists one player (or guest browser) may have in play at once: starting another closes the
# oldest as abandoned (no Signs), as the Play page says.
HEIST_ACTIVE_MAX = env_int("HEIST_ACTIVE_MAX", 3, minimum=1)
# Length of a featured slot in minutes (DESIGN.md section 8): a day by default; tests and demos
# use short slots. At most a year (a typo with extra digits fails at start).
FEATURED_SLOT_MINUTES = env_int("FEATURED_SLOT_MINUTES", 60 * 24, minimum=1, maximum=525_600)
# The rotation's beat: every two minutes, or five times a slot when slots are shorter than ten
# minutes, so a short slot still closes (seed published, top places paid) soon after its end.
CELERY_BEAT_SCHEDULE["featured-reconcile"] = {
    "task": "game.featured_reconcile",
    "schedule": float(min(120, max(5, FEATURED_SLOT_MINUTES * 60 // 5))),
}

# --- Shop -------------------------------------------------------------------------------------
# How long a purchase's Idempotency-Key keeps its stored answer (DESIGN.md section 5: at least a
# day). A beat task removes older records every hour.
IDEMPOTENCY_KEY_HOURS = env_int("IDEMPOTENCY_KEY_HOURS", 24, minimum=24, maximum=24 * 90)
CELERY_BEAT_SCHEDULE["clear-idempotency-records"] = {
    "task": "shop.clear_idempotency_records",
    "schedule": 60 * 60.0,
}

# --- Rate limits (veyltak_site/throttling.py) ------------------------------------------------
# Per door, per kind of caller, "count/period" (30/10m: 30 per 10 minutes). Far above what a
# person playing does; they stop one client from queueing work for everyone (or guessing
# passwords). Counters live in the shared cache. RATE_<SCOPE>_<KIND> overrides one, e.g.
# RATE_HEIST_START_ADDRESS. An address may hold many players (a household, a school, a
# carrier's NAT): its limits are ten times a session's or more.
_RATE_DEFAULTS = {
    # Each start queues a rival turn. A heist takes minutes: 30 starts in 10 minutes is far
    # beyond play.
    "heist_start": ("30/10m", "200/10m"),
    # Featured starts queue rival turns like any start: their own door, the same size.
    "featured_start": ("30/10m", "200/10m"),
    # One seal a night, six nights a heist; the board sends a plan again while the rival is
    # still sealing (409 rival_not_sealed), a few times a night at most.
    "seal": ("120/m", "1200/m"),
    # A person confirms a date of birth once; a typo or two.
    "age_check": ("20/10m", "200/10m"),
    # Each purchase is a ledger write: a shopping spree is a few a minute.
    "purchase": ("30/10m", "300/10m"),
    # Sign-in posts (allauth's per-email limit on failures, ACCOUNT_RATE_LIMITS, stays too).
    "sign_in": ("20/10m", "100/10m"),
    # Sign-up posts: each can send a mail.
    "sign_up": ("10/h", "50/h"),
    # Posts the CSRF check refused (veyltak_site/csrf.py): a person meets one after a very
    # old page, not dozens.
    "csrf_refused": ("30/10m", "300/10m"),
}
RATE_LIMITS = {
    scope: {
        "session": env_rate(f"RATE_{scope.upper()}_SESSION", session),
        "address": env_rate(f"RATE_{scope.upper()}_ADDRESS", address),
    }
    for scope, (session, address) in _RATE_DEFAULTS.items()
}
# Proxies in front of the site that append to X-Forwarded-For (0: use REMOTE_ADDR as it is).
NUM_PROXIES = env_int("NUM_PROXIES", 0, minimum=0)
# allauth's own limits (sign-in, sign-up) count the same address: behind a proxy, without this,
# every player would share the proxy's address and its sign-in limit (docs/deploy.md).
ALLAUTH_TRUSTED_PROXY_COUNT = NUM_PROXIES

# --- Auth (django-allauth) --------------------------------------------------------------------
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
# The site's name in the account mails (accounts.adapter, templates/account/email/) and their
# subjects: never the host a request came in on.
SITE_NAME = "VEYLTAK"
ACCOUNT_EMAIL_SUBJECT_PREFIX = f"{SITE_NAME}: "
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
# Sign-up must not say which emails have accounts (allauth's enumeration prevention): an email
# already in use gets an "account already exists" mail and the same "check your email" answer
# as a new one. That holds only when no sign-up signs in before its email is confirmed, so
# verification is mandatory; confirming in the same browser signs the player in.
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_UNIQUE_EMAIL = True  # and the database enforces it, case-insensitively (accounts 0003)
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
# What allauth's messages call a player: the public handle, never anything from the email.
ACCOUNT_USER_DISPLAY = "accounts.selectors.user_display"
# allauth's own limits: failed sign-ins per email (its key) and per address, and its defaults
# for password resets and the like; all answer 429 `rate_limited` with Retry-After (the
# adapter, veyltak_site.urls.handler429). Sign-in and sign-up posts as such are counted by
# RATE_LIMITS["sign_in"/"sign_up"] (one mechanism, one answer), so allauth's are off.
ACCOUNT_RATE_LIMITS = {"login_failed": "5/5m/key,20/5m/ip", "login": None, "signup": None}
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
# The sign-up form asks for the date of birth (the age gate); see accounts/gate.py.
ACCOUNT_FORMS = {
    "signup": "accounts.forms.SignupForm",
    # Never an address another account holds, whatever its case (issue 27, S3).
    "add_email": "accounts.forms.AddEmailForm",
}
# A second factor: an authenticator app's time-based codes (TOTP), with recovery codes.
# Staff (who can grant Signs) must set one up before the admin lets them in
# (accounts/admin.py); players may. TOTP needs the `qrcode` package (its QR code).
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
MFA_TOTP_ISSUER = "VEYLTAK"
# Too many wrong codes answer 429 rate_limited with Retry-After, as every limited door does.
MFA_FORMS = {
    "authenticate": "accounts.forms.MFAAuthenticateForm",
    "reauthenticate": "accounts.forms.MFAReauthenticateForm",
}
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "/"
ACCOUNT_LOGOUT_REDIRECT_URL = "/"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Mail goes to the console unless SMTP is configured (EMAIL_HOST set).
if _smtp_host := env_str("EMAIL_HOST", ""):
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": _smtp_host,
                "port": env_int("EMAIL_PORT", 587, minimum=1),
                "username": env_str("EMAIL_HOST_USER", ""),
                "password": env_str("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_bool("EMAIL_USE_TLS", True),
            },
        }
    }
else:
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "VEYLTAK <no-reply@veyltak.invalid>")

# --- API --------------------------------------------------------------------------------------
# The largest request body under /api/ (413 payload_too_large above it, before it is read). No
# API body is near it: a heist start or a seal is well under a kilobyte. Pages keep Django's
# DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB), also answered 413 above it.
API_MAX_BODY_BYTES = env_int("API_MAX_BODY_BYTES", 64 * 1024, minimum=1024)
REST_FRAMEWORK = {
    # The session, with CSRF checked on unsafe methods for guests too (their session holds the
    # gate's verdict and their heists): every API view, unless it says otherwise.
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.CsrfSessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # DRF's JSON parser with a bound on nesting (deep JSON is 400 parse_error, not a 500).
    "DEFAULT_PARSER_CLASSES": ["veyltak_site.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "veyltak_site.exceptions.api_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "VEYLTAK API",
    "DESCRIPTION": "The JSON API of VEYLTAK, a heist card duel. Errors are "
    '`{"error": {"code", "message", "fields"?}}`.',
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # /api/v1/docs/ serves the sidecar's copy of Swagger UI from this site (CSP 'self').
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No call to an outside validator from the reference page.
    "SWAGGER_UI_SETTINGS": {"validatorUrl": None},
    # One name per choice set used by the heist API (game/presenters/).
    "ENUM_NAME_OVERRIDES": {
        "NightWinnerEnum": ["you", "rival"],
        "EngineSideEnum": ["player", "rival"],
        "HeistOutcomeEnum": ["win", "loss", "draw"],
        # A heist's status, in the heist view and a featured slot's `you`.
        "HeistStatusEnum": ["active", "finished", "abandoned"],
        # An encounter's vault modifier (its name from before the shop's kinds below).
        "KindEnum": ["fixed", "raise", "double", "closed"],
        # The shop's item kinds, and the cosmetic ones (what can be worn).
        "ItemKindEnum": "shop.models.ItemKind",
        "CosmeticKindEnum": "shop.models.COSMETIC_CHOICES",
    },
}

# --- Static files and security headers --------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
# WhiteNoise warns on every start when the folder is missing (before the first collectstatic).
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if env_bool("STATIC_PLAIN", False)
            else "veyltak_site.storage.StaticStorage"
        )
    },
}

SECURE_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "frame-ancestors": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "object-src": ["'none'"],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Behind a proxy that ends TLS and says so in X-Forwarded-Proto (and strips a client's own).
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Operators: logs, metrics, error tracking ---------------------------------------------------
# LOG_FORMAT=json: one JSON object per line, each with its request id (veyltak_site/logs.py), in
# the web and the Celery processes alike (veyltak_site.celery, gunicorn.conf.py).
LOG_FORMAT = env_choice("LOG_FORMAT", "plain", choices={"plain", "json"})
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "veyltak_site.logs.RequestIdFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "veyltak_site.logs.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# /metrics (veyltak_site/metrics_view.py): allowed with `Authorization: Bearer METRICS_TOKEN` or
# from METRICS_ALLOWED_IPS (addresses or networks, straight from there, through no proxy); a
# 404 to anyone else, and to everyone when neither is set.
METRICS_TOKEN = env_token("METRICS_TOKEN")
METRICS_ALLOWED_IPS = env_networks("METRICS_ALLOWED_IPS")
# prometheus_client's own variable, read when it is first imported: the folder where each
# process writes its figures for a scrape to add up (gunicorn's workers, Celery's pool).
# Checked here so that a typo stops start-up instead of the first request.
PROMETHEUS_MULTIPROC_DIR = env_dir("PROMETHEUS_MULTIPROC_DIR")

# Error tracking (Sentry) only when SENTRY_DSN is set; otherwise sentry_sdk is never imported.
SENTRY_DSN = env_url("SENTRY_DSN", "", schemes={"https", "http"})
SENTRY_ENVIRONMENT = env_str("SENTRY_ENVIRONMENT", "production")
if SENTRY_DSN:
    from veyltak_site.errors import sentry_init

    sentry_init(dsn=SENTRY_DSN, environment=SENTRY_ENVIRONMENT)
