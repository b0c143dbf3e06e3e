import pytest
from game.services.featured import featured_reconcile
from tests.game.conftest import post, play_out

pytestmark = pytest.mark.django_db

def test_smoke(player, guest):
    done = featured_reconcile()
    print(done)
    user, client = player
    r = client.get("/api/v1/featured/")
    print(r.json())
    slug = r.json()["current"]["slug"]
    r = post(client, f"/api/v1/featured/{slug}/heists/")
    assert r.status_code == 201, r.content
    v = r.json()
    assert v["ranked"] is True and v["featured"] == slug
    v = play_out(client, v)
    print(v["result"])
    r = client.get(f"/api/v1/featured/{slug}/leaderboard/?limit=5")
    print(r.json())
    r = post(client, f"/api/v1/featured/{slug}/heists/")
    assert r.json()["ranked"] is False
    r = client.get(f"/api/v1/heists/{v['id']}/replay/")
    print(r.status_code, r.json())
    r = client.get(f"/api/v1/featured/{slug}/leaderboard/?limit=101")
    print(r.status_code, r.json())
