"""Seams where the apps above accounts (game, shop) add to what accounts shows, so accounts never
imports them (DESIGN.md section 2: a lower app never reaches up).

An app registers its parts in its ``AppConfig.ready``; accounts asks here when it renders:

* profile sections: a template and the context it needs, shown on the profile page in the order
  registered (game: the record by rival and the heists played);
* export sections: a key of the account export and the data under it (game: ``heists``,
  ``decks``);
* /me fields: a key of ``GET /api/v1/me/``, its value for a request, and the DRF field that
  declares it in the schema.

Registering a key again replaces it (``ready`` may run more than once in tests).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from rest_framework import serializers


@dataclass(frozen=True, slots=True)
class ProfileSection:
    template: str
    context: Callable[[AbstractBaseUser], Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class MeField:
    value: Callable[[Any], Any]  # request -> value
    declare: Callable[[], serializers.Field]  # a fresh field for the schema


_profile: dict[str, ProfileSection] = {}
_export: dict[str, Callable[[AbstractBaseUser], Any]] = {}
_me: dict[str, MeField] = {}


def register_profile_section(
    key: str, *, template: str, context: Callable[[AbstractBaseUser], Mapping[str, Any]]
) -> None:
    _profile[key] = ProfileSection(template, context)


def register_export_section(key: str, build: Callable[[AbstractBaseUser], Any]) -> None:
    _export[key] = build


def register_me_field(
    key: str, *, value: Callable[[Any], Any], declare: Callable[[], serializers.Field]
) -> None:
    _me[key] = MeField(value, declare)


def profile_sections(user: AbstractBaseUser) -> list[dict[str, Any]]:
    """``[{key, template, context}]`` for the profile page, in the order registered."""
    return [
        {"key": key, "template": s.template, "context": s.context(user)}
        for key, s in _profile.items()
    ]


def export_sections(user: AbstractBaseUser) -> dict[str, Any]:
    return {key: build(user) for key, build in _export.items()}


def me_fields(request) -> dict[str, Any]:
    return {key: field.value(request) for key, field in _me.items()}


def me_declared() -> dict[str, serializers.Field]:
    return {key: field.declare() for key, field in _me.items()}
