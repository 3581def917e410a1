"""`--supabase-upstream`: a Supabase app's other services (/rest/v1, /storage/v1, /functions/v1, Realtime's socket…) reach the
developer's own stack through Fauxth's URL while Fauxth answers /auth/v1. The stand-in upstream below plays
PostgREST, Storage and an Edge Function: it checks the forwarded JWT with the Supabase CLI's secret, as they would,
and answers what it was sent."""
import http.server
import json
import threading
import time

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


class SocketUpstream:
    """Plays Realtime's socket: answers Phoenix joins, heartbeats and broadcasts as the Realtime server does (the
    join's access token checked with the CLI's secret, a broadcast echoed to its sender as `self: true` asks), echoes
    binary frames, and closes with 4001 "bye" when told to."""

    def __init__(self):
        import asyncio
        import websockets.asyncio.server
        self.seen, self.joins = [], []
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        async def serve():
            self.server = await websockets.asyncio.server.serve(self.handle, "127.0.0.1", 0, max_size=None)
            ready.set()
            try:
                await self.server.serve_forever()
            except asyncio.CancelledError:  # stop() closed it
                pass

        threading.Thread(target=self.loop.run_until_complete, args=(serve(),), daemon=True).start()
        ready.wait(10)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def handle(self, socket):
        self.seen.append({"path": socket.request.path, "headers": {k.lower(): v for k, v in socket.request.headers.raw_items()}})
        async for message in socket:
            if isinstance(message, bytes):
                await socket.send(message[::-1])
                continue
            if message == "close_me":
                await socket.close(4001, "bye")
                return
            push = json.loads(message)
            topic, event, ref = push["topic"], push["event"], push.get("ref")
            if event == "phx_join":
                self.joins.append(jwt.decode(push["payload"]["access_token"], CLI_SECRET, algorithms=["HS256"],
                                             audience="authenticated"))
            await socket.send(json.dumps({"topic": topic, "event": "phx_reply", "ref": ref, "join_ref": push.get("join_ref"),
                                          "payload": {"status": "ok", "response": {"postgres_changes": []} if event == "phx_join" else {}}}))
            if event == "broadcast":
                await socket.send(json.dumps({"topic": topic, "event": "broadcast", "ref": None, "payload": push["payload"]}))

    def stop(self):
        self.loop.call_soon_threadsafe(self.server.close)


@pytest.fixture
def socket_upstream():
    server = SocketUpstream()
    yield server
    server.stop()


def test_realtime_reaches_the_stack_through_fauxths_url(start_fauxth, socket_upstream):
    """supabase-py's Realtime client, on the same URL as auth, joins a channel with Fauxth's access token and gets its
    broadcast back: the socket is carried both ways, a message far over one frame's default size included."""
    import asyncio
    from supabase import acreate_client

    fauxth = start_fauxth("--supabase-upstream", socket_upstream.url)

    async def scenario():
        client = await acreate_client(fauxth.url, ANON_KEY)
        session = (await client.auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})).session
        await client.realtime.set_auth(session.access_token)
        received, states = asyncio.Queue(), []
        channel = client.channel("room:lobby", {"config": {"broadcast": {"self": True}}})
        channel.on_broadcast("greet", lambda message: received.put_nowait(message))
        await channel.subscribe(lambda state, error: states.append((state, error)))
        assert [str(state) for state, _ in states][-1].endswith("SUBSCRIBED"), states
        large = "x" * 200_000
        await channel.send_broadcast("greet", {"text": "hello", "large": large})
        message = await asyncio.wait_for(received.get(), 10)
        await client.realtime.close()
        return session, message

    session, message = asyncio.run(scenario())
    assert message["event"] == "greet" and message["payload"]["text"] == "hello" and len(message["payload"]["large"]) == 200_000
    # The stack saw Realtime's own path and query, and the user's token, valid with the CLI's secret.
    assert socket_upstream.seen[0]["path"].startswith("/realtime/v1/websocket?apikey=") and "vsn=1.0.0" in socket_upstream.seen[0]["path"]
    assert socket_upstream.joins[-1]["sub"] == session.user.id
    assert socket_upstream.seen[0]["headers"]["x-forwarded-host"] == fauxth.url.removeprefix("http://")


def test_a_socket_under_a_project_prefix_carries_frames_and_the_stacks_close(fauxth, socket_upstream):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    made = fauxth.control("POST", "/tenants", json={"id": "socket-stack", "dialect": "supabase", "upstream": socket_upstream.url,
                                                    "port": 0})
    assert made.status_code == 201, made.text
    try:
        base = fauxth.url.replace("http://", "ws://")
        # The project's own port carries its sockets too.
        deadline, own = time.time() + 10, fauxth.url
        while own == fauxth.url and time.time() < deadline:
            own = next(t for t in fauxth.control("GET", "/info").json()["tenants"] if t["id"] == "socket-stack")["hints"]["SUPABASE_URL"]
            time.sleep(0.05)
        with connect(f"{own.replace('http://', 'ws://')}/realtime/v1/websocket?vsn=1.0.0") as socket:
            socket.send(b"own port")
            assert socket.recv(timeout=10) == b"trop nwo"
        with connect(f"{base}/projects/socket-stack/realtime/v1/websocket?apikey={ANON_KEY}&vsn=1.0.0", max_size=None) as socket:
            socket.send(bytes(range(256)) * 100)
            assert socket.recv(timeout=10) == (bytes(range(256)) * 100)[::-1]
            socket.send("close_me")
            with pytest.raises(ConnectionClosed) as closed:
                socket.recv(timeout=10)
        # The stack's own close code and reason reach the app.
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (4001, "bye")
        assert socket_upstream.seen[-1]["path"] == f"/realtime/v1/websocket?apikey={ANON_KEY}&vsn=1.0.0"

        # A project without a stack, or whose stack is down, says so in the close frame.
        with connect(f"{base}/realtime/v1/websocket?vsn=1.0.0") as socket:
            with pytest.raises(ConnectionClosed) as closed:
                socket.recv(timeout=10)
        assert closed.value.rcvd.code == 1008 and closed.value.rcvd.reason.startswith("no_upstream")
        fauxth.control("POST", "/tenants", json={"id": "socket-down", "dialect": "supabase", "upstream": "http://127.0.0.1:9"})
        with connect(f"{base}/projects/socket-down/realtime/v1/websocket?vsn=1.0.0") as socket:
            with pytest.raises(ConnectionClosed) as closed:
                socket.recv(timeout=10)
        assert closed.value.rcvd.code == 1014 and closed.value.rcvd.reason.startswith("upstream_unreachable")
    finally:
        fauxth.control("DELETE", "/tenants/socket-stack")
        fauxth.control("DELETE", "/tenants/socket-down")
