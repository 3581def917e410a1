"""Firebase emulator export directories: `fauxth serve --import-firebase DIR` reads one as `firebase emulators:export`
writes it, and `POST /_emu/v1/export/firebase` writes one (without passwords, which fauxth never keeps in plain text)."""
import json
import urllib.parse

from conftest import FirebaseREST, firebase_error, jwt_claims

ALICE = "FAUXTHALICE00000000000000001"
CAROL = "FAUXTHCAROL00000000000000001"


def google_sign_in(firebase, sub, email):
    profile = json.dumps({"sub": sub, "email": email, "email_verified": True})
    return firebase.ok("accounts:signInWithIdp", {"requestUri": "http://localhost", "returnSecureToken": True,
                                                  "postBody": urllib.parse.urlencode({"providerId": "google.com", "id_token": profile})})


def write_emulator_export(directory, users, config):
    (directory / "auth_export").mkdir(parents=True)
    (directory / "firebase-export-metadata.json").write_text(json.dumps(
        {"version": "15.28.1", "auth": {"version": "15.28.1", "path": "auth_export"}}))
    (directory / "auth_export" / "accounts.json").write_text(json.dumps(
        {"kind": "identitytoolkit#DownloadAccountResponse", "users": users}))
    (directory / "auth_export" / "config.json").write_text(json.dumps(config))


def test_serve_imports_a_firebase_emulator_export(start_fauxth, tmp_path):
    write_emulator_export(tmp_path, [
        {"localId": "IMPORTEDPASSWORD000000000001", "email": "imported@example.com", "emailVerified": True,
         "displayName": "Imported Person", "salt": "fakeSaltQw3rTy",
         "passwordHash": "fakeHash:salt=fakeSaltQw3rTy:password=imported-pass-1", "passwordUpdatedAt": 1700000000000,
         "validSince": "1700000000", "createdAt": "1700000000000", "lastLoginAt": "1700000000000",
         "customAttributes": "{\"plan\":\"pro\"}",
         "providerUserInfo": [{"providerId": "password", "email": "imported@example.com", "federatedId": "imported@example.com",
                               "rawId": "imported@example.com", "displayName": "Imported Person"}]},
        {"localId": "IMPORTEDGOOGLE00000000000001", "email": "imported.google@example.com", "emailVerified": True,
         "validSince": "1700000000", "createdAt": "1700000000000", "lastLoginAt": "1700000000000",
         "providerUserInfo": [{"providerId": "google.com", "rawId": "109876", "federatedId": "https://accounts.google.com/109876",
                               "email": "imported.google@example.com", "displayName": "Imported Google"}]},
    ], {"signIn": {"allowDuplicateEmails": False}, "emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}})
    instance = start_fauxth("--import-firebase", str(tmp_path))
    firebase = FirebaseREST(instance)

    signed_in = firebase.sign_in("imported@example.com", "imported-pass-1")
    assert signed_in["localId"] == "IMPORTEDPASSWORD000000000001"
    assert signed_in["displayName"] == "Imported Person"
    assert jwt_claims(signed_in["idToken"])["plan"] == "pro"
    assert google_sign_in(firebase, "109876", "imported.google@example.com")["localId"] == "IMPORTEDGOOGLE00000000000001"

    assert firebase.emulator("GET", "/config").json()["emailPrivacyConfig"]["enableImprovedEmailPrivacy"] is True
    wrong = firebase.call("accounts:signInWithPassword", {"email": "imported@example.com", "password": "not-it", "returnSecureToken": True})
    assert firebase_error(wrong) == "INVALID_LOGIN_CREDENTIALS"


def test_export_writes_the_emulator_layout_without_passwords(firebase, tmp_path):
    created = firebase.sign_up("exported@example.com", "export-secret-1")
    google = google_sign_in(firebase, "555000", "exported.google@example.com")
    firebase.emulator("PATCH", "/config", json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}})
    exported = firebase.fauxth.control("POST", "/export/firebase", json={"dir": str(tmp_path / "export")})
    assert exported.status_code == 200, exported.text

    metadata = json.loads((tmp_path / "export" / "firebase-export-metadata.json").read_text())
    assert metadata["auth"]["path"] == "auth_export"
    accounts_text = (tmp_path / "export" / "auth_export" / "accounts.json").read_text()
    accounts = json.loads(accounts_text)
    assert accounts["kind"] == "identitytoolkit#DownloadAccountResponse"
    users = {u["localId"]: u for u in accounts["users"]}
    assert users[created["localId"]]["email"] == "exported@example.com"
    assert users[ALICE]["displayName"] == "Alice Verified" and users[ALICE]["emailVerified"] is True
    assert users[CAROL]["phoneNumber"] == "+15555550100"
    assert json.loads(users[CAROL]["customAttributes"]) == {"admin": True}
    assert [(p["providerId"], p["rawId"]) for p in users[google["localId"]]["providerUserInfo"]] == [("google.com", "555000")]
    assert "export-secret-1" not in accounts_text and "password123" not in accounts_text
    assert all("password=" not in u.get("passwordHash", "") for u in accounts["users"])

    config = json.loads((tmp_path / "export" / "auth_export" / "config.json").read_text())
    assert config["signIn"]["allowDuplicateEmails"] is False
    assert config["emailPrivacyConfig"]["enableImprovedEmailPrivacy"] is True


def test_an_export_imports_into_a_fresh_server(firebase, start_fauxth, tmp_path):
    created = firebase.sign_up("roundtrip@example.com", "roundtrip-secret")
    firebase.admin("POST", "/accounts:update", json={"localId": created["localId"], "displayName": "Round Trip",
                                                     "customAttributes": json.dumps({"team": "blue"})})
    google = google_sign_in(firebase, "424242", "roundtrip.google@example.com")
    assert firebase.fauxth.control("POST", "/export/firebase", json={"dir": str(tmp_path)}).status_code == 200

    fresh = FirebaseREST(start_fauxth("--import-firebase", str(tmp_path)))
    found = fresh.admin("POST", "/accounts:lookup", json={"email": ["roundtrip@example.com"]}).json()["users"]
    assert [(u["localId"], u["displayName"], json.loads(u["customAttributes"])) for u in found] == [
        (created["localId"], "Round Trip", {"team": "blue"})]
    assert google_sign_in(fresh, "424242", "roundtrip.google@example.com")["localId"] == google["localId"]
    # No password left the first server, so the imported account has none to sign in with.
    refused = fresh.call("accounts:signInWithPassword", {"email": "roundtrip@example.com", "password": "roundtrip-secret", "returnSecureToken": True})
    assert refused.status_code == 400
