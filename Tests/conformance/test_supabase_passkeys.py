"""Passkeys and the WebAuthn MFA factor over GoTrue's REST, sent as auth-js sends them (supabase-py has no
passkey methods). Two independent checks keep Fauxth honest: py_webauthn (Duo's relying-party library)
verifies what Fauxth's virtual authenticator produces, and a software authenticator written here with
`cryptography` and `cbor2` produces what Fauxth's relying party verifies."""
import base64
import hashlib
import json
import os

import cbor2
import pytest
import requests
import webauthn
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from webauthn.helpers.structs import AttestationFormat

from test_supabase_admin import SERVICE_ROLE_KEY
from test_supabase_slice import ANON_KEY

ORIGIN = "http://localhost:3000"
ENV = {"GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_WEBAUTHN_RP_ID": "localhost", "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME": "Growbro",
       "GOTRUE_WEBAUTHN_RP_ORIGINS": ORIGIN, "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true",
       "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "true"}
USERS = [{"email": "pat@example.com", "password": "secret123", "email_verified": True},
         {"email": "sam@example.com", "password": "secret123", "email_verified": True}]


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class GoTrue:
    """auth-js's `_request`: the apikey, the client's headers, the API version, a JSON body, the bearer."""

    def __init__(self, fauxth):
        self.fauxth = fauxth
        self.base = f"{fauxth.url}/auth/v1"

    def __call__(self, method, path, body=None, jwt=None):
        headers = {"apikey": ANON_KEY, "X-Client-Info": "supabase-js-web/2.100.0", "X-Supabase-Api-Version": "2024-01-01",
                   "Content-Type": "application/json;charset=UTF-8", "Authorization": f"Bearer {jwt or ANON_KEY}"}
        return requests.request(method, self.base + path, headers=headers, data=None if body is None else json.dumps(body), timeout=30)

    def sign_in(self, email="pat@example.com"):
        reply = self("POST", "/token?grant_type=password", {"email": email, "password": "secret123", "gotrue_meta_security": {}})
        assert reply.status_code == 200, reply.text
        return reply.json()

    def claims(self, session):
        payload = session["access_token"].split(".")[1]
        return json.loads(unb64url(payload))


def answer(fauxth, kind, options, **extra):
    """The control API's virtual authenticator answering `options` as the browser would."""
    reply = fauxth.control("POST", f"/webauthn/{kind}", json={"tenant": "default", "options": options, **extra})
    assert reply.status_code == 200, reply.text
    return reply.json()["credential"]


@pytest.fixture
def project(supabase_project):
    fauxth = supabase_project(ENV, USERS)
    return fauxth, GoTrue(fauxth)


def register_with_virtual_authenticator(fauxth, gotrue, session, **extra):
    options = gotrue("POST", "/passkeys/registration/options", {}, jwt=session["access_token"]).json()
    credential = answer(fauxth, "register", options["options"], **extra)
    return options, credential, gotrue("POST", "/passkeys/registration/verify",
                                       {"challenge_id": options["challenge_id"], "credential": credential}, jwt=session["access_token"])


def test_passkey_sign_up_and_sign_in_with_the_virtual_authenticator(project):
    fauxth, gotrue = project
    session = gotrue.sign_in()
    options, _, registered = register_with_virtual_authenticator(fauxth, gotrue, session)
    assert registered.status_code == 200, registered.text
    assert set(registered.json()) == {"id", "friendly_name", "created_at"}
    creation = options["options"]
    assert creation["rp"] == {"name": "Growbro", "id": "localhost"}
    assert unb64url(creation["user"]["id"]).decode() == session["user"]["id"]
    assert creation["authenticatorSelection"] == {"residentKey": "required", "userVerification": "preferred"}

    request = gotrue("POST", "/passkeys/authentication/options", {"gotrue_meta_security": {}}).json()
    assert set(request) == {"challenge_id", "options", "expires_at"}
    assert request["options"]["rpId"] == "localhost" and "allowCredentials" not in request["options"]
    credential = answer(fauxth, "assert", request["options"])
    signed_in = gotrue("POST", "/passkeys/authentication/verify", {"challenge_id": request["challenge_id"], "credential": credential})
    assert signed_in.status_code == 200, signed_in.text
    body = signed_in.json()
    assert body["token_type"] == "bearer" and body["user"]["email"] == "pat@example.com"
    assert gotrue.claims(body)["amr"][0]["method"] == "passkey"
    again = gotrue("POST", "/passkeys/authentication/verify", {"challenge_id": request["challenge_id"], "credential": credential})
    assert again.status_code == 400 and again.json()["code"] == "webauthn_challenge_not_found"
    assert again.headers["X-Supabase-Api-Version"] == "2024-01-01"


@pytest.mark.parametrize("algorithm,attestation", [("ES256", "none"), ("ES256", "packed"), ("RS256", "none"), ("RS256", "packed")])
def test_py_webauthn_verifies_what_the_virtual_authenticator_makes(project, algorithm, attestation):
    fauxth, gotrue = project
    session = gotrue.sign_in()
    options = gotrue("POST", "/passkeys/registration/options", {}, jwt=session["access_token"]).json()
    credential = answer(fauxth, "register", options["options"], algorithm=algorithm, attestation=attestation)
    verified = webauthn.verify_registration_response(
        credential=credential, expected_challenge=unb64url(options["options"]["challenge"]), expected_rp_id="localhost",
        expected_origin=ORIGIN, require_user_verification=True)
    assert verified.fmt == AttestationFormat(attestation)
    registered = gotrue("POST", "/passkeys/registration/verify", {"challenge_id": options["challenge_id"], "credential": credential},
                        jwt=session["access_token"])
    assert registered.status_code == 200, registered.text

    request = gotrue("POST", "/passkeys/authentication/options", {}).json()
    assertion = answer(fauxth, "assert", request["options"])
    checked = webauthn.verify_authentication_response(
        credential=assertion, expected_challenge=unb64url(request["options"]["challenge"]), expected_rp_id="localhost",
        expected_origin=ORIGIN, credential_public_key=verified.credential_public_key,
        credential_current_sign_count=verified.sign_count, require_user_verification=True)
    assert checked.new_sign_count == 1
    signed_in = gotrue("POST", "/passkeys/authentication/verify", {"challenge_id": request["challenge_id"], "credential": assertion})
    assert signed_in.status_code == 200, signed_in.text


class SoftwareAuthenticator:
    """A WebAuthn authenticator and browser written from the spec, sharing no code with Fauxth."""

    def __init__(self, algorithm="ES256", origin=ORIGIN):
        self.algorithm = algorithm
        self.origin = origin
        self.key = ec.generate_private_key(ec.SECP256R1()) if algorithm == "ES256" else rsa.generate_private_key(65537, 2048)
        self.credential_id = os.urandom(20)
        self.user_handle = None
        self.counter = 0

    def cose_key(self):
        numbers = self.key.public_key().public_numbers()
        if self.algorithm == "ES256":
            return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
        return cbor2.dumps({1: 3, 3: -257, -1: numbers.n.to_bytes(256, "big"), -2: numbers.e.to_bytes(3, "big")})

    def sign(self, data):
        if self.algorithm == "ES256":
            return self.key.sign(data, ec.ECDSA(hashes.SHA256()))
        return self.key.sign(data, padding.PKCS1v15(), hashes.SHA256())

    def client_data(self, kind, challenge, origin=None):
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin or self.origin, "crossOrigin": False}).encode()

    def create(self, options, packed=False, origin=None):
        self.user_handle = unb64url(options["user"]["id"])
        rp_hash = hashlib.sha256(options["rp"]["id"].encode()).digest()
        auth_data = (rp_hash + bytes([0x45]) + (0).to_bytes(4, "big") + bytes(16) + len(self.credential_id).to_bytes(2, "big")
                     + self.credential_id + self.cose_key())
        client_data = self.client_data("webauthn.create", options["challenge"], origin)
        statement = {}
        if packed:
            alg = -7 if self.algorithm == "ES256" else -257
            statement = {"alg": alg, "sig": self.sign(auth_data + hashlib.sha256(client_data).digest())}
        attestation = cbor2.dumps({"fmt": "packed" if packed else "none", "attStmt": statement, "authData": auth_data})
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation), "transports": ["usb"]},
                "clientExtensionResults": {}, "authenticatorAttachment": "cross-platform"}

    def get(self, options, counter=None, origin=None):
        self.counter = self.counter + 1 if counter is None else counter
        auth_data = hashlib.sha256(options["rpId"].encode()).digest() + bytes([0x05]) + self.counter.to_bytes(4, "big")
        client_data = self.client_data("webauthn.get", options["challenge"], origin)
        signature = self.sign(auth_data + hashlib.sha256(client_data).digest())
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(auth_data),
                             "signature": b64url(signature), "userHandle": b64url(self.user_handle)},
                "clientExtensionResults": {}}


@pytest.mark.parametrize("algorithm,packed", [("ES256", False), ("ES256", True), ("RS256", False), ("RS256", True)])
def test_fauxth_verifies_an_independent_authenticator(project, algorithm, packed):
    fauxth, gotrue = project
    session = gotrue.sign_in()
    device = SoftwareAuthenticator(algorithm)
    options = gotrue("POST", "/passkeys/registration/options", {}, jwt=session["access_token"]).json()
    registered = gotrue("POST", "/passkeys/registration/verify",
                        {"challenge_id": options["challenge_id"], "credential": device.create(options["options"], packed=packed)},
                        jwt=session["access_token"])
    assert registered.status_code == 200, registered.text

    def sign_in(**kwargs):
        request = gotrue("POST", "/passkeys/authentication/options", {}).json()
        return gotrue("POST", "/passkeys/authentication/verify",
                      {"challenge_id": request["challenge_id"], "credential": device.get(request["options"], **kwargs)})

    assert sign_in().status_code == 200
    # Each rule, broken on its own, is refused with GoTrue's error.
    assert sign_in(counter=1).json()["code"] == "webauthn_verification_failed"        # the counter did not move
    assert sign_in(origin="https://evil.example").json()["code"] == "webauthn_verification_failed"
    request = gotrue("POST", "/passkeys/authentication/options", {}).json()
    tampered = device.get(request["options"])
    signature = bytearray(unb64url(tampered["response"]["signature"]))
    signature[-1] ^= 1
    tampered["response"]["signature"] = b64url(bytes(signature))
    refused = gotrue("POST", "/passkeys/authentication/verify", {"challenge_id": request["challenge_id"], "credential": tampered})
    assert refused.status_code == 400 and refused.json() == {"code": "webauthn_verification_failed", "message": "Credential verification failed"}
    assert sign_in(counter=10).status_code == 200


def test_a_registration_from_another_origin_or_for_another_rp_is_refused(project):
    fauxth, gotrue = project
    session = gotrue.sign_in()
    _, _, wrong_origin = register_with_virtual_authenticator(fauxth, gotrue, session, origin="https://evil.example")
    assert wrong_origin.status_code == 400 and wrong_origin.json()["code"] == "webauthn_verification_failed"
    _, _, wrong_rp = register_with_virtual_authenticator(fauxth, gotrue, session, authenticator_rp_id="evil.example")
    assert wrong_rp.status_code == 400 and wrong_rp.json()["code"] == "webauthn_verification_failed"
    assert gotrue("GET", "/passkeys", jwt=session["access_token"]).json() == []


def test_list_rename_delete_and_the_admin_routes(project):
    fauxth, gotrue = project
    session = gotrue.sign_in()
    _, _, registered = register_with_virtual_authenticator(fauxth, gotrue, session)
    passkey = registered.json()["id"]
    listed = gotrue("GET", "/passkeys", jwt=session["access_token"]).json()
    assert [item["id"] for item in listed] == [passkey]
    renamed = gotrue("PATCH", f"/passkeys/{passkey}", {"friendly_name": "Laptop"}, jwt=session["access_token"])
    assert renamed.status_code == 200 and renamed.json()["friendly_name"] == "Laptop"
    other = gotrue.sign_in("sam@example.com")
    assert gotrue("DELETE", f"/passkeys/{passkey}", jwt=other["access_token"]).status_code == 404

    admin = {"Authorization": f"Bearer {SERVICE_ROLE_KEY}", "apikey": SERVICE_ROLE_KEY, "X-Supabase-Api-Version": "2024-01-01"}
    user_id = session["user"]["id"]
    admin_list = requests.get(f"{gotrue.base}/admin/users/{user_id}/passkeys", headers=admin, timeout=30)
    assert admin_list.json()[0]["friendly_name"] == "Laptop"
    deleted = requests.delete(f"{gotrue.base}/admin/users/{user_id}/passkeys/{passkey}", headers=admin, timeout=30)
    assert deleted.status_code == 204 and deleted.content == b""
    assert gotrue("GET", "/passkeys", jwt=session["access_token"]).json() == []


def test_passkeys_off_answer_passkey_disabled(supabase_project):
    fauxth = supabase_project({}, USERS)
    gotrue = GoTrue(fauxth)
    reply = gotrue("POST", "/passkeys/authentication/options", {})
    assert reply.status_code == 404
    assert reply.json() == {"code": "passkey_disabled", "message": "Passkeys are disabled"}
    assert gotrue("GET", "/settings").json()["passkeys_enabled"] is False


def test_a_snapshot_keeps_both_sides_of_a_passkey(project):
    fauxth, gotrue = project
    session = gotrue.sign_in()
    user_id = session["user"]["id"]
    made = fauxth.control("POST", "/webauthn/credentials", json={"tenant": "default", "user_id": user_id})
    assert made.status_code == 201, made.text
    assert fauxth.control("POST", "/snapshots", json={"name": "passkey"}).status_code in (200, 201)
    assert fauxth.control("POST", "/reset").status_code == 200
    assert fauxth.control("GET", "/webauthn/credentials", params={"tenant": "default"}).json()["credentials"] == []
    assert fauxth.control("POST", "/snapshots/passkey/restore").status_code == 200
    request = gotrue("POST", "/passkeys/authentication/options", {}).json()
    signed_in = gotrue("POST", "/passkeys/authentication/verify",
                       {"challenge_id": request["challenge_id"], "credential": answer(fauxth, "assert", request["options"])})
    assert signed_in.status_code == 200 and signed_in.json()["user"]["id"] == user_id


def test_the_webauthn_mfa_factor_as_auth_js_drives_it(project):
    fauxth, gotrue = project
    session = gotrue.sign_in()
    jwt = session["access_token"]
    factor = gotrue("POST", "/factors", {"friendly_name": "YubiKey", "factor_type": "webauthn"}, jwt=jwt).json()
    assert factor["type"] == "webauthn" and factor["friendly_name"] == "YubiKey"
    device = SoftwareAuthenticator()
    params = {"factorId": factor["id"], "webauthn": {"rpId": "localhost", "rpOrigins": [ORIGIN]}}
    challenge = gotrue("POST", f"/factors/{factor['id']}/challenge", params, jwt=jwt).json()
    assert challenge["type"] == "webauthn" and challenge["webauthn"]["type"] == "create"
    public_key = challenge["webauthn"]["credential_options"]["publicKey"]
    verified = gotrue("POST", f"/factors/{factor['id']}/verify", {
        "challenge_id": challenge["id"],
        "webauthn": {"type": "create", "rpId": "localhost", "rpOrigins": [ORIGIN], "credential_response": device.create(public_key)},
    }, jwt=jwt)
    assert verified.status_code == 200, verified.text
    assert gotrue.claims(verified.json())["aal"] == "aal2"

    fresh = gotrue.sign_in()
    challenge = gotrue("POST", f"/factors/{factor['id']}/challenge", params, jwt=fresh["access_token"]).json()
    assert challenge["webauthn"]["type"] == "request"
    request = challenge["webauthn"]["credential_options"]["publicKey"]
    assert [c["id"] for c in request["allowCredentials"]] == [b64url(device.credential_id)]
    proven = gotrue("POST", f"/factors/{factor['id']}/verify", {
        "challenge_id": challenge["id"], "webauthn": {"type": "request", "credential_response": device.get(request)},
    }, jwt=fresh["access_token"])
    assert proven.status_code == 200, proven.text
    claims = gotrue.claims(proven.json())
    assert claims["aal"] == "aal2" and claims["amr"][0]["method"] == "mfa/webauthn"
