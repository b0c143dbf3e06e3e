"""The API's JSON parser: DRF's, with a bound on nesting and messages for a person.

Python's decoder recurses once per level and raises RecursionError (not ValueError) from about
10,000 levels, which DRF does not turn into a ParseError: a body of brackets was an HTML 500.
Every parse, including the one the CSRF check triggers when it looks for a form token, now ends
in ParseError, rendered as 400 ``parse_error``. No API body nests deeper than a few levels, so
anything past MAX_DEPTH is refused as well, before a serializer walks it.

DRF's message repeats the decoder's own words ("Expecting value: line 1 column 1 (char 0)",
"Exceeds the limit (4300 digits) ... sys.set_int_max_str_digits()", a codec's byte positions):
Python's internals, not an answer a person can act on. The message says what is wrong in
plain words (with the line and column for a syntax error); the decoder's words go to the log,
at INFO (a client's mistake, not the site's).
"""

from __future__ import annotations

import codecs
import json
import logging

from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils import json as drf_json

log = logging.getLogger(__name__)

MAX_DEPTH = 32
_TOO_DEEP = f"The request body nests more than {MAX_DEPTH} levels deep."
_NOT_JSON = "The request body is not valid JSON."
_NOT_TEXT = "The request body is not UTF-8 text."
_LONG_NUMBER = "A number in the request body has too many digits."


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


def _message(exc: ValueError) -> str:
    if isinstance(exc, UnicodeError):
        return _NOT_TEXT
    if isinstance(exc, json.JSONDecodeError):
        return f"The request body is not valid JSON (line {exc.lineno}, column {exc.colno})."
    if "digits" in str(exc):  # int() past sys.get_int_max_str_digits()
        return _LONG_NUMBER
    return _NOT_JSON


def _refuse(message: str, exc: BaseException) -> ParseError:
    log.info("JSON body refused (%s): %s: %s", message, type(exc).__name__, exc)
    return ParseError(message)


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        # DRF's parse, with its ValueError kept whole (DRF folds it into its message).
        encoding = parsers.get_encoding(parser_context or {})
        parse_constant = drf_json.strict_constant if self.strict else None
        try:
            data = drf_json.load(codecs.getreader(encoding)(stream), parse_constant=parse_constant)
        except RecursionError as exc:
            raise _refuse(_TOO_DEEP, exc) from None
        except ValueError as exc:
            raise _refuse(_message(exc), exc) from None
        if _depth_exceeds(data, MAX_DEPTH):
            raise _refuse(_TOO_DEEP, ValueError(f"nested more than {MAX_DEPTH} levels"))
        return data
