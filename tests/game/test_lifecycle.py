"""A heist's life beyond the six nights: abandoned heists are closed by the periodic task without
an award; a guest who signs up or signs in keeps their heists; a deleted account's heists stay,
anonymised; the profile's history rows."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from game.models import Heist
from game.presenters.profile import export_heists
from game.services.abandon import heists_abandon_stale
from game.tasks import abandon_stale_heists
from tests.support.heists import make_player, play_out, post, seal, start

pytestmark = [pytest.mark.django_db]


def _age(heist_id: str, minutes: int) -> None:
    Heist.objects.filter(pk=heist_id).update(
        last_activity_at=timezone.now() - timedelta(minutes=minutes)
    )


def test_periodic_task_closes_stale_heists_without_award(guest, settings):
    settings.HEIST_ABANDON_MINUTES = 60
    settings.HEIST_ACTIVE_MAX = 4  # four in play at once here (the cap has its own tests)
    stale, fresh = start(guest), start(guest)
    played = start(guest)
    response = seal(guest, played["id"], {"night": 1, "crew": []})
    assert response.status_code == 200
    done = play_out(guest, start(guest), seed=8)
    for heist_id in (stale["id"], played["id"], done["id"]):
        _age(heist_id, 61)
    _age(fresh["id"], 59)
    assert abandon_stale_heists() == 2  # the task the beat schedule runs
    status = dict(Heist.objects.values_list("id", "status"))
    assert {str(k): v for k, v in status.items()} == {
        stale["id"]: "abandoned",
        played["id"]: "abandoned",
        fresh["id"]: "active",
        done["id"]: "finished",
    }
    for heist_id in (stale["id"], played["id"]):
        heist = Heist.objects.get(pk=heist_id)
        assert heist.signs_awarded is None and heist.outcome == "" and heist.finished_at
        view = guest.get(f"/api/v1/heists/{heist_id}/").json()
        assert view["status"] == "abandoned" and view["phase"] == "finished"
        assert view["result"] is None and view["rival"]["commitment"] is None
        response = post(
            guest, f"/api/v1/heists/{heist_id}/seal/", {"night": view["night"], "crew": []}
        )
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "heist_finished"
    assert heists_abandon_stale(older_than=timedelta(minutes=60)) == 0  # idempotent


def test_beat_schedule_runs_the_abandon_task():
    from veyltak_site.celery import app

    entry = django_settings.CELERY_BEAT_SCHEDULE["abandon-stale-heists"]
    assert entry["task"] == abandon_stale_heists.name
    assert entry["task"] in app.tasks
    assert float(entry["schedule"]) <= 60 * 60


def test_guest_keeps_heists_after_signing_up(guest):
    """They stay the guest's until the new account signs in: confirming the email in this
    browser does (and claims them); the sign-up itself moves nothing (docs/security.md)."""
    from tests.support.accounts import confirm_email

    view = start(guest)
    password = "a long enough password 42"
    response = guest.post(
        "/accounts/signup/",
        {
            "email": "newcomer@example.com",
            "birth_date": "1988-05-05",
            "password1": password,
            "password2": password,
        },
    )
    assert response.status_code == 302, response.content
    assert Heist.objects.get(pk=view["id"]).user is None
    assert guest.get(f"/api/v1/heists/{view['id']}/").status_code == 200
    assert confirm_email(guest, "newcomer@example.com").status_code == 302
    heist = Heist.objects.get(pk=view["id"])
    assert heist.user is not None and heist.user.email == "newcomer@example.com"
    assert heist.guest_id == ""
    # Still theirs, through the account now.
    assert guest.get(f"/api/v1/heists/{view['id']}/").status_code == 200


def test_guest_keeps_heists_after_signing_in(guest):
    from allauth.account.models import EmailAddress

    user, _ = make_player("returning@example.com")
    # A confirmed address, as every account that can sign in has.
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    view = start(guest)
    assert Heist.objects.get(pk=view["id"]).user is None
    # Signing in through allauth's own sign-in page, as the browser does.
    response = guest.post(
        "/accounts/login/",
        {"login": "returning@example.com", "password": "a long enough password 42"},
    )
    assert response.status_code == 302, response.content
    assert guest.session["_auth_user_id"] == str(user.pk)
    heist = Heist.objects.get(pk=view["id"])
    assert heist.user == user and heist.guest_id == ""
    assert guest.get(f"/api/v1/heists/{view['id']}/").status_code == 200


def test_deleted_account_heists_are_kept_anonymised(player):
    from accounts.services import account_delete

    user, client = player
    view = play_out(client, start(client), seed=9)
    account_delete(user=user)
    heist = Heist.objects.get(pk=view["id"])
    assert heist.user is None and heist.guest_id == "" and heist.status == "finished"


def test_history_rows_for_the_profile(player):
    user, client = player
    done = play_out(client, start(client, encounter="hot-start"), seed=10)
    active = start(client, rival="split-circuit", difficulty="safecracker")
    rows = export_heists(user)
    assert [r["id"] for r in rows] == [active["id"], done["id"]]
    finished = rows[1]
    assert finished["encounter"] == "hot-start" and finished["status"] == "finished"
    assert finished["outcome"] == done["result"]["outcome"]
    assert finished["score"] == {"you": done["result"]["you"], "rival": done["result"]["rival"]}
    assert finished["replay_url"] == f"/api/v1/heists/{done['id']}/replay/"
    assert rows[0]["replay_url"] is None and rows[0]["score"] == {"you": 0, "rival": 0}
