"""The Redis cache reuses one client object per connection pool (veyltak_site/cache.py) instead
of building one for every call, and it keeps working across threads and dropped connections."""

from __future__ import annotations

import threading

import pytest
from django.core.cache import caches

from veyltak_site.cache import RedisCache


@pytest.fixture
def redis_cache():
    cache = caches["default"]
    if not isinstance(cache, RedisCache):
        pytest.skip("the cache is not Redis here (no Redis answered)")
    return cache


def test_one_client_per_pool_reused_for_every_call(redis_cache):
    client = redis_cache._cache.get_client(write=True)
    assert redis_cache._cache.get_client(write=True) is client
    assert redis_cache._cache.get_client("a key") is client  # one server: reads use its pool
    redis_cache.set("reuse:key", {"n": 1}, timeout=30)
    assert redis_cache.get("reuse:key") == {"n": 1}
    assert redis_cache._cache.get_client() is client


def test_the_reused_client_survives_dropped_connections_and_threads(redis_cache):
    redis_cache.set("reuse:drop", 1, timeout=30)
    client = redis_cache._cache.get_client(write=True)
    # What a Redis restart does to the pool's open connections.
    client.connection_pool.disconnect()
    assert redis_cache.incr("reuse:drop") == 2
    errors: list[BaseException] = []

    def count() -> None:
        try:
            # Each thread has its own cache object (Django's caches are per thread) and so its
            # own client; all count on the one key.
            for _ in range(50):
                caches["default"].incr("reuse:drop")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=count) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors
    assert redis_cache.get("reuse:drop") == 2 + 4 * 50
