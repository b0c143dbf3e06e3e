"""Error tracking: with SENTRY_DSN the Sentry SDK is on for Django and Celery and what it sends
holds no email and no birth date; without it, sentry_sdk is never imported. Each in a process of
its own (settings are read once, and the SDK patches Django for the life of a process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from django.conf import settings

from veyltak_site.errors import scrub

EMAIL = "someone.private@example.com"
BIRTH = "2001-02-03"

# Settings loaded with SENTRY_DSN pointing at nothing that listens; the client's transport is
# then swapped for one that keeps the envelopes, a request fails with both secrets in its
# body and its error, a log line names an email, and what would have been sent is printed.
WITH_SENTRY = f"""
import json, logging
import django
django.setup()
import sentry_sdk
from sentry_sdk.transport import Transport
from django.test import Client
import accounts.services

client = sentry_sdk.get_client()
sent = []

class Kept(Transport):
    def capture_envelope(self, envelope):
        for item in envelope.items:
            payload = item.payload
            sent.append(payload.json if payload.json is not None else payload.get_bytes().decode())

client.transport = Kept(client.options)

def failing(**kwargs):
    raise RuntimeError("age check broke for {EMAIL} born {BIRTH}")

accounts.services.age_check = failing
answer = Client(raise_request_exception=False).post(
    "/api/v1/age-check/?dob={BIRTH}",
    {{"birth_date": "{BIRTH}", "contact": "{EMAIL}"}},
    content_type="application/json",
)
logging.getLogger("veyltak.test").error("could not mail %s", "{EMAIL}")
client.flush(timeout=5)
print(json.dumps({{
    "status": answer.status_code,
    "pii": client.options["send_default_pii"],
    "before_send": client.options["before_send"].__module__,
    "integrations": sorted(client.integrations),
    "sent": sent,
}}))
"""

WITHOUT_SENTRY = """
import sys
import django
django.setup()
from django.test import Client
Client().get("/healthz")
import veyltak_site.celery, game.tasks, veyltak_site.urls  # everything a process loads
print(sorted(m for m in sys.modules if m.startswith(("sentry_sdk", "veyltak_site.errors"))))
"""


def run(script: str, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "SENTRY_DSN"}
    environ.update(ALLOWED_HOSTS="testserver,localhost", **env)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_with_sentry_dsn_events_carry_no_email_and_no_birth_date():
    out = json.loads(run(WITH_SENTRY, SENTRY_DSN="http://public@127.0.0.1:9/1"))
    assert out["status"] == 500
    assert out["pii"] is False and out["before_send"] == "veyltak_site.errors"
    assert {"django", "celery"} <= set(out["integrations"])
    events = [
        e for e in out["sent"] if isinstance(e, dict) and (e.get("exception") or e.get("logentry"))
    ]
    assert len(events) >= 2, out["sent"]
    text = json.dumps(out["sent"])
    assert EMAIL not in text and "someone.private" not in text
    assert BIRTH not in text
    assert "[email]" in text and "[date]" in text  # scrubbed, not merely absent
    crash = next(e for e in events if e.get("exception"))
    assert crash["exception"]["values"][-1]["type"] == "RuntimeError"
    assert crash["request"]["data"]["birth_date"] == "[date]"
    assert "cookies" not in crash["request"] and "user" not in crash
    frames = [f for v in crash["exception"]["values"] for f in v["stacktrace"]["frames"]]
    assert frames and not any("vars" in f for f in frames)  # no local variables


def test_without_sentry_dsn_sentry_sdk_is_never_imported():
    assert run(WITHOUT_SENTRY) == "[]"


def test_scrub_reaches_every_string_of_an_event():
    event = {
        "message": f"mail {EMAIL} failed",
        "exception": {"values": [{"value": f"IntegrityError: Key (lower(email))=({EMAIL})"}]},
        "breadcrumbs": {"values": [{"message": f"signed up {EMAIL}", "data": {"n": 1}}]},
        "extra": {"dateOfBirth": BIRTH, "date_of_birth": BIRTH, "when": "2026-12-01T10:00:00Z"},
        "request": {
            "data": {"birth_date": BIRTH, "dob": BIRTH, "day": BIRTH, "email": EMAIL},
            "query_string": f"born={BIRTH}",
            "url": "http://testserver/accounts/signup/",
        },
    }
    text = json.dumps(scrub(event))
    assert EMAIL not in text and BIRTH not in text
    # A timestamp is no birth date, and events need theirs.
    assert "2026-12-01T10:00:00Z" in text and '"n": 1' in text
