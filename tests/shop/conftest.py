"""Fixtures for the shop: a player with a wallet to be (tests.support.ledger has the rest)."""

import pytest

from tests.support.ledger import new_user


@pytest.fixture
def user(db):
    return new_user()
