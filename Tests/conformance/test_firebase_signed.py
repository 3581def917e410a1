"""A project that signs its ID tokens (`"id_token_signing": "RS256"`): verified as a backend without emulator mode
verifies them, by google-auth against the x509 certificates and by firebase-admin itself, and by PyJWT against the
JWKS. Also the legacy v3 API the older SDKs call."""
import json

import firebase_admin
import google.auth.transport.requests
import google.oauth2.id_token
import jwt
import pytest
import requests
from firebase_admin import _token_gen, _utils, auth, credentials

from conftest import FirebaseREST, firebase_error, jwt_part

KEYS = "securetoken@system.gserviceaccount.com"


@pytest.fixture
def signed(start_fauxth, tmp_path):
    seed = tmp_path / "signed.json"
    seed.write_text(json.dumps({"tenants": [{"id": "signed-project", "dialect": "firebase", "id_token_signing": "RS256",
                                             "api_keys": ["signed-key"]}]}))
    return FirebaseREST(start_fauxth("--seed", str(seed)), project="signed-project", api_key="signed-key")


def test_signed_tokens_verify_against_the_published_certificates(signed):
    token = signed.sign_up("signed@example.com")["idToken"]
    header = jwt_part(token, 0)
    assert header["alg"] == "RS256" and header["kid"]
    certs_url = f"{signed.url}/www.googleapis.com/robot/v1/metadata/x509/{KEYS}"
    assert header["kid"] in requests.get(certs_url, timeout=10).json()
    claims = google.oauth2.id_token.verify_token(token, google.auth.transport.requests.Request(), audience="signed-project",
                                                 certs_url=certs_url)
    assert claims["email"] == "signed@example.com"
    assert claims["iss"] == "https://securetoken.google.com/signed-project"


def test_signed_tokens_verify_against_the_jwks(signed):
    token = signed.sign_up("jwks@example.com")["idToken"]
    keys = jwt.PyJWKClient(f"{signed.url}/www.googleapis.com/service_accounts/v1/jwk/{KEYS}")
    claims = jwt.decode(token, keys.get_signing_key_from_jwt(token).key, algorithms=["RS256"], audience="signed-project",
                        issuer="https://securetoken.google.com/signed-project")
    assert claims["firebase"]["sign_in_provider"] == "password"


class _OwnerCredential(credentials.Base):
    def get_credential(self):
        return _utils.EmulatorAdminCredentials()


def test_firebase_admin_without_emulator_mode_verifies_a_signed_token(signed, monkeypatch):
    monkeypatch.delenv("FIREBASE_AUTH_EMULATOR_HOST", raising=False)
    monkeypatch.setattr(_token_gen, "ID_TOKEN_CERT_URI", f"{signed.url}/www.googleapis.com/robot/v1/metadata/x509/{KEYS}")
    app = firebase_admin.initialize_app(_OwnerCredential(), options={"projectId": "signed-project"}, name="signed-verifier")
    try:
        token = signed.sign_up("admin-verified@example.com")["idToken"]
        assert auth.verify_id_token(token, app=app)["email"] == "admin-verified@example.com"
        forged = token.rsplit(".", 1)[0] + ".c2lnbmF0dXJl"
        with pytest.raises(auth.InvalidIdTokenError):
            auth.verify_id_token(forged, app=app)
    finally:
        firebase_admin.delete_app(app)


def test_a_signed_project_refuses_unsigned_tokens(signed):
    token = signed.sign_up("strict@example.com")["idToken"]
    unsigned = jwt.encode(jwt_part(token, 1), key=None, algorithm="none")
    assert firebase_error(signed.call("accounts:lookup", {"idToken": unsigned})) == "INVALID_ID_TOKEN"
    assert signed.call("accounts:lookup", {"idToken": token}).status_code == 200


def test_the_legacy_v3_api_is_rewritten_onto_v1(firebase):
    url = f"{firebase.url}/www.googleapis.com/identitytoolkit/v3/relyingparty"
    signed_in = requests.post(f"{url}/verifyPassword", params={"key": "fake-api-key"},
                              json={"email": "alice@example.com", "password": "password123", "returnSecureToken": True}, timeout=10)
    assert signed_in.status_code == 200, signed_in.text
    info = requests.post(f"{url}/getAccountInfo", params={"key": "fake-api-key"}, json={"idToken": signed_in.json()["idToken"]}, timeout=10)
    assert info.json()["users"][0]["email"] == "alice@example.com"
