"""Tampered tokens are refused everywhere a real service refuses them: a flipped or stripped signature, `alg` changed
(to `none`, to HS256 signed with the public key, to another algorithm), an unknown `kid` or another tenant's, the
issuer, audience, subject or any claim changed under the original signature, an expired token, another tenant's token,
and a tampered refresh token. Each dialect answers in its own error format with a 4xx. The Firebase emulator's unsigned
(`alg: none`) tokens stay accepted where firebase-admin needs them (a Firebase project that issues them) and nowhere
else."""
import base64
import hashlib
import hmac
import json
import time

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from conftest import COGNITO_CLIENT, COGNITO_PASSWORD, FirebaseREST, cognito_email, firebase_error

pytestmark = pytest.mark.reliability

SUPABASE_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long"
ANON_KEY = jwt.encode({"iss": "supabase-demo", "role": "anon", "exp": 1983812996}, SUPABASE_SECRET, algorithm="HS256")
SERVICE_ROLE_KEY = jwt.encode({"iss": "supabase-demo", "role": "service_role", "exp": 1983812996}, SUPABASE_SECRET,
                              algorithm="HS256")


# --- A generic tamperer ------------------------------------------------------------------------------------------

def b64(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def split(token):
    header, payload, signature = token.split(".")
    return json.loads(unb64(header)), json.loads(unb64(payload)), signature


def join(header, payload, signature):
    encode = lambda part: b64(json.dumps(part, separators=(",", ":")).encode())  # noqa: E731
    return f"{encode(header)}.{encode(payload)}.{signature}"


def hs256(header, payload, key):
    """A token signed with HMAC-SHA256 under `key` (bytes), whatever its header says."""
    unsigned = join(header, payload, "")[:-1]
    return unsigned + "." + b64(hmac.new(key, unsigned.encode(), hashlib.sha256).digest())


def tampered(token, *, public_key=None, other_kid=None, other_secret=b"not-the-projects-secret-but-32-bytes-long",
             claims=()):
    """(what was done, forged token) pairs a verifier must refuse, all made from one genuine `token`.

    `public_key` (PEM bytes) adds the HS256-with-the-public-key confusion, `other_kid` another tenant's key id,
    and `claims` ((name, value), …) payload changes kept under the original signature."""
    header, payload, signature = split(token)
    raw = unb64(signature) if signature else b""
    alg = header.get("alg")
    cases = [
        ("alg none, signature stripped", join({**header, "alg": "none"}, payload, "")),
        ("alg None, signature kept", join({**header, "alg": "None"}, payload, signature)),
        ("another alg", join({**header, "alg": "ES256" if alg != "ES256" else "RS256"}, payload, signature)),
        ("HS256 with another secret", hs256({**header, "alg": "HS256"}, payload, other_secret)),
        ("unknown kid", join({**header, "kid": "no-such-kid"}, payload, signature)),
        ("not a JWT", "not-a-jwt"),
        ("two parts", token.rsplit(".", 1)[0]),
        ("four parts", token + ".e30"),
        ("header not JSON", b64(b"{not json") + "." + token.split(".", 1)[1]),
    ]
    if raw:
        cases += [
            ("signature byte flipped", join(header, payload, b64(bytes([raw[0] ^ 1]) + raw[1:]))),
            ("last signature byte flipped", token[:-len(signature)] + b64(raw[:-1] + bytes([raw[-1] ^ 0x80]))),
            ("signature stripped", token.rsplit(".", 1)[0] + "."),
            ("signature truncated", token.rsplit(".", 1)[0] + "." + b64(raw[:len(raw) // 2])),
        ]
    if public_key:
        cases.append(("HS256 signed with the public key", hs256({**header, "alg": "HS256"}, payload, public_key)))
    if other_kid:
        cases.append(("another tenant's kid", join({**header, "kid": other_kid}, payload, signature)))
    for name, value in claims:
        cases.append((f"{name} changed", join(header, {**payload, name: value}, signature)))
    return cases


def test_the_tamperer_leaves_no_case_that_still_verifies():
    key = ec.generate_private_key(ec.SECP256R1())
    token = jwt.encode({"sub": "a", "aud": "x"}, key, algorithm="ES256", headers={"kid": "k1"})
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    cases = tampered(token, public_key=public, other_kid="k2", claims=[("sub", "b"), ("aud", "y")])
    assert len({name for name, _ in cases}) == len(cases)
    for name, forged in cases:
        with pytest.raises(jwt.PyJWTError):
            jwt.decode(forged, key.public_key(), algorithms=["ES256"], audience="x")
        assert forged != token, name


# --- Supabase ----------------------------------------------------------------------------------------------------

def gotrue(fauxth, method, path, token, apikey=ANON_KEY, **kwargs):
    headers = {"apikey": apikey, "X-Supabase-Api-Version": "2024-01-01"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return requests.request(method, f"{fauxth.url}/auth/v1/{path}", headers=headers, timeout=30, **kwargs)


SUPABASE_USER_CALLS = [
    ("GET", "user", {}),
    ("PUT", "user", {"json": {"data": {"tampered": True}}}),
    ("POST", "factors", {"json": {"factor_type": "totp", "friendly_name": "forged"}}),
    ("POST", "logout", {}),
]
SUPABASE_ADMIN_CALLS = [
    ("GET", "admin/users", {}),
    ("POST", "admin/users", {"json": {"email": "forged@example.com", "password": "secret123"}}),
    ("POST", "admin/generate_link", {"json": {"type": "magiclink", "email": "alice@example.com"}}),
]


def supabase_session(url, email="alice@example.com", password="password123"):
    response = requests.post(f"{url}/auth/v1/token", params={"grant_type": "password"}, headers={"apikey": ANON_KEY},
                             json={"email": email, "password": password}, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def assert_bad_jwt(response, why=""):
    assert response.status_code == 403, (why, response.text)
    assert response.json()["code"] == "bad_jwt", (why, response.text)
    assert response.headers["x-sb-error-code"] == "bad_jwt"


def test_supabase_refuses_tampered_access_tokens_on_every_user_endpoint(fauxth, figures):
    session = supabase_session(fauxth.url)
    token = session["access_token"]
    other = supabase_session(fauxth.url, "carol@example.com")["user"]["id"]
    cases = tampered(token, claims=[("sub", other), ("role", "service_role"), ("aud", "other-audience"),
                                    ("iss", "https://evil.example/auth/v1"), ("exp", 4102444800), ("aal", "aal2")])
    for method, path, kwargs in SUPABASE_USER_CALLS:
        for name, forged in cases:
            assert_bad_jwt(gotrue(fauxth, method, path, forged, **kwargs), (method, path, name))
    figures("tokens tampered", len(cases) * len(SUPABASE_USER_CALLS))
    # The genuine token still works after all that, and logout is what ends it.
    assert gotrue(fauxth, "GET", "user", token).json()["email"] == "alice@example.com"


def test_supabase_refuses_a_tampered_service_role_key_on_admin_endpoints(fauxth, figures):
    cases = tampered(SERVICE_ROLE_KEY, claims=[("exp", 4102444800), ("iss", "evil")])
    cases.append(("an anon key with role service_role", join(*split(ANON_KEY)[:1], {**split(ANON_KEY)[1], "role": "service_role"},
                                                              split(ANON_KEY)[2])))
    for method, path, kwargs in SUPABASE_ADMIN_CALLS:
        for name, forged in cases:
            assert_bad_jwt(gotrue(fauxth, method, path, forged, apikey=forged, **kwargs), (method, path, name))
        # A user's own (genuine) token, or the anon key, is not an admin's, whatever the apikey header says.
        user_token = supabase_session(fauxth.url)["access_token"]
        for bearer in (user_token, ANON_KEY):
            refused = gotrue(fauxth, method, path, bearer, apikey=SERVICE_ROLE_KEY, **kwargs)
            assert refused.status_code == 403 and refused.json()["code"] == "not_admin", refused.text
        # The apikey header alone is no credential: GoTrue reads the Authorization header.
        missing = gotrue(fauxth, method, path, None, apikey=SERVICE_ROLE_KEY, **kwargs)
        assert missing.status_code == 401 and missing.json()["code"] == "no_authorization", missing.text
    figures("tokens tampered", len(cases) * len(SUPABASE_ADMIN_CALLS))
    assert gotrue(fauxth, "GET", "admin/users", SERVICE_ROLE_KEY).status_code == 200


def test_supabase_refuses_an_expired_token_and_another_projects_token(fauxth, figures):
    token = supabase_session(fauxth.url)["access_token"]
    claims = jwt.decode(token, options={"verify_signature": False})
    # Signed with another project's secret: everything right but the key.
    foreign = jwt.encode(claims, "another-projects-secret-with-at-least-32-characters", algorithm="HS256")
    assert_bad_jwt(gotrue(fauxth, "GET", "user", foreign))
    fauxth.control("POST", "/clock/freeze")
    assert fauxth.control("POST", "/clock/advance", json={"seconds": 3601}).status_code == 200
    for method, path, kwargs in SUPABASE_USER_CALLS:
        response = gotrue(fauxth, method, path, token, **kwargs)
        assert_bad_jwt(response)
        assert "expired" in response.json()["message"], response.text
    figures("tokens tampered", 1 + len(SUPABASE_USER_CALLS))


def test_supabase_refuses_a_tampered_refresh_token(fauxth, figures):
    refresh = supabase_session(fauxth.url)["refresh_token"]
    forged = [refresh[:-1] + ("a" if refresh[-1] != "a" else "b"), refresh.upper(), refresh + "x", "", refresh[:6]]
    for token in forged:
        response = requests.post(f"{fauxth.url}/auth/v1/token", params={"grant_type": "refresh_token"},
                                 headers={"apikey": ANON_KEY, "X-Supabase-Api-Version": "2024-01-01"},
                                 json={"refresh_token": token}, timeout=30)
        assert response.status_code == 400, response.text
        body = response.json()
        # GoTrue answers a missing token as an OAuth error, an unknown one as its own.
        assert body.get("code") in ("refresh_token_not_found", "validation_failed") or body.get("error") == "invalid_request", body
    figures("tokens tampered", len(forged))


@pytest.fixture
def es256_project(supabase_project):
    key = ec.generate_private_key(ec.SECP256R1())
    private = jwt.algorithms.ECAlgorithm.to_jwk(key, as_dict=True)
    private.update({"kid": "project-key", "key_ops": ["sign", "verify"], "alg": "ES256"})
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    project = supabase_project({"GOTRUE_JWT_KEYS": json.dumps([private]), "GOTRUE_MAILER_AUTOCONFIRM": "true"},
                               [{"email": "es@example.com", "password": "secret123", "email_verified": True}])
    return project, public


def test_supabase_with_asymmetric_keys_refuses_alg_confusion_and_foreign_kids(es256_project, figures):
    project, public = es256_project
    token = supabase_session(project.url, "es@example.com", "secret123")["access_token"]
    assert jwt.get_unverified_header(token)["kid"] == "project-key"
    jwk_json = json.dumps(requests.get(f"{project.url}/auth/v1/.well-known/jwks.json", timeout=30).json()["keys"][0]).encode()
    header, payload, _ = split(token)
    cases = tampered(token, public_key=public, other_kid="another-projects-key", claims=[("role", "service_role")])
    cases += [("HS256 signed with the JWK", hs256({**header, "alg": "HS256"}, payload, jwk_json)),
              ("HS256 signed with the public key, no kid", hs256({"alg": "HS256", "typ": "JWT"}, payload, public))]
    for name, forged in cases:
        assert_bad_jwt(gotrue(project, "GET", "user", forged), name)
    figures("tokens tampered", len(cases))
    assert gotrue(project, "GET", "user", token).status_code == 200


# --- Firebase ----------------------------------------------------------------------------------------------------

def firebase_tampered_claims(claims):
    return [("aud", "another-project"), ("iss", "https://securetoken.google.com/another-project"),
            ("sub", "no-such-user-0000000000000"), ("user_id", "no-such-user-0000000000000"), ("exp", claims["iat"] - 10)]


@pytest.fixture
def signed(start_fauxth, tmp_path):
    """Two projects that sign their ID tokens with RS256 (as production does), sharing Google's key as projects do."""
    seed = tmp_path / "signed.json"
    seed.write_text(json.dumps({"tenants": [
        {"id": "signed-project", "dialect": "firebase", "id_token_signing": "RS256", "api_keys": ["signed-key"]},
        {"id": "other-project", "dialect": "firebase", "id_token_signing": "RS256", "api_keys": ["other-key"]},
        {"id": "unsigned-project", "dialect": "firebase", "id_token_signing": "none", "api_keys": ["unsigned-key"]},
    ]}))
    server = start_fauxth("--seed", str(seed))
    return (FirebaseREST(server, project="signed-project", api_key="signed-key"),
            FirebaseREST(server, project="other-project", api_key="other-key"),
            FirebaseREST(server, project="unsigned-project", api_key="unsigned-key"))


def firebase_calls(firebase, token):
    yield firebase.call("accounts:lookup", {"idToken": token})
    yield firebase.call("accounts:update", {"idToken": token, "displayName": "Forged", "returnSecureToken": True})
    yield firebase.call("accounts:sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": token})
    yield firebase.call("accounts/mfaEnrollment:start", {"idToken": token, "totpEnrollmentInfo": {}}, version="v2")


def assert_firebase_refused(response, allowed=("INVALID_ID_TOKEN",), why=""):
    assert response.status_code == 400, (why, response.text)
    message = firebase_error(response)
    assert message.split(" :")[0] in allowed, (why, message)


def test_firebase_signed_project_refuses_tampered_id_tokens(signed, figures):
    project, other, unsigned = signed
    token = project.sign_up("signed-tamper@example.com")["idToken"]
    certs = requests.get(f"{project.url}/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
                         timeout=30).json()
    public = jwt.PyJWKClient(f"{project.url}/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com") \
        .get_signing_key_from_jwt(token).key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    assert jwt.get_unverified_header(token)["kid"] in certs
    cases = tampered(token, public_key=public, claims=firebase_tampered_claims(jwt.decode(token, options={"verify_signature": False})))
    # Another project's genuine token (same Google key, other audience), and an unsigned project's genuine one.
    cases.append(("another project's token", other.sign_up("other-tamper@example.com")["idToken"]))
    cases.append(("an unsigned project's token", unsigned.sign_up("unsigned-tamper@example.com")["idToken"]))
    calls = 0
    for name, forged in cases:
        for response in firebase_calls(project, forged):
            assert_firebase_refused(response, ("INVALID_ID_TOKEN", "USER_NOT_FOUND"), name)
            calls += 1
    figures("tokens tampered", calls)
    assert project.lookup(token)["email"] == "signed-tamper@example.com"


def test_firebase_unsigned_project_refuses_what_the_emulator_can_still_check(firebase, figures):
    """An emulator project's ID tokens are unsigned, so their claims are all there is to check: the audience, the
    issuer, the expiry and the user. A token that claims a signature it does not have is refused too."""
    token = firebase.sign_in("alice@example.com")["idToken"]
    assert jwt.get_unverified_header(token)["alg"] == "none" and token.endswith(".")
    header, payload, _ = split(token)
    cases = [(f"{name} changed", join(header, {**payload, name: value}, ""))
             for name, value in firebase_tampered_claims(payload)]
    cases += [("alg none with a signature", join(header, payload, b64(b"signature"))),
              ("alg HS256 unsigned", join({**header, "alg": "HS256"}, payload, "")),
              ("alg HS256 with a secret", hs256({**header, "alg": "HS256"}, payload, b"fake-secret")),
              ("no alg", join({"typ": "JWT"}, payload, "")), ("not a JWT", "not-a-jwt")]
    for name, forged in cases:
        for response in firebase_calls(firebase, forged):
            assert_firebase_refused(response, ("INVALID_ID_TOKEN", "USER_NOT_FOUND"), name)
    figures("tokens tampered", len(cases) * 4)
    # The genuine unsigned token works, as firebase-admin and the SDKs need; and stops working after an hour.
    assert firebase.lookup(token)["email"] == "alice@example.com"
    firebase.advance(3601)
    assert_firebase_refused(firebase.call("accounts:lookup", {"idToken": token}))


def test_firebase_refuses_tampered_refresh_tokens(firebase, signed, figures):
    refresh = firebase.sign_in("alice@example.com")["refreshToken"]
    other_project_refresh = signed[1].sign_up("refresh-other@example.com")["refreshToken"]
    forged = [refresh[:-1] + ("A" if refresh[-1] != "A" else "B"), refresh[:-10], refresh + "x", refresh.swapcase(),
              base64.b64encode(json.dumps({"_AuthEmulatorRefreshToken": "DO NOT MODIFY", "localId": "alice", "projectId":
                                           "demo-fauxth"}).encode()).decode()]
    for token in forged:
        assert firebase_error(firebase.refresh(token)) == "INVALID_REFRESH_TOKEN", token
    # A genuine refresh token of another project (on another server here) means nothing to this one.
    assert firebase_error(firebase.refresh(other_project_refresh)) == "INVALID_REFRESH_TOKEN"
    figures("tokens tampered", len(forged) + 1)
    assert firebase.refresh(refresh).status_code == 200


def test_firebase_refuses_tampered_custom_tokens(firebase, firebase_app, figures):
    from firebase_admin import auth
    token = auth.create_custom_token("customTamper01", {"tier": "gold"}, app=firebase_app).decode()
    header, payload, signature = split(token)
    cases = [("audience changed", join(header, {**payload, "aud": "https://evil.example/"}, signature)),
             ("no uid", join(header, {k: v for k, v in payload.items() if k != "uid"}, signature)),
             ("reserved claim", join(header, {**payload, "claims": {"firebase": {"tenant": "x"}}}, signature)),
             ("two parts", token.rsplit(".", 1)[0]), ("not JSON", "e30.bm90IGpzb24.")]
    for name, forged in cases:
        message = firebase_error(firebase.call("accounts:signInWithCustomToken", {"token": forged, "returnSecureToken": True}))
        assert message.split(" :")[0] in ("INVALID_CUSTOM_TOKEN", "MISSING_IDENTIFIER", "FORBIDDEN_CLAIM", "INVALID_CLAIMS"), (name, message)
    figures("tokens tampered", len(cases))
    assert firebase.ok("accounts:signInWithCustomToken", {"token": token, "returnSecureToken": True})["idToken"]


def test_firebase_admin_in_emulator_mode_accepts_unsigned_tokens_and_refuses_tampered_ones(firebase, firebase_app, figures):
    from firebase_admin import auth
    signed_in = firebase.sign_in("alice@example.com")
    token = signed_in["idToken"]
    assert auth.verify_id_token(token, check_revoked=True, app=firebase_app)["email"] == "alice@example.com"
    cookie = auth.create_session_cookie(token, expires_in=3600, app=firebase_app)
    assert jwt.get_unverified_header(cookie)["alg"] == "none"
    assert auth.verify_session_cookie(cookie, check_revoked=True, app=firebase_app)["uid"] == signed_in["localId"]
    count = 0
    for genuine, verify in ((token, auth.verify_id_token), (cookie, auth.verify_session_cookie)):
        header, payload, _ = split(genuine)
        # (firebase-admin for Python skips `exp` on emulator tokens: its business, not the emulator's, so not tried here.)
        for name, value in (("aud", "another-project"), ("iss", "https://evil.example/"), ("sub", "noSuchUser000000000000000000")):
            forged = join(header, {**payload, name: value, **({"user_id": value} if name == "sub" else {})}, "")
            with pytest.raises((auth.InvalidIdTokenError, auth.InvalidSessionCookieError, auth.UserNotFoundError)):
                verify(forged, check_revoked=True, app=firebase_app)
            count += 1
    time.sleep(1.1)  # firebase-admin stamps validSince from this machine's clock, in whole seconds
    auth.revoke_refresh_tokens(signed_in["localId"], app=firebase_app)
    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(token, check_revoked=True, app=firebase_app)
    figures("tokens tampered", count)


# --- Cognito -----------------------------------------------------------------------------------------------------

def test_cognito_refuses_tampered_access_tokens(cognito, figures):
    pool_b = cognito.create_pool()
    client_b = cognito.create_client(pool_b)["ClientId"]
    user_b = cognito.admin_user(pool_b, cognito_email("pool-b"))
    foreign = cognito.tokens(user_b, client_id=client_b)["AccessToken"]
    tokens = cognito.tokens("alice@example.com")
    access = tokens["AccessToken"]
    claims = cognito.verify(access, "access")
    public = jwt.PyJWKSet.from_dict(cognito.jwks())[jwt.get_unverified_header(access)["kid"]].key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    carol_sub = cognito.verify(cognito.tokens("carol@example.com")["AccessToken"], "access")["sub"]
    cases = tampered(access, public_key=public, other_kid=jwt.get_unverified_header(foreign)["kid"], claims=[
        ("sub", carol_sub), ("client_id", client_b), ("iss", f"https://cognito-idp.us-east-1.amazonaws.com/{pool_b}"),
        ("token_use", "id"), ("scope", "aws.cognito.signin.user.admin openid"), ("exp", claims["exp"] + 86400),
        ("username", "carol")])
    header_b, payload_b, signature_b = split(foreign)
    cases += [("an ID token", tokens["IdToken"]),
              ("another pool's token naming this pool's client", join(header_b, {**payload_b, "client_id": COGNITO_CLIENT}, signature_b))]
    calls = [("get_user", {}), ("global_sign_out", {}),
             ("change_password", {"PreviousPassword": COGNITO_PASSWORD, "ProposedPassword": "changed123"}),
             ("update_user_attributes", {"UserAttributes": [{"Name": "name", "Value": "Forged"}]})]
    for operation, params in calls:
        for name, forged in cases:
            error = cognito.fails(operation, AccessToken=forged, **params)
            assert error["Code"] == "NotAuthorizedException", (operation, name, error)
    figures("tokens tampered", len(cases) * len(calls))
    # The hosted UI's userInfo refuses the same forgeries, as OAuth's invalid_token.
    for name, forged in cases:
        response = requests.get(f"{cognito.url}/oauth2/userInfo", headers={"Authorization": f"Bearer {forged}"}, timeout=30)
        assert response.status_code == 401 and response.json()["error"] == "invalid_token", (name, response.text)
    figures("tokens tampered", len(cases))
    assert cognito.idp.get_user(AccessToken=access)["Username"]
    assert cognito.idp.get_user(AccessToken=foreign)["Username"]


def test_cognito_refuses_an_expired_access_token_and_tampered_refresh_tokens(cognito, figures):
    tokens = cognito.tokens("alice@example.com")
    refresh = tokens["RefreshToken"]
    forged = [refresh[:-1] + ("A" if refresh[-1] != "A" else "B"), refresh[:-8], refresh + "x", tokens["AccessToken"],
              tokens["IdToken"]]
    for token in forged:
        error = cognito.fails("initiate_auth", ClientId=COGNITO_CLIENT, AuthFlow="REFRESH_TOKEN_AUTH",
                              AuthParameters={"REFRESH_TOKEN": token})
        assert error["Code"] == "NotAuthorizedException", error
        response = requests.post(f"{cognito.url}/oauth2/token", timeout=30, data={
            "grant_type": "refresh_token", "client_id": COGNITO_CLIENT, "refresh_token": token})
        assert response.status_code == 400 and response.json()["error"] == "invalid_grant", response.text
    # Another client of the pool cannot use this client's refresh token.
    other_client = cognito.create_client("us-east-1_fauxth001")["ClientId"]
    error = cognito.fails("initiate_auth", ClientId=other_client, AuthFlow="REFRESH_TOKEN_AUTH", AuthParameters={"REFRESH_TOKEN": refresh})
    assert error["Code"] == "NotAuthorizedException"
    cognito.freeze()
    cognito.advance(3601)
    for operation in ("get_user", "global_sign_out"):
        error = cognito.fails(operation, AccessToken=tokens["AccessToken"])
        assert error["Code"] == "NotAuthorizedException" and "expired" in error["Message"], error
    figures("tokens tampered", 2 * len(forged) + 3)


# --- alg: none only where firebase-admin needs it ----------------------------------------------------------------

def test_an_unsigned_token_is_refused_by_supabase_and_cognito(fauxth, figures):
    supabase_claims = jwt.decode(supabase_session(fauxth.url)["access_token"], options={"verify_signature": False})
    unsigned = join({"alg": "none", "typ": "JWT"}, supabase_claims, "")
    assert_bad_jwt(gotrue(fauxth, "GET", "user", unsigned))
    service = join({"alg": "none", "typ": "JWT"}, {"role": "service_role", "iss": "supabase-demo"}, "")
    assert_bad_jwt(gotrue(fauxth, "GET", "admin/users", service))

    from conftest import CognitoIdp
    cognito = CognitoIdp(fauxth)
    cognito_claims = jwt.decode(cognito.tokens("alice@example.com")["AccessToken"], options={"verify_signature": False})
    for header in ({"alg": "none"}, {"alg": "none", "kid": jwt.get_unverified_header(cognito.tokens("alice@example.com")["AccessToken"])["kid"]}):
        error = cognito.fails("get_user", AccessToken=join(header, cognito_claims, ""))
        assert error["Code"] == "NotAuthorizedException"
    figures("tokens tampered", 4)
