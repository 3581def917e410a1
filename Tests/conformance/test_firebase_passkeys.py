"""Identity Platform's passkeys over Identity Toolkit v2, sent as the SDKs' passkey branches send them: the JS SDK
(base64url, WebAuthn's JSON) and the iOS SDK (standard base64, no `type` or `rawId`). The authenticator is the
software one of test_supabase_passkeys, written from the spec with no code shared with Fauxth; firebase-admin reads
the account afterwards."""
import base64
import json

from conftest import FirebaseREST, firebase_error, jwt_claims
from test_supabase_passkeys import SoftwareAuthenticator, b64url

ALICE = "FAUXTHALICE00000000000000001"
ORIGIN = "http://localhost"


def std(data):
    return base64.b64encode(data).decode()


def unstd(text):
    return base64.b64decode(text)


def as_browser(options):
    """What the JS SDK hands `navigator.credentials`, and a browser writes into clientDataJSON: the options' binary
    members decoded from Identity Toolkit's standard base64; here re-encoded base64url for the software authenticator."""
    options = dict(options)
    options["challenge"] = b64url(unstd(options["challenge"]))
    if "user" in options:
        options["user"] = {**options["user"], "id": b64url(unstd(options["user"]["id"]))}
    return options


def ios_shaped(credential):
    """The iOS SDK's answer: every binary member in padded standard base64, without `type` or `rawId`."""
    def recode(text):
        return std(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    response = {key: recode(value) for key, value in credential["response"].items() if key != "transports"}
    return {"id": recode(credential["id"]), "response": response}


def enrol(firebase, id_token, device, name="Work laptop", origin=None):
    started = firebase.ok("accounts/passkeyEnrollment:start", {"idToken": id_token}, version="v2")["credentialCreationOptions"]
    credential = device.create(as_browser(started), origin=origin)
    body = {"idToken": id_token, "authenticatorRegistrationResponse": credential}
    if name:
        body["name"] = name
    return started, firebase.call("accounts/passkeyEnrollment:finalize", body, version="v2")


def sign_in(firebase, device, shape=lambda c: c, **kwargs):
    started = firebase.ok("accounts/passkeySignIn:start", {}, version="v2")["credentialRequestOptions"]
    credential = shape(device.get(as_browser(started), **kwargs))
    return firebase.call("accounts/passkeySignIn:finalize", {"authenticatorAuthenticationResponse": credential}, version="v2")


def test_a_passkey_enrolled_with_an_independent_authenticator_signs_in(firebase, firebase_app):
    from firebase_admin import auth

    device = SoftwareAuthenticator("ES256", origin=ORIGIN)
    options, enrolled = enrol(firebase, firebase.sign_in("alice@example.com")["idToken"], device)
    assert options["rp"]["id"] == "localhost"
    assert len(unstd(options["challenge"])) == 32 and unstd(options["user"]["id"]) == ALICE.encode()
    assert options["authenticatorSelection"]["residentKey"] == "required"
    assert options["authenticatorSelection"]["userVerification"] == "required"
    assert enrolled.status_code == 200, enrolled.text
    assert enrolled.json()["localId"] == ALICE
    # The same authenticator again (this one ignores `excludeCredentials`, as a buggy one would).
    assert firebase_error(enrol(firebase, enrolled.json()["idToken"], device)[1]) == "PASSKEY_EXISTS"
    assert jwt_claims(enrolled.json()["idToken"])["firebase"]["sign_in_provider"] == "passkey"

    [info] = firebase.lookup(enrolled.json()["idToken"])["passkeyInfo"]
    assert info == {"name": "Work laptop", "credentialId": std(device.credential_id)}
    # firebase-admin reads the account with its passkeys beside it.
    assert auth.get_user(ALICE, app=firebase_app).email == "alice@example.com"

    for shape in (lambda c: c, ios_shaped):
        signed_in = sign_in(firebase, device, shape)
        assert signed_in.status_code == 200, signed_in.text
        claims = jwt_claims(signed_in.json()["idToken"])
        assert claims["sub"] == ALICE and claims["firebase"]["sign_in_provider"] == "passkey"
        assert firebase.refresh(signed_in.json()["refreshToken"]).status_code == 200


def test_each_rule_broken_on_its_own_is_refused(firebase):
    device = SoftwareAuthenticator("RS256", origin=ORIGIN)
    id_token = firebase.sign_in("alice@example.com")["idToken"]
    _, foreign = enrol(firebase, id_token, device, origin="https://evil.example")
    assert firebase_error(foreign).startswith("INVALID_AUTHENTICATOR_RESPONSE")
    _, enrolled = enrol(firebase, id_token, device)
    assert enrolled.status_code == 200, enrolled.text

    assert sign_in(firebase, device).status_code == 200
    assert firebase_error(sign_in(firebase, device, counter=1)).startswith("INVALID_AUTHENTICATOR_RESPONSE")  # the counter did not move
    assert firebase_error(sign_in(firebase, device, origin="https://evil.example")).startswith("INVALID_AUTHENTICATOR_RESPONSE")

    started = firebase.ok("accounts/passkeySignIn:start", {}, version="v2")["credentialRequestOptions"]
    answer = device.get(as_browser(started))
    assert firebase.call("accounts/passkeySignIn:finalize", {"authenticatorAuthenticationResponse": answer}, version="v2").status_code == 200
    replayed = firebase.call("accounts/passkeySignIn:finalize", {"authenticatorAuthenticationResponse": answer}, version="v2")
    assert firebase_error(replayed).startswith("INVALID_AUTHENTICATOR_RESPONSE")

    started = firebase.ok("accounts/passkeySignIn:start", {}, version="v2")["credentialRequestOptions"]
    late = device.get(as_browser(started))
    firebase.freeze()
    firebase.advance(301)
    assert firebase_error(firebase.call("accounts/passkeySignIn:finalize", {"authenticatorAuthenticationResponse": late},
                                        version="v2")) == "PASSKEY_CHALLENGE_TIMEOUT"
    missing = firebase.call("accounts/passkeySignIn:finalize", {}, version="v2")
    assert firebase_error(missing) == "MISSING_AUTHENTICATOR_RESPONSE"


def test_an_unknown_passkey_signs_nobody_in(firebase):
    stranger = SoftwareAuthenticator("ES256", origin=ORIGIN)
    stranger.user_handle = b"nobody"
    assert firebase_error(sign_in(firebase, stranger)) == "USER_NOT_FOUND"


def test_delete_passkey_checks_every_id_then_answers_fresh_tokens(firebase):
    device = SoftwareAuthenticator("ES256", origin=ORIGIN)
    id_token = firebase.sign_in("alice@example.com")["idToken"]
    _, enrolled = enrol(firebase, id_token, device, name=None)
    assert enrolled.status_code == 200, enrolled.text
    [info] = firebase.lookup(id_token)["passkeyInfo"]
    assert info["name"] == "Unnamed Passkey"

    unknown = firebase.call("accounts:update", {"idToken": id_token, "displayName": "Changed",
                                                "deletePasskey": [info["credentialId"], std(b"not mine")]})
    assert firebase_error(unknown) == "PASSKEY_ENROLLMENT_NOT_FOUND"
    assert firebase.lookup(id_token).get("displayName") != "Changed"

    removed = firebase.ok("accounts:update", {"idToken": id_token, "deletePasskey": [info["credentialId"]]})
    assert removed["idToken"] and removed["refreshToken"]
    assert "passkeyInfo" not in firebase.lookup(removed["idToken"])
    assert firebase_error(sign_in(firebase, device)) == "USER_NOT_FOUND"


def test_a_passkey_sign_in_goes_through_before_sign_in(firebase, hook_server):
    from test_firebase_blocking import events_of, register

    device = SoftwareAuthenticator("ES256", origin=ORIGIN)
    _, enrolled = enrol(firebase, firebase.sign_in("alice@example.com")["idToken"], device)
    assert enrolled.status_code == 200, enrolled.text
    register(firebase, hook_server, "beforeSignIn")
    signed_in = sign_in(firebase, device)
    assert signed_in.status_code == 200, signed_in.text
    [event] = events_of(hook_server, "beforeSignIn")
    assert event["sign_in_method"] == "passkey" and event["user_record"]["uid"] == ALICE


def test_the_virtual_authenticator_gives_a_tenants_user_a_passkey_for_the_projects_rp_id(start_fauxth, tmp_path):
    """An Identity Platform tenant's relying party is its project's (`passkey_rp_id`), in the control API's virtual
    authenticator as at the passkey endpoints: a passkey it gives a tenant's user signs them in to the tenant, in the
    request the JS SDK's `signInWithPasskey` sends."""
    seed = tmp_path / "seed.json"
    seed.write_text(json.dumps({"tenants": [
        {"id": "rp-project", "dialect": "firebase", "api_keys": ["rp-key"], "passkey_rp_id": "app.example.com"},
        {"id": "rp-project:t1", "dialect": "firebase", "tenant_config": {"displayName": "t1", "allowPasswordSignup": True},
         "users": [{"email": "tess@example.com", "password": "password123", "email_verified": True}]}]}))
    instance = start_fauxth("--seed", str(seed))
    firebase = FirebaseREST(instance, project="rp-project", api_key="rp-key")
    tess = firebase.ok("accounts:signInWithPassword", {"email": "tess@example.com", "password": "password123", "tenantId": "t1",
                                                       "returnSecureToken": True})["localId"]

    given = instance.control("POST", "/webauthn/credentials", json={"tenant": "rp-project:t1", "user_id": tess})
    assert given.status_code == 201, given.text
    assert given.json()["rp_id"] == "app.example.com"

    started = firebase.call("accounts/passkeySignIn:start", {"tenantId": "t1"}, version="v2")
    assert started.status_code == 200, started.text
    options = started.json()["credentialRequestOptions"]
    assert options["rpId"] == "app.example.com"
    answered = instance.control("POST", "/webauthn/assert", json={"tenant": "rp-project:t1", "options": options})
    assert answered.status_code == 200, answered.text
    signed_in = firebase.call("accounts/passkeySignIn:finalize", {"tenantId": "t1",
                                                                  "authenticatorAuthenticationResponse": answered.json()["credential"]},
                              version="v2")
    assert signed_in.status_code == 200, signed_in.text
    claims = jwt_claims(signed_in.json()["idToken"])
    assert claims["sub"] == tess
    assert claims["firebase"]["tenant"] == "t1" and claims["firebase"]["sign_in_provider"] == "passkey"
