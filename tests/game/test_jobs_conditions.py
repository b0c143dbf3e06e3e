"""Every kind of job condition, true and false, on real heists: played through the API by plain
strategies (fixed seeds, so the same heists every run), stored, and read back from their stored
nights as the job service reads them. Each kind's count is checked against one worked out here
from the API's own heist views (another vocabulary: "you"/"rival", the history as sent), and
each kind must be met by one of the heists and missed by another.

Practice retries never count: their nights are never read for a job."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

from game.jobs import conditions
from game.jobs import pool as job_pool
from game.models import FeaturedSlot, Heist
from game.selectors.jobs import counting_heists, counts_for_jobs
from game.services import featured as featured_services
from tests.support.featured import start_featured
from tests.support.heists import fix_the_game_seeds, make_player, post
from tests.support.jobs import play

pytestmark = [pytest.mark.django_db, pytest.mark.jobs, pytest.mark.slow]

T0 = dt.datetime(2027, 3, 1, 9, 0, tzinfo=dt.UTC)


def _won(view, night):
    return [v for v in night["vaults"] if v["winner"] == "you"]


def _crew_at(night, vault):
    return [c["crew"] for c in night["you"]["crew"] if c["vault"] == vault]


def _win(view):
    return view["result"]["outcome"] == "win"


def _score(view):
    return view["you"]["score"], view["rival"]["score"]


# kind -> (the parameters the test gives it, the count worked out from the API's view).
ORACLE = {
    "finish": ({}, lambda v: 1),
    "win": ({}, lambda v: int(_win(v))),
    "vault": (
        {"vault": "crown-vault"},
        lambda v: sum(1 for n in v["history"] for w in _won(v, n) if w["slug"] == "crown-vault"),
    ),
    "crew": (
        {"crew": "ghost-locksmith"},
        lambda v: sum(
            1
            for n in v["history"]
            for w in _won(v, n)
            if "ghost-locksmith" in _crew_at(n, w["slug"])
        ),
    ),
    "encounter": ({}, lambda v: int(v["encounter"] is not None)),
    "featured": ({}, lambda v: int(v["featured"] is not None)),
    "boost_win": (
        {"boosts": 2},
        lambda v: int(_win(v) and sum(n["you"]["boost"] for n in v["history"]) >= 2),
    ),
    "quiet_win": ({}, lambda v: int(_win(v) and not any(n["you"]["boost"] for n in v["history"]))),
    "margin": ({"margin": 5}, lambda v: int(_win(v) and _score(v)[0] - _score(v)[1] >= 5)),
    "spread": ({"vaults": 2}, lambda v: sum(1 for n in v["history"] if len(_won(v, n)) >= 2)),
    "loot": ({}, lambda v: _score(v)[0]),
    "big_night": (
        {"loot": 6},
        lambda v: sum(1 for n in v["history"] if sum(w["loot"] for w in _won(v, n)) >= 6),
    ),
    "vaults": ({}, lambda v: sum(len(_won(v, n)) for n in v["history"])),
    "every_night": ({}, lambda v: int(all(_won(v, n) for n in v["history"]))),
    "comeback": (
        {"night": 3},
        lambda v: int(
            _win(v) and v["history"][2]["score"]["you"] < v["history"][2]["score"]["rival"]
        ),
    ),
    "cool_win": ({"heat": 1}, lambda v: int(_win(v) and v["history"][-1]["you"]["heat_end"] <= 1)),
    "rival": ({"rival": "furnace"}, lambda v: int(_win(v) and v["rival"]["slug"] == "furnace")),
    "double_up": (
        {},
        lambda v: sum(
            1 for n in v["history"] for w in _won(v, n) if len(_crew_at(n, w["slug"])) >= 2
        ),
    ),
    "hold": ({"loot": 13}, lambda v: int(_win(v) and _score(v)[1] <= 13)),
}

# The heists played, in order (strategy, then the start's body); the seeds are fixed.
CATALOGUE = [
    ("greedy", {"rival": "furnace"}),
    ("pair", {"rival": "furnace"}),
    ("idle", {"rival": "quiet-hands", "encounter": "tower-blackout"}),
    ("boost-early", {"rival": "quiet-hands"}),
    ("boost-late", {"rival": "quiet-hands"}),
    ("boost-early", {"rival": "furnace"}),
    ("boost-late", {"rival": "furnace"}),
    ("boost-early", {"rival": "the-reader"}),
    ("greedy", {"rival": "quiet-hands", "difficulty": "hustler"}),
    ("greedy", {"rival": "furnace", "encounter": "tower-blackout"}),
    ("pair", "featured"),
]


@pytest.fixture(scope="module")
def played(django_db_setup, django_db_blocker):
    """The catalogue played once for the module (inside one transaction rolled back at its
    end): the API's last view of each heist, and each heist's facts as jobs read them."""
    from django.db import transaction

    with django_db_blocker.unblock(), transaction.atomic():
        monkeypatch = pytest.MonkeyPatch()
        try:
            yield _play_catalogue(monkeypatch)
        finally:
            monkeypatch.undo()
            transaction.set_rollback(True)


def _play_catalogue(monkeypatch):
    from django.conf import settings

    fix_the_game_seeds(monkeypatch, "jobs-conditions")
    monkeypatch.setattr(settings, "FEATURED_SLOT_MINUTES", 60)
    monkeypatch.setattr(settings, "RIVAL_FALLBACK_SECONDS", 0)
    with time_machine.travel(T0 + dt.timedelta(minutes=5), tick=False) as clock:
        featured_services.featured_reconcile()
        slot = FeaturedSlot.objects.get(starts_at=T0)
        user, client = make_player("conditions@example.com")
        views = []
        for strategy, body in CATALOGUE:
            clock.shift(dt.timedelta(seconds=30))
            if body == "featured":
                views.append(play(client, strategy, view=start_featured(client, slot.slug)))
            else:
                views.append(play(client, strategy, seed=1, **{"difficulty": "rookie", **body}))
        # A practice retry of the first heist, played to its end the way the first was won.
        retry = post(client, f"/api/v1/heists/{views[0]['id']}/retry/", {"night": 4})
        assert retry.status_code == 201, retry.content
        practice = play(client, "greedy", view=retry.json())
        facts = counting_heists(user_id=user.pk)
        return {"views": views, "facts": facts, "practice": practice, "user": user}


@pytest.mark.parametrize("kind", sorted(conditions.KINDS))
def test_each_kind_is_met_by_one_stored_heist_and_missed_by_another(played, kind):
    params, oracle = ORACLE[kind]
    levels = job_pool.levels()
    assert len(played["facts"]) == len(CATALOGUE)  # the practice retry is not among them
    counted = [conditions.steps(kind, params, f, levels) for f in played["facts"]]
    expected = [oracle(v) for v in played["views"]]
    assert counted == expected, f"{kind}: from the stored nights {counted}, from the API {expected}"
    if kind == "finish":
        # Every finished heist counts 1: the false case is a heist below the job's level.
        assert [
            conditions.steps(kind, {"level": "hustler"}, f, levels) for f in played["facts"]
        ] == [int(v["rival"]["difficulty"] != "rookie") for v in played["views"]]
        return
    assert any(counted), f"no heist of the catalogue meets {kind}"
    assert not all(counted), f"every heist of the catalogue meets {kind}"


def test_a_level_counts_that_level_and_harder_only(played):
    levels = job_pool.levels()
    facts, views = played["facts"], played["views"]
    hustler = [i for i, v in enumerate(views) if v["rival"]["difficulty"] == "hustler"]
    assert hustler and _win(views[hustler[0]])
    for level, counts in (("rookie", True), ("hustler", True), ("safecracker", False)):
        assert conditions.steps("win", {"level": level}, facts[hustler[0]], levels) == int(counts)


def test_the_kinds_are_at_least_fifteen_and_the_pool_uses_them_all():
    pool = job_pool.active()
    assert len(conditions.KINDS) >= 15
    used = {j.kind for j in (*pool.daily, *pool.weekly)}
    assert used == set(conditions.KINDS)


def test_a_practice_retry_never_counts(played):
    practice = Heist.objects.get(pk=played["practice"]["id"])
    assert practice.status == "finished" and practice.is_practice
    assert not counts_for_jobs(practice)
    assert str(practice.pk) not in {v["id"] for v in played["views"]}
    # Its result page says it earned nothing, and no job was paid by it.
    from shop.models import Transaction

    assert not Transaction.objects.filter(reference=f"heist:{practice.pk}").exists()
