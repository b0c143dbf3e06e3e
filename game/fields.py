"""A JSON column whose objects come back with their keys in one order, whatever the database.

PostgreSQL's jsonb does not keep the order an object's keys were written in: it stores them
shortest first, then bytewise. SQLite keeps the text as written. An answer built from stored
JSON (a replay's loot, an encounter's start Heat) would then differ between the two by the
order of its keys. Reading every stored object back in jsonb's order makes the answers the
same on both, and the same as PostgreSQL has always served them.
"""

from __future__ import annotations

from typing import Any

from django.db import models


def _jsonb_key(key: str) -> tuple[int, bytes]:
    raw = key.encode("utf-8")
    return len(raw), raw


def in_stored_order(value: Any) -> Any:
    """``value`` with every object's keys (at any depth) in jsonb's order."""
    if isinstance(value, dict):
        return {k: in_stored_order(value[k]) for k in sorted(value, key=_jsonb_key)}
    if isinstance(value, list):
        return [in_stored_order(v) for v in value]
    return value


class StoredJSONField(models.JSONField):
    def from_db_value(self, value, expression, connection):
        decoded = super().from_db_value(value, expression, connection)
        if connection.vendor == "postgresql":
            # jsonb's text comes in that order already and json.loads keeps it: reordering
            # every object again was a good part of the CPU of reading a heist (its nights'
            # results), on every view, seal and rival turn.
            return decoded
        return in_stored_order(decoded)

    def deconstruct(self):
        # The column is a plain JSON column on every database; only reading differs, so the
        # migrations (and the schema they make) see Django's JSONField.
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs
