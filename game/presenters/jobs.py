"""What the jobs answer (``GET /api/v1/jobs/``, DESIGN.md section 5) and what the pages show of
them: home, the profile and the result page (templates/game/_jobs.html)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from rest_framework import serializers

from accounts import time_zones
from game.domain import JobBoard, JobState
from game.models import JobPeriod
from game.presenters.render import present


class JobSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    text = serializers.CharField(help_text="What to do, as the player reads it.")
    progress = serializers.IntegerField(help_text="How far you are, at most the goal.")
    goal = serializers.IntegerField()
    reward = serializers.IntegerField(help_text="Signs it pays once done.")
    done = serializers.BooleanField()
    paid = serializers.BooleanField(help_text="Paid into your wallet (once, when done).")


class JobsSerializer(serializers.Serializer):
    resets_at = serializers.DateTimeField(
        help_text="When the daily jobs turn over: midnight in your time zone."
    )
    daily = JobSerializer(many=True, help_text="Three jobs for the day.")
    weekly = JobSerializer(many=True, help_text="One job for the week.")
    weekly_resets_at = serializers.DateTimeField(
        help_text="When the weekly job turns over: Monday's midnight in your time zone."
    )
    time_zone = serializers.CharField(help_text="The zone your day turns in.")
    starter = JobSerializer(
        allow_null=True,
        help_text="A new player's first job (enough, with the welcome grant, for a first "
        "Night Market crew); null once paid.",
    )


def _job(state: JobState) -> dict[str, Any]:
    return {
        "slug": state.slug,
        "text": state.text,
        "progress": state.progress,
        "goal": state.goal,
        "reward": state.reward,
        "done": state.done,
        "paid": state.paid,
    }


def jobs_answer(board: JobBoard) -> dict[str, Any]:
    return present(
        JobsSerializer,
        {
            "resets_at": board.daily.ends_at,
            "daily": [_job(s) for s in board.jobs["daily"]],
            "weekly": [_job(s) for s in board.jobs["weekly"]],
            "weekly_resets_at": board.weekly.ends_at,
            "time_zone": board.time_zone,
            "starter": _job(board.starter) if board.starter else None,
        },
    )


# --- The pages ------------------------------------------------------------------------------


def _left(until: dt.datetime, now: dt.datetime) -> str:
    """ "5 h 12 min", "3 days 4 h": how long until ``until``, as a board says it."""
    minutes = max(0, int((until - now).total_seconds() // 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return f"{days} day{'s' if days != 1 else ''} {hours} h"
    return f"{hours} h {mins} min" if hours else f"{mins} min"


def jobs_card(board: JobBoard, now: dt.datetime, *, zone_unset: bool) -> dict[str, Any]:
    """The jobs section of a page (templates/game/_jobs.html). ``zone_unset``: the player has
    no time zone yet, so the page asks the browser for its own (static/js/jobs.js)."""
    zone = time_zones.zone(board.time_zone)
    daily = [_job(s) for s in board.jobs["daily"]]
    return {
        "time_zone": board.time_zone,
        "resets_at": board.daily.ends_at,
        "resets_in": _left(board.daily.ends_at, now),
        "resets_local": board.daily.ends_at.astimezone(zone).strftime("%a %-d %b, %H:%M"),
        "weekly_resets_in": _left(board.weekly.ends_at, now),
        "daily": daily,
        "weekly": [_job(s) for s in board.jobs["weekly"]],
        "starter": _job(board.starter) if board.starter else None,
        "done": sum(1 for j in daily if j["done"]),
        "zone_unset": zone_unset,
    }


def export_jobs(user) -> list[dict[str, Any]]:
    """The player's periods and the jobs drawn for them, for the account export (what each
    paid is in the wallet's entries, reason ``job``)."""
    return [
        {
            "kind": p.kind,
            "starts_at": p.starts_at.isoformat(),
            "ends_at": p.ends_at.isoformat(),
            "time_zone": p.time_zone,
            "jobs": [{k: j[k] for k in ("slug", "text", "goal", "reward")} for j in p.jobs],
        }
        for p in JobPeriod.objects.filter(user_id=user.pk).order_by("starts_at", "kind")
    ]
