"""Play's Quick heist starts at the level played last instead of going back to Rookie (issue
26): a guest's last heist in this browser, a player's on any device; a featured heist (the
slot's level, not the player's choice) leaves it; a level asked for in the address wins."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import time_machine
from django.test import Client

from game.models import FeaturedSlot, Heist
from game.services import featured as featured_services
from tests.support.featured import T0, start_featured
from tests.support.heists import age_checked_client, play_out, start

pytestmark = pytest.mark.django_db


def _quick(client: Client, path: str = "/play/") -> dict[str, str]:
    """The hidden fields of the Quick heist form, and the line naming what it starts."""
    html = client.get(path).content.decode()
    form = re.search(r'<section class="quick-heist".*?</form>', html, flags=re.S)[0]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    fields["summary"] = re.search(r'id="quick-summary">([^<]*)<', form)[1]
    checked = re.search(r'name="difficulty" id="difficulty-([a-z]+)"[^>]*checked', html)
    fields["picker"] = checked[1] if checked else ""
    return fields


def test_a_guests_quick_heist_starts_at_the_level_played_last(guest):
    first = _quick(guest)
    assert first["difficulty"] == "rookie" and "Rookie" in first["summary"]
    play_out(guest, start(guest, difficulty="safecracker"), seed=1)
    quick = _quick(guest)
    assert quick["difficulty"] == "safecracker" and "Safecracker" in quick["summary"]
    # The set-up's own difficulty row starts there too.
    assert quick["picker"] == "safecracker"
    # One tap plays it again at that level.
    fields = {k: v for k, v in quick.items() if k not in ("summary", "picker")}
    assert guest.post("/play/", fields).status_code == 302
    assert Heist.objects.order_by("-created_at").first().difficulty == "safecracker"
    start(guest, difficulty="hustler")  # in play counts too: it is the level last chosen
    assert _quick(guest)["difficulty"] == "hustler"
    # Asked for in the address: that level.
    assert _quick(guest, "/play/?difficulty=kingpin")["difficulty"] == "kingpin"


def test_a_players_level_follows_them_to_another_browser(player):
    user, client = player
    start(client, difficulty="kingpin")
    other = Client()
    other.force_login(user)
    assert _quick(other)["difficulty"] == "kingpin"
    # Another visitor's heists never set it.
    assert _quick(age_checked_client())["difficulty"] == "rookie"


def test_a_featured_heist_leaves_the_quick_level_as_it_was(long_sessions, player, settings):
    _user, client = player
    start(client, difficulty="safecracker")
    settings.FEATURED_SLOT_MINUTES = 60
    with time_machine.travel(T0 + dt.timedelta(minutes=5), tick=True):
        featured_services.featured_reconcile()
        slot = FeaturedSlot.objects.get(starts_at=T0)
        assert slot.difficulty == "hustler"  # the rotation's first slot
        start_featured(client, slot.slug)
        assert _quick(client)["difficulty"] == "safecracker"
