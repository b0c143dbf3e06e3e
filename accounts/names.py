"""What a name may hold: the public handle and the private display name (issue 17, finding 8).

A name is shown to people, so it must look like what it is. Refused everywhere: characters that
show nothing or change the direction of the text around them (control and format characters,
Unicode categories Cc and Cf, which hold the zero-width and bidirectional controls; line and
paragraph separators, Zl and Zp; private-use, surrogate and unassigned code points, Co, Cs,
Cn), letters that render as blank space (the Hangul fillers, the blank Braille pattern), and
stacks of combining marks. Names are NFKC-normalised first, so a full-width or styled letter
is the plain one.

The handle is the public name (leaderboards, the heist API's ``player``): letters, digits and
marks of any script with ``_``, ``-`` and ``.`` between them, unique without regard to case,
never generated from or equal to the email. The display name is shown to its owner only.
"""

from __future__ import annotations

import re
import secrets
import unicodedata

from django.core.exceptions import ValidationError

HANDLE_MIN = 3
HANDLE_MAX = 24
DISPLAY_NAME_MAX = 40

_REFUSED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"}
# Letters or symbols that render as blank space, and invisible marks (category Mn, so not
# caught above): Hangul fillers, the blank Braille cell, the combining grapheme joiner, the
# variation selectors.
_INVISIBLE = {0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F}
_INVISIBLE_RANGES = ((0xFE00, 0xFE0F), (0xE0100, 0xE01EF), (0x180B, 0x180F))
_MAX_MARKS = 2  # combining marks in a row on one letter (enough for any script's accents)
_SEPARATORS = "_-."

# Generated handles: no vowels to spell words, no look-alike characters (0/o, 1/l).
_ALPHABET = "bcdfghjkmnpqrstvwxz23456789"


def _invisible(char: str) -> bool:
    code = ord(char)
    return code in _INVISIBLE or any(lo <= code <= hi for lo, hi in _INVISIBLE_RANGES)


def _check_characters(value: str, *, spaces: bool) -> None:
    marks = 0
    for char in value:
        category = unicodedata.category(char)
        if category in _REFUSED_CATEGORIES or _invisible(char):
            raise ValidationError(
                "Use only visible characters: no invisible or text-direction characters.",
                code="invisible_character",
            )
        if category.startswith("Z") and not (spaces and char == " "):
            raise ValidationError(
                "Use plain spaces only." if spaces else "No spaces in a handle.",
                code="space",
            )
        marks = marks + 1 if category.startswith("M") else 0
        if marks > _MAX_MARKS:
            raise ValidationError("Too many accents on one letter.", code="too_many_marks")


def normalise(value: str) -> str:
    # NFKC turns the Unicode spaces into plain ones; only plain spaces are trimmed, so any
    # other invisible character at either end is refused, not quietly dropped.
    return unicodedata.normalize("NFKC", value or "").strip(" ")


def clean_handle(value: str, *, emails: list[str] | tuple[str, ...] = ()) -> str:
    """The handle as stored (NFKC, trimmed), or ValidationError. ``emails``: the account's
    addresses; a handle that is one of them, or the part of one before the ``@``, is refused
    (a public name must not give away an address)."""
    handle = normalise(value)
    if not HANDLE_MIN <= len(handle) <= HANDLE_MAX:
        raise ValidationError(
            f"A handle has {HANDLE_MIN} to {HANDLE_MAX} characters.", code="handle_length"
        )
    _check_characters(handle, spaces=False)
    for position, char in enumerate(handle):
        category = unicodedata.category(char)
        edge = position in (0, len(handle) - 1)
        if category[0] in "LN":
            continue
        if category[0] == "M" and position > 0 and handle[position - 1] not in _SEPARATORS:
            continue
        if char in _SEPARATORS and not edge and handle[position - 1] not in _SEPARATORS:
            continue
        raise ValidationError(
            "Use letters and digits, with _ - or . between them.", code="handle_characters"
        )
    folded = handle.casefold()
    for email in emails:
        email = (email or "").casefold()
        if email and folded in (email, email.split("@", 1)[0]):
            raise ValidationError(
                "Choose a handle that is not your email address or part of it.",
                code="handle_is_email",
            )
    return handle


def clean_display_name(value: str) -> str:
    """The display name as stored (NFKC, trimmed, may be empty), or ValidationError."""
    name = normalise(value)
    if len(name) > DISPLAY_NAME_MAX:
        raise ValidationError(
            f"A display name has at most {DISPLAY_NAME_MAX} characters.", code="name_length"
        )
    _check_characters(name, spaces=True)
    if name and not re.search(r"[^\W_]", name):
        raise ValidationError("Use at least one letter or digit.", code="name_empty")
    return name


def generated_handle() -> str:
    """A fresh public handle: random, nothing derived from the account."""
    return "crew-" + "".join(secrets.choice(_ALPHABET) for _ in range(8))
