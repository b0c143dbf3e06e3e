"""Sessions in Redis written through to the database (SESSION_ENGINE with REDIS_URL).

Django's cached_db engine already survives a cache that fails on reads and saves, but not one
that is away when a session read from the database is put back in the cache, nor on delete
or exists: with Redis stopped, every request of a signed-in player or a guest would be a 500.
Here the cache is only ever a shortcut: when it is away the database answers alone (issue 16,
chaos), and the log says so.
"""

from __future__ import annotations

import logging

from django.contrib.sessions.backends import cached_db

log = logging.getLogger(__name__)


class SessionStore(cached_db.SessionStore):
    def load(self):
        try:
            data = self._cache.get(self.cache_key)
        except Exception:
            data = None
        if data is not None:
            return data
        stored = self._get_session_from_db()
        if not stored:
            return {}
        data = self.decode(stored.session_data)
        try:
            self._cache.set(self.cache_key, data, self.get_expiry_age(expiry=stored.expire_date))
        except Exception as exc:
            log.warning("session not cached, the cache is away: %s", exc)
        return data

    def exists(self, session_key):
        try:
            if session_key and (self.cache_key_prefix + session_key) in self._cache:
                return True
        except Exception as exc:
            log.warning("session cache not read, the cache is away: %s", exc)
        return super(cached_db.SessionStore, self).exists(session_key)

    def delete(self, session_key=None):
        super(cached_db.SessionStore, self).delete(session_key)
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        try:
            self._cache.delete(self.cache_key_prefix + session_key)
        except Exception as exc:
            log.warning("session not removed from the cache, which is away: %s", exc)
