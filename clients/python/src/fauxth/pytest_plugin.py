"""pytest fixtures for Fauxth, registered when the package is installed (the `pytest11` entry point).

- `fauxth_server` (session): the server, started once per session (per worker under pytest-xdist) from
  `--fauxth-bin` / $FAUXTH_BIN / `fauxth` on PATH, with `--fauxth-arg` flags; or attached to `--fauxth-url` /
  $FAUXTH_URL when given, which is left running.
- `fauxth` (function): that server, put back before each test: to the seed, or to the named snapshot a
  `@pytest.mark.fauxth_snapshot("name")` marker names (taken with `fauxth.snapshot("name")` beforehand).
- `fauxth_tenant` (function): makes tenants for this test only (`fauxth_tenant("firebase")` → its id) and deletes
  them after it, so parallel workers on one attached server never see each other's users.
"""
from __future__ import annotations

import os

import pytest

from . import Fauxth


def pytest_addoption(parser):
    group = parser.getgroup("fauxth")
    group.addoption("--fauxth-bin", default=None, help="the fauxth binary to start (default: $FAUXTH_BIN, else fauxth on PATH)")
    group.addoption("--fauxth-url", default=None, help="attach to a running Fauxth instead of starting one (default: $FAUXTH_URL)")
    group.addoption("--fauxth-arg", action="append", default=[], help="a flag for the started server (repeatable)")


def pytest_configure(config):
    config.addinivalue_line("markers", "fauxth_snapshot(name): restore this named Fauxth snapshot before the test")


@pytest.fixture(scope="session")
def fauxth_server(request):
    url = request.config.getoption("--fauxth-url") or os.environ.get("FAUXTH_URL")
    if url:
        yield Fauxth.attach(url)
        return
    server = Fauxth.start(*request.config.getoption("--fauxth-arg"), binary=request.config.getoption("--fauxth-bin"))
    yield server
    server.stop()


@pytest.fixture
def fauxth(fauxth_server, request):
    marker = request.node.get_closest_marker("fauxth_snapshot")
    fauxth_server.reset()
    if marker is not None:
        fauxth_server.restore(marker.args[0])
    return fauxth_server


@pytest.fixture
def fauxth_tenant(fauxth_server):
    made = []

    def make(dialect="supabase", id=None, **fields):
        tenant = fauxth_server.create_tenant(dialect, id, **fields)
        made.append(tenant["id"])
        return tenant["id"]

    yield make
    for tenant in made:
        try:
            fauxth_server.delete_tenant(tenant)
        except Exception:  # already gone: the test deleted it
            pass
