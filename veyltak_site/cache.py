"""The site's cache backends, counted: keys read (hit or miss) and calls that raised.

Django's own Redis and file caches with two counters on top (veyltak_site.metrics). The rate
limits' one-round-trip count on Redis (veyltak_site.throttling) goes past these methods to the
client itself and is not counted here; its requests are.

Django's Redis cache makes a new ``redis.Redis`` client object for every call (over its shared
connection pool), and building one sets up a table of some 170 reply handlers: about as much
CPU as the round trip itself, several times in every request (the session, the rate limits).
Here each pool's client is made once and reused: a redis-py client over a connection pool is
safe to share between threads (each command takes a connection from the pool) and holds no
connection of its own.
"""

from __future__ import annotations

from django.core.cache.backends import filebased, redis

from veyltak_site import metrics

_MISSING = object()
_HIT = metrics.CACHE_GETS.labels("hit")
_MISS = metrics.CACHE_GETS.labels("miss")


class _Counted:
    def _call(self, operation: str, call, *args, **kwargs):
        try:
            return call(*args, **kwargs)
        except Exception:
            metrics.CACHE_ERRORS.labels(operation).inc()
            raise

    def get(self, key, default=None, version=None):
        value = self._call("get", super().get, key, _MISSING, version=version)
        if value is _MISSING:
            _MISS.inc()
            return default
        _HIT.inc()
        return value

    def set(self, *args, **kwargs):
        return self._call("set", super().set, *args, **kwargs)

    def add(self, *args, **kwargs):
        return self._call("add", super().add, *args, **kwargs)

    def incr(self, *args, **kwargs):
        return self._call("incr", super().incr, *args, **kwargs)

    def delete(self, *args, **kwargs):
        return self._call("delete", super().delete, *args, **kwargs)


class _ReusedClients(redis.RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(_Counted, redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _ReusedClients

    def get_many(self, keys, version=None):
        keys = list(keys)
        found = self._call("get_many", super().get_many, keys, version=version)
        _HIT.inc(len(found))
        _MISS.inc(len(keys) - len(found))
        return found


class FileBasedCache(_Counted, filebased.FileBasedCache):
    """(Its get_many reads key by key through ``get``, counted there.)"""
