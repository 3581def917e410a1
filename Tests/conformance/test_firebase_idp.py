"""Firebase sign-in with the fake identity providers: signInWithIdp with a token minted as the native Google sheet hands it
over (checked by firebase-admin), the /emulator/auth/handler widget the SDKs open (the Android intent and iOS deep link
they are opened with, the web SDK's redirect event, the local picker for providers with no fake one, the failure
buttons), and createAuthUri with a provider, its code coming back to an app scheme."""
import hashlib
import json
import re
import urllib.parse

import requests
from firebase_admin import auth

from conftest import FIREBASE_API_KEY, Forms, firebase_error, jwt_claims, query

ALICE_GOOGLE_SUB = "100000000000000000001"


def handler(fauxth, **params):
    base = {"apiKey": FIREBASE_API_KEY, "appName": "[DEFAULT]", "authType": "signInViaRedirect", "eventId": "ev-1", "v": "10.0.0"}
    base.update(params)
    return requests.get(f"{fauxth.url}/emulator/auth/handler", params=base, allow_redirects=False, timeout=30)


def follow(response, limit=5):
    """Follows redirects on this server, as a browser would, stopping at one that leaves http(s)."""
    for _ in range(limit):
        location = response.headers.get("Location")
        if response.status_code not in (301, 302, 303) or not location or not location.startswith("http"):
            return response
        response = requests.get(urllib.parse.urljoin(response.url, location), allow_redirects=False, timeout=30)
    return response


def auth_event(page):
    """The auth event the handler's result page hands to the web SDK."""
    match = re.search(r'<script id="auth-event" type="application/json">(.*?)</script>', page.text, re.S)
    assert match, page.text
    return json.loads(match.group(1).replace("<\\/", "</"))


def sign_in_with(firebase, request_uri, **extra):
    return firebase.ok("accounts:signInWithIdp", {"requestUri": request_uri, "returnSecureToken": True, "returnIdpCredential": True, **extra})


def test_a_minted_google_token_signs_in_through_sign_in_with_idp_and_firebase_admin_accepts_the_session(firebase, firebase_app):
    minted = firebase.fauxth.control("POST", "/idp/google/tokens", json={"email": "alice@example.com", "aud": "web-client.apps.googleusercontent.com"})
    assert minted.status_code == 200, minted.text
    id_token = minted.json()["id_token"]
    body = urllib.parse.urlencode({"providerId": "google.com", "id_token": id_token})
    signed_in = sign_in_with(firebase, "http://localhost", postBody=body)
    assert signed_in["federatedId"] == f"https://accounts.google.com/{ALICE_GOOGLE_SUB}"
    assert signed_in["oauthIdToken"] == id_token and signed_in["email"] == "alice@example.com"
    decoded = auth.verify_id_token(signed_in["idToken"], app=firebase_app)
    assert decoded["firebase"]["sign_in_provider"] == "google.com"
    assert decoded["firebase"]["identities"]["google.com"] == [ALICE_GOOGLE_SUB]
    user = auth.get_user(signed_in["localId"], app=firebase_app)
    # The seed's alice has a password and a verified address: the Google account with that verified email is linked to her.
    assert sorted((p.provider_id, p.uid) for p in user.provider_data) == [("google.com", ALICE_GOOGLE_SUB), ("password", "alice@example.com")]


def test_the_android_sdk_is_opened_with_an_intent_carrying_the_google_account_picked(firebase):
    fauxth = firebase.fauxth
    assert fauxth.control("POST", "/idp/google/next", json={"account": "alice@example.com"}).status_code == 202
    started = handler(fauxth, providerId="google.com", apn="com.example.app", appName=None, clientId=None)
    assert started.status_code == 302 and "/_emu/idp/google/authorize?" in started.headers["Location"]
    back = follow(started)
    assert back.status_code == 303, back.text
    intent = back.headers["Location"]
    assert intent.startswith("intent://firebase.auth/#Intent;scheme=genericidp;package=com.example.app;S.authType=signInViaRedirect;S.eventId=ev-1;")
    assert "B.encryptionEnabled=false;S.browser_fallback_url=" in intent and intent.endswith(";end;")
    [captured] = fauxth.control("GET", "/deeplinks", params={"scheme": "intent"}).json()["deeplinks"]
    assert captured["url"] == intent and captured["source"] == "auth_handler" and captured["host"] == "firebase.auth"
    assert fauxth.control("GET", f"/deeplinks/{captured['id']}").json() == captured
    assert fauxth.control("GET", "/deeplinks/nosuch").status_code == 404
    link = urllib.parse.unquote(re.search(r"S\.link=([^;]+);", intent).group(1))
    assert link.startswith(f"{fauxth.url}/emulator/auth/handler?providerId=google.com&id_token=")
    signed_in = sign_in_with(firebase, link)
    assert signed_in["email"] == "alice@example.com" and signed_in["federatedId"].endswith(ALICE_GOOGLE_SUB)
    assert jwt_claims(query(link)["id_token"])["iss"] == "https://accounts.google.com"


def test_the_ios_sdk_is_opened_with_its_reversed_client_id_scheme(firebase):
    fauxth = firebase.fauxth
    fauxth.control("POST", "/idp/google/next", json={"account": "dana@example.com"})
    back = follow(handler(fauxth, providerId="google.com", ibi="com.example.ios", clientId="123-abc.apps.googleusercontent.com", appName=None))
    location = back.headers["Location"]
    assert location.startswith("com.googleusercontent.apps.123-abc://firebaseauth/link?deep_link_id="), location
    inner = query(location)["deep_link_id"]
    assert inner.startswith(f"{fauxth.url}/__/auth/callback?authType=signInViaRedirect&link=")
    assert query(inner)["eventId"] == "ev-1"
    signed_in = sign_in_with(firebase, query(inner)["link"])
    assert signed_in["email"] == "dana@example.com"


def test_a_web_redirect_sign_in_gets_the_event_the_js_sdk_reads(firebase):
    fauxth = firebase.fauxth
    fauxth.control("POST", "/idp/google/next", json={"account": "alice@example.com"})
    page = follow(handler(fauxth, providerId="google.com", redirectUrl="http://localhost:3000/after"))
    assert page.status_code == 200 and "script-src 'unsafe-inline'" in page.headers["Content-Security-Policy"]
    event = auth_event(page)
    assert event["storageKey"] == f"{FIREBASE_API_KEY}:[DEFAULT]" and event["redirectUrl"] == "http://localhost:3000/after"
    assert event["event"]["type"] == "signInViaRedirect" and event["event"]["eventId"] == "ev-1" and event["event"]["error"] is None
    signed_in = sign_in_with(firebase, event["event"]["urlResponse"], sessionId=event["event"]["sessionId"])
    assert signed_in["email"] == "alice@example.com"


def test_cancelling_at_the_provider_gives_the_sdk_a_cancelled_sign_in(firebase):
    fauxth = firebase.fauxth
    picker = follow(handler(fauxth, providerId="apple.com", authType="signInViaPopup"))
    assert picker.status_code == 200 and "Sign in with Apple" in picker.text
    form = next(f for f in Forms(picker.text).forms if ("error", "access_denied") in f["buttons"])
    cancelled = requests.post(urllib.parse.urljoin(picker.url, form["action"]), data={**form["fields"], "error": "access_denied"},
                              allow_redirects=False, timeout=30)
    # Apple answers by posting a form back to the handler.
    post_back = Forms(cancelled.text).forms[0]
    page = requests.post(post_back["action"], data=post_back["fields"], timeout=30)
    event = auth_event(page)
    assert event["popup"] is True and event["event"]["error"]["code"] == "auth/user-cancelled"
    assert event["event"]["urlResponse"] is None


def test_a_provider_with_no_fake_one_gets_the_emulators_picker(firebase):
    fauxth = firebase.fauxth
    page = handler(fauxth, providerId="facebook.com", redirectUrl="http://localhost:3000/after")
    assert page.status_code == 200 and "No facebook.com accounts yet" in page.text
    form = next(f for f in Forms(page.text).forms if "email" in f["fields"])
    # "Email verified" unticked: a browser leaves the checkbox out of the form.
    fields = {k: v for k, v in form["fields"].items() if k != "email_verified"}
    made = requests.post(urllib.parse.urljoin(page.url, form["action"]), data={**fields, "email": "fb@example.com", "name": "Faye Book"},
                         timeout=30)
    event = auth_event(made)["event"]
    claims = json.loads(query(event["urlResponse"])["id_token"])
    assert claims["email"] == "fb@example.com" and claims["email_verified"] is False and len(claims["sub"]) == 40
    first = sign_in_with(firebase, event["urlResponse"])
    assert first["isNewUser"] is True and first["providerId"] == "facebook.com"
    again = handler(fauxth, providerId="facebook.com", redirectUrl="http://localhost:3000/after")
    account = next(f for f in Forms(again.text).forms if f["buttons"] and f["buttons"][0][0] == "account")
    assert account["buttons"] == [("account", claims["sub"])]
    picked = requests.post(urllib.parse.urljoin(again.url, account["action"]), data={**account["fields"], "account": claims["sub"]}, timeout=30)
    assert sign_in_with(firebase, auth_event(picked)["event"]["urlResponse"])["localId"] == first["localId"]


def test_a_saml_provider_signs_in_through_the_emulators_picker_and_its_fake_assertion(firebase, firebase_app):
    """SAMLAuthProvider through signInWithRedirect: the picker's answer carries the emulator's fake SAMLResponse (JSON,
    its subject the email), which signInWithIdp reads as the emulator does; an assertion's attribute statements
    (sent as the emulator's own tests send them) are the rawUserInfo and the ID token's firebase.sign_in_attributes."""
    fauxth = firebase.fauxth
    page = handler(fauxth, providerId="saml.acme", redirectUrl="http://localhost:3000/after")
    assert page.status_code == 200 and "No saml.acme accounts yet" in page.text
    form = next(f for f in Forms(page.text).forms if "email" in f["fields"])
    made = requests.post(urllib.parse.urljoin(page.url, form["action"]), data={**form["fields"], "email": "sam@example.com"}, timeout=30)
    url_response = auth_event(made)["event"]["urlResponse"]
    assert json.loads(query(url_response)["SAMLResponse"]) == {"assertion": {"subject": {"nameId": "sam@example.com"}}}
    signed_in = sign_in_with(firebase, url_response)
    assert signed_in["providerId"] == "saml.acme" and signed_in["email"] == "sam@example.com" and signed_in["emailVerified"] is True
    assert "rawUserInfo" not in signed_in
    decoded = auth.verify_id_token(signed_in["idToken"], app=firebase_app)
    assert decoded["firebase"]["sign_in_provider"] == "saml.acme" and "sign_in_attributes" not in decoded["firebase"]

    attributes = {"name": "Jane Doe", "mail": "other@example.com"}
    saml_response = {"assertion": {"subject": {"nameId": "jane@example.com"}, "attributeStatements": attributes}}
    id_token = json.dumps({"sub": "jane-1", "email": "not-this@example.com"})
    jane = sign_in_with(firebase, "http://localhost", postBody=f"providerId=saml.acme&id_token={id_token}&SAMLResponse={json.dumps(saml_response)}")
    assert jane["email"] == "jane@example.com" and json.loads(jane["rawUserInfo"]) == attributes
    assert auth.verify_id_token(jane["idToken"], app=firebase_app)["firebase"]["sign_in_attributes"] == attributes
    missing = firebase.call("accounts:signInWithIdp", {"requestUri": "http://localhost", "returnSecureToken": True,
                                                        "postBody": f"providerId=saml.acme&id_token={id_token}&SAMLResponse={{}}"})
    assert firebase_error(missing) == "INVALID_IDP_RESPONSE : ((Missing assertion in SAMLResponse.))"


def test_the_handler_refuses_what_the_sdk_never_sends(firebase):
    fauxth = firebase.fauxth
    missing = requests.get(f"{fauxth.url}/emulator/auth/handler", params={"apiKey": FIREBASE_API_KEY}, timeout=30)
    assert missing.status_code == 400 and missing.json()["authEmulator"]["error"] == "missing apiKey or providerId query parameters"
    nobody = handler(fauxth, providerId="google.com", appName=None)
    assert nobody.status_code == 400 and "Missing one of appName" in nobody.text
    forged = requests.get(f"{fauxth.url}/emulator/auth/handler", params={"state": "x.y.z", "code": "c"}, timeout=30)
    assert forged.status_code == 400 and "expired or was not started here" in forged.text


def test_create_auth_uri_with_a_provider_and_its_code_back_at_an_app_scheme(firebase):
    fauxth = firebase.fauxth
    created = firebase.ok("accounts:createAuthUri", {"providerId": "google.com", "continueUri": "myapp://auth/callback"})
    assert created["providerId"] == "google.com" and created["sessionId"]
    auth_uri = created["authUri"]
    assert auth_uri.startswith(f"{fauxth.url}/_emu/idp/google/authorize?") and query(auth_uri)["redirect_uri"] == "myapp://auth/callback"
    back = requests.get(auth_uri + "&fauxth_account=alice@example.com", allow_redirects=False, timeout=30)
    location = back.headers["Location"]
    assert location.startswith("myapp://auth/callback?code=")
    assert fauxth.control("GET", "/deeplinks", params={"scheme": "myapp"}).json()["deeplinks"][0]["url"] == location
    wrong = firebase.call("accounts:signInWithIdp", {"requestUri": location, "sessionId": "not-this-one", "returnSecureToken": True})
    assert firebase_error(wrong).startswith("INVALID_CREDENTIAL_OR_PROVIDER_ID")
    signed_in = sign_in_with(firebase, location, sessionId=created["sessionId"])
    assert signed_in["email"] == "alice@example.com" and signed_in["providerId"] == "google.com"
    replayed = firebase.call("accounts:signInWithIdp", {"requestUri": location, "sessionId": created["sessionId"], "returnSecureToken": True})
    assert firebase_error(replayed).startswith("INVALID_IDP_RESPONSE")
    unknown = firebase.call("accounts:createAuthUri", {"providerId": "github.com", "continueUri": "http://localhost"})
    assert firebase_error(unknown, 400).startswith("No identity provider stands in for github.com")


def test_linking_a_provider_whose_email_another_account_has_answers_the_credential_beside_the_error(firebase):
    """The JS SDK links with returnIdpCredential; a refused link is then a 200 with errorMessage and the provider's
    answer (the emulator's signInWithIdp), which the SDK turns into auth/email-already-in-use with customData.email and
    a credential for credentialFromError. Fauxth answered a bare 400 EMAIL_EXISTS."""
    bob = firebase.ok("accounts:signInWithPassword", {"email": "bob@example.com", "password": "password123", "returnSecureToken": True})
    post_body = urllib.parse.urlencode({"providerId": "google.com", "id_token": json.dumps(
        {"sub": "link-probe-1", "email": "alice@example.com", "email_verified": True})})
    refused = sign_in_with(firebase, "http://localhost", postBody=post_body, idToken=bob["idToken"])
    assert refused["errorMessage"] == "EMAIL_EXISTS" and refused["email"] == "alice@example.com"
    assert refused["providerId"] == "google.com" and refused["oauthIdToken"] and "idToken" not in refused


def test_an_apple_token_with_a_nonce_needs_the_raw_nonce_as_production_checks_it(firebase):
    """OAuthProvider('apple.com').credential({idToken, rawNonce}) posts the raw nonce beside the token; production refuses
    a token whose nonce is not the raw one's SHA-256 (hex), or that comes without it (auth/missing-or-invalid-nonce), in
    the words of firebase-ios-sdk #10462 and firebase-js-sdk #7957. The emulator checks neither."""
    raw = "a-raw-nonce-1234"
    hashed = hashlib.sha256(raw.encode()).hexdigest()
    minted = firebase.fauxth.control("POST", "/idp/apple/tokens", json={"email": "alice@example.com", "aud": "com.example.fauxth",
                                                                         "nonce": hashed})
    assert minted.status_code == 200, minted.text
    token = minted.json()["id_token"]

    def sign_in(**post):
        body = urllib.parse.urlencode({"providerId": "apple.com", "id_token": token, **post})
        return firebase.call("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": body, "returnSecureToken": True})

    assert firebase_error(sign_in()) == "MISSING_OR_INVALID_NONCE : Nonce is missing in the request."
    assert firebase_error(sign_in(nonce="wrong")) == (f'MISSING_OR_INVALID_NONCE : The nonce in ID Token "{hashed}" does not match '
                                                      'the SHA256 hash of the raw nonce "wrong" in the request.')
    signed_in = sign_in(nonce=raw)
    assert signed_in.status_code == 200, signed_in.text
