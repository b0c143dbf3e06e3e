import pytest
from django.test import Client


@pytest.fixture(autouse=True)
def _no_worker_wait(settings):
    # No Celery worker here: the heist view seals the rival's night at once (as in tests/game).
    settings.RIVAL_FALLBACK_SECONDS = 0


@pytest.fixture
def guest(db) -> Client:
    """A guest browser that passed the age check."""
    from tests.support.heists import age_checked_client

    return age_checked_client()
