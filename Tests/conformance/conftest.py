"""Starts the built fauxth binary on a free loopback port for the conformance and console tests."""
import json
import os
import pathlib
import sys
import urllib.parse
from html.parser import HTMLParser

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.environ.get("FAUXTH_BIN", str(ROOT / ".build" / "debug" / "fauxth"))

# The suite's server helper is the Python client users install (clients/python), used from the source tree.
sys.path.insert(0, str(ROOT / "clients" / "python" / "src"))
from fauxth import Fauxth as FauxthClient  # noqa: E402


class Fauxth(FauxthClient):
    """A running fauxth process: the Python client (clients/python) started on the built binary, with the control
    API answered as `requests` responses, as the tests check statuses and bodies themselves."""

    def __init__(self, *args, expect_ready=True, env=None):
        self._spawn(args, binary=BINARY, env=env, expect_ready=expect_ready)

    @property
    def auth_url(self):
        return self.url  # supabase-py appends /auth/v1 itself

    def control(self, method, path, **kwargs):
        return requests.request(method, f"{self.url}/_emu/v1{path}", timeout=30, **kwargs)

    def wait_message(self, to, timeout=10, **filters):
        return self.wait_for_message(to=to, timeout=timeout, **filters)


@pytest.fixture(scope="session")
def server():
    fauxth = Fauxth("--deterministic", "7")
    yield fauxth
    fauxth.stop()


@pytest.fixture
def fauxth(server):
    """The shared server, reset to its seed before each test (through the client's kept-alive connection)."""
    server.reset()
    server.request("POST", "/clock/resume")
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

    def start(*args, expect_ready=True, env=None):
        instance = Fauxth(*args, expect_ready=expect_ready, env=env)
        started.append(instance)
        return instance

    yield start
    for instance in started:
        instance.stop()


# --- Headless Chromium -------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def chromium_temp(tmp_path_factory):
    """Chromium's temporary files in a folder of pytest's, which keeps only its last few runs: in /tmp, each quit
    browser left a singleton-socket folder behind (about fifty a run)."""
    return tmp_path_factory.mktemp("chromium")


def start_chromium(temp, *arguments, capabilities=None):
    """A headless Chromium driven through chromedriver, its temporary files under `temp`."""
    import shutil
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", *arguments):
        options.add_argument(argument)
    for name, value in (capabilities or {}).items():
        options.set_capability(name, value)
    if shutil.which("chromium"):
        options.binary_location = shutil.which("chromium")
    # chromedriver and the browser it starts make their profile and socket folders in TMPDIR.
    service = Service(shutil.which("chromedriver"), env={**os.environ, "TMPDIR": str(temp)})
    return webdriver.Chrome(service=service, options=options)


@pytest.fixture
def browser(chromium_temp):
    driver = start_chromium(chromium_temp)
    yield driver
    driver.quit()


# --- HTML forms and URLs -----------------------------------------------------------------------------------------

class Forms(HTMLParser):
    """The forms of an HTML page with their named fields, as a browser would submit them."""

    def __init__(self, html):
        super().__init__()
        self.forms = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action") or "", "method": (attrs.get("method") or "get").lower(), "fields": {},
                               "buttons": []})
        elif tag in ("input", "select", "textarea") and self.forms and attrs.get("name"):
            self.forms[-1]["fields"][attrs["name"]] = attrs.get("value") or ""
        elif tag == "button" and self.forms and attrs.get("name"):
            # A named submit button adds its own name and value to what the form posts.
            self.forms[-1]["buttons"].append((attrs["name"], attrs.get("value") or ""))


def query(link):
    """The query parameters of a URL, first value of each."""
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(link).query).items()}


# --- Firebase dialect --------------------------------------------------------------------------------------------

FIREBASE_PROJECT = "demo-fauxth"
FIREBASE_API_KEY = "fake-api-key"


def jwt_part(token, index):
    import base64
    part = token.split(".")[index]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def jwt_claims(token):
    return jwt_part(token, 1)


def firebase_error(response, status=400):
    """The `error.message` of a Firebase-shaped error response, after checking its status and shape."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == status
    return error["message"]


class FirebaseREST:
    """The Identity Toolkit, securetoken and emulator REST calls, made as the Firebase JS SDK makes them."""

    def __init__(self, fauxth, project=FIREBASE_PROJECT, api_key=FIREBASE_API_KEY):
        self.fauxth = fauxth
        self.url = fauxth.url
        self.project = project
        self.api_key = api_key

    def call(self, method, body=None, version="v1", key=None):
        """POST /identitytoolkit.googleapis.com/{version}/{method}?key=..., e.g. call("accounts:signUp", {...})."""
        return requests.post(f"{self.url}/identitytoolkit.googleapis.com/{version}/{method}",
                             params={"key": key or self.api_key}, json=body or {}, timeout=30)

    def ok(self, method, body=None, version="v1"):
        response = self.call(method, body, version)
        assert response.status_code == 200, response.text
        return response.json()

    def admin(self, method, path, **kwargs):
        """An admin (Bearer owner) call under /identitytoolkit.googleapis.com/v1/projects/{project}."""
        return requests.request(method, f"{self.url}/identitytoolkit.googleapis.com/v1/projects/{self.project}{path}",
                                headers={"Authorization": "Bearer owner"}, timeout=30, **kwargs)

    def emulator(self, method, path, **kwargs):
        """An emulator-only call under /emulator/v1/projects/{project}."""
        return requests.request(method, f"{self.url}/emulator/v1/projects/{self.project}{path}", timeout=30, **kwargs)

    def refresh(self, refresh_token):
        """The securetoken exchange with the form body the JS SDK sends."""
        return requests.post(f"{self.url}/securetoken.googleapis.com/v1/token", params={"key": self.api_key},
                             data={"grant_type": "refresh_token", "refresh_token": refresh_token}, timeout=30)

    def sign_up(self, email, password="secret123"):
        return self.ok("accounts:signUp", {"email": email, "password": password, "returnSecureToken": True})

    def sign_in(self, email, password="password123"):
        return self.ok("accounts:signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})

    def lookup(self, id_token):
        [user] = self.ok("accounts:lookup", {"idToken": id_token})["users"]
        return user

    def email(self, to, purpose):
        """The newest email of `purpose` to `to` in this project's outbox, and the action link in it."""
        message = self.fauxth.wait_message(to, purpose=purpose, tenant=self.project)
        assert message["channel"] == "email"
        [link] = {link for link in message["links"] if "/emulator/action?" in link}
        return message, link

    def verification_code(self, session_info):
        """The SMS code for `session_info`, from the emulator's verificationCodes listing."""
        codes = self.emulator("GET", "/verificationCodes").json()["verificationCodes"]
        [entry] = [c for c in codes if c["sessionInfo"] == session_info]
        return entry["code"]

    def advance(self, seconds):
        assert self.fauxth.control("POST", "/clock/advance", json={"seconds": seconds}).status_code == 200

    def freeze(self):
        assert self.fauxth.control("POST", "/clock/freeze").status_code == 200

    def now(self):
        return self.fauxth.now()


@pytest.fixture
def firebase(fauxth):
    """The shared server's default Firebase project, with the emulator clock put back on this machine's clock
    (tokens minted here are checked against the real clock by firebase-admin's revocation check)."""
    import datetime
    now = datetime.datetime.now(datetime.timezone.utc).isoformat()
    assert fauxth.control("POST", "/clock/freeze", json={"at": now}).status_code == 200
    fauxth.control("POST", "/clock/resume")
    return FirebaseREST(fauxth)


@pytest.fixture
def firebase_app(firebase, monkeypatch):
    """A firebase-admin app in emulator mode (FIREBASE_AUTH_EMULATOR_HOST) for the default Firebase project."""
    import uuid

    import firebase_admin
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", firebase.url.split("://", 1)[1])
    app = firebase_admin.initialize_app(options={"projectId": FIREBASE_PROJECT}, name=f"fauxth-{uuid.uuid4().hex}")
    yield app
    firebase_admin.delete_app(app)


# --- Cognito dialect ---------------------------------------------------------------------------------------------

COGNITO_REGION = "us-east-1"
COGNITO_POOL = "us-east-1_fauxth001"
COGNITO_CLIENT = "fauxthlocalclient000000001"
COGNITO_PASSWORD = "password123"
# The default pool policy the tests give their own pools: the seed pool's (8+ characters, lowercase and numbers).
COGNITO_POLICY = {"MinimumLength": 8, "RequireLowercase": True, "RequireNumbers": True,
                  "RequireUppercase": False, "RequireSymbols": False}


def cognito_issuer(pool_id):
    return f"https://cognito-idp.{COGNITO_REGION}.amazonaws.com/{pool_id}"


def cognito_email(prefix):
    """A fresh address for one test: `prefix` + a random suffix, at example.com (so it masks as "p***@e***")."""
    import uuid
    return f"{prefix}.{uuid.uuid4().hex[:10]}@example.com"


def hosted_ui_client(cognito, pool_id, callback, flows=("ALLOW_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH")):
    """A hosted-UI domain for the pool and a code-flow app client with `callback`; answers the client id."""
    import uuid
    cognito.idp.create_user_pool_domain(UserPoolId=pool_id, Domain=f"ui-{uuid.uuid4().hex[:8]}")
    return cognito.idp.create_user_pool_client(
        UserPoolId=pool_id, ClientName="web", AllowedOAuthFlows=["code"], AllowedOAuthScopes=["openid", "email"],
        AllowedOAuthFlowsUserPoolClient=True, CallbackURLs=[callback], SupportedIdentityProviders=["COGNITO"],
        ExplicitAuthFlows=list(flows))["UserPoolClient"]["ClientId"]


def hosted_ui_sign_in(browser, base, client_id, callback, username, password):
    """Opens the hosted UI's /login in Chromium and submits the username and password; answers the login URL."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    sign_in = f"{base}/login?" + urllib.parse.urlencode({"client_id": client_id, "redirect_uri": callback, "response_type": "code",
                                                         "scope": "openid email"})
    browser.get(sign_in)
    WebDriverWait(browser, 15).until(EC.presence_of_element_located((By.ID, "password")))
    browser.find_element(By.ID, "username").send_keys(username)
    browser.find_element(By.ID, "password").send_keys(password)
    browser.find_element(By.NAME, "signInSubmitButton").click()
    return sign_in


class CognitoIdp:
    """boto3's cognito-idp client pointed at fauxth, plus the pool/client/user set-up and token checks the Cognito
    conformance tests share."""

    def __init__(self, fauxth):
        self.fauxth = fauxth
        self.url = fauxth.url
        self.idp = self.boto3_client()

    def boto3_client(self):
        import boto3
        from botocore.config import Config
        return boto3.client("cognito-idp", endpoint_url=self.url, region_name=COGNITO_REGION,
                            aws_access_key_id="x", aws_secret_access_key="x",
                            config=Config(retries={"total_max_attempts": 1}))

    def fails(self, operation, **params):
        """Calls `operation` (a boto3 method name), which must fail with HTTP 400; returns botocore's Error dict."""
        from botocore.exceptions import ClientError
        try:
            result = getattr(self.idp, operation)(**params)
        except ClientError as error:
            assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 400, error.response
            return error.response["Error"]
        raise AssertionError(f"{operation} succeeded: {result}")

    # Pools, clients and users -----------------------------------------------------------------------------------

    def create_pool(self, username_attributes=("email",), auto_verified=("email",), policy=None, **extra):
        import uuid
        params = {"PoolName": f"pool-{uuid.uuid4().hex[:8]}",
                  "Policies": {"PasswordPolicy": policy or COGNITO_POLICY},
                  "AutoVerifiedAttributes": list(auto_verified)}
        if username_attributes:
            params["UsernameAttributes"] = list(username_attributes)
        params.update(extra)
        return self.idp.create_user_pool(**params)["UserPool"]["Id"]

    def create_client(self, pool_id, flows=("ALLOW_USER_PASSWORD_AUTH", "ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"),
                      secret=False, **extra):
        """A new app client; returns its UserPoolClient description (ClientId, and ClientSecret when `secret`)."""
        import uuid
        return self.idp.create_user_pool_client(UserPoolId=pool_id, ClientName=f"app-{uuid.uuid4().hex[:8]}",
                                                GenerateSecret=secret, ExplicitAuthFlows=list(flows), **extra)["UserPoolClient"]

    def admin_user(self, pool_id, username, password=COGNITO_PASSWORD, attributes=None):
        """A CONFIRMED user with a permanent password, made by an administrator (no message is sent). An email-like
        `username` also becomes the verified email attribute."""
        attrs = dict(attributes or {})
        if "@" in username:
            attrs.setdefault("email", username)
            attrs.setdefault("email_verified", "true")
        self.idp.admin_create_user(UserPoolId=pool_id, Username=username, MessageAction="SUPPRESS",
                                   TemporaryPassword="temporary123",
                                   UserAttributes=[{"Name": k, "Value": v} for k, v in attrs.items()])
        self.idp.admin_set_user_password(UserPoolId=pool_id, Username=username, Password=password, Permanent=True)
        return username

    def signed_up_user(self, email=None, password=COGNITO_PASSWORD, client_id=COGNITO_CLIENT, attributes=None):
        """A user who signed up and confirmed with the emailed code (so email_verified is true)."""
        email = email or cognito_email("user")
        attrs = {"email": email, **(attributes or {})}
        self.idp.sign_up(ClientId=client_id, Username=email, Password=password,
                         UserAttributes=[{"Name": k, "Value": v} for k, v in attrs.items()])
        self.idp.confirm_sign_up(ClientId=client_id, Username=email, ConfirmationCode=self.code(email, "verify_email"))
        return email

    def password_auth(self, username, password=COGNITO_PASSWORD, client_id=COGNITO_CLIENT, **params):
        return self.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
                                      AuthParameters={"USERNAME": username, "PASSWORD": password, **params})

    def tokens(self, username, password=COGNITO_PASSWORD, client_id=COGNITO_CLIENT):
        return self.password_auth(username, password, client_id)["AuthenticationResult"]

    # Outbox ------------------------------------------------------------------------------------------------------

    def message(self, to, purpose=None, since=None, **filters):
        if purpose:
            filters["purpose"] = purpose
        if since:
            filters["since"] = since
        return self.fauxth.wait_message(to, **filters)

    def code(self, to, purpose=None, since=None, **filters):
        """The code in the newest message to `to` (optionally of `purpose`, or after message id `since`)."""
        code = self.message(to, purpose, since, **filters)["codes"][0]
        assert len(code) == 6 and code.isdigit(), code
        return code

    def messages(self, to):
        return self.fauxth.control("GET", "/messages", params={"to": to}).json()["messages"]

    # Tokens ------------------------------------------------------------------------------------------------------

    def jwks(self, pool_id=COGNITO_POOL):
        response = requests.get(f"{self.url}/{pool_id}/.well-known/jwks.json", timeout=30)
        assert response.status_code == 200, response.text
        return response.json()

    def verify(self, token, use, pool_id=COGNITO_POOL, client_id=COGNITO_CLIENT):
        """Checks `token` as a Cognito JWT verifier does (RS256 against the pool's JWKS, issuer, audience for ID
        tokens, token_use) and returns its claims."""
        import jwt
        header = jwt.get_unverified_header(token)
        assert header["alg"] == "RS256"
        key = jwt.PyJWKSet.from_dict(self.jwks(pool_id))[header["kid"]]
        claims = jwt.decode(token, key=key.key, algorithms=["RS256"], issuer=cognito_issuer(pool_id),
                            audience=client_id if use == "id" else None,
                            options={"verify_aud": use == "id", "require": ["exp", "iat", "iss", "sub"]}, leeway=5)
        assert claims["token_use"] == use
        return claims

    # Clock -------------------------------------------------------------------------------------------------------

    def now(self):
        return self.fauxth.now()

    def advance(self, seconds):
        assert self.fauxth.control("POST", "/clock/advance", json={"seconds": seconds}).status_code == 200

    def freeze(self, at=None):
        body = {"at": at.isoformat()} if at else {}
        assert self.fauxth.control("POST", "/clock/freeze", json=body).status_code == 200

    def real_time(self):
        """Puts the emulator clock back on this machine's clock, running."""
        import datetime
        self.freeze(datetime.datetime.now(datetime.timezone.utc))
        assert self.fauxth.control("POST", "/clock/resume").status_code == 200


@pytest.fixture
def cognito(fauxth):
    """The shared server (reset to its seed) with the emulator clock on this machine's clock, before and after the
    test: pycognito stamps SRP answers and PyJWT checks iat/exp with the real clock."""
    idp = CognitoIdp(fauxth)
    idp.real_time()
    yield idp
    idp.real_time()


# --- Reliability suite ---------------------------------------------------------------------------------------------
# Tests marked `reliability` (soak, races, fuzzing, crashes, tampering, secrets) run in every CI run at smoke size;
# scripts/reliability runs only them at full size (FAUXTH_RELIABILITY=full) and prints the figures they record.

RELIABILITY_SCALE = os.environ.get("FAUXTH_RELIABILITY", "smoke")
FIGURES = {}


def pytest_configure(config):
    config.addinivalue_line("markers", "reliability: part of the reliability and security suite (scripts/reliability)")


def sized(smoke, full):
    """The smoke-size value in ordinary runs, the full-size one under scripts/reliability."""
    return full if RELIABILITY_SCALE == "full" else smoke


@pytest.fixture
def figures():
    """Records a figure for the suite's summary: figures("inputs tried", 1200) adds to that figure."""

    def record(name, value=1):
        FIGURES[name] = FIGURES.get(name, 0) + value

    return record


def pytest_terminal_summary(terminalreporter):
    if not FIGURES:
        return
    terminalreporter.section(f"reliability figures ({RELIABILITY_SCALE})")
    width = max(len(name) for name in FIGURES)
    for name, value in FIGURES.items():
        shown = f"{value:,.2f}" if isinstance(value, float) else f"{value:,}"
        terminalreporter.write_line(f"{name:<{width}}  {shown:>14}")
    out = ROOT / ".build" / "reliability"
    out.mkdir(parents=True, exist_ok=True)
    (out / "figures.json").write_text(json.dumps({"scale": RELIABILITY_SCALE, "figures": FIGURES}, indent=2) + "\n")


@pytest.fixture
def hook_server():
    """A loopback HTTP server playing the app's hook code; set `.answer` to shape its answers."""
    from hook_server import HookServer
    server = HookServer()
    yield server
    server.close()
