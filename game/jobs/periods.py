"""When a player's jobs turn over (DESIGN.md section 11): days at midnight in the player's own
time zone, weeks at Monday's midnight there.

Pure date arithmetic (no Django, no clock: ``now`` is always passed in). A period is stored
with its start and end (game.jobs.models.JobPeriod) and the rules here decide them:

- A new period starts at the latest boundary (midnight, or Monday's midnight) at or before
  ``now`` in the player's zone, never before the previous period's end (no two periods of a
  player overlap, so no heist counts twice), and ends at the first boundary at least
  ``SHORTEST`` after its start. A day is 23 to 25 hours on the days clocks change, and a
  missed day is simply never opened: nothing carries over, nothing is owed.
- A change of zone moves the end of the period in progress to the first boundary of the new
  zone at least ``SHORTEST`` after its start and after the change itself (a period never
  ends in the past, so a heist counted in it stays counted in it alone). Its start stays,
  so no day is ever shorter than 20 hours, however often the zone changes.
"""

from __future__ import annotations

import datetime as dt

DAILY, WEEKLY = "daily", "weekly"
STEP = {DAILY: dt.timedelta(days=1), WEEKLY: dt.timedelta(days=7)}
# The shortest a period can be, whatever the zone does: four hours short of its length.
SHORTEST = {DAILY: dt.timedelta(hours=20), WEEKLY: dt.timedelta(days=6, hours=20)}


def _midnight(day: dt.date, zone: dt.tzinfo) -> dt.datetime:
    # On the few days a zone skips midnight (a clock change at 00:00), this is the instant
    # the day begins: zoneinfo reads the missing 00:00 with the offset before the change.
    return dt.datetime.combine(day, dt.time(0), tzinfo=zone).astimezone(dt.UTC)


def _first_day(kind: str, day: dt.date) -> dt.date:
    """The day a period of ``kind`` holding ``day`` begins on (weeks begin on Monday)."""
    return day - dt.timedelta(days=day.weekday()) if kind == WEEKLY else day


def boundary_at_or_before(kind: str, zone: dt.tzinfo, at: dt.datetime) -> dt.datetime:
    """The latest midnight (Monday's, for a week) in ``zone`` at or before ``at``."""
    day = _first_day(kind, at.astimezone(zone).date())
    start = _midnight(day, zone)
    while start > at:
        day -= STEP[kind]
        start = _midnight(day, zone)
    return start


def boundary_at_or_after(kind: str, zone: dt.tzinfo, at: dt.datetime) -> dt.datetime:
    """The first midnight (Monday's, for a week) in ``zone`` at or after ``at``."""
    day = _first_day(kind, at.astimezone(zone).date())
    end = _midnight(day, zone)
    while end < at:
        day += STEP[kind]
        end = _midnight(day, zone)
    return end


def opening(
    kind: str, zone: dt.tzinfo, now: dt.datetime, previous_end: dt.datetime | None
) -> tuple[dt.datetime, dt.datetime]:
    """(start, end) of the period of ``kind`` to open at ``now`` when the player has none in
    force; ``previous_end`` is the end of their last one (None for their first)."""
    start = boundary_at_or_before(kind, zone, now)
    if previous_end is not None and start < previous_end <= now:
        start = previous_end
    return start, boundary_at_or_after(kind, zone, start + SHORTEST[kind])


def moved_end(kind: str, zone: dt.tzinfo, start: dt.datetime, now: dt.datetime) -> dt.datetime:
    """The new end of a period in progress since ``start`` when the zone changes to ``zone``
    at ``now``."""
    end = boundary_at_or_after(kind, zone, start + SHORTEST[kind])
    while end <= now:
        end = boundary_at_or_after(kind, zone, end + dt.timedelta(seconds=1))
    return end
