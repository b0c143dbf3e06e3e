"""The board's data (the ruleset's numbers, names and words, game/presenters): one public answer
per ruleset, served under an address that names its content, cached for a year and compressed;
the board page names the address of its heist's ruleset."""

from __future__ import annotations

import gzip
import json

import pytest

from game.engine import get_ruleset
from game.engine.rules import available_versions
from tests.support.heists import start

pytestmark = pytest.mark.django_db


def test_every_ruleset_has_its_board_data(client):
    for version in available_versions():
        answer = client.get(f"/board/{version}.json")
        assert answer.status_code == 200
        data = json.loads(answer.content)
        assert data["version"] == version
        assert list(data["crew"]) == list(get_ruleset(version).crew)
        assert data["words"]["seal"] == "Seal night {night}"
        assert "{" not in data["glossary"]["heat"]["text"]  # the ruleset's numbers filled in
        assert answer["Cache-Control"] == "public, max-age=31536000, immutable"


def test_an_unknown_ruleset_is_not_found(client):
    assert client.get("/board/1999.01.json").status_code == 404


def test_it_is_compressed_for_a_browser_that_asks(client):
    version = available_versions()[-1]
    answer = client.get(f"/board/{version}.json", HTTP_ACCEPT_ENCODING="gzip")
    assert answer["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(answer.content))["version"] == version


def test_the_board_page_names_its_heists_ruleset(guest):
    view = start(guest)
    page = guest.get(f"/heists/{view['id']}/")
    url = page.context["rules_url"]
    assert url.startswith(f"/board/{view['ruleset']}.json?v=")
    assert f'data-rules-url="{url}"' in page.content.decode()
    # The same address for every player and every heist of that ruleset.
    assert start(guest)["ruleset"] == view["ruleset"]
    assert guest.get(f"/heists/{start(guest)['id']}/").context["rules_url"] == url
