"""Eight test workers at once, each in a Supabase project of its own made at run time and reached through its
prefix (`/projects/<id>`) with supabase-py, as pytest-xdist or Jest workers sharing one Fauxth would be. Every
worker signs up the same address and its own, confirms with the code its message carries, signs in, refreshes,
meets a fault rule scoped to its project, and is put back to a snapshot on its own. Nothing may cross: users,
messages, sessions, fault firings and restores stay in their project."""
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from supabase import create_client
from supabase_auth.errors import AuthApiError

from conftest import sized
from test_supabase_slice import ANON_KEY

pytestmark = pytest.mark.reliability

WORKERS = 8
FLOWS = sized(3, 25)


def work(fauxth, index):
    project = f"worker-{index}"
    made = fauxth.control("POST", "/tenants", json={"id": project, "dialect": "supabase",
                                                    "gotrue_env": {"GOTRUE_SITE_URL": "http://127.0.0.1:3000"}})
    assert made.status_code == 201, made.text
    base = f"{fauxth.url}/projects/{project}"
    emails = ["shared@example.com"] + [f"user{n}@worker{index}.example.com" for n in range(FLOWS)]
    tokens = []
    for email in emails:
        auth = create_client(base, ANON_KEY).auth
        auth.sign_up({"email": email, "password": "secret123"})
        message = fauxth.wait_message(email, tenant=project, purpose="verify_email")
        assert message["tenant"] == project
        assert any(f"/projects/{project}/auth/v1/verify?" in link for link in message["links"]), message["links"]
        session = auth.verify_otp({"email": email, "token": message["codes"][0], "type": "signup"}).session
        signed_in = auth.sign_in_with_password({"email": email, "password": "secret123"}).session
        refreshed = auth.refresh_session(signed_in.refresh_token).session
        assert auth.get_user(refreshed.access_token).user.email == email
        tokens.append(session.access_token)

    # A fault scoped to this project fires here once, and nowhere else.
    rule = fauxth.control("POST", "/faults", json={"id": f"only-{project}", "match": {"tenant": project, "operation": "supabase:token.password"},
                                                   "effect": {"type": "error", "error": "server_error"}, "schedule": {"times": 1}})
    assert rule.status_code == 201, rule.text
    with pytest.raises(AuthApiError):
        create_client(base, ANON_KEY).auth.sign_in_with_password({"email": emails[1], "password": "secret123"})
    assert create_client(base, ANON_KEY).auth.sign_in_with_password({"email": emails[1], "password": "secret123"}).session
    return project, emails, tokens


def test_eight_workers_each_in_its_own_project_never_cross(fauxth, figures):
    fauxth.control("POST", "/snapshots", json={"name": "before-workers"})
    with ThreadPoolExecutor(WORKERS) as pool:
        results = list(pool.map(lambda i: work(fauxth, i), range(WORKERS)))
    figures("parallel workers", WORKERS)
    figures("sign-up flows across workers", sum(len(emails) for _, emails, _ in results))

    for project, emails, tokens in results:
        users = fauxth.control("GET", f"/tenants/{project}/users", params={"limit": 500}).json()["users"]
        assert sorted(u["email"] for u in users) == sorted(emails)
        messages = fauxth.control("GET", "/messages", params={"tenant": project, "limit": 500}).json()["messages"]
        assert {m["to"] for m in messages} == set(emails)
        # The same address is a different user in every project.
        assert len({u["id"] for u in users if u["email"] == "shared@example.com"}) == 1
    shared = {next(u["id"] for u in fauxth.control("GET", f"/tenants/{p}/users", params={"email": "shared@example.com"}).json()["users"])
              for p, _, _ in results}
    assert len(shared) == WORKERS
    assert fauxth.control("GET", "/tenants/default/users", params={"email": "shared@example.com"}).json()["users"] == []

    # One project's token is no session in another, though both sign with the CLI's secret.
    first, second = results[0], results[1]
    crossed = requests.get(f"{fauxth.url}/projects/{second[0]}/auth/v1/user", timeout=10,
                           headers={"apikey": ANON_KEY, "Authorization": f"Bearer {first[2][0]}", "X-Supabase-Api-Version": "2024-01-01"})
    assert crossed.status_code == 403 and crossed.json()["code"] == "user_not_found"

    # Each project's fault fired once, in that project only.
    firings = fauxth.control("GET", "/faults/journal").json()["firings"]
    assert sorted(f["rule"] for f in firings) == sorted(f"only-{p}" for p, _, _ in results)
    assert all(f["tenant"] == f["rule"].removeprefix("only-") and f["path"].startswith(f"/projects/{f['tenant']}/") for f in firings), firings

    # One worker goes back to the snapshot on its own; the others keep everything.
    assert fauxth.control("POST", "/snapshots/before-workers/restore", params={"tenant": first[0]}).status_code == 200
    # The snapshot was taken before the worker's project existed: restored on its own, it is gone again.
    assert fauxth.control("GET", f"/tenants/{first[0]}").status_code == 404
    for project, emails, _ in results[1:]:
        assert len(fauxth.control("GET", f"/tenants/{project}/users", params={"limit": 500}).json()["users"]) == len(emails)
    for project, _, _ in results[1:]:
        assert fauxth.control("DELETE", f"/tenants/{project}").status_code == 204
    fauxth.control("DELETE", "/faults")
