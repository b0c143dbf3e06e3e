"""What a finished heist earns (DESIGN.md section 6), decided by shop.services.signs_award from
what the game tells it: every cell of the table, the daily limit on the UTC day, nothing for
guests, abandoned or incomplete heists, and never twice for one heist."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from importlib import resources

import pytest

from shop import economy, selectors
from shop.models import Account, Entry, HeistEarning, Transaction
from tests.support.ledger import NOON, award, balance, new_user, wallet

pytestmark = pytest.mark.django_db

# DESIGN.md section 6, written out here so a changed data file fails this test.
TABLE = {
    "win": {"rookie": 10, "hustler": 20, "safecracker": 35, "kingpin": 60},
    "draw": {"rookie": 5, "hustler": 10, "safecracker": 17, "kingpin": 30},
    "loss": {"rookie": 3, "hustler": 5, "safecracker": 8, "kingpin": 12},
}
CELLS = [(o, d, signs) for o, row in TABLE.items() for d, signs in row.items()]


def ledger_rows() -> tuple[int, int, int, int]:
    return (
        Account.objects.filter(kind="wallet").count(),
        Transaction.objects.count(),
        Entry.objects.count(),
        HeistEarning.objects.count(),
    )


@pytest.mark.parametrize(("outcome", "difficulty", "signs"), CELLS)
def test_every_cell_of_the_table_pays_its_signs(user, outcome, difficulty, signs):
    heist_id = uuid.uuid4()
    result = award(user.pk, outcome=outcome, difficulty=difficulty, heist_id=heist_id)
    assert (result.amount, result.reason, result.replayed) == (signs, "earned", False)
    assert balance(user) == signs
    tx = Transaction.objects.get()
    assert (tx.reason, tx.key, tx.reference) == ("heist", f"heist:{heist_id}", f"heist:{heist_id}")
    amounts = {e.account.slug or "wallet": e.amount for e in tx.entries.select_related("account")}
    assert amounts == {"wallet": signs, "rewards": -signs}
    earning = HeistEarning.objects.get()
    assert (earning.heist_id, earning.user_id, earning.amount, earning.result) == (
        heist_id, user.pk, signs, "earned"
    )  # fmt: skip
    assert earning.economy == economy.CURRENT_VERSION and earning.transaction == tx


def test_the_table_is_versioned_data_with_the_designs_numbers():
    current = economy.get_economy()
    assert current.version == economy.CURRENT_VERSION
    assert {o: dict(row) for o, row in current.heist.items()} == TABLE
    assert (current.welcome, current.daily_heist_limit) == (100, 20)
    raw = json.loads(
        resources.files("shop").joinpath("data", "economy", f"{current.version}.json").read_text()
    )
    assert raw["version"] == current.version


def test_the_table_knows_exactly_the_games_difficulties():
    from game.rivals.personas import list_difficulties

    assert economy.get_economy().difficulties == tuple(d.slug for d in list_difficulties())


@pytest.mark.parametrize(
    "broken",
    [
        {"heist": {"win": {"rookie": 10}}},
        {"heist": {**TABLE, "win": {**TABLE["win"], "rookie": 0}}},
        {"heist": {**TABLE, "draw": {**TABLE["draw"], "kingpin": True}}},
        {"heist": {**TABLE, "loss": {"rookie": 3}}},
        {"welcome": -1},
        {"version": "2099.1"},
        {"surprise": 1},
    ],
)
def test_a_malformed_economy_file_is_refused(broken):
    data = {"version": "t", "welcome": 100, "daily_heist_limit": 20, "heist": TABLE, **broken}
    with pytest.raises(economy.EconomyError):
        economy.parse(data, version="t")


def test_an_unknown_difficulty_or_outcome_pays_nothing(user):
    with pytest.raises(economy.EconomyError):
        award(user.pk, difficulty="legend")
    with pytest.raises(economy.EconomyError):
        award(user.pk, outcome="forfeit")
    assert ledger_rows() == (0, 0, 0, 0)


def test_the_21st_heist_of_a_utc_day_records_0_with_the_reason(user):
    day_start = dt.datetime(2026, 12, 1, 0, 0, tzinfo=dt.UTC)
    for i in range(20):
        at = day_start + dt.timedelta(hours=i, minutes=59)
        assert award(user.pk, difficulty="kingpin", at=at).amount == 60
    assert balance(user) == 1200
    # 23:30 UTC the same day, written in another time zone: still that UTC day.
    late = dt.datetime(2026, 12, 2, 1, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    heist_id = uuid.uuid4()
    result = award(user.pk, difficulty="kingpin", at=late, heist_id=heist_id)
    assert (result.amount, result.reason) == (0, "daily_limit")
    earning = HeistEarning.objects.get(heist_id=heist_id)
    assert (earning.amount, earning.result, earning.transaction) == (0, "daily_limit", None)
    assert earning.day == dt.date(2026, 12, 1)
    assert award(user.pk, at=day_start + dt.timedelta(hours=23, minutes=59)).amount == 0
    assert balance(user) == 1200 and Transaction.objects.count() == 20
    # Midnight UTC starts a new day; another player's day is their own.
    assert award(user.pk, at=day_start + dt.timedelta(days=1)).amount == 10
    assert award(new_user().pk, at=late).amount == 10
    assert selectors.ledger_problems() == []


def test_guest_abandoned_and_incomplete_heists_write_nothing(user):
    guest = award(None, difficulty="kingpin")
    assert (guest.amount, guest.reason) == (None, "guest")
    abandoned = award(user.pk, outcome="abandoned")
    assert (abandoned.amount, abandoned.reason) == (None, "abandoned")
    incomplete = award(user.pk, nights_sealed=5)
    assert (incomplete.amount, incomplete.reason) == (None, "incomplete")
    # No ledger rows at all: not even a wallet for the signed-in player.
    assert ledger_rows() == (0, 0, 0, 0)


def test_the_same_heist_never_earns_twice(user):
    heist_id = uuid.uuid4()
    first = award(user.pk, outcome="win", difficulty="safecracker", heist_id=heist_id)
    again = award(user.pk, outcome="win", difficulty="safecracker", heist_id=heist_id)
    assert (first.amount, first.replayed) == (35, False)
    assert (again.amount, again.reason, again.replayed) == (35, "earned", True)
    # Even told a different story about it, the first decision stands.
    other = award(user.pk, outcome="loss", difficulty="rookie", heist_id=heist_id, at=NOON)
    assert (other.amount, other.replayed) == (35, True)
    assert balance(user) == 35 and Transaction.objects.count() == 1
    assert HeistEarning.objects.count() == 1 and wallet(user).entries.count() == 1
