"""`--supabase-db`: a Supabase project's users mirrored into a real PostgreSQL's `auth.users` and `auth.identities`,
so the app's `profiles` table can reference `auth.users` and the usual `on_auth_user_created` trigger fills it, as
under GoTrue. The cluster is Debian's PostgreSQL, started for the test on a free port (as the `postgres` user when
the suite runs as root, which PostgreSQL refuses to run as)."""
import json
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time

import pytest
from supabase import create_client

from test_supabase_slice import ANON_KEY

SERVICE_KEY = "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz"
PG_BIN = next((p for p in sorted(pathlib.Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)), None)

# GoTrue's tables as its migrations leave them (the columns the mirror writes, and the generated ones it must not).
SCHEMA = """
CREATE SCHEMA auth;
CREATE TABLE auth.users (
    instance_id uuid, id uuid PRIMARY KEY, aud varchar(255), role varchar(255), email varchar(255),
    encrypted_password varchar(255), email_confirmed_at timestamptz, invited_at timestamptz, confirmation_token varchar(255),
    confirmation_sent_at timestamptz, recovery_token varchar(255), recovery_sent_at timestamptz, email_change_token_new varchar(255),
    email_change varchar(255), email_change_sent_at timestamptz, last_sign_in_at timestamptz, raw_app_meta_data jsonb,
    raw_user_meta_data jsonb, is_super_admin boolean, created_at timestamptz, updated_at timestamptz, phone text UNIQUE DEFAULT NULL,
    phone_confirmed_at timestamptz, phone_change text DEFAULT '', phone_change_token varchar(255) DEFAULT '',
    phone_change_sent_at timestamptz, confirmed_at timestamptz GENERATED ALWAYS AS (LEAST(email_confirmed_at, phone_confirmed_at)) STORED,
    email_change_token_current varchar(255) DEFAULT '', email_change_confirm_status smallint DEFAULT 0, banned_until timestamptz,
    reauthentication_token varchar(255) DEFAULT '', reauthentication_sent_at timestamptz, is_sso_user boolean NOT NULL DEFAULT false,
    deleted_at timestamptz, is_anonymous boolean NOT NULL DEFAULT false
);
CREATE TABLE auth.identities (
    provider_id text NOT NULL, user_id uuid NOT NULL REFERENCES auth.users(id) ON DELETE CASCADE, identity_data jsonb NOT NULL,
    provider text NOT NULL, last_sign_in_at timestamptz, created_at timestamptz, updated_at timestamptz,
    email text GENERATED ALWAYS AS (lower(identity_data->>'email')) STORED, id uuid PRIMARY KEY, UNIQUE (provider_id, provider)
);
-- The app's own table and Supabase's documented trigger.
CREATE TABLE public.profiles (
    id uuid PRIMARY KEY REFERENCES auth.users(id) ON DELETE CASCADE, email text, full_name text, created_at timestamptz DEFAULT now()
);
CREATE FUNCTION public.handle_new_user() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
BEGIN
  -- A slow trigger: the sign-up's answer must still come after it (GoTrue's does), which an answer sent before the
  -- mirror's write would not.
  PERFORM pg_sleep(0.3);
  INSERT INTO public.profiles (id, email, full_name) VALUES (new.id, new.email, new.raw_user_meta_data ->> 'full_name');
  RETURN new;
END;
$$;
CREATE TRIGGER on_auth_user_created AFTER INSERT ON auth.users FOR EACH ROW EXECUTE PROCEDURE public.handle_new_user();
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    def __init__(self, directory):
        self.port = free_port()
        self.data = directory / "data"
        self.socket_dir = directory / "socket"
        self.socket_dir.mkdir()
        as_root = os.geteuid() == 0
        self.prefix = ["runuser", "-u", "postgres", "--"] if as_root else []
        if as_root:
            shutil.chown(directory, "postgres")
            shutil.chown(self.socket_dir, "postgres")
        self.run([str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync"])
        self.run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-w", "-l", str(directory / "log"), "-o",
                  f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1 -c fsync=off", "start"])
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def run(self, command):
        subprocess.run(self.prefix + command, check=True, capture_output=True, timeout=120)

    def sql(self, statement):
        """Rows as lists of strings (psql's unaligned output)."""
        out = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", "postgres", "-XAtq",
                              "-v", "ON_ERROR_STOP=1", "-F", "\t", "-c", statement], check=True, capture_output=True, text=True, timeout=60)
        return [line.split("\t") for line in out.stdout.splitlines() if line]

    def stop(self):
        subprocess.run(self.prefix + [str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"], capture_output=True, timeout=60)


@pytest.fixture
def postgres():
    assert PG_BIN is not None, "PostgreSQL's server is not installed (Debian's postgresql package; .ci/run installs it)"
    # Not under pytest's temporary directory: that is root's alone, and the server runs as `postgres`.
    directory = pathlib.Path(tempfile.mkdtemp(prefix="fauxth-pg-"))
    try:
        server = Postgres(directory)
        server.sql(SCHEMA)
        yield server
        server.stop()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def eventually(check, timeout=10):
    deadline = time.time() + timeout
    while True:
        result = check()
        if result or time.time() > deadline:
            return result
        time.sleep(0.05)


def test_users_reach_auth_users_and_the_apps_trigger_and_foreign_keys_work(start_fauxth, postgres):
    fauxth = start_fauxth("--supabase-db", postgres.url)
    # The seed's users are there from the start (the trigger made their profiles too).
    seeded = {u["id"] for u in fauxth.control("GET", "/tenants/default/users").json()["users"]}
    assert eventually(lambda: {r[0] for r in postgres.sql("SELECT id FROM auth.users")} == seeded)
    auth = create_client(fauxth.url, ANON_KEY).auth
    user = auth.sign_up({"email": "mirrored@example.com", "password": "secret123", "options": {"data": {"full_name": "Ada Mirror"}}}).user
    # The trigger made the profile from the row the mirror inserted, before the sign-up was answered (as GoTrue
    # writes the row in the request's transaction): read at once, not polled.
    profile = postgres.sql(f"SELECT email, full_name FROM public.profiles WHERE id = '{user.id}'")
    assert profile == [["mirrored@example.com", "Ada Mirror"]]
    row = postgres.sql(f"SELECT aud, role, email_confirmed_at IS NULL, raw_app_meta_data::text, instance_id FROM auth.users WHERE id = '{user.id}'")
    assert row[0][:3] == ["authenticated", "authenticated", "t"]
    assert json.loads(row[0][3]) == {"provider": "email", "providers": ["email"]}
    identities = postgres.sql(f"SELECT provider, provider_id, email FROM auth.identities WHERE user_id = '{user.id}'")
    assert identities == [["email", user.id, "mirrored@example.com"]]

    # Confirming, then changing the metadata, update the same row (the trigger does not fire again).
    code = fauxth.wait_message("mirrored@example.com", purpose="verify_email")["codes"][0]
    session = auth.verify_otp({"email": "mirrored@example.com", "token": code, "type": "signup"}).session
    assert postgres.sql(f"SELECT confirmed_at IS NOT NULL, last_sign_in_at IS NOT NULL FROM auth.users WHERE id = '{user.id}'") == [["t", "t"]]
    auth.update_user({"data": {"full_name": "Ada Renamed"}})
    assert postgres.sql(f"SELECT raw_user_meta_data->>'full_name' FROM auth.users WHERE id = '{user.id}'") == [["Ada Renamed"]]
    assert postgres.sql(f"SELECT count(*) FROM public.profiles WHERE id = '{user.id}'") == [["1"]]
    assert session.user.id == user.id

    # Deleting the user deletes its row, and the app's rows that reference it go with it.
    create_client(fauxth.url, SERVICE_KEY).auth.admin.delete_user(user.id)
    assert postgres.sql(f"SELECT count(*) FROM auth.users WHERE id = '{user.id}'") == [["0"]]
    assert postgres.sql(f"SELECT count(*) FROM public.profiles WHERE id = '{user.id}'") == [["0"]]
    assert postgres.sql(f"SELECT count(*) FROM auth.identities WHERE user_id = '{user.id}'") == [["0"]]
    assert {r[0] for r in postgres.sql("SELECT id FROM auth.users")} == seeded


def test_the_database_holds_the_projects_users_at_start_and_after_a_reset_or_restore(start_fauxth, postgres):
    # A user left from an earlier run, with the app's row for it: not one of the project's, so it goes at start.
    stale = "5ca1ab1e-0000-4000-8000-000000000001"
    postgres.sql(f"INSERT INTO auth.users (id, email, phone) VALUES ('{stale}', 'stale@example.com', '15555550100')")
    assert postgres.sql("SELECT count(*) FROM public.profiles") == [["1"]]
    fauxth = start_fauxth("--supabase-db", postgres.url)

    def mirrored():
        return {r[0] for r in postgres.sql("SELECT email FROM auth.users")}

    seeded = {u["email"] for u in fauxth.control("GET", "/tenants/default/users").json()["users"]}
    assert eventually(lambda: mirrored() == seeded), mirrored()
    assert postgres.sql(f"SELECT count(*) FROM public.profiles WHERE id = '{stale}'") == [["0"]]

    # A reset takes the users signed up since, with their rows; the control API answers once the database is in step.
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_up({"email": "before-snapshot@example.com", "password": "secret123"})
    assert fauxth.control("POST", "/snapshots", json={"name": "one-more"}).status_code in (200, 201)
    auth.sign_up({"email": "after-snapshot@example.com", "password": "secret123"})
    assert mirrored() == seeded | {"before-snapshot@example.com", "after-snapshot@example.com"}
    assert fauxth.control("POST", "/reset").status_code == 200
    assert mirrored() == seeded
    assert postgres.sql("SELECT count(*) FROM public.profiles") == [[str(len(seeded))]]
    # After a reset, a sign-up's answer still comes after its row and the trigger's profile (event numbers go on from
    # before the reset, which the wait compares).
    fresh = auth.sign_up({"email": "after-reset@example.com", "password": "secret123"}).user
    assert postgres.sql(f"SELECT email FROM public.profiles WHERE id = '{fresh.id}'") == [["after-reset@example.com"]]

    # Restoring a snapshot brings its users back, for this project alone as for the whole emulator.
    restored = fauxth.control("POST", "/snapshots/one-more/restore", params={"tenant": "default"})
    assert restored.status_code == 200, restored.text
    assert mirrored() == seeded | {"before-snapshot@example.com"}
    assert postgres.sql("SELECT count(*) FROM public.profiles") == [[str(len(seeded) + 1)]]
    assert fauxth.control("POST", "/reset", params={"tenant": "default"}).status_code == 200
    assert mirrored() == seeded
    assert fauxth.control("GET", "/events", params={"type": "mirror.failed"}).json()["events"] == []


def test_a_mirror_that_fails_is_an_event_not_silence(start_fauxth, postgres):
    fauxth = start_fauxth("--supabase-db", postgres.url)
    # Once the start's sync is done (dropping tables under its writes would deadlock the two).
    assert eventually(lambda: postgres.sql("SELECT count(*) FROM auth.users") == [["3"]])
    postgres.sql("DROP TABLE public.profiles; DROP TABLE auth.identities; DROP TABLE auth.users")
    create_client(fauxth.url, ANON_KEY).auth.sign_up({"email": "lost@example.com", "password": "secret123"})
    failures = eventually(lambda: fauxth.control("GET", "/events", params={"type": "mirror.failed"}).json()["events"])
    assert failures, "no mirror.failed event"
    detail = failures[0]["detail"]
    assert detail["database"] == postgres.url and "auth.users" in detail["error"]
    assert fauxth.control("GET", "/health").status_code == 200


def test_a_bad_database_url_is_refused_at_start(start_fauxth):
    refused = start_fauxth("--supabase-db", "mysql://root@127.0.0.1/app", expect_ready=False)
    assert refused.process.wait(timeout=30) != 0
    refused.stop()
    assert "--supabase-db" in refused.stderr
