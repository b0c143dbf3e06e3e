"""Render an answer through its declaration, fast.

Every answer of the API is declared once, as a DRF serializer in this package: drf-spectacular
reads the declarations for the OpenAPI schema, and :func:`present` renders the answer through
the same declarations, so what is served and what the schema says cannot drift apart (a field
that is not declared is never sent, a declared field the builder does not supply is an error).

:func:`present` gives exactly ``Serializer(data).data`` for the field kinds declared here
(tests/game/test_presenters.py checks it against DRF on served answers) without DRF's per-call
machinery, which costs over 1 ms more per answer (bench/render.py measures both ways): each
declaration is compiled once per process, into one generated function per serializer for dict
sources (what the builders hand over) and nested closures for anything else, each applying the
leaf fields' own ``to_representation``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from rest_framework import serializers
from rest_framework.fields import empty

Render = Callable[[Any], Any]


class _Skip(Exception):
    pass


class AbsentWhenMissing(serializers.ChoiceField):
    """A choice that is left out of the answer when its source has no such key (a null would
    mean something else), as DRF's own rendering does for this field."""

    def get_attribute(self, instance):
        if isinstance(instance, Mapping) and self.source not in instance:
            raise serializers.SkipField()
        return super().get_attribute(instance)


def _getter(field: serializers.Field) -> Callable[[Any], Any]:
    attrs = list(field.source_attrs)
    absent_skips = isinstance(field, AbsentWhenMissing)
    default, allow_null, required = field.default, field.allow_null, field.required

    def missing() -> Any:
        # Field.get_attribute's rules for a missing key or attribute.
        if absent_skips:
            raise _Skip
        if default is not empty:
            return field.get_default()
        if allow_null:
            return None
        if not required:
            raise _Skip
        raise KeyError(f"{field.parent.__class__.__name__}.{field.field_name}: no {attrs}")

    if not attrs:  # source="*"
        return lambda instance: instance
    if len(attrs) == 1:
        (attr,) = attrs

        def get_one(instance: Any) -> Any:
            # dict first: the builders' sources are dicts, and isinstance(x, Mapping) is slow.
            if type(instance) is dict or isinstance(instance, Mapping):
                if attr in instance:
                    return instance[attr]
                return missing()
            try:
                return getattr(instance, attr)
            except AttributeError:
                return missing()

        return get_one

    def get_path(instance: Any) -> Any:
        try:
            for attr in attrs:
                instance = (
                    instance[attr] if isinstance(instance, Mapping) else getattr(instance, attr)
                )
        except (KeyError, AttributeError):
            return missing()
        return instance

    return get_path


def _compile_field(field: serializers.Field) -> Render:
    if isinstance(field, serializers.ListSerializer):
        child = _compile_field(field.child)
        return lambda data: [child(item) for item in data]
    if isinstance(field, serializers.Serializer):
        return _compile_serializer(field)
    if isinstance(field, serializers.ListField):
        child = _compile_field(field.child)
        return lambda data: [None if item is None else child(item) for item in data]
    if isinstance(field, serializers.DictField):
        child = _compile_field(field.child)
        return lambda data: {
            str(key): None if value is None else child(value) for key, value in data.items()
        }
    if type(field) is serializers.CharField:
        return str
    if type(field) is serializers.IntegerField:
        return int
    return field.to_representation


def _compile_serializer(serializer: serializers.Serializer) -> Render:
    if type(serializer).to_representation is not serializers.Serializer.to_representation:
        return serializer.to_representation  # its own rendering, as DRF would call it
    fields = [(name, f) for name, f in serializer.fields.items() if not f.write_only]
    parts = [(name, _getter(f), _compile_field(f)) for name, f in fields]

    def render_any(instance: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, get, represent in parts:
            try:
                value = get(instance)
            except _Skip:
                continue
            out[name] = None if value is None else represent(value)
        return out

    return _generate_for_dicts(fields, parts, render_any)


_MISSING = object()


def _generate_for_dicts(fields, parts, render_any: Render) -> Render:
    """The same rendering as ``render_any``, generated as one flat function for the common
    case, a dict source: the builders hand dicts, and a call per field cost more than the
    rest of a heist view."""
    namespace: dict[str, Any] = {"_M": _MISSING, "_Skip": _Skip, "_any": render_any}
    lines = ["def render(inst):", "    if type(inst) is not dict:", "        return _any(inst)"]
    lines.append("    out = {}")
    for i, ((name, field), (_, get, represent)) in enumerate(zip(fields, parts, strict=True)):
        namespace[f"_g{i}"] = get
        namespace[f"_r{i}"] = represent
        attrs = list(field.source_attrs)
        if len(attrs) == 1:
            fetch = [f"v = inst.get({attrs[0]!r}, _M)", f"if v is _M: v = _g{i}(inst)"]
        else:
            fetch = [f"v = _g{i}(inst)"]
        if represent is str:
            store = f"out[{name!r}] = None if v is None else str(v)"
        elif represent is int:
            store = f"out[{name!r}] = None if v is None else int(v)"
        else:
            store = f"out[{name!r}] = None if v is None else _r{i}(v)"
        body = [*fetch, store]
        # Only a field that may be left out needs the try (a missing required one raises).
        if isinstance(field, AbsentWhenMissing) or (
            not field.required and field.default is empty and not field.allow_null
        ):
            lines.append("    try:")
            lines.extend("        " + line for line in body)
            lines.append("    except _Skip:")
            lines.append("        pass")
        else:
            lines.extend("    " + line for line in body)
    lines.append("    return out")
    exec("\n".join(lines), namespace)  # noqa: S102 - code built here from declared names only
    return namespace["render"]


@cache
def _compiled(cls: type[serializers.Serializer], many: bool) -> Render:
    render = _compile_serializer(cls())
    if many:
        return lambda data: [render(item) for item in data]
    return render


def present(cls: type[serializers.Serializer], data: Any, *, many: bool = False) -> Any:
    """``cls(data, many=many).data`` as plain dicts and lists, through the compiled declaration."""
    return _compiled(cls, many)(data)
