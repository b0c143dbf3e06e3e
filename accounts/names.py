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

Two handles that look alike are one handle (issue 27, S6). A handle's look-alike keys
(:func:`handle_keys`) are its Unicode TR39 *skeleton* (NFD, each character replaced by its
prototype from Unicode's ``confusables.txt``, NFD again: a Cyrillic ``a`` (U+0430) is a Latin ``a``,
``1`` and ``I`` are ``l``, ``m`` is ``rn``), case-folded and taken again until it no longer
changes; once of the handle as shown (``I`` looks like ``l``) and once of its case-folded form
(``straße`` and ``STRASSE`` are one word; ``NIGHTOWL`` is ``nightowl``). Two handles that share
a key are one: the database keeps every key unique (``accounts.models.HandleKey``). A few words
are the site's own and no player's (:data:`RESERVED`), whatever the look-alike, case,
separators or trailing digits.

``accounts/data/confusables.txt`` is Unicode's data file (UTS #39, version 13.0.0, with its
copyright and terms in its header), read as it is published: to follow a newer Unicode, drop
in the newer file and add a migration that recomputes the ``HandleKey`` rows. No well-kept
Python package offers the skeleton without building ICU (PyICU needs ICU's headers and a
compiler, which `make run` must not), and the algorithm is the few lines below.
"""

from __future__ import annotations

import functools
import re
import secrets
import unicodedata
from pathlib import Path

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


# The site's own words: no handle may look like one of them.
RESERVED = (
    "admin", "administrator", "staff", "moderator", "mod", "support", "help", "helpdesk",
    "system", "root", "official", "security", "veyltak",
)  # fmt: skip
# The site's name may not appear anywhere in a handle ("veyltak_team").
_BRAND = "veyltak"

_CONFUSABLES = Path(__file__).resolve().parent / "data" / "confusables.txt"


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


@functools.cache
def _prototypes() -> dict[str, str]:
    """confusables.txt: ``source ; prototype ; type # comment``, code points in hex."""
    table = {}
    for line in _CONFUSABLES.read_text(encoding="utf-8-sig").splitlines():
        data = line.split("#", 1)[0].strip()
        if data:
            source, prototype, _ = (field.strip() for field in data.split(";"))
            table[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in prototype.split())
    return table


def skeleton(value: str) -> str:
    """The TR39 skeleton (UTS #39 section 4): equal skeletons mean the strings look alike."""
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", value)
    return unicodedata.normalize("NFD", "".join(table.get(char, char) for char in decomposed))


def _key(value: str) -> str:
    key = value
    for _ in range(4):  # two rounds settle every handle; the bound is for safety
        folded = skeleton(key).casefold()
        if folded == key:
            break
        key = folded
    return key


def handle_keys(handle: str) -> frozenset[str]:
    """The look-alike keys of a handle: two handles that share one look alike, in some case."""
    shown = normalise(handle)
    return frozenset({_key(shown), _key(shown.casefold())})


def _reserved(handle: str) -> bool:
    core = "".join(char for char in handle if char not in _SEPARATORS)
    core = core.rstrip("0123456789") or core  # staff-2, admin_1
    brand = _key(_BRAND)
    return bool(handle_keys(core) & _reserved_keys()) or any(
        brand in key for key in handle_keys(handle)
    )


@functools.cache
def _reserved_keys() -> frozenset[str]:
    return frozenset().union(*(handle_keys(word) for word in RESERVED))


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
    if _reserved(handle):
        raise ValidationError(
            "That name is reserved for the site: choose another.", code="handle_reserved"
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
