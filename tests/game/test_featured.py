"""Featured heists (issue 14): the rotation and its clock, ranked and practice, the bonus and
the payouts, the same heist for everyone in a slot, the routes and the pages.

The clock is moved with time-machine (never sleeps); slots are an hour long here
(FEATURED_SLOT_MINUTES = 60), starting at T0."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
import time_machine
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from game import catalogue
from game.catalogue import _data, build
from game.engine import get_ruleset
from game.models import FeaturedEntry, FeaturedSlot, Heist
from game.rivals.personas import get_persona
from game.selectors.featured import leaderboard_top
from game.services import featured as featured_services
from game.services.abandon import heist_abandon
from shop.economy import get_economy
from shop.models import Reason, Transaction
from shop.selectors import wallet_balance
from tests.support.featured import HOUR, T0, play_same, start_featured, without_nonces
from tests.support.heists import (
    make_player,
    play_out,
    post,
    start,
)
from veyltak_site.env import Rate, env_int

pytestmark = pytest.mark.django_db


@pytest.fixture
def clock(settings):
    settings.FEATURED_SLOT_MINUTES = 60
    with time_machine.travel(T0 + dt.timedelta(minutes=5), tick=True) as traveller:
        yield traveller


@pytest.fixture
def slot(clock) -> FeaturedSlot:
    featured_services.featured_reconcile()
    return FeaturedSlot.objects.get(starts_at=T0)


# --- Settings and data -----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0", "-5", "1_440", "1440.0", "24h", "٣٠", "525601", "1e3"])
def test_slot_minutes_parsed_strictly(monkeypatch, value):
    monkeypatch.setenv("FEATURED_SLOT_MINUTES", value)
    with pytest.raises(ImproperlyConfigured, match="FEATURED_SLOT_MINUTES"):
        env_int("FEATURED_SLOT_MINUTES", 1440, minimum=1, maximum=525_600)


def test_slot_minutes_default_and_a_bad_value_at_start_up():
    from tests.support.fresh import run_django

    code = "from django.conf import settings; print(settings.FEATURED_SLOT_MINUTES)"
    assert run_django(code, check=True, drop={"FEATURED_SLOT_MINUTES"}).stdout.split() == ["1440"]
    assert run_django(code, check=True, FEATURED_SLOT_MINUTES="90").stdout.split() == ["90"]
    refused = run_django(FEATURED_SLOT_MINUTES="1_440")
    assert refused.returncode != 0 and "FEATURED_SLOT_MINUTES" in refused.stderr


def test_twelve_encounters_use_every_modifier_kind():
    active = catalogue.active()
    assert len(active.encounters) >= 12
    kinds = set()
    for e in active.encounters.values():
        assert e.name.strip() and e.description.strip(), e.slug
        e.validate(active.ruleset)
        kinds |= {f"heat:{side}" for side in e.start_heat}
        kinds |= {m.kind for m in e.vault_mods}
    assert kinds >= {"heat:player", "heat:rival", "fixed", "raise", "double", "closed"}


def test_rotation_is_validated_on_load():
    active = catalogue.active()
    assert len(active.rotation) >= 2
    ring = [*list(active.rotation), active.rotation[0]]
    for before, after in itertools.pairwise(ring):
        assert before.encounter.slug != after.encounter.slug and before.rival != after.rival
    ruleset = get_ruleset()
    enc, decks = _data("encounters.json")["encounters"], _data("decks.json")["decks"]
    good = _data("featured.json")
    build(ruleset, enc, decks, good)
    repeats = {**good, "rotation": [good["rotation"][0], good["rotation"][0]]}
    with pytest.raises(ValueError, match="repeats"):
        build(ruleset, enc, decks, repeats)
    unknown = {
        **good,
        "rotation": [{**good["rotation"][0], "encounter": "nope"}, *good["rotation"]],
    }
    with pytest.raises(ValueError, match="unknown encounter"):
        build(ruleset, enc, decks, unknown)
    bad_deck = {**good, "rotation": [{**good["rotation"][0], "deck": ["spark"] * 12}]}
    with pytest.raises(Exception, match=r"copies|deck"):
        build(ruleset, enc, decks, bad_deck)


def test_picker_and_rules_page_list_every_encounter(guest):
    play = guest.get("/play/").content.decode()
    rules = guest.get("/rules/").content.decode()
    for e in catalogue.active().encounters.values():
        assert f'value="{e.slug}"' in play
        assert f'data-encounter="{e.slug}"' in rules
        assert e.name in rules


# --- The rotation ----------------------------------------------------------------------------


def test_reconcile_ten_times_makes_one_slot_per_start(clock):
    for _ in range(10):
        featured_services.featured_reconcile()
    slots = list(FeaturedSlot.objects.order_by("starts_at"))
    assert [s.starts_at for s in slots] == [T0, T0 + HOUR, T0 + 2 * HOUR]
    for before, after in itertools.pairwise(slots):
        assert after.starts_at == before.ends_at  # a chain, no gap, no overlap
        assert after.encounter_slug != before.encounter_slug and after.rival != before.rival
    assert [s.slug for s in slots] == ["2027-03-01-0900", "2027-03-01-1000", "2027-03-01-1100"]
    for s in slots:
        assert len(s.deck) == 12 and len(s.server_seed) == 64
        assert featured_services.seed_commitment(s.server_seed) == s.seed_commitment
    assert len({s.server_seed for s in slots}) == 3


def test_daily_slots_start_at_midnight(settings):
    settings.FEATURED_SLOT_MINUTES = 1440
    with time_machine.travel(dt.datetime(2027, 3, 1, 15, 30, tzinfo=dt.UTC), tick=False):
        done = featured_services.featured_reconcile()
    assert done.created == ["2027-03-01", "2027-03-02", "2027-03-03"]
    first = FeaturedSlot.objects.get(pk="2027-03-01")
    assert first.starts_at == dt.datetime(2027, 3, 1, tzinfo=dt.UTC)
    assert first.ends_at - first.starts_at == dt.timedelta(days=1)


def test_slots_open_and_close_on_time_each_once_across_many_ends(clock):
    """The clock crosses six slot ends, the beat running twice at each and skipping some: each
    slot opens at its start, refuses starts from its end, closes once, pays once."""
    player_user, player = make_player("runner@example.com")
    closed: list[str] = []
    played: dict[str, str] = {}
    for hour in range(6):
        at = T0 + hour * HOUR
        clock.move_to(at - dt.timedelta(seconds=1))
        done = featured_services.featured_reconcile()
        closed += done.closed
        upcoming = FeaturedSlot.objects.get(starts_at=at)
        # One second before its start: not open.
        assert start_featured(player, upcoming.slug, 409)["error"]["code"] == "slot_closed"
        clock.move_to(at)
        for _ in range(2 if hour % 2 else 1):
            closed += featured_services.featured_reconcile().closed
        view = start_featured(player, upcoming.slug)
        assert view["ranked"] is True
        view = play_out(player, view, seed=hour)
        played[upcoming.slug] = view["id"]
        # From its end on, refused, whether or not the beat has closed it yet.
        clock.move_to(upcoming.ends_at)
        assert start_featured(player, upcoming.slug, 409)["error"]["code"] == "slot_closed"
        assert FeaturedSlot.objects.get(pk=upcoming.slug).closed_at is None
    clock.move_to(T0 + 6 * HOUR + dt.timedelta(minutes=1))
    closed += featured_services.featured_reconcile().closed
    closed += featured_services.featured_reconcile().closed
    ended = FeaturedSlot.objects.filter(ends_at__lte=T0 + 6 * HOUR).values_list("slug", flat=True)
    assert len(closed) == len(set(closed))  # each closed once
    assert set(closed) == set(ended) >= set(played)
    payouts = Transaction.objects.filter(reason=Reason.FEATURED, key__startswith="featured:")
    assert sorted(t.key for t in payouts) == sorted(f"featured:{slug}" for slug in played)
    for slot in FeaturedSlot.objects.filter(pk__in=played):
        assert slot.closed_at is not None and slot.closed_at >= slot.ends_at
        assert [w["player"] for w in slot.winners] == [player_user.profile.handle]
        assert slot.winners[0]["signs"] == 150
    call_command("check_signs_ledger")


def test_close_pays_the_top_three_in_board_order_once(slot, clock):
    players = [make_player(f"p{i}@example.com") for i in range(4)]
    for i, (_, client) in enumerate(players):
        play_out(client, start_featured(client, slot.slug), seed=10 + i)
    board = leaderboard_top(slot=slot)
    assert len(board) == 4
    before = {u.pk: wallet_balance(user=u) for u, _ in players}
    clock.move_to(slot.ends_at + dt.timedelta(seconds=30))
    assert featured_services.featured_reconcile().closed == [slot.slug]
    # Again, three ways: the beat, the close itself, the command.
    assert featured_services.featured_reconcile().closed == []
    assert featured_services.featured_slot_close(slug=slot.slug) is False
    call_command("featured_reconcile", stdout=__import__("io").StringIO())
    paid = {u.pk: wallet_balance(user=u) - before[u.pk] for u, _ in players}
    expected = dict.fromkeys(paid, 0)
    for standing, amount in zip(board, (150, 100, 75), strict=False):
        expected[standing.user_id] = amount
    assert paid == expected
    payout = Transaction.objects.get(key=f"featured:{slot.slug}")
    assert payout.reason == Reason.FEATURED
    assert (
        Transaction.objects.filter(reason=Reason.FEATURED, key__startswith="featured:").count() == 1
    )
    slot.refresh_from_db()
    assert [w["rank"] for w in slot.winners] == [1, 2, 3]
    assert [w["user_id"] for w in slot.winners] == [s.user_id for s in board[:3]]
    call_command("check_signs_ledger")


def test_a_slot_without_ranked_finishes_closes_without_payout(slot, clock):
    clock.move_to(slot.ends_at)
    assert featured_services.featured_reconcile().closed == [slot.slug]
    slot.refresh_from_db()
    assert slot.winners == [] and slot.closed_at is not None
    assert not Transaction.objects.filter(key=f"featured:{slot.slug}").exists()


# --- Ranked and practice ---------------------------------------------------------------------


def test_first_signed_in_heist_ranked_later_practice_guests_never(slot, player, guest):
    _user, client = player
    first = start_featured(client, slot.slug)
    second = start_featured(client, slot.slug)
    assert (first["ranked"], second["ranked"]) == (True, False)
    assert first["featured"] == second["featured"] == slot.slug
    for _ in range(3):
        view = start_featured(guest, slot.slug)
        assert view["ranked"] is False and view["featured"] == slot.slug
    assert Heist.objects.filter(featured_slot=slot, ranked=True).count() == 1
    # An ordinary heist says so too.
    plain = start(client)
    assert plain["featured"] is None and plain["ranked"] is False


def test_guest_heist_claimed_at_sign_in_stays_practice(slot, guest):
    from game.services.heists import heists_claim_guest

    view = start_featured(guest, slot.slug)
    user, _ = make_player("claims@example.com")
    heist = Heist.objects.get(pk=view["id"])
    heists_claim_guest(user=user, guest_id=heist.guest_id)
    heist.refresh_from_db()
    assert heist.user_id == user.pk and heist.ranked is False


def test_abandoned_ranked_heist_keeps_the_attempt_used(slot, player):
    _user, client = player
    ranked = start_featured(client, slot.slug)
    assert heist_abandon(heist_id=ranked["id"]) == 1
    again = start_featured(client, slot.slug)
    assert again["ranked"] is False
    mine = client.get("/api/v1/featured/").json()["current"]["you"]
    assert mine == {"heist": ranked["id"], "ranked": True, "status": "abandoned", "score": 0}


def test_cap_on_heists_in_play_closes_practice_before_the_ranked_heist(slot, player, settings):
    settings.HEIST_ACTIVE_MAX = 3
    user, client = player
    ranked = start_featured(client, slot.slug)
    for _ in range(4):
        start(client)
    assert Heist.objects.get(pk=ranked["id"]).status == Heist.Status.ACTIVE
    assert Heist.objects.filter(user=user, status=Heist.Status.ACTIVE).count() == 3


def test_ranked_finish_earns_the_bonus_once_practice_nothing_more(slot, player):
    user, client = player
    ranked = play_out(client, start_featured(client, slot.slug), seed=1)
    practice = play_out(client, start_featured(client, slot.slug), seed=1)
    usual = ranked["result"]["signs_awarded"]
    assert usual > 0 and ranked["result"]["featured_bonus"] == 25
    assert practice["result"]["featured_bonus"] is None
    # Practice plays a seed of its own (issue 27, S1), so the same plans need not end the same
    # way: it earns the usual award for its own outcome, and no bonus.
    earned = practice["result"]["signs_awarded"]
    level, outcome = practice["rival"]["difficulty"], practice["result"]["outcome"]
    assert earned == get_economy().heist_signs(outcome=outcome, difficulty=level) > 0
    bonus = Transaction.objects.get(key=f"featured-heist:{ranked['id']}")
    assert bonus.reason == Reason.FEATURED
    assert wallet_balance(user=user) == usual + earned + 25
    entry = FeaturedEntry.objects.get(slot=slot)
    assert str(entry.heist_id) == ranked["id"] and entry.user_id == user.pk
    assert (entry.score, entry.rival_score) == (ranked["you"]["score"], ranked["rival"]["score"])
    # Finishing again is impossible; a second call of the hook pays nothing more.
    heist = Heist.objects.get(pk=ranked["id"])
    from game.selectors.heists import heist_snapshot
    from game.services.ranked import featured_heist_finished

    featured_heist_finished(heist=heist, state=heist_snapshot(heist).state)
    assert Transaction.objects.filter(key__startswith="featured-heist:").count() == 1
    assert wallet_balance(user=user) == usual + earned + 25
    call_command("check_signs_ledger")


def test_ranked_heist_finished_after_the_slot_does_not_count(slot, player, clock):
    _user, client = player
    view = start_featured(client, slot.slug)
    clock.move_to(slot.ends_at + dt.timedelta(seconds=5))
    view = play_out(client, view)
    assert view["ranked"] is True and view["result"]["featured_bonus"] is None
    assert not FeaturedEntry.objects.exists()
    assert client.get(f"/api/v1/featured/{slot.slug}/leaderboard/").json()["you"] is None


def test_featured_starts_have_their_own_limit(slot, player, settings):
    from django.core.cache import cache

    settings.RATE_LIMITS = {"featured_start": {"session": Rate(2, 600)}}
    cache.clear()  # the travelled clock meets the counters of an earlier run
    _user, client = player
    start_featured(client, slot.slug)
    start_featured(client, slot.slug)
    refused = post(client, f"/api/v1/featured/{slot.slug}/heists/")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert int(refused["Retry-After"]) >= 1
    page = client.post(f"/featured/{slot.slug}/play/")
    # The page's door answers as every limited door does (issue 16).
    assert page.status_code == 429 and int(page["Retry-After"]) >= 1
    assert 'data-error-code="rate_limited"' in page.content.decode()
    assert Heist.objects.filter(featured_slot=slot).count() == 2
    start(client)  # an ordinary start is another door


# --- The same heist for everyone -------------------------------------------------------------


def test_same_plans_give_identical_heists_other_plans_change_only_play(slot):
    _a_user, a = make_player("a@example.com")
    _b_user, b = make_player("b@example.com")
    _c_user, c = make_player("c@example.com")
    _d_user, d = make_player("d@example.com")
    views = [start_featured(x, slot.slug) for x in (a, b, c, d)]  # each one's ranked try
    assert all(v["ranked"] for v in views)
    opening = [(v["you"]["hand"], [x["loot"] for x in v["vaults"]]) for v in views]
    assert opening[0] == opening[1] == opening[2] == opening[3]
    assert {v["seed_commitment"] for v in views} == {slot.seed_commitment}
    done = [play_same(x, v) for x, v in zip((a, b, c), views, strict=False)]
    diverged = play_same(d, views[3], diverge_at=3)
    first = without_nonces(done[0]["history"])
    assert without_nonces(done[1]["history"]) == first
    assert without_nonces(done[2]["history"]) == first
    assert done[0]["result"]["outcome"] == done[1]["result"]["outcome"]
    # Different plans from night 3: nights 1 and 2 are the same heist, and from then on only
    # what play decides differs. Each night's loot comes from the seed alone.
    other = without_nonces(diverged["history"])
    assert other[:2] == first[:2]
    assert [n["loot"] for n in other] == [n["loot"] for n in first]
    assert other[2]["you"] != first[2]["you"]
    # The rival's stream is the slot's too: the same position, the same rival plan.
    assert other[2]["rival"]["heat_start"] == first[2]["rival"]["heat_start"]


# --- Routes ----------------------------------------------------------------------------------


def test_featured_route_shapes(slot, player):
    _user, client = player
    body = client.get("/api/v1/featured/").json()
    assert set(body) == {"current", "next", "past"}
    current = body["current"]
    assert current["slug"] == slot.slug and current["server_seed"] is None
    assert current["seed_commitment"] == slot.seed_commitment
    assert current["encounter"]["slug"] == slot.encounter_slug and len(current["deck"]) == 12
    assert current["you"] is None and current["closed"] is False
    assert set(body["next"]) == {
        "slug", "name", "starts_at", "ends_at", "encounter", "rival", "difficulty",
    }  # fmt: skip
    assert body["past"] == []


def test_unknown_slot_and_methods(slot, guest):
    assert post(guest, "/api/v1/featured/nope/heists/").json()["error"]["code"] == "not_found"
    answer = guest.get("/api/v1/featured/nope/leaderboard/")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
    assert guest.get(f"/api/v1/featured/{slot.slug}/heists/").status_code == 405
    assert guest.get("/featured/nope/").status_code == 404


def test_start_needs_the_age_check(slot, client):
    answer = post(client, f"/api/v1/featured/{slot.slug}/heists/")
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "age_check_required"


# --- Pages -----------------------------------------------------------------------------------


def test_home_page_shows_the_featured_heist_with_time_left(slot, clock, client):
    clock.move_to(slot.ends_at - dt.timedelta(minutes=42, seconds=10))
    page = client.get("/").content.decode()
    assert f'data-featured="{slot.slug}"' in page
    assert slot.name in page
    assert catalogue.active().encounter(slot.encounter_slug).name in page
    assert get_persona(slot.rival).name in page
    assert "42\xa0minutes" in page or "42 minutes" in page
    assert 'data-seconds-left="2530"' in page
    assert f'action="/featured/{slot.slug}/play/"' in page
    assert slot.server_seed not in page


def test_featured_page_play_ranked_then_practice(slot, player):
    user, client = player
    page = client.get("/featured/").content.decode()
    assert "Your first heist here is ranked" in page and slot.seed_commitment in page
    answer = client.post(f"/featured/{slot.slug}/play/")
    assert answer.status_code == 302
    heist = Heist.objects.get(featured_slot=slot)
    assert heist.ranked and answer["Location"] == f"/heists/{heist.pk}/"
    page = client.get("/featured/").content.decode()
    assert "this one is practice" in page
    view = play_out(client, client.get(f"/api/v1/heists/{heist.pk}/").json())
    page = client.get("/featured/").content.decode()
    assert 'id="your-rank"' in page and user.profile.handle in page
    assert f"{view['you']['score']} Loot" in page


def test_play_after_the_end_says_so(slot, player, clock):
    _user, client = player
    clock.move_to(slot.ends_at)
    answer = client.post(f"/featured/{slot.slug}/play/", follow=True)
    assert "is over" in answer.content.decode()
    assert not Heist.objects.exists()
