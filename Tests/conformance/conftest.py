"""Starts the built fauxth binary on a free loopback port for the conformance and console tests."""
import json
import os
import pathlib
import queue
import subprocess
import threading

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.environ.get("FAUXTH_BIN", str(ROOT / ".build" / "debug" / "fauxth"))


class Fauxth:
    """A running fauxth process: its base URL, its stdout lines, and helpers for the control API."""

    def __init__(self, *args, expect_ready=True):
        self.process = subprocess.Popen(
            [BINARY, "serve", "--port", "0", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
        )
        self.lines = queue.Queue()
        self.stderr = ""
        threading.Thread(target=self._drain, daemon=True).start()
        self.url = None
        if expect_ready:
            self.url = self._wait_ready()

    def _drain(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def _wait_ready(self, timeout=30):
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                self.stop()
                raise RuntimeError(f"fauxth did not print a ready line; stderr: {self.stderr}")
            if line.startswith("ready "):
                return line.split(" ", 1)[1]
            if line.startswith('{"kind":"ready"'):
                import json
                return json.loads(line)["base_url"]

    @property
    def auth_url(self):
        return self.url  # supabase-py appends /auth/v1 itself

    def control(self, method, path, **kwargs):
        response = requests.request(method, f"{self.url}/_emu/v1{path}", timeout=30, **kwargs)
        return response

    def wait_message(self, to, timeout=10, **filters):
        params = {"to": to, "timeout": timeout, **filters}
        response = self.control("GET", "/messages/wait", params=params)
        assert response.status_code == 200, response.text
        return response.json()

    def stop(self, sig=None):
        if self.process.poll() is None:
            if sig is None:
                self.process.terminate()
            else:
                self.process.send_signal(sig)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.stderr = self.process.stderr.read() if self.process.stderr else ""
        return self.process.returncode


@pytest.fixture(scope="session")
def server():
    fauxth = Fauxth("--deterministic", "7")
    yield fauxth
    fauxth.stop()


@pytest.fixture
def fauxth(server):
    """The shared server, reset to its seed before each test."""
    assert server.control("POST", "/reset").status_code == 200
    server.control("POST", "/clock/resume")
    yield server


@pytest.fixture
def supabase_project(start_fauxth, tmp_path):
    """Starts fauxth with the default project replaced by one with these GoTrue settings and users
    (the Supabase CLI's JWT secret is kept, so the well-known keys still work)."""

    def start(env, users=(), *args):
        seed = tmp_path / "project.json"
        gotrue_env = {"GOTRUE_JWT_SECRET": "super-secret-jwt-token-with-at-least-32-characters-long", **env}
        seed.write_text(json.dumps({"tenants": [{"id": "default", "dialect": "supabase", "gotrue_env": gotrue_env,
                                                 "users": list(users)}]}))
        return start_fauxth("--seed", str(seed), *args)

    return start


@pytest.fixture
def start_fauxth():
    """Starts extra fauxth processes with their own flags; stops them after the test."""
    started = []

    def start(*args, expect_ready=True):
        instance = Fauxth(*args, expect_ready=expect_ready)
        started.append(instance)
        return instance

    yield start
    for instance in started:
        instance.stop()
