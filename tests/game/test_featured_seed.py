"""A featured slot's seed (RULES.md "Featured heists"): nothing the site answers reveals it
before the slot closes, pages and errors included; once closed, it is published, matches the
commitment shown from the start, and ``python -m game.engine.replay`` verifies the slot's heists
with it.

Every response of a slot's life is kept (RecordingClient) and scanned for the seed and for the
heist key derived from it (which would give away every draw as well)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import subprocess
import sys

import pytest
import time_machine
from django.conf import settings as live_settings

from game.engine import heist_key
from game.models import FeaturedSlot, Heist
from game.services import featured as featured_services
from tests.support.featured import HOUR, T0, RecordingClient, recording_guest
from tests.support.heists import make_player, play_out, post

pytestmark = pytest.mark.django_db


def _secrets_of(slot: FeaturedSlot) -> list[str]:
    key = heist_key(slot.server_seed, "")
    return [slot.server_seed, slot.server_seed.upper(), key.hex()]


def _scan(responses, secrets: list[str]) -> int:
    for response in responses:
        body = response.content.decode("utf-8", "replace")
        headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
        for secret in secrets:
            where = f"{response.request['REQUEST_METHOD']} {response.request['PATH_INFO']}"
            assert secret not in body, f"seed in the body of {where} ({response.status_code})"
            assert secret not in headers, f"seed in the headers of {where}"
    return len(responses)


def _verify_offline(record: dict, tmp_path) -> subprocess.CompletedProcess:
    path = tmp_path / f"{record['id']}.json"
    path.write_text(json.dumps(record))
    return subprocess.run(
        [sys.executable, "-m", "game.engine.replay", str(path)],
        capture_output=True,
        text=True,
        cwd=live_settings.BASE_DIR,
        timeout=120,
    )


def test_seed_secret_for_the_whole_life_of_a_slot_then_published_and_verified(settings, tmp_path):
    settings.FEATURED_SLOT_MINUTES = 60
    log: list = []
    with time_machine.travel(T0 + dt.timedelta(minutes=1), tick=True) as clock:
        featured_services.featured_reconcile()
        slot = FeaturedSlot.objects.get(starts_at=T0)
        upcoming = FeaturedSlot.objects.get(starts_at=T0 + HOUR)
        secrets = _secrets_of(slot) + _secrets_of(upcoming)

        stranger = RecordingClient(log)  # no age check yet
        for path in ("/", "/featured/", f"/featured/{slot.slug}/", "/rules/", "/play/"):
            stranger.get(path)
        stranger.get("/api/v1/featured/")
        stranger.get(f"/api/v1/featured/{slot.slug}/leaderboard/")
        assert post(stranger, f"/api/v1/featured/{slot.slug}/heists/").status_code == 403

        guest = recording_guest(log)
        user, _ = make_player("seeker@example.com")
        player = RecordingClient(log)
        player.force_login(user)

        views = {}
        for name, client in (("guest", guest), ("player", player)):
            view = post(client, f"/api/v1/featured/{slot.slug}/heists/").json()
            client.get(f"/heists/{view['id']}/")
            views[name] = play_out(client, view, seed=3)
            hid = views[name]["id"]
            client.get(f"/api/v1/heists/{hid}/")
            replay = client.get(f"/api/v1/heists/{hid}/replay/")
            assert replay.status_code == 409
            assert replay.json()["error"]["code"] == "slot_not_closed"
            client.get(f"/heists/{hid}/result/")
            assert client.get(f"/heists/{hid}/replay/").status_code == 200
            client.get(f"/heists/{hid}/replay/?night=6")
            client.get("/api/v1/featured/")
            client.get(f"/api/v1/featured/{slot.slug}/leaderboard/?limit=100")
            client.get("/featured/")
            client.get(f"/featured/{slot.slug}/")
            client.get("/")
            client.get("/accounts/profile/")
        assert views["player"]["ranked"] is True
        # A practice heist in play, and errors of every kind.
        active = post(player, f"/api/v1/featured/{slot.slug}/heists/").json()
        player.get(f"/api/v1/heists/{active['id']}/")
        player.get(f"/api/v1/heists/{active['id']}/replay/")
        post(player, f"/api/v1/heists/{active['id']}/seal/", {"night": 4, "crew": []})
        post(player, f"/api/v1/heists/{active['id']}/seal/", {"night": 1, "crew": "x"})
        post(player, f"/api/v1/featured/{upcoming.slug}/heists/")  # not open: 409
        player.get(f"/api/v1/featured/{slot.slug}/leaderboard/?limit=1000")
        player.get(f"/api/v1/featured/{slot.slug}/replays/{views['player']['id']}/")
        player.get("/api/v1/featured/nope/leaderboard/")
        player.get("/api/v1/schema/")
        player.get("/accounts/export/")

        # The slot has ended; the beat has not run yet: still secret.
        clock.move_to(slot.ends_at + dt.timedelta(seconds=1))
        assert post(player, f"/api/v1/featured/{slot.slug}/heists/").status_code == 409
        player.get(f"/api/v1/heists/{views['player']['id']}/replay/")
        player.get(f"/featured/{slot.slug}/")
        player.get("/api/v1/featured/")
        player.post(f"/featured/{slot.slug}/play/", follow=True)
        scanned = _scan(log, secrets)
        assert scanned > 50

        # The beat closes it: published, matching the commitment shown from the start.
        featured_services.featured_reconcile()
        listing = player.get("/api/v1/featured/").json()
        past = next(s for s in listing["past"] if s["slug"] == slot.slug)
        assert past["server_seed"] == slot.server_seed
        assert hashlib.sha256(past["server_seed"].encode()).hexdigest() == past["seed_commitment"]
        assert past["seed_commitment"] == views["player"]["seed_commitment"]
        # The guest's was practice: a seed of its own (issue 27, S1).
        assert views["guest"]["seed_commitment"] != past["seed_commitment"]
        assert slot.server_seed in player.get(f"/featured/{slot.slug}/").content.decode()
        # The next slot's seed is still secret.
        _scan(log, _secrets_of(upcoming))

        for name, client in (("guest", guest), ("player", player)):
            record = client.get(f"/api/v1/heists/{views[name]['id']}/replay/").json()
            own = hashlib.sha256(record["server_seed"].encode()).hexdigest()
            assert own == views[name]["seed_commitment"] and record["client_seed"] == ""
            assert (record["server_seed"] == slot.server_seed) is (name == "player")
            result = _verify_offline(record, tmp_path)
            assert result.returncode == 0, result.stdout + result.stderr
            assert result.stdout.startswith("OK")
        # Anyone may verify a heist of the closed slot's board, without an account.
        public = RecordingClient(log).get(
            f"/api/v1/featured/{slot.slug}/replays/{views['player']['id']}/"
        )
        assert public.status_code == 200
        assert _verify_offline(public.json(), tmp_path).returncode == 0
        # A practice heist is not on the board: not public.
        other = RecordingClient(log).get(
            f"/api/v1/featured/{slot.slug}/replays/{views['guest']['id']}/"
        )
        assert other.status_code == 404
        # A tampered record fails.
        record = player.get(f"/api/v1/heists/{views['player']['id']}/replay/").json()
        record["server_seed"] = upcoming.server_seed
        assert _verify_offline(record, tmp_path).returncode == 1


def test_replay_api_never_serves_an_open_slots_heist(settings):
    settings.FEATURED_SLOT_MINUTES = 60
    with time_machine.travel(T0 + dt.timedelta(minutes=1), tick=True):
        featured_services.featured_reconcile()
        slot = FeaturedSlot.objects.get(starts_at=T0)
        _user, client = make_player("early@example.com")
        view = play_out(client, post(client, f"/api/v1/featured/{slot.slug}/heists/").json())
        assert Heist.objects.get(pk=view["id"]).featured_entry is not None
        answer = client.get(f"/api/v1/featured/{slot.slug}/replays/{view['id']}/")
        assert answer.status_code == 404
        assert slot.server_seed not in answer.content.decode()
