"""Celery tasks of the shop. They only call services."""

from __future__ import annotations

from celery import shared_task

from shop import services


@shared_task(name="shop.clear_idempotency_records", acks_late=True, ignore_result=True)
def clear_idempotency_records() -> int:
    """Periodic (CELERY_BEAT_SCHEDULE): forget purchase answers older than
    IDEMPOTENCY_KEY_HOURS. Returns how many went."""
    return services.idempotency_records_clear()
