"""Several Supabase projects at once: one from a GoTrue dotenv file, served on its own port."""
import socket
import time

import requests
from supabase import create_client

from test_supabase_slice import ANON_KEY


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_dotenv_project_on_its_own_port(start_fauxth, tmp_path):
    env = tmp_path / "gotrue.env"
    env.write_text(
        "# the file a user runs GoTrue with\n"
        "export GOTRUE_JWT_SECRET='another-super-secret-jwt-token-32-characters'\n"
        'GOTRUE_MAILER_AUTOCONFIRM="true"\n'
        "GOTRUE_SITE_URL=http://localhost:5173\n"
        "FAUXTH_PROJECT_ID=shop\n"
    )
    port = free_port()
    instance = start_fauxth("--supabase-env", str(env), "--supabase-port", str(port))
    project_url = f"http://127.0.0.1:{port}"
    tenants = {t["id"]: t for t in instance.control("GET", "/info").json()["tenants"]}
    assert tenants["shop"]["hints"]["SUPABASE_URL"] == project_url
    assert project_url in instance.control("GET", "/info").json()["listeners"]

    # A bare GoTrue answers at the root of its port...
    assert requests.get(f"{project_url}/health").json()["name"] == "GoTrue"
    assert requests.get(f"{project_url}/settings").json()["mailer_autoconfirm"] is True
    # ...and a Supabase client, which adds /auth/v1, works against the same port.
    auth = create_client(project_url, ANON_KEY).auth
    session = auth.sign_up({"email": "shopper@example.com", "password": "secret123"}).session
    assert session is not None  # autoconfirm from the dotenv file
    users = instance.control("GET", "/tenants/shop/users", params={"email": "shopper@example.com"}).json()["users"]
    assert len(users) == 1
    assert instance.control("GET", "/tenants/default/users", params={"email": "shopper@example.com"}).json()["users"] == []


def test_each_dotenv_file_needs_a_port(tmp_path):
    import subprocess

    from conftest import BINARY

    env = tmp_path / "a.env"
    env.write_text("GOTRUE_JWT_SECRET=x\n")
    result = subprocess.run([BINARY, "--port", "0", "--supabase-env", str(env)], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "--supabase-port" in result.stderr


def test_a_project_made_at_run_time_with_a_port_gets_its_own_listener_until_it_goes(fauxth):
    made = fauxth.control("POST", "/tenants", json={"id": "own-port", "dialect": "supabase", "port": 0})
    assert made.status_code == 201, made.text

    def own_url():
        tenants = fauxth.control("GET", "/info").json()["tenants"]
        url = next(t for t in tenants if t["id"] == "own-port")["hints"]["SUPABASE_URL"]
        return None if url == fauxth.url else url

    deadline = time.time() + 10
    while (url := own_url()) is None and time.time() < deadline:
        time.sleep(0.05)
    assert url and url != fauxth.url
    # A bare GoTrue at the root, and under /auth/v1 for supabase clients.
    assert requests.get(f"{url}/health", timeout=10).json()["name"] == "GoTrue"
    signed_up = requests.post(f"{url}/auth/v1/signup", json={"email": "own@example.com", "password": "secret123"}, timeout=10)
    assert signed_up.status_code == 200
    assert fauxth.control("GET", "/tenants/own-port/users", params={"email": "own@example.com"}).json()["users"]
    assert url in fauxth.control("GET", "/info").json()["listeners"]

    assert fauxth.control("DELETE", "/tenants/own-port").status_code == 204
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            requests.get(f"{url}/health", timeout=2)
        except requests.ConnectionError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the deleted project's port still answers")
    assert url not in fauxth.control("GET", "/info").json()["listeners"]
