"""The control API and the command line, over a real socket."""
import contextlib
import json
import pathlib
import re
import signal
import socket
import sqlite3
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from conftest import BINARY


def sign_up(fauxth, email):
    return requests.post(f"{fauxth.url}/auth/v1/signup", json={"email": email, "password": "secret123"})


def sign_in(url):
    """The seed's Alice, signed in with GoTrue's password grant: the session's JSON."""
    response = requests.post(f"{url}/auth/v1/token", params={"grant_type": "password"},
                             json={"email": "alice@example.com", "password": "password123"}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


@contextlib.contextmanager
def undrained_server():
    """fauxth started with every event and request logged to a pipe that is read up to the ready line and no further,
    as a harness that forgets to drain it would: the process and its base URL."""
    process = subprocess.Popen([BINARY, "serve", "--port", "0", "--log-format", "json", "--log-requests"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        url = None
        while url is None:
            entry = json.loads(process.stdout.readline())
            url = entry.get("base_url") if entry.get("kind") == "ready" else None
        yield process, url
    finally:
        process.kill()
        process.wait()


def test_health_info_and_openapi(fauxth):
    assert fauxth.control("GET", "/health").json()["status"] == "ok"
    info = fauxth.control("GET", "/info").json()
    assert info["base_url"] == fauxth.url
    assert info["deterministic"] is True
    assert info["tenants"][0]["hints"]["SUPABASE_URL"] == fauxth.url
    document = fauxth.control("GET", "/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    assert "/messages/wait" in document["paths"]


def test_a_tenant_id_encoded_in_the_path_is_found(fauxth):
    """A Firebase tenant's id has a colon, which test helpers encode (`encodeURIComponent`, `urllib.parse.quote`)."""
    signed_up = requests.post(f"{fauxth.url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "fake-api-key"},
                              json={"tenantId": "encoded-tenant", "returnSecureToken": True}, timeout=30).json()
    for tenant in ("demo-fauxth:encoded-tenant", "demo-fauxth%3Aencoded-tenant"):
        assert fauxth.control("GET", f"/tenants/{tenant}").json()["id"] == "demo-fauxth:encoded-tenant"
        assert fauxth.control("GET", f"/tenants/{tenant}/users/{signed_up['localId']}").json()["id"] == signed_up["localId"]


def test_wait_long_polls_until_the_message_arrives(fauxth):
    result = {}

    def waiter():
        result["response"] = fauxth.control("GET", "/messages/wait", params={"to": "later@example.com", "timeout": 10})

    thread = threading.Thread(target=waiter)
    thread.start()
    sign_up(fauxth, "later@example.com")
    thread.join(15)
    assert result["response"].status_code == 200
    assert result["response"].json()["to"] == "later@example.com"
    timeout = fauxth.control("GET", "/messages/wait", params={"to": "never@example.com", "timeout": 0.2})
    assert timeout.status_code == 408
    assert timeout.json()["error"]["code"] == "timeout"


def test_the_event_stream_carries_new_messages(fauxth):
    with requests.get(f"{fauxth.url}/_emu/v1/events/stream", stream=True, timeout=10) as stream:
        assert stream.headers["Content-Type"] == "text/event-stream"
        lines = stream.iter_lines(decode_unicode=True)
        assert next(lines) == ": connected"
        sign_up(fauxth, "streamed@example.com")
        kind = None
        for line in lines:
            if line.startswith("event: "):
                kind = line[len("event: "):]
            elif line.startswith("data: ") and kind == "message":
                assert json.loads(line[len("data: "):])["to"] == "streamed@example.com"
                break


def test_snapshots_round_trip_through_files(fauxth, tmp_path):
    sign_up(fauxth, "snap@example.com")
    path = str(tmp_path / "state.sqlite")
    assert fauxth.control("POST", "/snapshots/save", json={"path": path}).status_code == 200
    fauxth.control("POST", "/reset")
    assert fauxth.control("GET", "/tenants/default/users", params={"email": "snap@example.com"}).json()["users"] == []
    assert fauxth.control("POST", "/snapshots/load", json={"path": path}).status_code == 200
    assert len(fauxth.control("GET", "/tenants/default/users", params={"email": "snap@example.com"}).json()["users"]) == 1
    (tmp_path / "junk.sqlite").write_bytes(b"not a database")
    refused = fauxth.control("POST", "/snapshots/load", json={"path": str(tmp_path / "junk.sqlite")})
    assert refused.status_code == 422
    assert (tmp_path / "junk.sqlite").read_bytes() == b"not a database"


def test_a_snapshot_holding_a_project_gotrue_would_refuse_is_not_loaded(fauxth, tmp_path):
    # What an older, laxer Fauxth could have saved: a project whose GOTRUE_SMTP_MAX_FREQUENCY has no unit. Made here by
    # editing a saved file without its checksum trailer (such a file loads as one saved before checksums).
    path = tmp_path / "older.sqlite"
    assert fauxth.control("POST", "/snapshots/save", json={"path": str(path)}).status_code == 200
    path.write_bytes(path.read_bytes()[:-48])
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("INSERT INTO tenants (id, dialect, name, settings, created_at) VALUES (?, 'supabase', ?, ?, 0)",
                   ("unitless", "unitless", json.dumps({"gotrue_env": {"GOTRUE_SMTP_MAX_FREQUENCY": "60"}})))
    sign_up(fauxth, "stays@example.com")
    refused = fauxth.control("POST", "/snapshots/load", json={"path": str(path)})
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "snapshot_invalid"
    assert "unitless" in refused.json()["error"]["message"] and "GOTRUE_SMTP_MAX_FREQUENCY" in refused.json()["error"]["message"]
    # The running state is as it was.
    assert fauxth.control("GET", "/tenants/unitless").status_code == 404
    assert len(fauxth.control("GET", "/tenants/default/users", params={"email": "stays@example.com"}).json()["users"]) == 1


def test_snapshot_flag_saves_on_sigterm_and_loads_on_start(start_fauxth, tmp_path):
    path = str(tmp_path / "persist.sqlite")
    first = start_fauxth("--snapshot", path)
    sign_up(first, "persisted@example.com")
    assert first.stop(signal.SIGTERM) == 0
    assert pathlib.Path(path).exists()
    second = start_fauxth("--snapshot", path)
    users = second.control("GET", "/tenants/default/users", params={"email": "persisted@example.com"}).json()["users"]
    assert len(users) == 1


def test_same_deterministic_seed_gives_the_same_ids_and_codes(start_fauxth):
    def run():
        instance = start_fauxth("--deterministic", "1234", "--clock", "frozen@2026-01-01T00:00:00Z")
        user = sign_up(instance, "det@example.com").json()
        code = instance.wait_message("det@example.com")["codes"][0]
        instance.stop()
        return user["id"], code, user["created_at"]

    assert run() == run()


def test_an_invalid_seed_stops_startup_with_exit_code_2(tmp_path):
    seed = tmp_path / "bad.json"
    seed.write_text(json.dumps({"tenants": [{"id": "x", "dialect": "supabase", "users": [{"email": 7}]}]}))
    result = subprocess.run([BINARY, "serve", "--port", "0", "--seed", str(seed)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert f"{seed}: $.tenants[0].users[0].email: expected a string, got a number" in result.stderr


@pytest.mark.parametrize("args, expected", [
    (["--snapshot", "/no/such/folder/state.sqlite"], "--snapshot /no/such/folder/state.sqlite: the folder /no/such/folder does not exist"),
    (["--import-firebase", "/no/such/export"], "--import-firebase /no/such/export: no such folder"),
    (["--web-root", "/no/such/web"], "--web-root /no/such/web: no such folder"),
])
def test_a_path_that_cannot_serve_stops_startup_with_exit_code_2(args, expected):
    result = subprocess.run([BINARY, "serve", "--port", "0", *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2, result.stderr
    assert expected in result.stderr


def test_a_faults_file_with_a_mistake_stops_startup_naming_the_file_rule_and_field(tmp_path):
    rules = tmp_path / "faults.json"
    rules.write_text(json.dumps({"rules": [
        {"id": "fine", "match": {"operation": "supabase:signup"}, "effect": {"type": "close"}},
        {"id": "typo", "match": {"operaton": "supabase:signup"}, "effect": {"type": "close"}},
    ]}))
    result = subprocess.run([BINARY, "serve", "--port", "0", "--faults", str(rules)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2, result.stderr
    assert f'error: --faults {rules}: rules[1] (id "typo") match.operaton is not a field of a rule\'s match (did you mean operation?)' in result.stderr
    result = subprocess.run([BINARY, "serve", "--port", "0", "--faults", "flaky-netwrok"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "--faults flaky-netwrok: is neither a file nor a scenario (did you mean flaky-network?)" in result.stderr


@pytest.mark.parametrize("option", ["--port", "--smtp-port"])
def test_a_port_in_use_stops_startup_naming_the_port(option):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ["--port", str(port)] if option == "--port" else ["--port", "0", "--smtp-port", str(port)]
        result = subprocess.run([BINARY, "serve", *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2, result.stderr
    assert f"error: {option} {port}: the port is in use by another program" in result.stderr


def test_an_unknown_seed_key_stops_startup_naming_the_nearest_one(tmp_path):
    seed = tmp_path / "typo.json"
    seed.write_text(json.dumps({"tenants": [{"id": "x", "dialect": "supabase", "gotrue_evn": {}}]}))
    result = subprocess.run([BINARY, "serve", "--port", "0", "--seed", str(seed)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert f"{seed}: $.tenants[0].gotrue_evn: unknown key for a supabase tenant (did you mean gotrue_env?)" in result.stderr


def test_a_seed_extends_the_default_project_with_one_setting(start_fauxth, tmp_path):
    seed = tmp_path / "phone.json"
    seed.write_text(json.dumps({"tenants": [{"id": "default", "dialect": "supabase", "extends": "default",
                                             "gotrue_env": {"GOTRUE_EXTERNAL_PHONE_ENABLED": "true"}}]}))
    instance = start_fauxth("--seed", str(seed))
    settings = requests.get(f"{instance.url}/auth/v1/settings").json()
    assert settings["external"]["phone"] is True and settings["external"]["email"] is True
    # The rest of the built-in project is there: its users, its key.
    signed_in = requests.post(f"{instance.url}/auth/v1/token", params={"grant_type": "password"},
                              json={"email": "alice@example.com", "password": "password123"})
    assert signed_in.status_code == 200
    instance.stop()


def test_a_second_project_without_a_port_gets_one_and_the_banner_names_it(start_fauxth, tmp_path):
    seed = tmp_path / "two.json"
    seed.write_text(json.dumps({"tenants": [{"id": "second", "dialect": "supabase",
                                             "gotrue_env": {"GOTRUE_JWT_SECRET": "x" * 40, "GOTRUE_MAILER_AUTOCONFIRM": "true"}}]}))
    instance = start_fauxth("--seed", str(seed))
    hints = {t["id"]: t["hints"] for t in instance.control("GET", "/info").json()["tenants"]}
    url = hints["second"]["SUPABASE_URL"]
    assert url != instance.url and hints["default"]["SUPABASE_URL"] == instance.url
    assert requests.get(f"{url}/auth/v1/settings").json()["mailer_autoconfirm"] is True
    assert requests.get(f"{instance.url}/auth/v1/settings").json()["mailer_autoconfirm"] is False
    instance.stop()


def test_an_extra_seed_adds_a_project(start_fauxth, tmp_path):
    seed = tmp_path / "extra.json"
    seed.write_text(json.dumps({"tenants": [{"id": "second", "dialect": "supabase",
                                             "gotrue_env": {"GOTRUE_JWT_SECRET": "x" * 40, "SOMETHING_ELSE": "1"},
                                             "users": [{"email": "s@example.com", "password": "pw1234"}]}]}))
    instance = start_fauxth("--seed", str(seed))
    tenants = [t["id"] for t in instance.control("GET", "/tenants").json()["tenants"]]
    assert tenants == ["default", "demo-fauxth", "us-east-1_fauxth001", "second"]
    instance.stop()
    assert "SOMETHING_ELSE" in instance.stderr


def test_json_log_format_writes_one_event_per_line(start_fauxth):
    instance = start_fauxth("--log-format", "json")
    sign_up(instance, "logged@example.com")
    kinds = []
    while len(kinds) < 10:
        entry = json.loads(instance.lines.get(timeout=10))
        kinds.append((entry["kind"], entry.get("type")))
        if entry.get("type") == "message.sent":
            break
    assert ("event", "user.signed_up") in kinds
    assert ("message", None) in kinds


def test_a_burst_of_sign_ins_is_logged_whole(start_fauxth):
    """The log is written in batches: every sign-in of a burst from several clients is there, one whole line each."""
    instance = start_fauxth("--log-format", "json")
    with ThreadPoolExecutor(8) as pool:
        users = set(pool.map(lambda _: sign_in(instance.url)["user"]["id"], range(200)))
    sessions = set()
    while len(sessions) < 200:
        entry = json.loads(instance.lines.get(timeout=10))
        if entry.get("type") == "signin.succeeded":
            assert entry["user_id"] in users
            sessions.add(entry["detail"]["session_id"])
    assert len(sessions) == 200


def test_a_stdout_nobody_reads_stops_no_request():
    """A test harness that starts the server with a pipe and never drains it (a common slip) fills the pipe in a few
    hundred sign-ins. The log's writer waits on it; the requests do not, and nothing under the log's limit is lost."""
    with undrained_server() as (process, url):
        # About 700 bytes of log per sign-in: the pipe's 64 KiB are full after a hundred.
        with ThreadPoolExecutor(4) as pool:
            tokens = set(pool.map(lambda _: sign_in(url)["refresh_token"], range(1500)))
        assert len(tokens) == 1500
        process.send_signal(signal.SIGTERM)
        lines = process.stdout.read().decode().splitlines()
        assert process.wait(timeout=15) == 0
        entries = [json.loads(line) for line in lines]
        assert sum(1 for entry in entries if entry.get("type") == "signin.succeeded") == 1500
        assert sum(1 for entry in entries if entry.get("kind") == "request") == 1500


def test_a_stdout_nobody_reads_does_not_keep_the_server_from_stopping():
    """With the pipe full and never drained, SIGTERM still ends the server: its last lines get a few seconds to be
    taken, then it stops without them."""
    with undrained_server() as (process, url):
        for _ in range(300):
            sign_in(url)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=12) == 0


def request_lines(instance, count, json_lines=False):
    found = []
    while len(found) < count:
        line = instance.lines.get(timeout=10)
        if json.loads(line).get("kind") == "request" if json_lines else line.startswith("request "):
            found.append(line)
    return found


def test_log_requests_names_each_requests_operation_tenant_and_client(start_fauxth):
    instance = start_fauxth("--log-requests")
    requests.post(f"{instance.url}/auth/v1/auth/v1/token", params={"grant_type": "password"}, json={}, timeout=10)
    requests.post(f"{instance.url}/auth/v1/token", params={"grant_type": "password", "apikey": "secret-in-the-query"},
                  json={"email": "alice@example.com", "password": "wrong"}, timeout=10)
    requests.post(f"{instance.url}/", json={"ClientId": "nosuchclient", "AuthFlow": "USER_PASSWORD_AUTH", "AuthParameters": {}}, timeout=10,
                  headers={"X-Amz-Target": "AWSCognitoIdentityProviderService.InitiateAuth", "Content-Type": "application/x-amz-json-1.1"})
    wrong_path, wrong_password, unknown_client = [line.rsplit(" ", 1)[0] for line in request_lines(instance, 3)]
    # A doubled prefix is no operation; the query (API keys, codes) is never printed.
    assert re.fullmatch(r"request POST /auth/v1/auth/v1/token 40[45] -", wrong_path), wrong_path
    assert wrong_password == "request POST /auth/v1/token 400 supabase:token.password tenant=default"
    assert unknown_client == "request POST / 400 cognito:InitiateAuth client=nosuchclient"

    as_json = start_fauxth("--log-requests", "--log-format", "json")
    requests.post(f"{as_json.url}/auth/v1/signup", json={"email": "logged-request@example.com", "password": "secret123"}, timeout=10)
    entry = json.loads(request_lines(as_json, 1, json_lines=True)[0])
    assert {key: entry[key] for key in ("method", "path", "status", "dialect", "operation", "tenant")} == \
        {"method": "POST", "path": "/auth/v1/signup", "status": 200, "dialect": "supabase", "operation": "supabase:signup", "tenant": "default"}


def test_a_non_loopback_host_is_refused_unless_allowed(start_fauxth):
    refused = subprocess.run([BINARY, "serve", "--port", "0", "--host", "0.0.0.0"], capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0 and "is not a loopback address" in refused.stderr and "--allow-remote" in refused.stderr
    allowed = start_fauxth("--host", "0.0.0.0", "--allow-remote")
    assert allowed.url.startswith("http://0.0.0.0:")
    assert requests.get(allowed.url.replace("0.0.0.0", "127.0.0.1") + "/_emu/v1/health", timeout=10).status_code == 200
    allowed.stop()
    assert "WARNING: listening on 0.0.0.0" in allowed.stderr


def test_help_lists_every_option():
    result = subprocess.run([BINARY, "serve", "--help"], capture_output=True, text=True, timeout=30)
    for option in ("--host", "--port", "--seed", "--no-seed", "--snapshot", "--autosave", "--deterministic",
                   "--clock", "--log-format", "--web-root", "--allow-remote", "--smtp-port", "--faults"):
        assert option in result.stdout


def test_the_seed_schema_accepts_the_default_seed_and_refuses_bad_ones():
    import jsonschema

    root = pathlib.Path(__file__).resolve().parents[2]
    schema = json.loads((root / "seed" / "schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads((root / "seed" / "default.json").read_text()), schema)
    for bad in ({"tenants": [{"id": "x"}]},
                {"tenants": [{"id": "x", "dialect": "parse"}]},
                {"tenants": [{"id": "x", "dialect": "supabase", "users": [{"password": "no identifier"}]}]},
                {"tenants": [{"id": "x", "dialect": "supabase", "gotrue_env": {"GOTRUE_JWT_EXP": 3600}}]}):
        try:
            jsonschema.validate(bad, schema)
        except jsonschema.ValidationError:
            continue
        raise AssertionError(f"schema accepted {bad}")


def test_info_lists_the_listener(fauxth):
    assert fauxth.control("GET", "/info").json()["listeners"] == [fauxth.url]


def test_the_cognito_hints_work_as_printed_with_boto3_and_nothing_else(fauxth, tmp_path):
    """boto3 in a clean environment (no AWS config or credentials of the machine) with only the printed hints."""
    import sys

    hints = next(t["hints"] for t in fauxth.control("GET", "/info").json()["tenants"] if t["dialect"] == "cognito")
    env = {**hints, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "AWS_CONFIG_FILE": str(tmp_path / "none"),
           "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none")}
    script = (
        "import boto3, os\n"
        "c = boto3.client('cognito-idp')\n"  # region, endpoint and credentials all from the environment
        "print(c.list_users(UserPoolId=os.environ['COGNITO_USER_POOL_ID'])['Users'][0]['Username'])\n"
        "print(c.initiate_auth(ClientId=os.environ['COGNITO_CLIENT_ID'], AuthFlow='USER_PASSWORD_AUTH',\n"
        "      AuthParameters={'USERNAME': 'alice@example.com', 'PASSWORD': 'password123'})['AuthenticationResult']['TokenType'])\n"
    )
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1] == "Bearer"


def ipv6_loopback():
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not ipv6_loopback(), reason="this machine has no IPv6 loopback")
def test_the_default_host_also_answers_on_the_ipv6_loopback(fauxth):
    """`localhost` resolves to ::1 first for many clients: the same routes answer there, at the same port."""
    port = fauxth.url.rsplit(":", 1)[1]
    health = requests.get(f"http://[::1]:{port}/_emu/v1/health", timeout=10)
    assert health.status_code == 200 and health.json()["status"] == "ok"
    signed_in = requests.post(f"http://[::1]:{port}/auth/v1/token", params={"grant_type": "password"},
                              json={"email": "alice@example.com", "password": "password123"}, timeout=10)
    assert signed_in.status_code == 200 and signed_in.json()["user"]["email"] == "alice@example.com"
