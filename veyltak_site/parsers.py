"""The API's JSON parser: DRF's, with a bound on nesting.

Python's decoder recurses once per level and raises RecursionError (not ValueError) from about
10,000 levels, which DRF does not turn into a ParseError: a body of brackets was an HTML 500.
Every parse, including the one the CSRF check triggers when it looks for a form token, now ends
in ParseError, rendered as 400 ``parse_error``. No API body nests deeper than a few levels, so
anything past MAX_DEPTH is refused as well, before a serializer walks it.
"""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError

MAX_DEPTH = 32
_TOO_DEEP = f"JSON parse error - nested more than {MAX_DEPTH} levels deep."


def _depth_exceeds(data, limit: int) -> bool:
    # Iterative, so checking a deep value cannot itself hit the recursion limit.
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(_TOO_DEEP) from None
        if _depth_exceeds(data, MAX_DEPTH):
            raise ParseError(_TOO_DEEP)
        return data
