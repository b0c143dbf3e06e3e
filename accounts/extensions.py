"""Where higher apps add to what accounts shows, without accounts importing them.

``accounts`` imports neither ``game`` nor ``shop`` (DESIGN.md section 2). An app with something
to show on the profile page, to add to the data export, or to answer in ``GET /api/v1/me/``
registers it here from its ``AppConfig.ready()``; accounts asks this registry and renders what it
gets. Four kinds of extension:

- **profile sections**: a template included on the profile page, with the context a callable
  builds for the signed-in player (``register_profile_section``);
- **export sections**: a top-level key of the export and the callable that builds its data for
  the player (``register_export_section``);
- **name titles**: words shown beside the player's name at the top of the profile, from a
  callable giving them for the player, or None (``register_name_title``);
- **/me fields**: a field of ``GET /api/v1/me/``, declared with a DRF serializer field (so the
  OpenAPI schema names it) and a callable giving its value for the user, or None for a guest
  (``register_me_field``).

Registering a key again replaces it (``ready()`` may run more than once in tests); a key that
accounts uses itself is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser

# The export's own keys (accounts.views.export and selectors.account_export).
EXPORT_OWN_KEYS = frozenset({"format", "exported_at", "account", "emails", "profile", "age_check"})
ME_OWN_FIELDS = frozenset({"authenticated", "username", "adult_confirmed", "time_zone"})


@dataclass(frozen=True, slots=True)
class ProfileSection:
    key: str
    template: str
    context: Callable[[AbstractBaseUser], Mapping[str, Any]]
    order: int = 100


@dataclass(frozen=True, slots=True)
class ExportSection:
    key: str
    data: Callable[[AbstractBaseUser], Any]
    order: int = 100


@dataclass(frozen=True, slots=True)
class MeField:
    name: str
    field: Any  # a rest_framework.serializers.Field instance
    value: Callable[[AbstractBaseUser | None], Any]


_profile_sections: dict[str, ProfileSection] = {}
_export_sections: dict[str, ExportSection] = {}
_me_fields: dict[str, MeField] = {}
_name_titles: dict[str, Callable[[AbstractBaseUser], str | None]] = {}


def register_profile_section(
    key: str,
    *,
    template: str,
    context: Callable[[AbstractBaseUser], Mapping[str, Any]],
    order: int = 100,
) -> None:
    """Show ``template`` on the profile page, rendered with ``context(user)`` as ``section``
    (``{{ section.balance }}``...); sections come in ``order``, then by key."""
    _profile_sections[key] = ProfileSection(key, template, context, order)


def register_export_section(
    key: str, *, data: Callable[[AbstractBaseUser], Any], order: int = 100
) -> None:
    """Add ``key: data(user)`` to the player's data export (plain JSON data); sections come in
    ``order``, then by key."""
    if key in EXPORT_OWN_KEYS:
        raise ValueError(f"export key {key!r} belongs to accounts")
    _export_sections[key] = ExportSection(key, data, order)


def register_me_field(
    name: str, *, field: Any, value: Callable[[AbstractBaseUser | None], Any]
) -> None:
    """Answer ``name`` in ``GET /api/v1/me/``: ``field`` declares it (a serializer field, for
    the schema), ``value(user)`` gives it; ``user`` is None for a guest."""
    if name in ME_OWN_FIELDS:
        raise ValueError(f"/me field {name!r} belongs to accounts")
    _me_fields[name] = MeField(name, field, value)


def register_name_title(key: str, *, value: Callable[[AbstractBaseUser], str | None]) -> None:
    """Show ``value(user)`` (when not None) beside the player's name on the profile page."""
    _name_titles[key] = value


def name_titles(user: AbstractBaseUser) -> list[str]:
    """The titles shown beside the player's name, by key."""
    return [t for _, value in sorted(_name_titles.items()) if (t := value(user)) is not None]


def profile_sections(user: AbstractBaseUser) -> list[dict[str, Any]]:
    """``[{key, template, context}]`` for the profile page, in order."""
    sections = sorted(_profile_sections.values(), key=lambda s: (s.order, s.key))
    return [
        {"key": s.key, "template": s.template, "context": dict(s.context(user))} for s in sections
    ]


def export_sections(user: AbstractBaseUser) -> dict[str, Any]:
    sections = sorted(_export_sections.values(), key=lambda s: (s.order, s.key))
    return {s.key: s.data(user) for s in sections}


def me_fields() -> dict[str, Any]:
    """Name -> serializer field of every registered /me field."""
    return {name: f.field for name, f in sorted(_me_fields.items())}


def me_values(user: AbstractBaseUser | None) -> dict[str, Any]:
    return {name: f.value(user) for name, f in sorted(_me_fields.items())}
