"""Benchmark a featured slot's leaderboard on PostgreSQL: the top 100 plus one player's rank.

A fresh database (default ``veyltak_featured_bench`` on 127.0.0.1; BENCH_DATABASE_URL to point
elsewhere on this machine) is migrated and given one featured slot with ``--entries`` ranked
entries (100,000 by default: players with public handles, finished heists, leaderboard rows;
loot and the rival's loot drawn 0..40, finish times spread over the slot, so ties on loot and
on margin are common, as on a real board). After VACUUM ANALYZE, each of ``--reads`` rounds
reads, through the same selectors the API uses (game.selectors.featured), the top 100 with
handles and titles and the rank of one player picked at random, and times it.

It prints the plans PostgreSQL chose (EXPLAIN ANALYZE of the top and of the rank's counts), the
p50 / p95 / p99 of the top, the rank and both together, the machine's load, and last the line
``leaderboard_p95_ms: N`` (both reads of one round together). The database is dropped at the
end unless ``--keep``.

    .venv-dev/bin/python bench/leaderboard.py                    # 100,000 entries, 500 rounds
    .venv-dev/bin/python bench/leaderboard.py --entries 20000 --reads 200
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import fresh_database, loopback_only  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def drop_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    maintenance = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def fill(slot, entries: int) -> None:
    """Players 1..N with handles, one finished ranked heist each, and its leaderboard row, in
    set-based INSERTs (a few seconds for 100,000)."""
    from django.db import connection

    with connection.cursor() as c:
        c.execute("SELECT setseed(0.42)")
        c.execute(
            """
            INSERT INTO auth_user (password, is_superuser, username, first_name, last_name,
                                   email, is_staff, is_active, date_joined)
            SELECT '!', false, 'bench' || g, '', '', 'bench' || g || '@example.com', false,
                   true, now()
            FROM generate_series(1, %s) AS g
            """,
            [entries],
        )
        c.execute(
            """
            INSERT INTO accounts_profile (user_id, handle, display_name, gate_version,
                                          created_at)
            SELECT id, 'crew-' || lpad(to_hex(id), 8, '0'), '', '', now()
            FROM auth_user WHERE username LIKE 'bench%%'
            ON CONFLICT DO NOTHING
            """
        )
        c.execute(
            """
            CREATE TEMP TABLE bench_rows AS
            SELECT gen_random_uuid() AS heist_id, u.id AS user_id,
                   floor(random() * 41)::int AS score, floor(random() * 41)::int AS rival,
                   %s::timestamptz + (random() * (%s::timestamptz - %s::timestamptz))
                       AS finished_at
            FROM auth_user u WHERE u.username LIKE 'bench%%'
            """,
            [slot.starts_at, slot.ends_at, slot.starts_at],
        )
        c.execute(
            """
            INSERT INTO game_heist (id, user_id, guest_id, ruleset, rival, difficulty,
                player_deck, rival_deck, encounter_slug, featured_slot_id, ranked, server_seed,
                client_seed, seed_commitment, status, night, outcome, signs_reason,
                created_at, last_activity_at, finished_at, cosmetics)
            SELECT r.heist_id, r.user_id, '', %s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, true,
                   %s, '', %s, 'finished', 7, 'win', '', r.finished_at, r.finished_at,
                   r.finished_at, '{}'::jsonb
            FROM bench_rows r
            """,
            [
                slot.ruleset,
                slot.rival,
                slot.difficulty,
                _json(slot.deck),
                _json(slot.deck),
                slot.encounter_slug,
                slot.slug,
                slot.server_seed,
                slot.seed_commitment,
            ],
        )
        c.execute(
            """
            INSERT INTO game_featuredentry (heist_id, slot_id, user_id, score, rival_score,
                                            margin, finished_at)
            SELECT heist_id, %s, user_id, score, rival, score - rival, finished_at
            FROM bench_rows
            """,
            [slot.slug],
        )
        # The tallies, as each finish keeps them (game.services.ranked._tally_add).
        c.execute(
            """
            INSERT INTO game_featuredtally (slot_id, score, margin, entries)
            SELECT %s, score, score - rival, count(*) FROM bench_rows GROUP BY 1, 2, 3
            """,
            [slot.slug],
        )


def _json(value) -> str:
    import json

    return json.dumps(value)


def plans(slot, user_id: int) -> list[str]:
    """EXPLAIN ANALYZE of every statement the selectors run for the top and one rank,
    captured as they run them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from game.selectors import featured as selectors

    with CaptureQueriesContext(connection) as captured:
        selectors.leaderboard_top(slot=slot)
        selectors.player_standing(slot=slot, user_id=user_id)
    out = []
    with connection.cursor() as c:
        for query in captured.captured_queries:
            c.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + query["sql"])
            plan = "\n".join(row[0] for row in c.fetchall())
            out.append(f"-- {query['sql']}\n{plan}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--reads", type=int, default=500)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    args = parser.parse_args()
    url = os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/veyltak_featured_bench"
    )
    loopback_only(url)
    fresh_database(url)
    env = {**os.environ, "DATABASE_URL": url}
    env.pop("DATABASE_TEST_NAME", None)
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        os.environ["DATABASE_URL"] = url
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "veyltak_site.settings")
        import django

        django.setup()
        return run(args)
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            drop_database(url)


def run(args) -> int:
    from django.db import connection

    from game.models import FeaturedEntry, FeaturedSlot
    from game.selectors import featured as selectors
    from game.services.featured import featured_reconcile

    featured_reconcile()
    slot = FeaturedSlot.objects.order_by("starts_at").first()
    began = time.perf_counter()
    fill(slot, args.entries)
    with connection.cursor() as c:
        c.execute("VACUUM ANALYZE game_featuredentry")
        c.execute("VACUUM ANALYZE accounts_profile")
        c.execute("SELECT count(*) FROM game_featuredentry WHERE slot_id = %s", [slot.slug])
        count = c.fetchone()[0]
    print(f"slot {slot.slug}: {count} ranked entries ({time.perf_counter() - began:.1f} s)")
    users = list(FeaturedEntry.objects.filter(slot=slot).values_list("user_id", flat=True))
    rng = random.Random(7)
    # A warm-up, as a running site would be.
    for _ in range(20):
        selectors.leaderboard_top(slot=slot)
        selectors.player_standing(slot=slot, user_id=rng.choice(users))
    tops, ranks, both = [], [], []
    for _ in range(args.reads):
        user_id = rng.choice(users)
        t0 = time.perf_counter()
        top = selectors.leaderboard_top(slot=slot)
        t1 = time.perf_counter()
        you = selectors.player_standing(slot=slot, user_id=user_id)
        t2 = time.perf_counter()
        assert len(top) == 100 and you is not None and you.handle
        tops.append((t1 - t0) * 1000)
        ranks.append((t2 - t1) * 1000)
        both.append((t2 - t0) * 1000)
    # The plans for the player at the bottom of the board: the most entries ahead.
    last = FeaturedEntry.objects.filter(slot=slot).order_by("score", "margin").first()
    print("\n".join(plans(slot, last.user_id)))
    print(f"load: {Path('/proc/loadavg').read_text().split()[:3]} (1, 5, 15 min)")
    for name, values in (("top_100", tops), ("rank", ranks), ("top_100_plus_rank", both)):
        print(
            f"{name}: p50 {percentile(values, 50):.2f} ms, p95 {percentile(values, 95):.2f} ms, "
            f"p99 {percentile(values, 99):.2f} ms over {len(values)} reads"
        )
    print(f"leaderboard_p95_ms: {percentile(both, 95):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
