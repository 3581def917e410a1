"""firebase-admin (Python) in emulator mode against the default Firebase project: user management, tokens,
email action links, user import with password hashes, and tenants."""
import base64
import datetime
import hashlib
import hmac
import urllib.parse
import uuid

import firebase_admin
import pytest
import requests
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from firebase_admin import _utils, auth, tenant_mgt

from conftest import FIREBASE_PROJECT, firebase_error, jwt_claims, jwt_part

ALICE = "FAUXTHALICE00000000000000001"
BOB = "FAUXTHBOB0000000000000000001"
CAROL = "FAUXTHCAROL00000000000000001"


def query(link):
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(link).query).items()}


def outbox(firebase, to):
    return firebase.fauxth.control("GET", "/messages", params={"to": to, "tenant": firebase.project}).json()["messages"]


# --- users ------------------------------------------------------------------------------------------------------


def test_create_user_then_find_it_by_uid_email_and_phone(firebase, firebase_app):
    user = auth.create_user(uid="adminMadeUser0001", email="made.by.admin@example.com", password="secret123",
                            display_name="Made By Admin", phone_number="+15555550150", email_verified=True, app=firebase_app)
    assert (user.uid, user.email, user.display_name, user.phone_number) == (
        "adminMadeUser0001", "made.by.admin@example.com", "Made By Admin", "+15555550150")
    assert user.email_verified is True and user.disabled is False
    assert {p.provider_id for p in user.provider_data} == {"password", "phone"}
    assert user.user_metadata.creation_timestamp > 0
    assert auth.get_user_by_email("made.by.admin@example.com", app=firebase_app).uid == "adminMadeUser0001"
    assert auth.get_user_by_phone_number("+15555550150", app=firebase_app).uid == "adminMadeUser0001"
    assert firebase.sign_in("made.by.admin@example.com", "secret123")["localId"] == "adminMadeUser0001"
    generated = auth.create_user(app=firebase_app).uid
    assert len(generated) == 28 and generated.isalnum()


def test_seeded_users_carry_their_profiles_and_claims(firebase_app):
    alice = auth.get_user(ALICE, app=firebase_app)
    assert (alice.email, alice.email_verified, alice.display_name) == ("alice@example.com", True, "Alice Verified")
    assert auth.get_user(BOB, app=firebase_app).email_verified is False
    carol = auth.get_user_by_email("carol@example.com", app=firebase_app)
    assert carol.uid == CAROL and carol.phone_number == "+15555550100"
    assert carol.custom_claims == {"admin": True}
    missing_uid = auth.UidIdentifier("noSuchUser0000000000000001")
    missing_google = auth.ProviderIdentifier("google.com", "no-such-google-sub")
    result = auth.get_users([auth.UidIdentifier(ALICE), auth.EmailIdentifier("bob@example.com"),
                             auth.PhoneIdentifier("+15555550100"), missing_uid, missing_google], app=firebase_app)
    assert sorted(u.uid for u in result.users) == sorted([ALICE, BOB, CAROL])
    assert result.not_found == [missing_uid, missing_google]


def test_duplicates_raise_the_sdks_already_exists_errors(firebase_app):
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.create_user(email="alice@example.com", password="secret123", app=firebase_app)
    with pytest.raises(auth.UidAlreadyExistsError):
        auth.create_user(uid=ALICE, email="someone.else@example.com", app=firebase_app)
    with pytest.raises(auth.PhoneNumberAlreadyExistsError):
        auth.create_user(phone_number="+15555550100", app=firebase_app)
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.update_user(BOB, email="alice@example.com", app=firebase_app)


def test_unknown_users_raise_user_not_found(firebase_app):
    for call in (lambda: auth.get_user("noSuchUser0000000000000001", app=firebase_app),
                 lambda: auth.get_user_by_email("nobody@example.com", app=firebase_app),
                 lambda: auth.get_user_by_phone_number("+15555550999", app=firebase_app),
                 lambda: auth.update_user("noSuchUser0000000000000001", display_name="Ghost", app=firebase_app),
                 lambda: auth.delete_user("noSuchUser0000000000000001", app=firebase_app)):
        with pytest.raises(auth.UserNotFoundError):
            call()


def test_update_user_changes_and_removes_attributes(firebase, firebase_app):
    user = auth.create_user(email="editable@example.com", password="secret123", display_name="Before",
                            phone_number="+15555550155", photo_url="https://example.com/before.png", app=firebase_app)
    updated = auth.update_user(user.uid, display_name="After", email="edited@example.com", email_verified=True,
                               password="changed-by-admin", app=firebase_app)
    assert (updated.display_name, updated.email, updated.email_verified) == ("After", "edited@example.com", True)
    assert firebase.sign_in("edited@example.com", "changed-by-admin")["localId"] == user.uid
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_email("editable@example.com", app=firebase_app)
    removed = auth.update_user(user.uid, display_name=auth.DELETE_ATTRIBUTE, photo_url=auth.DELETE_ATTRIBUTE,
                               phone_number=auth.DELETE_ATTRIBUTE, app=firebase_app)
    assert (removed.display_name, removed.photo_url, removed.phone_number) == (None, None, None)
    assert "phone" not in {p.provider_id for p in removed.provider_data}


def test_list_users_pages_through_every_account_that_accounts_query_counts(firebase, firebase_app):
    created = {auth.create_user(email=f"lister{i}@example.com", app=firebase_app).uid for i in range(3)}
    page = auth.list_users(max_results=2, app=firebase_app)
    assert len(page.users) == 2 and page.has_next_page
    seen = []
    while page:
        seen += [user.uid for user in page.users]
        page = page.get_next_page()
    assert len(seen) == len(set(seen))
    assert created | {ALICE, BOB, CAROL} <= set(seen)
    assert sorted(seen) == sorted(u.uid for u in auth.list_users(app=firebase_app).iterate_all())
    # accounts:query, which the Emulator UI and firebase-tools use, sees the same accounts.
    counted = firebase.admin("POST", "/accounts:query", json={"returnUserInfo": False})
    assert counted.status_code == 200, counted.text
    assert int(counted.json()["recordsCount"]) == len(seen)
    assert {u["localId"] for u in firebase.admin("POST", "/accounts:query", json={}).json()["userInfo"]} == set(seen)


def test_deleted_users_are_gone_with_their_refresh_tokens(firebase, firebase_app):
    session = firebase.sign_up("doomed@example.com")
    auth.delete_user(session["localId"], app=firebase_app)
    assert firebase_error(firebase.refresh(session["refreshToken"])) == "USER_NOT_FOUND"
    with pytest.raises(auth.UserNotFoundError):
        auth.verify_id_token(session["idToken"], app=firebase_app, check_revoked=True)

    uids = [auth.create_user(email=f"bulk{i}@example.com", app=firebase_app).uid for i in range(2)]
    result = auth.delete_users(uids + ["neverExisted000000000000001"], app=firebase_app)
    assert (result.success_count, result.failure_count, result.errors) == (3, 0, [])
    for uid in uids:
        with pytest.raises(auth.UserNotFoundError):
            auth.get_user(uid, app=firebase_app)


# --- tokens -----------------------------------------------------------------------------------------------------


def test_verify_id_token_accepts_a_token_from_a_password_sign_in(firebase, firebase_app):
    session = firebase.sign_in("carol@example.com")
    claims = auth.verify_id_token(session["idToken"], app=firebase_app)
    assert claims["uid"] == CAROL
    assert claims["aud"] == FIREBASE_PROJECT
    assert claims["admin"] is True
    assert claims["phone_number"] == "+15555550100"
    assert claims["firebase"]["sign_in_provider"] == "password"
    assert claims["firebase"]["identities"] == {"email": ["carol@example.com"], "phone": ["+15555550100"]}
    assert auth.verify_id_token(session["idToken"], app=firebase_app, check_revoked=True)["uid"] == CAROL


def test_custom_claims_reach_the_next_refresh_and_sign_in(firebase, firebase_app):
    session = firebase.sign_in("bob@example.com")
    auth.set_custom_user_claims(BOB, {"role": "editor", "level": 3}, app=firebase_app)
    assert auth.get_user(BOB, app=firebase_app).custom_claims == {"role": "editor", "level": 3}
    assert "role" not in jwt_claims(session["idToken"])
    refreshed = jwt_claims(firebase.refresh(session["refreshToken"]).json()["id_token"])
    assert (refreshed["role"], refreshed["level"]) == ("editor", 3)
    assert jwt_claims(firebase.sign_in("bob@example.com")["idToken"])["role"] == "editor"
    auth.set_custom_user_claims(BOB, None, app=firebase_app)
    assert auth.get_user(BOB, app=firebase_app).custom_claims is None
    assert "role" not in jwt_claims(firebase.sign_in("bob@example.com")["idToken"])


def test_revoking_refresh_tokens_fails_the_revocation_check_and_the_refresh(firebase, firebase_app):
    # The SDK stamps validSince with this machine's clock, in whole seconds: mint the old session 5 s earlier.
    firebase.advance(-5)
    session = firebase.sign_in("alice@example.com")
    firebase.advance(5)
    auth.revoke_refresh_tokens(ALICE, app=firebase_app)
    user = auth.get_user(ALICE, app=firebase_app)
    assert user.tokens_valid_after_timestamp > jwt_claims(session["idToken"])["iat"] * 1000
    assert auth.verify_id_token(session["idToken"], app=firebase_app)["uid"] == ALICE
    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(session["idToken"], app=firebase_app, check_revoked=True)
    assert firebase_error(firebase.call("accounts:lookup", {"idToken": session["idToken"]})) == "TOKEN_EXPIRED"
    assert firebase_error(firebase.refresh(session["refreshToken"])) == "TOKEN_EXPIRED"
    firebase.advance(2)
    fresh = firebase.sign_in("alice@example.com")
    assert auth.verify_id_token(fresh["idToken"], app=firebase_app, check_revoked=True)["uid"] == ALICE
    assert firebase.refresh(fresh["refreshToken"]).status_code == 200


def test_a_disabled_user_can_neither_refresh_nor_sign_in(firebase, firebase_app):
    session = firebase.sign_in("bob@example.com")
    assert auth.update_user(BOB, disabled=True, app=firebase_app).disabled is True
    assert firebase_error(firebase.refresh(session["refreshToken"])) == "USER_DISABLED"
    refused = firebase.call("accounts:signInWithPassword", {"email": "bob@example.com", "password": "password123", "returnSecureToken": True})
    assert firebase_error(refused) == "USER_DISABLED"
    with pytest.raises(auth.UserDisabledError):
        auth.verify_id_token(session["idToken"], app=firebase_app, check_revoked=True)
    auth.update_user(BOB, disabled=False, app=firebase_app)
    assert firebase.sign_in("bob@example.com")["localId"] == BOB


def test_a_custom_token_signs_in_through_the_rest_api(firebase, firebase_app):
    token = auth.create_custom_token("customUser0001", {"tier": "gold"}, app=firebase_app).decode()
    assert jwt_part(token, 0)["alg"] == "none"
    signed_in = firebase.ok("accounts:signInWithCustomToken", {"token": token, "returnSecureToken": True})
    assert signed_in["isNewUser"] is True
    claims = jwt_claims(signed_in["idToken"])
    assert claims["sub"] == "customUser0001"
    assert claims["tier"] == "gold"
    assert claims["firebase"]["sign_in_provider"] == "custom"
    assert auth.get_user("customUser0001", app=firebase_app).uid == "customUser0001"
    existing = firebase.ok("accounts:signInWithCustomToken", {"token": auth.create_custom_token(ALICE, app=firebase_app).decode(), "returnSecureToken": True})
    assert existing.get("isNewUser", False) is False
    assert jwt_claims(existing["idToken"])["email"] == "alice@example.com"


def test_a_session_cookie_verifies_and_is_not_an_id_token(firebase, firebase_app):
    firebase.freeze()
    id_token = firebase.sign_in("alice@example.com")["idToken"]
    cookie = auth.create_session_cookie(id_token, datetime.timedelta(days=5), app=firebase_app)
    claims = auth.verify_session_cookie(cookie, check_revoked=True, app=firebase_app)
    assert claims["uid"] == ALICE
    assert claims["iss"] == f"https://session.firebase.google.com/{FIREBASE_PROJECT}"
    assert claims["exp"] - claims["iat"] == 5 * 24 * 3600
    with pytest.raises(auth.InvalidIdTokenError):
        auth.verify_id_token(cookie, app=firebase_app)


# --- email action links -----------------------------------------------------------------------------------------


def test_a_generated_password_reset_link_resets_and_sends_no_email(firebase, firebase_app):
    settings = auth.ActionCodeSettings(url="http://localhost:3000/after-reset")
    link = auth.generate_password_reset_link("carol@example.com", settings, app=firebase_app)
    assert link.startswith(f"{firebase.url}/emulator/action?")
    params = query(link)
    assert params["mode"] == "resetPassword"
    assert params["apiKey"] == "fake-api-key"
    assert params["continueUrl"] == "http://localhost:3000/after-reset"
    assert outbox(firebase, "carol@example.com") == []  # returnOobLink: the caller sends the email itself
    firebase.ok("accounts:resetPassword", {"oobCode": params["oobCode"], "newPassword": "carol-new-pass"})
    assert firebase.sign_in("carol@example.com", "carol-new-pass")["localId"] == CAROL
    with pytest.raises(auth.EmailNotFoundError):
        auth.generate_password_reset_link("ghost.reset@example.com", app=firebase_app)


def test_a_generated_verification_link_verifies_when_opened(firebase, firebase_app):
    link = auth.generate_email_verification_link("bob@example.com", app=firebase_app)
    assert query(link)["mode"] == "verifyEmail"
    assert auth.get_user(BOB, app=firebase_app).email_verified is False
    assert requests.get(link).status_code == 200
    assert auth.get_user(BOB, app=firebase_app).email_verified is True
    with pytest.raises(auth.UserNotFoundError):
        auth.generate_email_verification_link("ghost.verify@example.com", app=firebase_app)


def test_a_generated_sign_in_link_signs_in_a_new_user(firebase, firebase_app):
    settings = auth.ActionCodeSettings(url="http://localhost:3000/finish", handle_code_in_app=True)
    link = auth.generate_sign_in_with_email_link("linked.in@example.com", settings, app=firebase_app)
    params = query(link)
    assert params["mode"] == "signIn"
    signed_in = firebase.ok("accounts:signInWithEmailLink", {"email": "linked.in@example.com", "oobCode": params["oobCode"]})
    assert signed_in["isNewUser"] is True
    user = auth.get_user_by_email("linked.in@example.com", app=firebase_app)
    assert user.uid == signed_in["localId"] and user.email_verified is True


# --- import_users with password hashes --------------------------------------------------------------------------

SCRYPT_KEY = base64.b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")
SCRYPT_SEPARATOR = base64.b64decode("Bw==")


def firebase_scrypt(password, salt, key, separator, rounds, memory_cost):
    """Firebase's modified scrypt: AES-256-CTR (zero counter) of the signer key under scrypt(password, salt + separator)."""
    derived = hashlib.scrypt(password, salt=salt + separator, n=2 ** memory_cost, r=rounds, p=1, dklen=32)
    encryptor = Cipher(algorithms.AES(derived), modes.CTR(bytes(16))).encryptor()
    return encryptor.update(key) + encryptor.finalize()


def hashed_users():
    """(name, password, hash, salt, hash algorithm) for each import algorithm; the SCRYPT case is the published
    example of Firebase's modified scrypt (github.com/firebase/scrypt: rounds 8, memory cost 14)."""
    salt = b"per-user-salt"
    return [
        ("bcrypt", "password123", b"$2b$04$/38xmF/uz8yh1QOoIh5j1ONZI6kjmNCbT5ke/0Tv.6t43oNI.kVS.", None, auth.UserImportHash.bcrypt()),
        ("scrypt", "user1password",
         base64.b64decode("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="),
         base64.b64decode("42xEC+ixf3L2lw=="),
         auth.UserImportHash.scrypt(key=SCRYPT_KEY, rounds=8, memory_cost=14, salt_separator=SCRYPT_SEPARATOR)),
        ("scrypt-params", "other-params-pass",
         firebase_scrypt(b"other-params-pass", salt, b"another-signer-key-0123456789abc", b"\x01", rounds=4, memory_cost=10), salt,
         auth.UserImportHash.scrypt(key=b"another-signer-key-0123456789abc", rounds=4, memory_cost=10, salt_separator=b"\x01")),
        ("standard-scrypt", "std-scrypt-pass", hashlib.scrypt(b"std-scrypt-pass", salt=salt, n=1024, r=8, p=1, dklen=64), salt,
         auth.UserImportHash.standard_scrypt(memory_cost=1024, parallelization=1, block_size=8, derived_key_length=64)),
        ("hmac-sha256", "hmac-pass-123", hmac.new(b"hmac-signer-key", b"hmac-pass-123", hashlib.sha256).digest(), None,
         auth.UserImportHash.hmac_sha256(key=b"hmac-signer-key")),
    ]


@pytest.mark.parametrize("name,password,password_hash,salt,algorithm", hashed_users(), ids=[u[0] for u in hashed_users()])
def test_imported_users_sign_in_with_their_original_password(firebase, firebase_app, name, password, password_hash, salt, algorithm):
    uid = f"imported{name.replace('-', '')}0001"
    email = f"imported.{name}@example.com"
    record = auth.ImportUserRecord(uid, email=email, email_verified=True, display_name=f"Imported {name}",
                                   custom_claims={"imported": name}, password_hash=password_hash, password_salt=salt)
    result = auth.import_users([record], hash_alg=algorithm, app=firebase_app)
    assert (result.success_count, result.failure_count) == (1, 0)
    user = auth.get_user(uid, app=firebase_app)
    assert (user.email, user.display_name, user.custom_claims) == (email, f"Imported {name}", {"imported": name})
    signed_in = firebase.sign_in(email, password)
    assert signed_in["localId"] == uid
    assert jwt_claims(signed_in["idToken"])["imported"] == name
    wrong = firebase.call("accounts:signInWithPassword", {"email": email, "password": password + "x", "returnSecureToken": True})
    assert firebase_error(wrong) == "INVALID_PASSWORD"


def test_an_imports_refusals_are_worded_as_production_words_them(firebase):
    """The emulator rewrites claims refusals "consistent with production" (operations.ts batchCreate); a duplicate email
    is production's "email exists in other account in database" under sanityCheck, and otherwise something production
    would import as another account, which Fauxth says it cannot. (firebase-admin checks claims itself, so raw REST.)"""
    users = [{"localId": "importclaims0001", "customAttributes": '{"sub": "x"}'},
             {"localId": "importclaims0002", "customAttributes": '{"big": "' + "x" * 1001 + '"}'},
             {"localId": "importdupemail01", "email": "alice@example.com"}]
    answer = firebase.admin("POST", "/accounts:batchCreate", json={"users": users})
    assert answer.status_code == 200, answer.text
    assert {error["index"]: error["message"] for error in answer.json()["error"]} == {
        0: "Custom claims provided include a reserved claim.", 1: "Custom claims provided are too large.",
        2: "((Fauxth does not support importing duplicate email: alice@example.com))"}


# --- tenants ----------------------------------------------------------------------------------------------------


@pytest.fixture
def tenant_app(firebase, monkeypatch):
    """firebase-admin-python's tenant_mgt ignores FIREBASE_AUTH_EMULATOR_HOST (its v2 base URL and credential are
    fixed), so point it at fauxth with the emulator's owner credential, as firebase-admin-node does in emulator mode."""
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", firebase.url.split("://", 1)[1])
    monkeypatch.setattr(tenant_mgt._TenantManagementService, "TENANT_MGT_URL", f"{firebase.url}/identitytoolkit.googleapis.com/v2")
    app = firebase_admin.initialize_app(_utils.EmulatorAdminCredentials(), options={"projectId": FIREBASE_PROJECT},
                                        name=f"fauxth-tenants-{uuid.uuid4().hex}")
    yield app
    firebase_admin.delete_app(app)


def test_tenant_lifecycle_through_tenant_mgt(tenant_app):
    tenant = tenant_mgt.create_tenant("acme-corp", allow_password_sign_up=True, app=tenant_app)
    assert tenant.tenant_id and tenant.display_name == "acme-corp"
    assert (tenant.allow_password_sign_up, tenant.enable_email_link_sign_in) == (True, False)
    fetched = tenant_mgt.get_tenant(tenant.tenant_id, app=tenant_app)
    assert (fetched.tenant_id, fetched.display_name) == (tenant.tenant_id, "acme-corp")

    updated = tenant_mgt.update_tenant(tenant.tenant_id, display_name="acme-renamed", enable_email_link_sign_in=True, app=tenant_app)
    assert (updated.display_name, updated.allow_password_sign_up, updated.enable_email_link_sign_in) == ("acme-renamed", True, True)

    other = tenant_mgt.create_tenant("globex", app=tenant_app)
    page = tenant_mgt.list_tenants(max_results=1, app=tenant_app)
    assert len(page.tenants) == 1 and page.has_next_page
    listed = [t.tenant_id for t in page.iterate_all()]
    assert len(listed) == len(set(listed))
    assert {tenant.tenant_id, other.tenant_id} <= set(listed)

    tenant_mgt.delete_tenant(tenant.tenant_id, app=tenant_app)
    with pytest.raises(tenant_mgt.TenantNotFoundError):
        tenant_mgt.get_tenant(tenant.tenant_id, app=tenant_app)
    assert tenant.tenant_id not in [t.tenant_id for t in tenant_mgt.list_tenants(app=tenant_app).iterate_all()]


def test_tenant_users_stay_out_of_the_project(firebase, tenant_app):
    tenant = tenant_mgt.create_tenant("isolated", allow_password_sign_up=True, app=tenant_app)
    client = tenant_mgt.auth_for_tenant(tenant.tenant_id, app=tenant_app)
    user = client.create_user(email="tenant.user@example.com", password="secret123")
    assert user.tenant_id == tenant.tenant_id
    assert client.get_user_by_email("tenant.user@example.com").uid == user.uid
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(user.uid, app=tenant_app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_email("tenant.user@example.com", app=tenant_app)
    assert user.uid not in {u.uid for u in auth.list_users(app=tenant_app).iterate_all()}
    assert auth.create_user(email="tenant.user@example.com", app=tenant_app).uid != user.uid  # the project's own email space

    signed_in = firebase.ok("accounts:signInWithPassword", {"email": "tenant.user@example.com", "password": "secret123",
                                                            "tenantId": tenant.tenant_id, "returnSecureToken": True})
    assert signed_in["localId"] == user.uid
    assert jwt_claims(signed_in["idToken"])["firebase"]["tenant"] == tenant.tenant_id
    assert client.verify_id_token(signed_in["idToken"], check_revoked=True)["uid"] == user.uid
    with pytest.raises(tenant_mgt.TenantIdMismatchError):
        client.verify_id_token(firebase.sign_in("alice@example.com")["idToken"])


def test_a_tenants_custom_token_without_a_tenant_signs_in_to_the_project(firebase, tenant_app):
    """The emulator checks a custom token's tenant_id only where the request names a tenant; a request naming none
    signs in to the project, whose answer the JS SDK then refuses as another tenant's (auth/tenant-id-mismatch).
    Fauxth made the user in the token's tenant."""
    tenant = tenant_mgt.create_tenant("tokens", allow_password_sign_up=True, app=tenant_app)
    client = tenant_mgt.auth_for_tenant(tenant.tenant_id, app=tenant_app)
    token = client.create_custom_token("tenantTokenUser1").decode()
    signed_in = firebase.ok("accounts:signInWithCustomToken", {"token": token, "returnSecureToken": True})
    assert "tenant" not in jwt_claims(signed_in["idToken"])["firebase"]
    with pytest.raises(auth.UserNotFoundError):
        client.get_user("tenantTokenUser1")
    in_tenant = firebase.ok("accounts:signInWithCustomToken", {"token": token, "tenantId": tenant.tenant_id, "returnSecureToken": True})
    assert jwt_claims(in_tenant["idToken"])["firebase"]["tenant"] == tenant.tenant_id
