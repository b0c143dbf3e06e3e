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
from django.db.models import F, JSONField, OuterRef, Subquery
from django.db.transaction import TransactionManagementError

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
from game.kept import Kept
from game.models import Heist, HeistNight
from game.owners import Owner
from veyltak_site.exceptions import ApplicationError
from veyltak_site.rows import ModelRows


def _not_found() -> ApplicationError:
    return ApplicationError("not_found", "There is no such heist.", status_code=404)


def heist_get(*, heist_id: uuid.UUID, owner: Owner) -> Heist:
    """The heist if ``owner`` owns it; anyone else's, or none, is the same 404."""
    heist = Heist.objects.filter(owner.heist_filter(), pk=heist_id).first()
    if heist is None:
        raise _not_found()
    return heist


_NIGHT_ROWS = ModelRows(HeistNight, "n")
_HEIST_ROWS = ModelRows(Heist, "h")
_load_sql_cache: dict[tuple, str] = {}


def _owner_sql(owner: Owner, heist: str) -> tuple[str, list]:
    """The WHERE condition of ``owner``'s heists (``heist``: the heist table's alias), the same
    owners as Owner.heist_filter: the account's heists, or a guest id's unclaimed ones; no owner
    at all sees nothing."""
    user, guest = f"{heist}.{_col(Heist, 'user')}", f"{heist}.{_col(Heist, 'guest_id')}"
    who, params = [], []
    if owner.user_id is not None:
        who.append(f"{user} = %s")
        params.append(owner.user_id)
    if owner.guest_id:
        who.append(f"({user} IS NULL AND {guest} = %s)")
        params.append(owner.guest_id)
    return f"({' OR '.join(who) or 'FALSE'})", params


def _col(model, name: str) -> str:
    return model._meta.get_field(name).column


def _load_sql(owner: Owner | None, lock: bool) -> tuple[str, list]:
    """The heist's nights in order, each with its heist's columns; only ``owner``'s heist
    (None: anyone's); ``lock``: FOR UPDATE of the heist row alone."""
    if owner is None:
        who, params = "TRUE", []
    else:
        who, params = _owner_sql(owner, "h")
    key = (connection.alias, who, lock)
    sql = _load_sql_cache.get(key)
    if sql is None:
        pk, heist_fk = Heist._meta.pk.column, _col(HeistNight, "heist")
        lock_sql = ""
        if lock and connection.features.has_select_for_update:
            # Only the heist row: the nights are written under it (DESIGN.md section 3.4).
            of = connection.features.has_select_for_update_of
            lock_sql = " FOR UPDATE OF h" if of else " FOR UPDATE"
        # Names from the models' metadata, values only as parameters.
        sql = (
            f"SELECT {_NIGHT_ROWS.columns(connection)}, {_HEIST_ROWS.columns(connection)} "  # noqa: S608
            f"FROM {_NIGHT_ROWS.table(connection)} JOIN {_HEIST_ROWS.table(connection)} "
            f"ON h.{pk} = n.{heist_fk} WHERE n.{heist_fk} = %s AND {who} "
            f"ORDER BY n.{_col(HeistNight, 'night')}{lock_sql}"
        )
        _load_sql_cache[key] = sql
    return sql, params


def _heist_rows(
    heist_id: uuid.UUID | str, owner: Owner | None, lock: bool = False
) -> tuple[Heist, list[HeistNight]] | None:
    """The heist and its nights in one query, or None (no such heist, or not ``owner``'s). A
    night row exists from the start, so joining from the nights always finds the heist.

    Plain SQL built once from the models (veyltak_site.rows): this read is in every seal, every
    full view and every rival turn, and the ORM's building of it (a join of every column of
    both tables) cost several times the query itself."""
    if lock and connection.get_autocommit():
        raise TransactionManagementError("a locked heist read needs a transaction")
    try:
        pk = Heist._meta.pk.get_db_prep_value(heist_id, connection)
    except (TypeError, ValueError, ValidationError):
        return None
    sql, who = _load_sql(owner, lock)
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk, *who])
        rows = cursor.fetchall()
    if not rows:
        return None
    heist = _HEIST_ROWS.build(rows[0], connection, start=_NIGHT_ROWS.width)
    nights = []
    for values in rows:
        night = _NIGHT_ROWS.build(values, connection)
        night.heist = heist  # one instance, as heist.nights would give
        nights.append(night)
    return heist, nights


def heist_load(*, heist_id: uuid.UUID | str, owner: Owner, lock: bool = False) -> HeistSnapshot:
    """The owner's heist, its nights and its state, in one query (the hot path of the view and
    the seal). ``lock`` locks only the heist row (FOR UPDATE OF the heist) for the caller's
    transaction. Anyone else's heist, or none, is the same 404."""
    found = _heist_rows(heist_id, owner, lock)
    if found is None:
        raise _not_found()
    heist, nights = found
    return HeistSnapshot(heist, nights, heist_state(heist, nights))


def _mark_sql(owner: Owner) -> tuple[str, list]:
    heist, night = Heist._meta, HeistNight._meta
    col = {f.name: f.column for f in (*heist.concrete_fields, *night.concrete_fields)}
    who, params = _owner_sql(owner, "h")
    # Names from the models' metadata, values only as parameters.
    sql = (
        f"SELECT h.{col['status']}, h.{col['night']}, n.{col['rival_commitment']}, "  # noqa: S608
        f"n.{col['started_at']} <= %s AND n.{col['rival_commitment']} IS NULL "
        f"FROM {heist.db_table} h LEFT JOIN {night.db_table} n "
        f"ON n.{col['heist']} = h.{heist.pk.column} AND n.{col['night']} = h.{col['night']} "
        f"WHERE h.{heist.pk.column} = %s AND {who}"
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
    found = _heist_rows(heist_id, None)
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
    """The engine state after the heist's resolved nights (:func:`heist_states`' last). Kept
    by this process once worked out; else the kept state before the last night with that night
    resolved; else rebuilt from the heist's start."""
    nights = list(nights)
    key = _state_key(heist, nights)
    state = _states_kept.get(key)
    if state is not None:
        return state
    before = _states_kept.get(key[:-1]) if len(key) > 1 else None
    last = next(
        (n for n in reversed(nights) if n.result is not None and n.night >= heist.first_night),
        None,
    )
    if before is not None and last is not None and last.night == before.night:
        state, _ = resolve(before, heist_plans(last))
    else:
        state = heist_states(heist, nights)[-1]
    heist_state_keep(heist, nights, state)
    return state


# The state after a heist's resolved nights, kept by each process for the heists it serves (a
# night's state never changes: the engine's states are frozen and a resolved night is never
# edited). Keyed by the heist and the moment each of its nights was resolved, so a night
# resolved in a transaction that was rolled back, whose plan the player may then seal
# differently, never lends its state to the night's real resolution (a new moment).
_states_kept: Kept[HeistState] = Kept(1024)


def _state_key(heist: Heist, nights: Iterable[HeistNight]) -> tuple:
    return (
        heist.pk,
        *(n.resolved_at for n in nights if n.result is not None and n.night >= heist.first_night),
    )


def heist_state_keep(heist: Heist, nights: Iterable[HeistNight], state: HeistState) -> None:
    """Keep ``state``, the heist's after ``nights`` (a seal has just resolved the last)."""
    _states_kept.put(_state_key(heist, nights), state)


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
