"""`--supabase-upstream`: a Supabase app's other services (/rest/v1, /storage/v1, /functions/v1…) reach the
developer's own stack through Fauxth's URL while Fauxth answers /auth/v1. The stand-in upstream below plays
PostgREST, Storage and an Edge Function: it checks the forwarded JWT with the Supabase CLI's secret, as they would,
and answers what it was sent."""
import http.server
import json
import threading

import jwt
import pytest
import requests
from supabase import create_client

from test_supabase_slice import ANON_KEY

CLI_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long"


class Upstream(http.server.ThreadingHTTPServer):
    def __init__(self):
        self.seen = []
        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        claims = None
        bearer = self.headers.get("Authorization", "")
        if bearer.startswith("Bearer "):
            try:
                claims = jwt.decode(bearer[7:], CLI_SECRET, algorithms=["HS256"], audience="authenticated",
                                    options={"verify_aud": False})
            except jwt.PyJWTError as error:
                claims = {"invalid": str(error)}
        self.server.seen.append({"method": self.command, "path": self.path, "body": body, "headers": dict(self.headers)})
        if self.path.startswith("/functions/v1/teapot"):
            payload, status, extra = b"short and stout", 418, {"X-Teapot": "yes", "Content-Type": "text/plain"}
        else:
            payload = json.dumps({"method": self.command, "path": self.path, "claims": claims, "size": len(body),
                                  "content_type": self.headers.get("Content-Type")}).encode()
            status, extra = 200, {"Content-Type": "application/json"}
        self.send_response(status)
        for name, value in extra.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = do_HEAD = answer


@pytest.fixture
def upstream():
    server = Upstream()
    yield server
    server.shutdown()


def test_the_apps_other_services_reach_its_stack_with_fauxths_tokens(start_fauxth, upstream):
    fauxth = start_fauxth("--supabase-upstream", upstream.url)
    client = create_client(fauxth.url, ANON_KEY)
    session = client.auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session
    rows = client.table("profiles").select("*").eq("id", session.user.id).execute().data
    # PostgREST's view: the path and query as the client sent them, and Fauxth's access token, valid with the CLI's secret.
    assert rows["method"] == "GET" and rows["path"].startswith("/rest/v1/profiles?select=%2A&id=eq.")
    assert rows["claims"]["sub"] == session.user.id and rows["claims"]["role"] == "authenticated"

    # A large upload streams through intact, and the answer's status and headers come back as they were.
    blob = bytes(range(256)) * 4096
    stored = requests.post(f"{fauxth.url}/storage/v1/object/avatars/a.bin", data=blob, timeout=30,
                           headers={"Authorization": f"Bearer {session.access_token}", "Content-Type": "application/octet-stream"})
    assert stored.status_code == 200 and stored.json()["size"] == len(blob)
    assert upstream.seen[-1]["body"] == blob and upstream.seen[-1]["headers"]["Content-Type"] == "application/octet-stream"
    teapot = requests.post(f"{fauxth.url}/functions/v1/teapot", json={"x": 1}, timeout=30)
    assert (teapot.status_code, teapot.headers["X-Teapot"], teapot.text) == (418, "yes", "short and stout")
    assert requests.head(f"{fauxth.url}/graphql/v1", timeout=30).status_code == 200

    # /auth/v1 stays Fauxth's own: the upstream never sees it.
    assert all(not s["path"].startswith("/auth/") for s in upstream.seen)


def test_a_project_under_its_prefix_forwards_to_its_own_upstream(fauxth, upstream):
    made = fauxth.control("POST", "/tenants", json={"id": "with-stack", "dialect": "supabase", "upstream": upstream.url})
    assert made.status_code == 201, made.text
    answer = requests.get(f"{fauxth.url}/projects/with-stack/rest/v1/todos?select=id", timeout=30).json()
    assert answer["path"] == "/rest/v1/todos?select=id"
    # A project without one says how to give it one; one whose stack is down says so.
    missing = requests.get(f"{fauxth.url}/rest/v1/todos", timeout=30)
    assert missing.status_code == 404 and missing.json()["code"] == "no_upstream" and "--supabase-upstream" in missing.json()["message"]
    fauxth.control("POST", "/tenants", json={"id": "stack-down", "dialect": "supabase", "upstream": "http://127.0.0.1:9"})
    down = requests.get(f"{fauxth.url}/projects/stack-down/storage/v1/bucket", timeout=30)
    assert down.status_code == 502 and down.json()["code"] == "upstream_unreachable"
    fauxth.control("DELETE", "/tenants/with-stack")
    fauxth.control("DELETE", "/tenants/stack-down")


def test_a_bad_upstream_is_refused_at_start(start_fauxth):
    refused = start_fauxth("--supabase-upstream", "localhost:54321", expect_ready=False)
    assert refused.process.wait(timeout=30) != 0
    refused.stop()
    assert "--supabase-upstream" in refused.stderr


def test_a_websocket_upgrade_is_refused_plainly_not_sent_on_as_a_get(start_fauxth, upstream):
    fauxth = start_fauxth("--supabase-upstream", upstream.url)
    refused = requests.get(f"{fauxth.url}/realtime/v1/websocket?apikey={ANON_KEY}&vsn=1.0.0", timeout=30,
                           headers={"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
    assert refused.status_code == 501 and refused.json()["code"] == "websocket_not_forwarded"
    assert upstream.seen == []
