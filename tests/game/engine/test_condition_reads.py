"""Each condition kind reads only the NightContext fields it declares (ConditionKind.reads).

The rival's vectorised night game relies on the declaration to tabulate effects that read
neither plan once per night instead of once per pair of plans.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.engine.crew import CONDITION_KINDS, PLAYER, RIVAL, NightContext

VAULTS = ("tower", "ledger", "crown")
FIELDS = {f.name for f in dataclasses.fields(NightContext)}

sides = st.sampled_from([PLAYER, RIVAL])
vault_lists = st.lists(st.sampled_from(VAULTS), max_size=2).map(tuple)
contexts = st.builds(
    NightContext,
    boost=st.fixed_dictionaries({PLAYER: st.booleans(), RIVAL: st.booleans()}),
    vaults=st.fixed_dictionaries({PLAYER: vault_lists, RIVAL: vault_lists}),
    heat_start=st.fixed_dictionaries({PLAYER: st.integers(0, 6), RIVAL: st.integers(0, 6)}),
    last_winners=st.dictionaries(
        st.sampled_from(VAULTS), st.sampled_from([PLAYER, RIVAL, None]), max_size=3
    ),
    night=st.integers(1, 6),
    loot=st.fixed_dictionaries({v: st.integers(0, 8) for v in VAULTS}),
)


def test_every_kind_declares_known_fields():
    for kind in CONDITION_KINDS.values():
        assert kind.reads <= FIELDS, kind.kind


@pytest.mark.parametrize("kind", sorted(CONDITION_KINDS))
@settings(max_examples=300, deadline=None)
@given(a=contexts, b=contexts, side=sides, vault=st.sampled_from(VAULTS), n=st.integers(0, 6))
def test_a_check_ignores_the_fields_it_does_not_read(kind, a, b, side, vault, n):
    """Take ``b`` but keep ``a``'s declared fields: the answer is ``a``'s."""
    k = CONDITION_KINDS[kind]
    param = n if k.needs_param else None
    mixed = dataclasses.replace(b, **{name: getattr(a, name) for name in k.reads})
    assert k.check(mixed, side, vault, param) == k.check(a, side, vault, param)
