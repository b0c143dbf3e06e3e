"""Celery tasks of accounts. They only call services."""

from __future__ import annotations

from celery import shared_task

from accounts import services


@shared_task(name="accounts.clear_expired_sessions", acks_late=True, ignore_result=True)
def clear_expired_sessions() -> int:
    """Periodic (CELERY_BEAT_SCHEDULE): delete expired sessions. Returns how many went."""
    return services.sessions_clear_expired()
