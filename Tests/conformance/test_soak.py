"""The soak: many clients run whole flows on the three dialects at once (sign-up, verify by the code from the outbox,
sign-in, MFA, refresh, sign-out, delete) while a control client moves the clock on, saves snapshots and toggles a fault
rule. Between rounds every flow stops, a named snapshot is restored and checked, and the clock jumps past every code's
life and the retention.

Passes when: no 5xx came without the fault marker, no request failed to connect (no crash), every flow ended as its
vendor says it must, the restored snapshot held exactly the state it was taken in, and resident memory stayed flat
once warm, and so did the store (the history limits and the sweep at work: the server runs with small limits so they
are reached)."""
import os
import sqlite3
import threading
import time

import pyotp
import pytest
import requests

from conftest import COGNITO_CLIENT, FIREBASE_API_KEY, query, sized

pytestmark = pytest.mark.reliability

# FAUXTH_SOAK_ROUNDS runs it longer (scripts/reliability -k soak with 12: twice the full length), to see where the
# growth stops.
ROUNDS = int(os.environ.get("FAUXTH_SOAK_ROUNDS") or sized(2, 6))
ROUND_SECONDS = sized(8, 30)
WORKERS = sized(6, 12)
COGNITO_TARGET = "AWSCognitoIdentityProviderService."
# Flat once warm: what the process may still grow by between the end of the first round and the end of the last.
RSS_GROWTH_LIMIT_MB = 48


class FlowFailed(Exception):
    pass


class Tally:
    """What the soak saw, across threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {"flows": 0, "requests": 0, "faults": 0}
        self.failures = []

    def add(self, name, value=1):
        with self.lock:
            self.counts[name] = self.counts.get(name, 0) + value

    def fail(self, text):
        with self.lock:
            self.failures.append(text)


class Client:
    """One soak client: a keep-alive session that retries answers the fault rule made, and nothing else."""

    def __init__(self, fauxth, tally):
        self.base = fauxth.url
        self.fauxth = fauxth
        self.tally = tally
        self.http = requests.Session()

    def call(self, method, path, expect=None, **kwargs):
        for _ in range(50):
            try:
                response = self.http.request(method, self.base + path, timeout=30, **kwargs)
            except requests.RequestException as error:
                raise FlowFailed(f"{method} {path}: no answer ({error})")
            self.tally.add("requests")
            if "x-fauxth-fault" in response.headers:
                self.tally.add("faults")
                continue
            if response.status_code >= 500:
                raise FlowFailed(f"{method} {path}: unexplained {response.status_code} {response.text[:200]}")
            if expect is not None and response.status_code != expect:
                raise FlowFailed(f"{method} {path}: expected {expect}, got {response.status_code} {response.text[:300]}")
            return response
        raise FlowFailed(f"{method} {path}: the fault rule fired 50 times in a row")

    def message(self, to, purpose):
        return self.fauxth.wait_message(to, purpose=purpose)

    def totp(self, secret, avoid=None):
        """The TOTP code at the emulator's time; waits for the next step when `avoid` (a code already used) is current."""
        for _ in range(100):
            code = pyotp.TOTP(secret).at(self.fauxth.now())
            if code != avoid:
                return code
            time.sleep(0.2)
        raise FlowFailed("the emulator clock did not reach the next TOTP step")

    def cognito(self, action, body, expect=200):
        return self.call("POST", "/", expect=expect, json=body, headers={
            "X-Amz-Target": COGNITO_TARGET + action, "Content-Type": "application/x-amz-json-1.1"})


def supabase_flow(client, keys, email):
    anon = {"apikey": keys["anon"]}
    password = "Soak-pass-1"
    client.call("POST", "/auth/v1/signup", expect=200, headers=anon, json={"email": email, "password": password})
    code = client.message(email, "verify_email")["codes"][0]
    verified = client.call("POST", "/auth/v1/verify", expect=200, headers=anon,
                           json={"type": "signup", "email": email, "token": code}).json()
    user_id = verified["user"]["id"]
    session = client.call("POST", "/auth/v1/token?grant_type=password", expect=200, headers=anon,
                          json={"email": email, "password": password}).json()
    bearer = {**anon, "Authorization": "Bearer " + session["access_token"]}
    factor = client.call("POST", "/auth/v1/factors", expect=200, headers=bearer, json={"factor_type": "totp"}).json()
    challenge = client.call("POST", f"/auth/v1/factors/{factor['id']}/challenge", expect=200, headers=bearer, json={}).json()
    aal2 = client.call("POST", f"/auth/v1/factors/{factor['id']}/verify", expect=200, headers=bearer,
                       json={"challenge_id": challenge["id"], "code": client.totp(factor["totp"]["secret"])}).json()
    refreshed = client.call("POST", "/auth/v1/token?grant_type=refresh_token", expect=200, headers=anon,
                            json={"refresh_token": aal2["refresh_token"]}).json()
    bearer = {**anon, "Authorization": "Bearer " + refreshed["access_token"]}
    user = client.call("GET", "/auth/v1/user", expect=200, headers=bearer).json()
    if user["email"] != email or user["factors"][0]["status"] != "verified":
        raise FlowFailed(f"supabase: /user answered {user}")
    client.call("POST", "/auth/v1/logout", expect=204, headers=bearer)
    # Signed out: the refresh token is dead.
    client.call("POST", "/auth/v1/token?grant_type=refresh_token", expect=400, headers=anon,
                json={"refresh_token": refreshed["refresh_token"]})
    client.call("DELETE", f"/auth/v1/admin/users/{user_id}", expect=200,
                headers={"apikey": keys["service"], "Authorization": "Bearer " + keys["service"]})


def firebase_flow(client, email):
    def toolkit(method, body, expect=200):
        return client.call("POST", f"/identitytoolkit.googleapis.com/v1/{method}", expect=expect,
                           params={"key": FIREBASE_API_KEY}, json=body).json()

    password = "soak-pass-1"
    signed_up = toolkit("accounts:signUp", {"email": email, "password": password, "returnSecureToken": True})
    toolkit("accounts:sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": signed_up["idToken"]})
    link = client.message(email, "verify_email")["links"][0]
    applied = toolkit("accounts:update", {"oobCode": query(link)["oobCode"]})
    if applied.get("emailVerified") is not True:
        raise FlowFailed(f"firebase: applying the code answered {applied}")
    signed_in = toolkit("accounts:signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})
    refreshed = client.call("POST", "/securetoken.googleapis.com/v1/token", expect=200, params={"key": FIREBASE_API_KEY},
                            data={"grant_type": "refresh_token", "refresh_token": signed_in["refreshToken"]}).json()
    users = toolkit("accounts:lookup", {"idToken": refreshed["id_token"]})["users"]
    if users[0]["email"] != email or users[0]["emailVerified"] is not True:
        raise FlowFailed(f"firebase: lookup answered {users}")
    toolkit("accounts:delete", {"idToken": refreshed["id_token"]})
    # Deleted: the refresh token is dead.
    client.call("POST", "/securetoken.googleapis.com/v1/token", expect=400, params={"key": FIREBASE_API_KEY},
                data={"grant_type": "refresh_token", "refresh_token": signed_in["refreshToken"]})


def cognito_flow(client, email):
    password = "soakpass1"
    client.cognito("SignUp", {"ClientId": COGNITO_CLIENT, "Username": email, "Password": password,
                              "UserAttributes": [{"Name": "email", "Value": email}]})
    code = client.message(email, "verify_email")["codes"][0]
    client.cognito("ConfirmSignUp", {"ClientId": COGNITO_CLIENT, "Username": email, "ConfirmationCode": code})
    auth = {"ClientId": COGNITO_CLIENT, "AuthFlow": "USER_PASSWORD_AUTH", "AuthParameters": {"USERNAME": email, "PASSWORD": password}}
    access = client.cognito("InitiateAuth", auth).json()["AuthenticationResult"]["AccessToken"]
    secret = client.cognito("AssociateSoftwareToken", {"AccessToken": access}).json()["SecretCode"]
    setup_code = client.totp(secret)
    client.cognito("VerifySoftwareToken", {"AccessToken": access, "UserCode": setup_code})
    client.cognito("SetUserMFAPreference", {"AccessToken": access, "SoftwareTokenMfaSettings": {"Enabled": True, "PreferredMfa": True}})
    challenge = client.cognito("InitiateAuth", auth).json()
    if challenge.get("ChallengeName") != "SOFTWARE_TOKEN_MFA":
        raise FlowFailed(f"cognito: expected the TOTP challenge, got {challenge}")
    # A TOTP code answers once: the sign-in needs the next step's code.
    tokens = client.cognito("RespondToAuthChallenge", {
        "ClientId": COGNITO_CLIENT, "ChallengeName": "SOFTWARE_TOKEN_MFA", "Session": challenge["Session"],
        "ChallengeResponses": {"USERNAME": email, "SOFTWARE_TOKEN_MFA_CODE": client.totp(secret, avoid=setup_code)}}).json()["AuthenticationResult"]
    refreshed = client.cognito("InitiateAuth", {"ClientId": COGNITO_CLIENT, "AuthFlow": "REFRESH_TOKEN_AUTH",
                                                "AuthParameters": {"REFRESH_TOKEN": tokens["RefreshToken"]}}).json()["AuthenticationResult"]
    attributes = {a["Name"]: a["Value"] for a in client.cognito("GetUser", {"AccessToken": refreshed["AccessToken"]}).json()["UserAttributes"]}
    if attributes.get("email") != email or attributes.get("email_verified") != "true":
        raise FlowFailed(f"cognito: GetUser answered {attributes}")
    client.cognito("GlobalSignOut", {"AccessToken": refreshed["AccessToken"]})
    signed_out = client.cognito("GetUser", {"AccessToken": refreshed["AccessToken"]}, expect=400).json()
    if signed_out["__type"] != "NotAuthorizedException":
        raise FlowFailed(f"cognito: a signed-out token got {signed_out}")
    client.cognito("AdminDeleteUser", {"UserPoolId": "us-east-1_fauxth001", "Username": email})


def fingerprint(fauxth):
    """The state a restore must bring back exactly: every tenant's users."""
    users = {}
    for tenant in ("default", "demo-fauxth", "us-east-1_fauxth001"):
        listed = fauxth.control("GET", f"/tenants/{tenant}/users", params={"limit": 10000}).json()["users"]
        users[tenant] = sorted(u["id"] for u in listed)
    return users


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def store_mb(fauxth, path):
    """The store's size: its image, saved to `path` (the file less its checksum trailer)."""
    assert fauxth.control("POST", "/snapshots/save", json={"path": str(path), "faults": False}).status_code == 200
    return (path.stat().st_size - 48) / 1e6


# What a round's flows leave behind that only the sweep removes: every flow deletes its user, and the clock has
# passed every code's life and the retention, so by the next round none of it may remain.
SWEPT_TABLES = ("codes", "sessions", "refresh_tokens", "spent_refresh_tokens", "flow_states", "challenges")


def leftovers(path):
    """Rows of `SWEPT_TABLES` in the snapshot at `path` (the saved image opens as a plain SQLite file)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return {table: count for table in SWEPT_TABLES if (count := db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])}


def test_soak(start_fauxth, tmp_path, figures):
    fauxth = start_fauxth("--max-events", "3000", "--max-messages", "300", "--max-deeplinks", "300", "--keep-spent", "600")
    hints = {t["id"]: t["hints"] for t in fauxth.control("GET", "/info").json()["tenants"]}
    keys = {"anon": hints["default"]["SUPABASE_ANON_KEY"], "service": hints["default"]["SUPABASE_SERVICE_ROLE_KEY"]}
    tally = Tally()
    # Every dialect request has a 1 in 20 chance of a 503 while the rule is on; the controller toggles it.
    rule = fauxth.control("POST", "/faults", json={
        "id": "soak-flaky", "match": {}, "effect": {"type": "error", "error": "unavailable"},
        "schedule": {"probability": 0.05, "seed": 11}})
    assert rule.status_code in (200, 201), rule.text

    warm_rss = None
    rounds = []
    for round_number in range(ROUNDS):
        stop = threading.Event()
        # The clock keeps moving until the last flow is done: a Cognito flow waits for the next TOTP step.
        stop_control = threading.Event()
        flows = [("supabase", lambda c, n: supabase_flow(c, keys, n + "@sb.soak.test")),
                 ("firebase", lambda c, n: firebase_flow(c, n + "@fb.soak.test")),
                 ("cognito", lambda c, n: cognito_flow(c, n + "@cg.soak.test"))]

        def worker(index):
            client = Client(fauxth, tally)
            n = 0
            while not stop.is_set():
                dialect, flow = flows[(index + n) % len(flows)]
                name = f"r{round_number}-w{index}-{n}"
                try:
                    flow(client, name)
                    tally.add("flows")
                    tally.add(f"{dialect} flows")
                except FlowFailed as failure:
                    tally.fail(f"{dialect} {name}: {failure}")
                except Exception as error:  # a shape the flow did not expect is a failure too, never a crash of the soak
                    tally.fail(f"{dialect} {name}: {type(error).__name__}: {error}")
                n += 1

        def controller():
            control = Client(fauxth, tally)
            tick = 0
            while not stop_control.is_set():
                try:
                    control.call("POST", "/_emu/v1/clock/advance", expect=200, json={"seconds": 10})
                    if tick % 3 == 0:
                        control.call("POST", "/_emu/v1/snapshots", expect=201, json={"name": "during-load"})
                        control.call("POST", "/_emu/v1/snapshots/save", expect=200, json={"path": str(tmp_path / "during-load.sqlite")})
                        control.call("PATCH", "/_emu/v1/faults/soak-flaky", expect=200, json={"enabled": tick % 6 == 0})
                except FlowFailed as failure:
                    tally.fail(f"control: {failure}")
                tick += 1
                stop_control.wait(1)

        workers = [threading.Thread(target=worker, args=(i,)) for i in range(WORKERS)]
        control_thread = threading.Thread(target=controller)
        for thread in [*workers, control_thread]:
            thread.start()
        time.sleep(ROUND_SECONDS)
        stop.set()
        for thread in workers:
            thread.join(timeout=120)
        stop_control.set()
        control_thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in [*workers, control_thread]), "a soak client hung"
        assert fauxth.process.poll() is None, f"fauxth exited: {fauxth.stop()} {fauxth.stderr[-2000:]}"

        # Quiet: a restore brings back exactly the state it was taken in, and nothing made after.
        before = fingerprint(fauxth)
        assert fauxth.control("POST", "/snapshots", json={"name": "barrier"}).status_code == 201
        assert fauxth.control("POST", "/tenants/default/users", json={"email": f"after-{round_number}@soak.test"}).status_code == 201
        assert fauxth.control("POST", "/snapshots/barrier/restore").status_code == 200
        assert fingerprint(fauxth) == before
        tally.add("snapshot restores checked")
        # Past the longest code's life (Firebase's three-day email links) and the retention: every code, revoked
        # session and deleted user's token of this round is swept by the next, so the store stays flat.
        assert fauxth.control("POST", "/clock/advance", json={"seconds": 3 * 86400 + 3600}).status_code == 200
        # The curve: the process's RSS beside the store's own size (its image, saved), so growth that is the data
        # (every flow makes a user, whose rows stay) is told from growth that is not.
        rss, store = rss_mb(fauxth.process.pid), store_mb(fauxth, tmp_path / "round.sqlite")
        rounds.append({"round": round_number + 1, "flows": tally.counts["flows"], "rss_mb": round(rss, 1), "store_mb": round(store, 1),
                       "leftovers": leftovers(tmp_path / "round.sqlite")})
        print(f"soak round {round_number + 1}: {tally.counts['flows']} flows, RSS {rss:.1f} MB, store {store:.1f} MB, "
              f"RSS outside the store {rss - store:.1f} MB")
        if round_number == 0:
            warm_rss, warm_store = rss, store
            warm_flows = tally.counts["flows"]

    end_rss, end_store = rounds[-1]["rss_mb"], rounds[-1]["store_mb"]
    journal = fauxth.control("GET", "/faults/journal").json()
    events = fauxth.control("GET", "/events", params={"limit": 10000}).json()["events"]
    messages = fauxth.control("GET", "/messages", params={"limit": 10000}).json()["messages"]
    figures("soak flows completed", tally.counts["flows"])
    figures("soak requests", tally.counts["requests"])
    figures("soak faults survived", tally.counts["faults"])
    figures("soak snapshot restores checked", tally.counts["snapshot restores checked"])
    figures("soak flow failures", len(tally.failures))
    figures("soak RSS growth once warm (MB)", round(end_rss - warm_rss, 1))
    # Per thousand flows after the first round, so a regression shows whatever the run's length.
    warm_thousands = max(tally.counts["flows"] - warm_flows, 1) / 1000
    figures("soak RSS growth per 1,000 flows once warm (MB)", round((end_rss - warm_rss) / warm_thousands, 2))
    figures("soak store growth per 1,000 flows once warm (MB)", round((end_store - warm_store) / warm_thousands, 2))
    figures("soak RSS growth outside the store once warm (MB)", round((end_rss - end_store) - (warm_rss - warm_store), 1))
    for entry in rounds:
        figures(f"soak round {entry['round']:02d} RSS (MB)", entry["rss_mb"])
        figures(f"soak round {entry['round']:02d} store (MB)", entry["store_mb"])
    assert not tally.failures, "\n".join(tally.failures[:20])
    assert tally.counts["flows"] >= WORKERS * ROUNDS, tally.counts
    assert all(tally.counts.get(f"{name} flows", 0) > 0 for name in ("supabase", "firebase", "cognito")), tally.counts
    assert tally.counts["faults"] > 0 and len(journal.get("firings", journal)) > 0
    # The history limits held (trimmed in batches of 64).
    assert len(events) < 3000 + 64 and len(messages) < 300 + 64
    assert end_rss - warm_rss < RSS_GROWTH_LIMIT_MB, (warm_rss, end_rss)
    # The store is flat: past the histories' limits, nothing a flow made outlives the sweep.
    assert all(not entry["leftovers"] for entry in rounds), [(entry["round"], entry["leftovers"]) for entry in rounds]
    assert fauxth.stop() in (0, -15), fauxth.stderr[-2000:]
