"""Reads of heists.

Heist state is never stored: :func:`heist_state` rebuilds it from what the models keep (ruleset
version, decks, seeds, encounter, every sealed plan) with the engine. The reads of one heist
return a :class:`game.domain.HeistSnapshot`: the heist with its nights and that state.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import F, JSONField, OuterRef, QuerySet, Subquery

from game.domain import HeistMark, HeistSnapshot
from game.engine import (
    PLAYER,
    RIVAL,
    HeistState,
    Plan,
    heist_from_position,
    new_heist,
    resolve,
)
from game.models import Heist, HeistNight
from game.owners import Owner
from veyltak_site.exceptions import ApplicationError


def _not_found() -> ApplicationError:
    return ApplicationError("not_found", "There is no such heist.", status_code=404)


def heist_get(*, heist_id: uuid.UUID, owner: Owner) -> Heist:
    """The heist if ``owner`` owns it; anyone else's, or none, is the same 404."""
    heist = Heist.objects.filter(owner.heist_filter(), pk=heist_id).first()
    if heist is None:
        raise _not_found()
    return heist


def _with_nights(rows: QuerySet[HeistNight]) -> tuple[Heist, list[HeistNight]] | None:
    nights = list(rows.order_by("night"))
    if not nights:
        return None
    heist = nights[0].heist
    for night in nights:
        night.heist = heist  # one instance, as heist.nights would give
    return heist, nights


def heist_load(*, heist_id: uuid.UUID | str, owner: Owner, lock: bool = False) -> HeistSnapshot:
    """The owner's heist, its nights and its state, in one query (the hot path of the view and
    the seal). A night row exists from the start, so joining from the nights always finds the
    heist; ``lock`` locks only the heist row (FOR UPDATE OF game_heist) for the caller's
    transaction. Anyone else's heist, or none, is the same 404."""
    rows = HeistNight.objects.select_related("heist").filter(
        owner.heist_filter(prefix="heist__"), heist_id=heist_id
    )
    if lock:
        rows = rows.select_for_update(of=("heist",))
    found = _with_nights(rows)
    if found is None:
        raise _not_found()
    heist, nights = found
    return HeistSnapshot(heist, nights, heist_state(heist, nights))


def _mark_sql(owner: Owner) -> tuple[str, list]:
    heist, night = Heist._meta, HeistNight._meta
    col = {f.name: f.column for f in (*heist.concrete_fields, *night.concrete_fields)}
    # The same owners as Owner.heist_filter: the account's heists, or a guest id's unclaimed
    # ones; no owner at all sees nothing.
    who, params = [], []
    if owner.user_id is not None:
        who.append(f"h.{col['user']} = %s")
        params.append(owner.user_id)
    if owner.guest_id:
        who.append(f"(h.{col['user']} IS NULL AND h.{col['guest_id']} = %s)")
        params.append(owner.guest_id)
    # Names from the models' metadata, values only as parameters.
    sql = (
        f"SELECT h.{col['status']}, h.{col['night']}, n.{col['rival_commitment']}, "  # noqa: S608
        f"n.{col['started_at']} <= %s AND n.{col['rival_commitment']} IS NULL "
        f"FROM {heist.db_table} h LEFT JOIN {night.db_table} n "
        f"ON n.{col['heist']} = h.{heist.pk.column} AND n.{col['night']} = h.{col['night']} "
        f"WHERE h.{heist.pk.column} = %s AND ({' OR '.join(who) or 'FALSE'})"
    )
    return sql, params


def heist_mark(
    *, heist_id: uuid.UUID | str, owner: Owner, overdue_before: dt.datetime
) -> HeistMark:
    """The owner's heist's mark, in one light query: no night's JSON is read and no state is
    rebuilt, so a board asking whether its view is still current costs little. The night in
    play is ``overdue`` when it started at or before ``overdue_before`` and the rival has not
    sealed it. Anyone else's heist, or none, is the same 404 as :func:`heist_load`.

    Plain SQL, built once from the models' own tables and columns: this is the query of every
    poll of the board, and building it through the ORM cost more CPU than the whole answer."""
    try:
        pk = Heist._meta.pk.get_db_prep_value(heist_id, connection)
    except (TypeError, ValueError, ValidationError):
        raise _not_found() from None
    sql, who = _mark_sql(owner)
    cutoff = connection.ops.adapt_datetimefield_value(overdue_before)
    with connection.cursor() as cursor:
        cursor.execute(sql, [cutoff, pk, *who])
        row = cursor.fetchone()
    if row is None:
        raise _not_found()
    status, night, commitment, overdue = row
    active = status == Heist.Status.ACTIVE
    return HeistMark(status, night, commitment if active else None, bool(active and overdue))


def heist_load_any(*, heist_id: uuid.UUID | str) -> HeistSnapshot | None:
    """A heist by id whoever owns it (the rival's task, staff commands), or None."""
    found = _with_nights(HeistNight.objects.select_related("heist").filter(heist_id=heist_id))
    if found is None:
        return None
    heist, nights = found
    return HeistSnapshot(heist, nights, rebuild=heist_state)


def heist_snapshot(heist: Heist) -> HeistSnapshot:
    nights = heist_nights(heist)
    return HeistSnapshot(heist, nights, heist_state(heist, nights))


def heist_nights(heist: Heist) -> list[HeistNight]:
    return list(HeistNight.objects.filter(heist=heist).order_by("night"))


def heist_plans(night: HeistNight) -> dict[str, Plan]:
    return {
        PLAYER: Plan.from_dict(night.player_plan),
        RIVAL: Plan.from_dict(night.rival_plan),
    }


def heist_start_state(heist: Heist) -> HeistState:
    """The heist at its first night: dealt from its seeds, or (a practice retry) the stored
    position it starts from, with the same seeds."""
    setup = {
        "ruleset": heist.ruleset,
        "player_deck": heist.player_deck,
        "rival_deck": heist.rival_deck,
        "server_seed": heist.server_seed,
        "client_seed": heist.client_seed,
        "encounter": heist.encounter,
    }
    if heist.start is not None:
        return heist_from_position(**setup, position=heist.start)
    return new_heist(**setup)


def heist_states(heist: Heist, nights: Iterable[HeistNight]) -> list[HeistState]:
    """The engine state at the start of every night played, in order, then after the last
    resolved night (the debrief reads each night's position)."""
    state = heist_start_state(heist)
    states = [state]
    for night in nights:
        # A practice retry keeps its original's earlier nights (for its view's history); its
        # start position already holds them.
        if night.result is None or night.night < heist.first_night:
            continue
        if night.night != state.night:
            raise RuntimeError(f"heist {heist.pk}: stored night {night.night} out of order")
        state, _ = resolve(state, heist_plans(night))
        states.append(state)
    return states


def heist_state(heist: Heist, nights: Iterable[HeistNight]) -> HeistState:
    """Rebuild the engine state: start the heist, then resolve every resolved night in order."""
    return heist_states(heist, nights)[-1]


def player_heists(*, user_id: int) -> list[Heist]:
    """A signed-in player's heists, newest first, each with ``last_score`` (the engine's score
    dict after the last night played, or None) and ``accuracy`` (its debrief's, or None): the
    profile's history and the export."""
    last_score = (
        HeistNight.objects.filter(heist=OuterRef("pk"), result__isnull=False)
        .order_by("-night")
        .values("result__score")[:1]
    )
    return list(
        Heist.objects.filter(user_id=user_id)
        .annotate(
            last_score=Subquery(last_score, output_field=JSONField()),
            # The debrief's accuracy, once worked out (None before, and for abandoned heists).
            accuracy=F("debrief__accuracy"),
        )
        .order_by("-created_at")
    )


def heist_in_play(*, owner: Owner) -> Heist | None:
    """The owner's heist in play touched last (the one "Continue your heist" opens), or None."""
    return (
        Heist.objects.filter(owner.heist_filter(), status=Heist.Status.ACTIVE)
        .order_by("-last_activity_at")
        .first()
    )


def heist_last_level(*, owner: Owner) -> str | None:
    """The difficulty of the owner's newest heist of their own choosing, or None before the
    first: Play's Quick heist starts there again rather than at the weakest level. A featured
    heist's level is its slot's and a challenge's its challenger's, not the player's choice, so
    both are passed over."""
    return (
        Heist.objects.filter(owner.heist_filter(), featured_slot__isnull=True, challenge=None)
        .order_by("-created_at", "-pk")
        .values_list("difficulty", flat=True)
        .first()
    )
