"""Model instances read by plain SQL on the hottest paths, as the ORM would build them.

A query through the ORM builds and compiles its SQL on every call (the WHERE tree, the joins,
the select list, the converters), which cost several times the query itself on the reads made
by every request (the heist and its nights, the age gate's record). :class:`ModelRows` does
that work once per model and connection: the column list comes from the model's own metadata
(so a new field is read without touching the SQL), values are converted by the same
converters the ORM applies (the backend's and each field's ``from_db_value``), and instances
are made by ``Model.from_db``, as a queryset makes them. The callers write only their FROM and
WHERE, with values as parameters, never in the text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.db import models
from django.db.backends.base.base import BaseDatabaseWrapper

Converter = tuple[int, list[Callable[..., Any]], Any]


class ModelRows:
    """Read rows of ``model`` (every concrete field, in the model's order) as instances."""

    def __init__(self, model: type[models.Model], alias: str) -> None:
        self.model = model
        self.alias = alias
        self.fields = list(model._meta.concrete_fields)
        self.attnames = [field.attname for field in self.fields]
        self.width = len(self.fields)
        # Per connection alias (a test may switch backends): built on first use, then reused.
        self._columns: dict[str, str] = {}
        self._converters: dict[str, list[Converter]] = {}

    def columns(self, connection: BaseDatabaseWrapper) -> str:
        """``alias.column, ...`` for the select list, quoted for ``connection``."""
        found = self._columns.get(connection.alias)
        if found is None:
            quote = connection.ops.quote_name
            found = ", ".join(f"{quote(self.alias)}.{quote(f.column)}" for f in self.fields)
            self._columns[connection.alias] = found
        return found

    def table(self, connection: BaseDatabaseWrapper) -> str:
        """``table alias`` for a FROM or JOIN clause."""
        quote = connection.ops.quote_name
        return f"{quote(self.model._meta.db_table)} {quote(self.alias)}"

    def column(self, connection: BaseDatabaseWrapper, name: str) -> str:
        """One field's column (by field name), as ``alias.column``."""
        quote = connection.ops.quote_name
        return f"{quote(self.alias)}.{quote(self.model._meta.get_field(name).column)}"

    def _converters_for(self, connection: BaseDatabaseWrapper) -> list[Converter]:
        found = self._converters.get(connection.alias)
        if found is None:
            found = []
            for i, field in enumerate(self.fields):
                # What the ORM's compiler applies to a column (SQLCompiler.get_converters).
                col = field.get_col(self.alias)
                convs = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
                if convs:
                    found.append((i, convs, col))
            self._converters[connection.alias] = found
        return found

    def build(
        self, values: Sequence[Any], connection: BaseDatabaseWrapper, start: int = 0
    ) -> models.Model:
        """The instance of the columns ``values[start:start + width]`` (selected by
        :meth:`columns`), converted as the ORM converts them."""
        row = list(values[start : start + self.width])
        for i, convs, col in self._converters_for(connection):
            value = row[i]
            for convert in convs:
                value = convert(value, col, connection)
            row[i] = value
        return self.model.from_db(connection.alias, self.attnames, row)
