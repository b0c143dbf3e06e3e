"""Answers checked against the OpenAPI schema the site serves."""

from __future__ import annotations

import copy

import jsonschema


def _json_schema(openapi: dict, ref_or_schema: dict) -> dict:
    """An OpenAPI 3.0 schema as a JSON Schema: refs inlined, `nullable` as a null type, and
    objects closed (additionalProperties false), so an unlisted served field fails."""
    components = openapi["components"]["schemas"]

    def convert(node):
        if isinstance(node, list):
            return [convert(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return convert(copy.deepcopy(components[node["$ref"].rsplit("/", 1)[1]]))
        node = {k: convert(v) for k, v in node.items()}
        nullable = node.pop("nullable", False)
        if node.get("type") == "object" and "properties" in node:
            node.setdefault("additionalProperties", False)
        node.pop("readOnly", None)
        if nullable:
            return {"anyOf": [{"type": "null"}, node]}
        return node

    return convert(ref_or_schema)


def _response_schema(openapi, path, method, status):
    content = openapi["paths"][path][method]["responses"][str(status)]["content"]
    return _json_schema(openapi, content["application/json"]["schema"])


def check_response(openapi, path, method, status, response):
    """``response`` has ``status`` and a body as the schema declares for that route and status."""
    assert response.status_code == status, response.content
    jsonschema.validate(response.json(), _response_schema(openapi, path, method, status))
