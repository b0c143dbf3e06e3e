"""Bytes on the wire for the heist board's first load, with its art, as a phone's Chromium gets it.

The site is served as in production: static files collected with the compressed manifest storage
(WhiteNoise serves them gzipped, with far-future caching) by gunicorn on 127.0.0.1, on a fresh
PostgreSQL database (default ``veyltak_board_bench``; BENCH_DATABASE_URL to point elsewhere on
this machine). A new guest passes the age screen and starts a heist; then a fresh browser context
with the same cookies and an empty cache opens the board, and every response of that load
(HTML, CSS, JS, the SVG sprite, the API's heist view, until the network is idle) is counted by
its encoded size on the wire (Chrome DevTools Protocol ``encodedDataLength``: headers and the
compressed body).

It prints each response and the total; last line ``board_first_load_kb: N`` (KiB, one decimal;
the aim is under 80). The database is dropped at the end.

    .venv-dev/bin/python bench/board.py
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import (  # noqa: E402
    bench_site,
    free_port,
    fresh_site,
    start_process,
    stop_process,
    wait_port,
)

VENV_BIN = Path(sys.executable).parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
PHONE = {"width": 360, "height": 640}
ADULT_BIRTH_DATE = "1990-04-02"


def first_load(base: str) -> dict[str, int]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            setup = browser.new_context(viewport=PHONE)
            page = setup.new_page()
            page.goto(base + "/age-check/?next=/play/")
            page.get_by_label("Date of birth").fill(ADULT_BIRTH_DATE)
            page.get_by_role("button", name="Continue").click()
            page.wait_for_load_state("load")
            token = next(c["value"] for c in setup.cookies() if c["name"] == "csrftoken")
            answer = page.request.post(
                f"{base}/api/v1/heists/",
                data={"rival": "quiet-hands", "difficulty": "rookie"},
                headers={"X-CSRFToken": token, "Referer": base + "/"},
            )
            assert answer.ok, answer.text()
            board_url = f"{base}/heists/{answer.json()['id']}/"
            state = setup.storage_state()
            setup.close()

            context = browser.new_context(viewport=PHONE, storage_state=state)
            board = context.new_page()
            cdp = context.new_cdp_session(board)
            cdp.send("Network.enable")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            urls: dict[str, str] = {}
            sizes: dict[str, int] = {}
            cdp.on(
                "Network.requestWillBeSent",
                lambda e: urls.update({e["requestId"]: e["request"]["url"]}),
            )
            cdp.on(
                "Network.loadingFinished",
                lambda e: sizes.update(
                    {urls.get(e["requestId"], e["requestId"]): int(e["encodedDataLength"])}
                ),
            )
            problems: list[str] = []
            board.on("console", lambda m: problems.append(f"console {m.type}: {m.text}"))
            board.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            board.goto(board_url)
            try:
                board.locator(".card").first.wait_for(timeout=60_000)
            except Exception:
                print("the board did not show its cards:", *problems, sep="\n  ")
                print(board.url, board.content()[:1500])
                raise
            board.locator(".card .emblem").first.wait_for()
            # The plan's preview (tomorrow's Energy) is part of the first load too.
            board.locator("#b-tomorrow").filter(has_text="Tomorrow").wait_for()
            board.wait_for_load_state("networkidle")
            context.close()
            return {url.replace(base, ""): size for url, size in sizes.items()}
        finally:
            browser.close()


def drop_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}" WITH (FORCE)')


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    db_url, redis, var, env = bench_site("veyltak_board_bench", "veyltak-board-bench-")
    env.pop("STATIC_PLAIN", None)  # the production storage: hashed, compressed static files
    # One var/ folder kept between runs (git ignores var/): collecting and compressing the
    # static files is most of the run on a busy machine, and only changed files are redone.
    var = ROOT / "var" / "board-bench"
    var.mkdir(parents=True, exist_ok=True)
    env["VEYLTAK_VAR_DIR"] = str(var)
    env["RIVAL_FALLBACK_SECONDS"] = "0"  # no worker here: the view seals the rival's night
    python = str(VENV_BIN / "python")
    fresh_site(python, db_url, redis, env)
    print("collecting static files (compressed manifest storage)", flush=True)
    subprocess.run(
        [python, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    port = free_port()
    web = None
    try:
        web = start_process(
            [str(VENV_BIN / "gunicorn"), "veyltak_site.wsgi", "--bind", f"127.0.0.1:{port}"],
            env,
            var / "gunicorn.log",
        )
        wait_port(port, 120, web)
        print(f"serving on 127.0.0.1:{port}; loading the board", flush=True)
        sizes = first_load(f"http://127.0.0.1:{port}")
    finally:
        stop_process(web)
        drop_database(db_url)
    total = sum(sizes.values())
    print(f"board first load: {total} bytes in {len(sizes)} responses (phone, empty cache)")
    for url, size in sorted(sizes.items(), key=lambda kv: -kv[1]):
        print(f"  {size:>7}  {url}")
    print(f"board_first_load_kb: {total / 1024:.1f}")


if __name__ == "__main__":
    main()
