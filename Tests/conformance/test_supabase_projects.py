"""Several Supabase projects at once: one from a GoTrue dotenv file, served on its own port."""
import socket

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
