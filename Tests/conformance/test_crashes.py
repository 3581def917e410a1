"""Crashes and data: kill -9 during heavy writes, during an autosave and during a snapshot write, then a restart on
the same file; snapshots taken while writers run; corrupt, truncated, foreign and future snapshot files refused with a
one-line message and left exactly as they were."""
import hashlib
import json
import os
import queue
import random
import shutil
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from conftest import COGNITO_CLIENT, Fauxth, COGNITO_POOL, FIREBASE_API_KEY, FIREBASE_PROJECT, sized

pytestmark = pytest.mark.reliability

TENANTS = {"supabase": "default", "firebase": FIREBASE_PROJECT, "cognito": COGNITO_POOL}
AMZ = {"Content-Type": "application/x-amz-json-1.1"}


def amz(target):
    return {**AMZ, "X-Amz-Target": f"AWSCognitoIdentityProviderService.{target}"}


@pytest.fixture
def autoconfirm_seed(tmp_path):
    """The default Supabase project with sign-ups confirmed at once, so every acknowledged sign-up can sign in."""
    seed = tmp_path / "autoconfirm.json"
    seed.write_text(json.dumps({"tenants": [{"id": "default", "dialect": "supabase", "gotrue_env": {
        "GOTRUE_JWT_SECRET": "super-secret-jwt-token-with-at-least-32-characters-long",
        "GOTRUE_MAILER_AUTOCONFIRM": "true", "GOTRUE_PASSWORD_MIN_LENGTH": "6"}}]}))
    return str(seed)


# --- Sign-ups, and the log of which were acknowledged when -------------------------------------------------------

def sign_up(session, url, dialect, email, password):
    """One sign-up through the dialect's own REST call; True when it was acknowledged (HTTP 200)."""
    if dialect == "supabase":
        response = session.post(f"{url}/auth/v1/signup", headers={"apikey": "anon"}, timeout=10,
                                json={"email": email, "password": password})
    elif dialect == "firebase":
        response = session.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": FIREBASE_API_KEY},
                                json={"email": email, "password": password, "returnSecureToken": True}, timeout=10)
    else:
        response = session.post(f"{url}/", headers=amz("SignUp"), timeout=10, json={
            "ClientId": COGNITO_CLIENT, "Username": email, "Password": password,
            "UserAttributes": [{"Name": "email", "Value": email}]})
    assert response.status_code < 500, response.text
    return response.status_code == 200


def sign_in(url, dialect, email, password):
    """A password sign-in (a Cognito sign-up is confirmed by an administrator first); True when it works."""
    if dialect == "supabase":
        response = requests.post(f"{url}/auth/v1/token?grant_type=password", headers={"apikey": "anon"}, timeout=10,
                                 json={"email": email, "password": password})
    elif dialect == "firebase":
        response = requests.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword",
                                 params={"key": FIREBASE_API_KEY}, timeout=10,
                                 json={"email": email, "password": password, "returnSecureToken": True})
    else:
        requests.post(f"{url}/", headers=amz("AdminConfirmSignUp"), timeout=10,
                      json={"UserPoolId": COGNITO_POOL, "Username": email})
        response = requests.post(f"{url}/", headers=amz("InitiateAuth"), timeout=10, json={
            "ClientId": COGNITO_CLIENT, "AuthFlow": "USER_PASSWORD_AUTH",
            "AuthParameters": {"USERNAME": email, "PASSWORD": password}})
    return response.status_code == 200


class Writers:
    """Writer threads signing up new users in the three dialects until stopped. Each attempt is logged with the
    monotonic time its request was sent and, when answered 200, the time the answer arrived."""

    def __init__(self, url, tag, threads=6):
        self.url, self.tag = url, tag
        self.log = []  # dicts: dialect, email, password, sent, acked (None when not acknowledged)
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(i, list(TENANTS)[i % 3]), daemon=True)
                        for i in range(threads)]

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_):
        self.stop()

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=30)

    def _run(self, index, dialect):
        session = requests.Session()
        n = 0
        while not self.stopping.is_set():
            n += 1
            email, password = f"crash-{self.tag}-{index}-{n}@example.com", f"secret{index:02d}{n:05d}x"
            entry = {"dialect": dialect, "email": email, "password": password, "sent": time.monotonic(), "acked": None}
            with self.lock:
                self.log.append(entry)
            try:
                if sign_up(session, self.url, dialect, email, password):
                    entry["acked"] = time.monotonic()
            except requests.RequestException:
                return  # the server was killed

    def acked(self):
        with self.lock:
            return [e for e in self.log if e["acked"] is not None]


def prefix_violations(log, present):
    """Users missing from a state although they were acknowledged before the request of a user that is in it.
    A snapshot copies the database under the store's lock, so it holds every write committed before the copy: if
    user X is in it, every sign-up answered before X's was sent is in it too. Needs no clocks of the server's."""
    present_sent = [e["sent"] for e in log if (e["dialect"], e["email"]) in present]
    if not present_sent:
        return []
    newest = max(present_sent)
    return [e["email"] for e in log if e["acked"] is not None and e["acked"] < newest and (e["dialect"], e["email"]) not in present]


# --- Reading a snapshot file with Python's sqlite3 -----------------------------------------------------------------

def read_only(path):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def integrity(path):
    with read_only(path) as db:
        return db.execute("PRAGMA integrity_check").fetchall()


def file_users(path):
    """(dialect, email) of every user in the file, and each writer-made user's rows: identity providers and credential
    kinds, to compare with the shape of a sign-up made while nothing else ran."""
    dialect_of = {tenant: dialect for dialect, tenant in TENANTS.items()}
    with read_only(path) as db:
        users = db.execute("SELECT tenant, id, email FROM users").fetchall()
        identities = db.execute("SELECT tenant, user_id, group_concat(provider) FROM identities GROUP BY 1, 2").fetchall()
        credentials = db.execute("SELECT tenant, user_id, group_concat(kind) FROM credentials GROUP BY 1, 2").fetchall()
    providers = {(t, u): ",".join(sorted(p.split(","))) for t, u, p in identities}
    kinds = {(t, u): ",".join(sorted(k.split(","))) for t, u, k in credentials}
    present, shapes = set(), {}
    for tenant, user_id, email in users:
        if tenant in dialect_of and email:
            present.add((dialect_of[tenant], email))
            shapes[(dialect_of[tenant], email)] = (providers.get((tenant, user_id), ""), kinds.get((tenant, user_id), ""))
    return present, shapes


def tenant_counts(fauxth):
    return {t["id"]: t["user_count"] for t in fauxth.control("GET", "/tenants").json()["tenants"]}


def api_users(fauxth):
    """(dialect, email) -> the user as the control API lists it (with its identities)."""
    users = {}
    for dialect, tenant in TENANTS.items():
        listed = fauxth.control("GET", f"/tenants/{tenant}/users", params={"limit": 10000}).json()["users"]
        assert len(listed) < 10000
        users.update({(dialect, u["email"]): u for u in listed if u["email"]})
    return users


def expected_shapes(url):
    """The identity providers and credential kinds one quiet sign-up per dialect leaves behind."""
    shapes = {}
    for dialect in TENANTS:
        email = f"quiet-{dialect}-{random.random()}@example.com"
        assert sign_up(requests.Session(), url, dialect, email, "secret00quietx")
        shapes[dialect] = email
    return shapes


def check_complete(path, log, quiet):
    """Every writer-made user in the file has the same identity and credential rows as the quiet sign-up of its
    dialect: nothing half-written."""
    present, shapes = file_users(path)
    expected = {dialect: shapes[(dialect, email)] for dialect, email in quiet.items()}
    assert all(expected.values()), expected
    half = [(key, shape) for key, shape in shapes.items()
            if key[1].startswith("crash-") and shape != expected[key[0]]]
    assert not half, half
    return present


# --- 1. Heavy writes and kill -9 -------------------------------------------------------------------------------------

def test_kill_9_during_heavy_writes_loses_no_acknowledged_sign_up(start_fauxth, autoconfirm_seed, tmp_path, figures):
    rng = random.Random(20260101)
    path = tmp_path / "state.sqlite"
    flags = ("--seed", autoconfirm_seed, "--snapshot", str(path), "--autosave", "1")
    fauxth = start_fauxth(*flags)
    quiet = expected_shapes(fauxth.url)
    assert fauxth.control("POST", "/snapshots/save", json={"path": str(path)}).status_code == 200
    carried = file_users(path)[0]  # what the file held when this round began: a later file must hold it all
    acknowledged, anchored, lost, survived = 0, 0, 0, 0
    for round_ in range(sized(3, 20)):
        # The last completed save is known from the test's own saves: a POST /snapshots/save sent at time T copies
        # every sign-up answered before T. Any later save (an autosave, or the next POST) copies a superset: sign-ups
        # only add users, saves are serialized and a save is renamed into place whole. So after a kill the file holds
        # at least every sign-up acknowledged before the newest such T that was answered 200, whether the newest
        # complete save was ours or an autosave, and the kill may land in either.
        anchors = []
        stop_saving = threading.Event()

        def save_now():
            while not stop_saving.is_set():
                sent = time.monotonic()
                try:
                    if fauxth.control("POST", "/snapshots/save", json={"path": str(path)}).status_code == 200:
                        anchors.append(sent)
                except requests.RequestException:
                    return
                stop_saving.wait(rng.uniform(0.2, 0.8))

        with Writers(fauxth.url, f"r{round_}") as writers:
            saver = threading.Thread(target=save_now, daemon=True)
            saver.start()
            time.sleep(rng.uniform(0.8, 2.6))
            fauxth.process.kill()
            fauxth.process.wait()
            stop_saving.set()
        saver.join(timeout=30)
        survived += 1
        acknowledged += len(writers.acked())

        assert integrity(path) == [("ok",)]
        present = check_complete(path, writers.log, quiet)
        deadline = max(anchors, default=0)
        required = [e for e in writers.log if e["acked"] is not None and e["acked"] < deadline]
        anchored += len(required)
        missing = [e["email"] for e in required if (e["dialect"], e["email"]) not in present]
        missing += prefix_violations(writers.log, present)
        missing += sorted(email for _, email in carried - present)
        lost += len(missing)
        assert not missing, f"round {round_}: acknowledged sign-ups missing after kill -9: {missing[:10]}"

        # Restart on the same file: it loads (no refusal, no crash) and serves exactly what the file holds.
        fauxth = start_fauxth(*flags)
        listed = api_users(fauxth)
        assert set(listed) == present
        with read_only(path) as db:
            counts = dict(db.execute("SELECT tenant, count(*) FROM users GROUP BY tenant").fetchall())
        assert {t: c for t, c in tenant_counts(fauxth).items() if c} == counts
        assert all(listed[key]["identities"] for key in present if key[1].startswith("crash-") and key[0] != "cognito")
        carried = present
        made = [e for e in writers.log if (e["dialect"], e["email"]) in present]
        for entry in rng.sample(made, min(6, len(made))):
            assert sign_in(fauxth.url, entry["dialect"], entry["email"], entry["password"]), entry
        assert len(writers.acked()) > 0
    fauxth.stop()
    assert anchored > 0  # the saves landed among the writes, so the check above had sign-ups to look for
    figures("crashes survived", survived)
    figures("records lost", lost)
    figures("sign-ups acknowledged under kill -9", acknowledged)


# --- 2. kill -9 in the middle of a snapshot write ----------------------------------------------------------------

def grow(source, target, users):
    """A copy of the snapshot `source` with `users` more Firebase users (clones of alice: same password hash, so
    each can sign in with password123, each with its identity and credential), to make a save slow enough to hit."""
    shutil.copy(source, target)
    with sqlite3.connect(target) as db:
        user = db.execute("SELECT * FROM users WHERE id = 'FAUXTHALICE00000000000000001'").fetchone()
        identity = db.execute("SELECT * FROM identities WHERE user_id = 'FAUXTHALICE00000000000000001'").fetchone()
        credential = db.execute("SELECT * FROM credentials WHERE user_id = 'FAUXTHALICE00000000000000001'").fetchone()
        ids = [f"BULK{n:024d}" for n in range(users)]
        db.executemany(f"INSERT INTO users VALUES ({','.join('?' * len(user))})",
                       ((user[0], i, f"bulk{n}@example.com", *user[3:]) for n, i in enumerate(ids)))
        db.executemany(f"INSERT INTO identities VALUES ({','.join('?' * len(identity))})",
                       ((identity[0], f"bulk-{n}", i, identity[3], i, f"bulk{n}@example.com", *identity[6:]) for n, i in enumerate(ids)))
        db.executemany(f"INSERT INTO credentials VALUES ({','.join('?' * len(credential))})",
                       ((credential[0], i, *credential[2:]) for i in ids))


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def temporaries(path):
    return [name for name in os.listdir(path.parent) if name.startswith(f".{path.name}.") and ".tmp" in name]


def save_quietly(fauxth, path):
    try:
        fauxth.control("POST", "/snapshots/save", json={"path": str(path)})
    except requests.RequestException:
        pass  # killed mid-save, as meant


def kill_during_write(fauxth, path, rng, longest, timeout=20):
    """Waits for the save's temporary file to appear beside `path`, then kills the server with SIGKILL somewhere in
    the write (copy, sync or rename). True when the kill landed while the temporary file was there."""
    deadline = time.monotonic() + timeout
    while not temporaries(path):
        assert time.monotonic() < deadline, "no snapshot write began"
        time.sleep(0.0005)
    time.sleep(rng.uniform(0, longest))
    writing = bool(temporaries(path))
    fauxth.process.kill()
    fauxth.process.wait()
    return writing


@pytest.fixture(scope="module")
def big_snapshot(tmp_path_factory):
    """A snapshot with many users, and the small one it grew from, shared by this module's tests (read-only)."""
    directory = tmp_path_factory.mktemp("big")
    fauxth = Fauxth()
    base = directory / "base.sqlite"
    assert fauxth.control("POST", "/snapshots/save", json={"path": str(base)}).status_code == 200
    fauxth.stop()
    big = directory / "big.sqlite"
    grow(base, big, sized(30_000, 150_000))
    return big


def count_users(path):
    with read_only(path) as db:
        return db.execute("SELECT count(*) FROM users").fetchone()[0]


def test_kill_9_during_a_snapshot_write_leaves_the_previous_file_loadable(start_fauxth, big_snapshot, tmp_path, figures):
    rng = random.Random(7)
    big_count = count_users(big_snapshot)
    hits = 0

    # A POST /snapshots/save over a small, different snapshot: afterwards the target is the old file, byte for byte,
    # or the whole new one; never a mix.
    fauxth = start_fauxth("--snapshot", str(big_snapshot))
    target = tmp_path / "target.sqlite"
    started = time.monotonic()
    assert fauxth.control("POST", "/snapshots/save", json={"path": str(target)}).status_code == 200
    longest = time.monotonic() - started
    fauxth.stop()
    for trial in range(sized(2, 8)):
        shutil.copy(big_snapshot.parent / "base.sqlite", target)
        before, small_count = digest(target), count_users(target)
        fauxth = start_fauxth("--snapshot", str(big_snapshot))
        saver = threading.Thread(target=save_quietly, args=(fauxth, target), daemon=True)
        saver.start()
        hits += kill_during_write(fauxth, target, rng, longest)
        saver.join(timeout=30)
        assert integrity(target) == [("ok",)]
        assert digest(target) == before or count_users(target) == big_count
        restarted = start_fauxth("--snapshot", str(target))
        assert sum(tenant_counts(restarted).values()) in (small_count, big_count)
        restarted.process.kill()
        restarted.process.wait()

    # An autosave of the file the server loaded, killed mid-write: the file loads afterwards, with the state before
    # or after the marker sign-up made just before.
    target = tmp_path / "autosaved.sqlite"
    shutil.copy(big_snapshot, target)
    for trial in range(sized(2, 8)):
        before = count_users(target)
        fauxth = start_fauxth("--snapshot", str(target), "--autosave", "1")
        assert sign_up(requests.Session(), fauxth.url, "firebase", f"marker-{trial}@example.com", "secret123")
        for name in temporaries(target):
            (target.parent / name).unlink()  # leftovers of the previous kill (see the report)
        hits += kill_during_write(fauxth, target, rng, longest, timeout=5)
        assert integrity(target) == [("ok",)]
        assert count_users(target) in (before, before + 1)
        restarted = start_fauxth("--snapshot", str(target))
        assert sum(tenant_counts(restarted).values()) == count_users(target)
        assert sign_in(restarted.url, "firebase", "bulk17@example.com", "password123")
        restarted.stop()
    figures("crashes survived", sized(2, 8) * 2)
    figures("kills inside a snapshot write", hits)
    assert hits >= sized(2, 8)


def test_concurrent_saves_to_one_file_all_succeed_and_leave_a_whole_file(start_fauxth, big_snapshot, tmp_path):
    """Control API saves to one path at once (as an autosave and a save can be): each answers 200, the file is
    whole and no temporary file is left."""
    fauxth = start_fauxth("--snapshot", str(big_snapshot))
    target = tmp_path / "shared.sqlite"
    with ThreadPoolExecutor(4) as pool:
        replies = list(pool.map(lambda _: fauxth.control("POST", "/snapshots/save", json={"path": str(target)}), range(4)))
    assert [r.status_code for r in replies] == [200] * 4, [r.text for r in replies]
    assert integrity(target) == [("ok",)]
    assert not temporaries(target)


# --- 3. Snapshots taken while writers run ------------------------------------------------------------------------

def test_snapshots_taken_during_writes_are_consistent(start_fauxth, autoconfirm_seed, tmp_path, figures):
    fauxth = start_fauxth("--seed", autoconfirm_seed)
    quiet = expected_shapes(fauxth.url)
    files, names = [], []
    with Writers(fauxth.url, "mid") as writers:
        time.sleep(0.3)
        for n in range(sized(3, 12)):
            saved = tmp_path / f"saved-{n}.sqlite"
            assert fauxth.control("POST", "/snapshots/save", json={"path": str(saved)}).status_code == 200
            download = fauxth.control("GET", "/snapshots/download")
            assert download.status_code == 200
            downloaded = tmp_path / f"downloaded-{n}.sqlite"
            downloaded.write_bytes(download.content)
            assert fauxth.control("POST", "/snapshots", json={"name": f"mid-{n}"}).status_code == 201
            files += [saved, downloaded]
            names.append(f"mid-{n}")
            time.sleep(0.15)
    log = writers.log
    assert len(writers.acked()) > 20

    def check(path):
        assert integrity(path) == [("ok",)]
        present = check_complete(path, log, quiet)
        assert not prefix_violations(log, present)
        return present

    sizes = [len(check(path)) for path in files]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]  # taken in order, while users were being added
    for path in files:
        # Loaded through the control API: the counts it reports agree with the file.
        assert fauxth.control("POST", "/snapshots/load", json={"path": str(path)}).status_code == 200
        with read_only(path) as db:
            counts = dict(db.execute("SELECT tenant, count(*) FROM users GROUP BY tenant").fetchall())
        assert {t: c for t, c in tenant_counts(fauxth).items() if c} == counts
        assert set(api_users(fauxth)) == file_users(path)[0]
    for name in names:
        assert fauxth.control("POST", f"/snapshots/{name}/restore").status_code == 200
        restored = tmp_path / f"restored-{name}.sqlite"
        assert fauxth.control("POST", "/snapshots/save", json={"path": str(restored)}).status_code == 200
        present = check(restored)
        assert sum(tenant_counts(fauxth).values()) == count_users(restored)
        assert set(api_users(fauxth)) == present
        made = [e for e in log if (e["dialect"], e["email"]) in present]
        for entry in random.Random(name).sample(made, min(3, len(made))):
            assert sign_in(fauxth.url, entry["dialect"], entry["email"], entry["password"]), entry
    figures("snapshots taken during writes", len(files) + len(names))


def test_saves_during_sign_ins_hold_every_answered_session_with_its_user(start_fauxth, tmp_path, figures):
    """A password sign-in's writes go to the store's journal and are made later, in batches (docs/internals.md): a save,
    a download and a named snapshot taken while sign-ins run must each hold every session answered before the save
    was asked for, with its refresh token, its user and its signin.succeeded event, and no session without its user."""
    import base64
    fauxth = start_fauxth()
    answered, stop, lock = [], threading.Event(), threading.Lock()

    def session_of(access_token):
        claims = access_token.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))["session_id"]

    def signer():
        with requests.Session() as http:
            while not stop.is_set():
                response = http.post(f"{fauxth.url}/auth/v1/token?grant_type=password", headers={"apikey": "anon"}, timeout=10,
                                     json={"email": "alice@example.com", "password": "password123"})
                assert response.status_code == 200, response.text
                with lock:
                    answered.append((time.monotonic(), session_of(response.json()["access_token"])))

    threads = [threading.Thread(target=signer, daemon=True) for _ in range(4)]
    for thread in threads:
        thread.start()
    checked = []
    try:
        time.sleep(0.2)
        for n in range(sized(3, 10)):
            asked = time.monotonic()
            with lock:
                before = {session for at, session in answered if at < asked}
            saved = tmp_path / f"signins-{n}.sqlite"
            assert fauxth.control("POST", "/snapshots/save", json={"path": str(saved)}).status_code == 200
            downloaded = tmp_path / f"signins-{n}-downloaded.sqlite"
            downloaded.write_bytes(fauxth.control("GET", "/snapshots/download").content)
            assert fauxth.control("POST", "/snapshots", json={"name": f"signins-{n}"}).status_code == 201
            checked += [(saved, before), (downloaded, before)]
            time.sleep(0.05)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert len(answered) > 50

    def sessions_in(path):
        with read_only(path) as db:
            orphans = db.execute("SELECT count(*) FROM sessions s LEFT JOIN users u ON u.tenant = s.tenant AND u.id = s.user_id "
                                 "WHERE u.id IS NULL").fetchone()[0]
            untokened = db.execute("SELECT count(*) FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM refresh_tokens r "
                                   "WHERE r.tenant = s.tenant AND r.session_id = s.id)").fetchone()[0]
            sessions = {row[0] for row in db.execute("SELECT id FROM sessions WHERE tenant = 'default'")}
            events = {row[0] for row in db.execute("SELECT json_extract(detail, '$.session_id') FROM events "
                                                   "WHERE type = 'signin.succeeded' AND tenant = 'default'")}
        assert (orphans, untokened) == (0, 0)
        assert sessions == events
        return sessions

    for path, before in checked:
        assert integrity(path) == [("ok",)]
        assert before <= sessions_in(path), f"{len(before - sessions_in(path))} answered sign-ins missing from {path.name}"
    # A named snapshot taken during the sign-ins, restored and saved, holds them too.
    last = len(checked) // 2 - 1
    assert fauxth.control("POST", f"/snapshots/signins-{last}/restore").status_code == 200
    restored = tmp_path / "restored.sqlite"
    assert fauxth.control("POST", "/snapshots/save", json={"path": str(restored)}).status_code == 200
    assert checked[-1][1] <= sessions_in(restored)
    figures("saves during sign-ins", len(checked))


# --- 4. Corrupt, truncated and foreign files ------------------------------------------------------------------------

def corrupt_variants(good, directory, rng):
    """(label, path, must_refuse) for each damaged copy of `good`. Flipped bytes inside a record can leave a file
    SQLite itself finds sound (a changed letter in an email); the snapshot's checksum trailer refuses it all the same.
    The same damage to a file saved before checksums (no trailer) may load, but must not crash anything."""
    data = good.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    variants = []

    def write(label, content, must_refuse=True):
        path = directory / f"{label}.sqlite"
        path.write_bytes(content)
        variants.append((label, path, must_refuse))

    write("zero-length", b"")
    for cut in (50, 100, 512, page, page + 1, len(data) // 2, len(data) - page, len(data) - 1):
        write(f"truncated-at-{cut}", data[:cut])
    for offset in (0, 5, 15, 16, 17, 21, 22, 23):  # the magic string, the page size, the payload fractions
        damaged = bytearray(data)
        damaged[offset] ^= 0xFF
        write(f"header-byte-{offset}-flipped", bytes(damaged))
    pages = len(data) // page
    for n in range(3):
        damaged = bytearray(data)
        start = rng.randrange(1, pages) * page
        damaged[start:start + page] = rng.randbytes(page)
        write(f"page-{start // page}-garbage", bytes(damaged))
        write(f"page-{start // page}-garbage-no-checksum", bytes(damaged[:-48]), must_refuse=False)
        damaged = bytearray(data)
        for offset in rng.sample(range(page, len(data)), 16):
            damaged[offset] ^= 1 << rng.randrange(8)
        write(f"bits-flipped-{n}", bytes(damaged))
        write(f"bits-flipped-{n}-no-checksum", bytes(damaged[:-48]), must_refuse=False)
    write("not-sqlite", b"this is not a database\n" * 200)
    write("json", json.dumps({"tenants": []}).encode())

    foreign = directory / "other-schema.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        db.execute("INSERT INTO notes (text) VALUES ('hello')")
        db.execute("PRAGMA user_version = 3")
    variants.append(("other-schema", foreign, True))
    future = directory / "future.sqlite"
    shutil.copy(good, future)
    with sqlite3.connect(future) as db:
        db.execute("PRAGMA user_version = 999")
    variants.append(("future-schema", future, True))
    folder = directory / "a-directory.sqlite"
    folder.mkdir()
    variants.append(("directory", folder, True))
    if os.geteuid() != 0:  # root reads any file
        locked = directory / "unreadable.sqlite"
        shutil.copy(good, locked)
        locked.chmod(0)
        variants.append(("unreadable", locked, True))
    return variants


def fingerprint(path):
    info = os.stat(path)
    content = sorted(os.listdir(path)) if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest() if os.access(path, os.R_OK) else None
    return info.st_mtime_ns, info.st_size, info.st_mode, content


@pytest.fixture
def good_snapshot(start_fauxth, tmp_path):
    fauxth = start_fauxth()
    for n in range(40):
        assert sign_up(requests.Session(), fauxth.url, list(TENANTS)[n % 3], f"good-{n}@example.com", "secret123x")
    path = tmp_path / "good.sqlite"
    assert fauxth.control("POST", "/snapshots/save", json={"path": str(path)}).status_code == 200
    fauxth.stop()
    return path


def exit_or_ready(fauxth, timeout=30):
    """The exit code of a process that stopped, or None once it printed its ready line (its url is then set)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = fauxth.lines.get(timeout=0.05)
            if line.startswith("ready "):
                fauxth.url = line.split(" ", 1)[1]
                return None
        except queue.Empty:
            if fauxth.process.poll() is not None:
                return fauxth.process.returncode
    raise AssertionError("neither ready nor stopped")


def test_corrupt_snapshot_files_are_refused_at_start_and_left_untouched(start_fauxth, good_snapshot, tmp_path, figures):
    directory = tmp_path / "bad"
    directory.mkdir()
    refused, checksums, problems = 0, 0, []
    for label, path, must_refuse in corrupt_variants(good_snapshot, directory, random.Random(99)):
        before, listing = fingerprint(path), sorted(os.listdir(directory))
        fauxth = start_fauxth("--snapshot", str(path), expect_ready=False)
        code = exit_or_ready(fauxth)
        if code is None:  # it started: allowed only for damage SQLite cannot see
            if must_refuse:
                problems.append(f"{label}: started on a bad snapshot")
            elif fauxth.control("GET", "/health").status_code != 200:
                problems.append(f"{label}: not healthy")
            fauxth.process.kill()  # no save on the way out: the file must stay as it was
            fauxth.process.wait()
        else:
            fauxth.stop()
            lines = fauxth.stderr.strip().splitlines()
            if code <= 0 or len(lines) != 1:
                problems.append(f"{label}: exit {code}: {fauxth.stderr}")
            elif not (lines[0].startswith(f"error: snapshot {path} ")
                      and any(why in lines[0] for why in ("is not a valid Fauxth snapshot", "newer Fauxth"))):
                problems.append(f"{label}: unclear message: {lines[0]}")
            else:
                refused += 1
                checksums += "checksum" in lines[0]
        if fingerprint(path) != before:
            problems.append(f"{label}: the file changed")
        if sorted(os.listdir(directory)) != listing:
            problems.append(f"{label}: files appeared beside it: {set(os.listdir(directory)) - set(listing)}")
    assert not problems, problems
    figures("corrupt snapshots refused", refused)
    figures("refused by their checksum", checksums)


def test_corrupt_snapshot_files_are_refused_by_the_control_api_and_the_state_kept(fauxth, good_snapshot, tmp_path):
    directory = tmp_path / "bad"
    directory.mkdir()
    assert sign_up(requests.Session(), fauxth.url, "firebase", "keep-me@example.com", "secret123")
    before, problems = (tenant_counts(fauxth), set(api_users(fauxth))), []
    for label, path, must_refuse in corrupt_variants(good_snapshot, directory, random.Random(98)):
        stamp = fingerprint(path)
        response = fauxth.control("POST", "/snapshots/load", json={"path": str(path)})
        if response.status_code == 200:
            if must_refuse:
                problems.append(f"{label}: loaded")
            fauxth.control("POST", "/reset")
            assert sign_up(requests.Session(), fauxth.url, "firebase", "keep-me@example.com", "secret123")
        elif not 400 <= response.status_code < 500:
            problems.append(f"{label}: {response.status_code} {response.text}")
        else:
            error = response.json()["error"]
            if error["code"] != "snapshot_invalid" or str(path) not in error["message"]:
                problems.append(f"{label}: {error}")
            if (tenant_counts(fauxth), set(api_users(fauxth))) != before:
                problems.append(f"{label}: the running state changed")
        if fingerprint(path) != stamp:
            problems.append(f"{label}: the file changed")
    assert not problems, problems
    assert fauxth.control("GET", "/health").status_code == 200
