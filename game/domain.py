"""Domain objects the services return and the presenters read (no queries of their own)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from game.engine import HeistState
from game.models import Heist, HeistNight, JobPeriod


class HeistSnapshot:
    """A heist, its nights in order (one instance of the heist shared by all of them) and the
    engine state rebuilt from them. The state is given, or rebuilt by ``rebuild`` on first use
    (a rival task that finds its night sealed already never pays for the rebuild)."""

    def __init__(
        self,
        heist: Heist,
        nights: list[HeistNight],
        state: HeistState | None = None,
        *,
        rebuild: Callable[[Heist, list[HeistNight]], HeistState] | None = None,
    ) -> None:
        if state is None and rebuild is None:
            raise ValueError("a snapshot needs its state or a way to rebuild it")
        self.heist = heist
        self.nights = nights
        self._rebuild = rebuild
        if state is not None:
            self.__dict__["state"] = state

    @cached_property
    def state(self) -> HeistState:
        return self._rebuild(self.heist, self.nights)

    @property
    def current(self) -> HeistNight | None:
        """The night being played (sealed by the rival or not), or None once the heist is over."""
        if self.heist.is_closed:
            return None
        night = self.heist.night
        return next((n for n in self.nights if n.night == night and n.result is None), None)


class HeistMark(NamedTuple):
    """What tells one heist view from the next (game.presenters.heists.view_etag): the heist's
    status and night and the night in play's rival commitment (None before the rival sealed,
    and once the heist is over); ``overdue``: that night is one the view must seal itself (no
    worker sealed it in time)."""

    status: str
    night: int
    commitment: str | None
    overdue: bool = False


@dataclass(frozen=True, slots=True)
class JobState:
    """One job of a player's period as game.services.jobs counted it."""

    slug: str
    text: str
    progress: int  # at most the goal
    goal: int
    reward: int
    done: bool
    paid: bool


@dataclass(frozen=True, slots=True)
class JobBoard:
    """A player's jobs in force: both periods, their jobs counted, and the starter job."""

    time_zone: str
    daily: JobPeriod
    weekly: JobPeriod
    jobs: dict[str, list[JobState]]  # by period kind
    starter: JobState | None  # None once paid (or without a starter job)


@dataclass(frozen=True, slots=True)
class JobPaid:
    """A job a finished heist paid."""

    slug: str
    text: str
    reward: int
