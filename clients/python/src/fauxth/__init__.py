"""Test helpers for Fauxth: start the binary (or attach to a running one) and drive its control API.

Standard library only, so it installs anywhere a test suite runs::

    from fauxth import Fauxth

    with Fauxth.start() as fauxth:             # the `fauxth` on PATH, or $FAUXTH_BIN, on a free port
        ...                                    # point the app's SDK at fauxth.url
        message = fauxth.wait_for_message(to="ada@example.com", purpose="verify_email")
        message.code, message.link             # the first code and link in it
"""
from __future__ import annotations

import collections
import contextlib
import datetime
import http.client
import json
import os
import queue
import select
import shutil
import subprocess
import threading
import time
import urllib.parse
from typing import Any, Dict, Iterator, List, Optional

#: How many of a started server's stdout lines `Fauxth.lines` keeps untaken, unless `start` is told otherwise.
LINES_KEPT = 10_000

__all__ = ["Fauxth", "FauxthError", "Message"]


def _readable(sock) -> bool:
    """Whether `sock` has something to read now: poll where there is one, as select() takes no descriptor past 1023."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0))
    return bool(select.select([sock], [], [], 0)[0])


class FauxthError(Exception):
    """An answer from the control API that was not a success: its HTTP status, error code and message."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


class Message(dict):
    """A captured email or SMS, as the control API returns it, with its first code and link at hand."""

    @property
    def codes(self) -> List[str]:
        return list(self.get("codes") or [])

    @property
    def links(self) -> List[str]:
        return list(self.get("links") or [])

    @property
    def code(self) -> Optional[str]:
        return self.codes[0] if self.codes else None

    @property
    def link(self) -> Optional[str]:
        return self.links[0] if self.links else None


class Fauxth:
    """A Fauxth server: one this object started (`start`) or one already running (`attach`)."""

    def __init__(self, url: str, process: Optional[subprocess.Popen] = None):
        self.url = url.rstrip("/")
        self.process = process
        #: What a started server prints on stdout (the event log, after the ready line), line by line: the newest
        #: `lines_kept` of those not yet taken, so a long run's log does not grow the test process without end.
        self.lines: "queue.Queue[str]" = queue.Queue()
        self.lines_kept = LINES_KEPT
        #: What it wrote on stderr (its last 256 KiB), once it has stopped.
        self.stderr = ""
        self._stderr_tail: "collections.deque[str]" = collections.deque()
        self._stderr_thread: Optional[threading.Thread] = None
        self._stdout_thread: Optional[threading.Thread] = None
        # Each thread's kept-alive connection to the control API, and all of them, for `stop` to close.
        self._local = threading.local()
        self._connections: List[http.client.HTTPConnection] = []
        self._connections_lock = threading.Lock()

    # ------------------------------------------------------------------ starting and stopping

    @classmethod
    def start(cls, *args: str, binary: Optional[str] = None, env: Optional[Dict[str, str]] = None,
              ready_timeout: float = 30, expect_ready: bool = True, lines_kept: Optional[int] = None) -> "Fauxth":
        """Starts `binary` (else $FAUXTH_BIN, else `fauxth` on PATH) as `serve --port 0 ARGS` and waits for its
        ready line. Extra arguments are Fauxth's flags (`--seed`, `--clock frozen`, `--deterministic 7`…).
        `lines_kept` bounds `lines` (10,000 unless given)."""
        server = cls.__new__(cls)
        server._spawn(args, binary=binary, env=env, ready_timeout=ready_timeout, expect_ready=expect_ready,
                      lines_kept=lines_kept)
        return server

    def _spawn(self, args, binary=None, env=None, ready_timeout=30.0, expect_ready=True, lines_kept=None) -> None:
        """`start`'s work, on this object (a subclass that starts a server in its own __init__ calls it)."""
        program = binary or os.environ.get("FAUXTH_BIN") or shutil.which("fauxth")
        if not program:
            raise FileNotFoundError("no fauxth binary: pass binary=, set FAUXTH_BIN, or put fauxth on PATH")
        process = subprocess.Popen([program, "serve", "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, bufsize=1, env=env)
        Fauxth.__init__(self, "", process)
        if lines_kept is not None:
            self.lines_kept = max(1, lines_kept)
        self._stdout_thread = threading.Thread(target=self._drain, daemon=True)
        self._stdout_thread.start()
        # Read as it comes, not only at the end: a pipe nobody reads fills at 64 KiB, and a server whose stderr write
        # then blocks stops answering.
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()
        if expect_ready:
            self.url = self._wait_ready(ready_timeout)

    @classmethod
    def attach(cls, url: Optional[str] = None) -> "Fauxth":
        """A server already running at `url` (else $FAUXTH_URL, else http://127.0.0.1:9099); it is not stopped."""
        server = cls(url or os.environ.get("FAUXTH_URL") or "http://127.0.0.1:9099")
        server.health()
        return server

    def _drain(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
            # The oldest goes (once the ready line is read): a reader that wants every line takes them as they come.
            while self.url and self.lines.qsize() > self.lines_kept:
                try:
                    self.lines.get_nowait()
                except queue.Empty:
                    break

    def _drain_stderr(self, keep: int = 256 * 1024) -> None:
        assert self.process is not None and self.process.stderr is not None
        kept = 0
        for line in self.process.stderr:
            self._stderr_tail.append(line)
            kept += len(line)
            while kept > keep and len(self._stderr_tail) > 1:
                kept -= len(self._stderr_tail.popleft())

    def _wait_ready(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                # A server that cannot start (a bad seed, a port in use) exits at once and says why on stderr: that is
                # told now, not after the whole timeout. Its stdout is read to the end first, for a ready line in it.
                if self.process is not None and self.process.poll() is not None:
                    if self._stdout_thread is not None:
                        self._stdout_thread.join(timeout=5)
                    if self.lines.empty():
                        status = self.stop()
                        raise RuntimeError(f"fauxth exited (status {status}) before it was ready; stderr: {self.stderr}") from None
                    continue
                if time.monotonic() >= deadline:
                    self.stop()
                    raise RuntimeError(f"fauxth printed no ready line in {timeout} s; stderr: {self.stderr}") from None
                continue
            if line.startswith("ready "):
                return line.split(" ", 1)[1]
            if line.startswith('{"kind":"ready"'):
                return json.loads(line)["base_url"]

    def stop(self, sig: Optional[int] = None, timeout: float = 15) -> Optional[int]:
        """Stops a server this object started (SIGTERM, or `sig`, then SIGKILL after `timeout`); its exit status."""
        self._close_connections()
        if self.process is None:
            return None
        if self.process.poll() is None:
            if sig is None:
                self.process.terminate()
            else:
                self.process.send_signal(sig)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=5)
            self.stderr = "".join(self._stderr_tail)
            if not self._stderr_thread.is_alive() and self.process.stderr is not None:
                self.process.stderr.close()
        return self.process.returncode

    def __enter__(self) -> "Fauxth":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ------------------------------------------------------------------ the control API

    @property
    def control_url(self) -> str:
        return f"{self.url}/_emu/v1"

    def request(self, method: str, path: str, body: Any = None, params: Optional[Dict[str, Any]] = None,
                timeout: float = 60) -> Any:
        """One control API call (`path` under /_emu/v1); the decoded JSON answer, or FauxthError."""
        query = {k: v for k, v in (params or {}).items() if v is not None}
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        connection, prefix = self._connection(timeout)
        target = f"{prefix}/_emu/v1{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        try:
            connection.request(method, target, body=data, headers=headers)
            response = connection.getresponse()
            status, raw = response.status, response.read()
        except BaseException:
            # Whatever was half sent or half read on it, the next call starts on a new connection.
            connection.close()
            raise
        if status >= 400:
            try:
                detail = json.loads(raw)["error"]
                raise FauxthError(status, detail.get("code", ""), detail.get("message", "")) from None
            except (ValueError, KeyError, TypeError):
                raise FauxthError(status, "http_error", raw.decode(errors="replace")) from None
        return json.loads(raw) if raw else None

    def _connection(self, timeout: float):
        """This thread's connection to `url`, kept alive between calls (and the URL's path, to put before the
        control API's): a suite resets before every test, and a new connection per call cost the client more
        than the reset cost the server (scripts/bench). One the server has closed since (it closes a
        connection idle for a minute) is seen before it is used, as urllib3 does, and replaced."""
        local = self._local
        if getattr(local, "url", None) != self.url:
            if getattr(local, "connection", None) is not None:
                local.connection.close()
            parts = urllib.parse.urlsplit(self.url)
            kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
            local.url, local.prefix, local.connection = self.url, parts.path.rstrip("/"), kind(parts.netloc, timeout=timeout)
            with self._connections_lock:
                self._connections.append(local.connection)
        connection = local.connection
        if connection.sock is not None and _readable(connection.sock):
            # Readable while idle: the server closed it (an answer to nothing would be a fault too).
            connection.close()
        connection.timeout = timeout
        if connection.sock is not None:
            connection.sock.settimeout(timeout)
        return connection, local.prefix

    def _close_connections(self) -> None:
        with self._connections_lock:
            connections, self._connections = self._connections, []
        for connection in connections:
            connection.close()
        self._local = threading.local()

    def health(self) -> Dict[str, Any]:
        return self.request("GET", "/health")

    def info(self) -> Dict[str, Any]:
        """Version, URLs, and each tenant's connection hints."""
        return self.request("GET", "/info")

    def reset(self, tenant: Optional[str] = None, keep_clock: bool = False) -> None:
        """Back to the seed: everything (the clock too, unless keep_clock), or one tenant."""
        self.request("POST", "/reset", params={"tenant": tenant, "clock": "keep" if keep_clock else None})

    def snapshot(self, name: str, faults: bool = True) -> None:
        """Saves the whole state in memory under `name` (restore it with `restore`)."""
        self.request("POST", "/snapshots", {"name": name, "faults": faults})

    def restore(self, name: str, tenant: Optional[str] = None) -> None:
        """Puts back the snapshot `name`: everything, or (with `tenant`) that tenant alone, the others untouched."""
        self.request("POST", f"/snapshots/{urllib.parse.quote(name, safe='')}/restore", params={"tenant": tenant})

    # ------------------------------------------------------------------ messages and deep links

    def messages(self, **filters: Any) -> List[Message]:
        """The outbox, newest first; filters are `to`, `channel`, `purpose`, `tenant`, `since`, `limit`."""
        return [Message(m) for m in self.request("GET", "/messages", params=filters)["messages"]]

    def wait_for_message(self, to: Optional[str] = None, purpose: Optional[str] = None, channel: Optional[str] = None,
                         tenant: Optional[str] = None, since: Optional[str] = None, timeout: float = 10) -> Message:
        """The newest message matching at once if there is one (pass `since`, a message id, to skip those), else
        the next one to arrive; FauxthError 408 after `timeout` seconds."""
        params = {"to": to, "purpose": purpose, "channel": channel, "tenant": tenant, "since": since, "timeout": timeout}
        return Message(self.request("GET", "/messages/wait", params=params, timeout=timeout + 30))

    def deeplinks(self, **filters: Any) -> List[Dict[str, Any]]:
        return self.request("GET", "/deeplinks", params=filters)["deeplinks"]

    def wait_for_deeplink(self, scheme: Optional[str] = None, tenant: Optional[str] = None, since: Optional[str] = None,
                          timeout: float = 10) -> Dict[str, Any]:
        """The captured deep link an app would have been opened with (`url`, `params`…), as `wait_for_message`."""
        params = {"scheme": scheme, "tenant": tenant, "since": since, "timeout": timeout}
        return self.request("GET", "/deeplinks/wait", params=params, timeout=timeout + 30)

    # ------------------------------------------------------------------ the clock

    def now(self) -> datetime.datetime:
        """The emulator clock's time (aware, UTC)."""
        return _instant(self.request("GET", "/clock")["now"])

    def freeze(self, at: Optional[datetime.datetime] = None) -> datetime.datetime:
        body = {} if at is None else {"at": at.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")}
        return _instant(self.request("POST", "/clock/freeze", body)["now"])

    def advance(self, seconds: float = 0, **delta: float) -> datetime.datetime:
        """Moves the clock on (`advance(3600)`, `advance(days=1)`); codes, tokens and cooldowns follow it."""
        total = seconds + datetime.timedelta(**delta).total_seconds()
        return _instant(self.request("POST", "/clock/advance", {"seconds": total})["now"])

    def resume(self) -> datetime.datetime:
        return _instant(self.request("POST", "/clock/resume", {})["now"])

    @contextlib.contextmanager
    def frozen_clock(self, at: Optional[datetime.datetime] = None) -> Iterator["Fauxth"]:
        """The clock stands still inside the block (advance it by hand), and runs again after."""
        self.freeze(at)
        try:
            yield self
        finally:
            self.resume()

    # ------------------------------------------------------------------ faults

    def add_fault(self, rule: Optional[Dict[str, Any]] = None, **fields: Any) -> Dict[str, Any]:
        """Adds a fault rule (`{"operation": "supabase:token.password", "error": "...", "times": 1}`…); the rule."""
        return self.request("POST", "/faults", {**(rule or {}), **fields})["rules"][0]

    def remove_fault(self, rule_id: str) -> None:
        self.request("DELETE", f"/faults/{urllib.parse.quote(rule_id, safe='')}")

    @contextlib.contextmanager
    def fault(self, rule: Optional[Dict[str, Any]] = None, **fields: Any) -> Iterator[Dict[str, Any]]:
        """A fault rule in force inside the block only; yields the rule (its counters are in `faults()`)."""
        added = self.add_fault(rule, **fields)
        try:
            yield added
        finally:
            with contextlib.suppress(FauxthError):
                self.remove_fault(added["id"])

    def faults(self) -> List[Dict[str, Any]]:
        return self.request("GET", "/faults")["rules"]

    # ------------------------------------------------------------------ tenants, users, events

    def create_tenant(self, dialect: str, id: Optional[str] = None, **fields: Any) -> Dict[str, Any]:
        """A new tenant of `dialect` (supabase, firebase, cognito), served at once; fields as in a seed. Without an
        id, the server picks a fresh one (`t-` and 12 hex digits)."""
        return self.request("POST", "/tenants", {"dialect": dialect, **({"id": id} if id else {}), **fields})

    def delete_tenant(self, id: str) -> None:
        self.request("DELETE", f"/tenants/{urllib.parse.quote(id, safe='')}")

    @contextlib.contextmanager
    def tenant(self, dialect: str, id: Optional[str] = None, **fields: Any) -> Iterator[Dict[str, Any]]:
        """A tenant that exists inside the block only: one per test keeps parallel workers apart."""
        created = self.create_tenant(dialect, id, **fields)
        try:
            yield created
        finally:
            with contextlib.suppress(FauxthError):
                self.delete_tenant(created["id"])

    def users(self, tenant: Optional[str] = None, **search: Any) -> List[Dict[str, Any]]:
        """A tenant's users (`email=`, `phone=` look one up; `q=` searches), or every tenant's with no tenant (`q=`,
        `limit=`), each naming its `tenant`."""
        if tenant is None:
            return self.request("GET", "/users", params=search)["users"]
        return self.request("GET", f"/tenants/{urllib.parse.quote(tenant, safe='')}/users", params=search)["users"]

    def create_user(self, tenant: str, **fields: Any) -> Dict[str, Any]:
        return self.request("POST", f"/tenants/{urllib.parse.quote(tenant, safe='')}/users", fields)

    def events(self, type: Optional[str] = None, tenant: Optional[str] = None, since: Optional[str] = None) -> List[Dict[str, Any]]:
        return self.request("GET", "/events", params={"type": type, "tenant": tenant, "since": since})["events"]


def _instant(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
