"""Cognito's hosted UI with identity_provider=Google or SignInWithApple: the browser goes to Fauxth's fake provider, picks an
account, comes back to /oauth2/idpresponse and on to the app with a code; the federated user is named and mapped as Cognito
does it, and AdminLinkProviderForUser makes a provider account sign in as an existing user."""
import base64
import hashlib
import secrets
import urllib.parse

import requests

from conftest import COGNITO_CLIENT, COGNITO_POOL, Forms, query

REDIRECT = "http://localhost:3000/callback"


def pkce():
    verifier = secrets.token_urlsafe(48)
    return verifier, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def federated_sign_in(cognito, provider, account=None, error=None, **overrides):
    """The browser's round trip: authorize → fake provider (its page, or a queued choice) → idpresponse → the app. Returns
    (the app's redirect, the PKCE verifier)."""
    verifier, challenge = pkce()
    params = {"response_type": "code", "client_id": COGNITO_CLIENT, "redirect_uri": REDIRECT, "state": "app-state",
              "scope": "openid email profile", "identity_provider": provider, "code_challenge": challenge, "code_challenge_method": "S256"}
    params.update(overrides)
    browser = requests.Session()
    started = browser.get(f"{cognito.url}/oauth2/authorize", params=params, allow_redirects=False, timeout=30)
    assert started.status_code == 302, started.text
    provider_url = started.headers["Location"]
    assert "/_emu/idp/" in provider_url and query(provider_url)["redirect_uri"] == f"{cognito.url}/oauth2/idpresponse"
    if error:
        cognito.fauxth.control("POST", f"/idp/{urllib.parse.urlsplit(provider_url).path.split('/')[3]}/next", json={"error": error})
        answer = browser.get(provider_url, allow_redirects=False, timeout=30)
    else:
        page = browser.get(provider_url, allow_redirects=False, timeout=30)
        assert page.status_code == 200
        form = next(f for f in Forms(page.text).forms if "email" not in f["fields"] and "error" not in f["fields"])
        answer = browser.post(urllib.parse.urljoin(provider_url, form["action"]), data={**form["fields"], "account": account},
                              allow_redirects=False, timeout=30)
    if answer.status_code == 200:  # Apple's form_post: the page posts the answer to Cognito
        [form] = Forms(answer.text).forms
        assert form["action"] == f"{cognito.url}/oauth2/idpresponse"
        back = browser.post(form["action"], data=form["fields"], allow_redirects=False, timeout=30)
    else:
        assert answer.status_code == 302
        back = browser.get(answer.headers["Location"], allow_redirects=False, timeout=30)
    assert back.status_code == 302, back.text
    return back.headers["Location"], verifier


def exchange(cognito, location, verifier):
    response = requests.post(f"{cognito.url}/oauth2/token", timeout=30, data={
        "grant_type": "authorization_code", "client_id": COGNITO_CLIENT, "code": query(location)["code"], "redirect_uri": REDIRECT,
        "code_verifier": verifier})
    assert response.status_code == 200, response.text
    return response.json()


def test_google_sign_in_makes_a_federated_user_named_and_mapped_as_cognito_does(cognito):
    location, verifier = federated_sign_in(cognito, "Google", account="100000000000000000002")
    assert location.startswith(REDIRECT + "?") and query(location)["state"] == "app-state"
    tokens = exchange(cognito, location, verifier)
    identity = cognito.verify(tokens["id_token"], "id")
    assert identity["cognito:username"] == "google_100000000000000000002"
    assert identity["email"] == "dana@example.com" and identity["email_verified"] is True and identity["name"] == "Dana Google"
    [linked] = identity["identities"]
    assert (linked["providerName"], linked["providerType"], linked["userId"]) == ("Google", "Google", "100000000000000000002")
    access = cognito.verify(tokens["access_token"], "access")
    assert access["username"] == "google_100000000000000000002"
    user = cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="google_100000000000000000002")
    assert user["UserStatus"] == "EXTERNAL_PROVIDER"
    # Cognito's group of the provider's users, made on its first sign-up, in both tokens' cognito:groups.
    group = f"{COGNITO_POOL}_Google"
    assert identity["cognito:groups"] == [group] and access["cognito:groups"] == [group]
    groups = cognito.idp.admin_list_groups_for_user(UserPoolId=COGNITO_POOL, Username="google_100000000000000000002")["Groups"]
    assert [g["GroupName"] for g in groups] == [group]
    assert cognito.idp.get_group(UserPoolId=COGNITO_POOL, GroupName=group)["Group"]["GroupName"] == group
    # The same account signs in as the same user.
    again, verifier = federated_sign_in(cognito, "Google", account="100000000000000000002", prompt="login")
    assert cognito.verify(exchange(cognito, again, verifier)["id_token"], "id")["sub"] == identity["sub"]
    listed = cognito.idp.list_users(UserPoolId=COGNITO_POOL, Filter='username = "google_100000000000000000002"')["Users"]
    assert len(listed) == 1


def test_apple_sign_in_posts_back_with_the_name_on_first_consent(cognito):
    location, verifier = federated_sign_in(cognito, "SignInWithApple", account="000002.e41200000000000000000000000000e4.0002")
    identity = cognito.verify(exchange(cognito, location, verifier)["id_token"], "id")
    assert identity["cognito:username"] == "signinwithapple_000002.e41200000000000000000000000000e4.0002"
    assert identity["email"].endswith("@privaterelay.appleid.com")
    assert (identity["given_name"], identity["family_name"]) == ("Erin", "Private")


def test_admin_link_provider_for_user_signs_the_provider_account_in_as_an_existing_user(cognito):
    alice = cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="alice@example.com")
    cognito.idp.admin_link_provider_for_user(
        UserPoolId=COGNITO_POOL, DestinationUser={"ProviderName": "Cognito", "ProviderAttributeValue": "alice@example.com"},
        SourceUser={"ProviderName": "Google", "ProviderAttributeName": "Cognito_Subject", "ProviderAttributeValue": "100000000000000000001"})
    location, verifier = federated_sign_in(cognito, "Google", account="100000000000000000001")
    identity = cognito.verify(exchange(cognito, location, verifier)["id_token"], "id")
    assert identity["sub"] == {a["Name"]: a["Value"] for a in alice["UserAttributes"]}["sub"]
    assert identity["identities"][0]["providerName"] == "Google"
    missing = cognito.fails("admin_link_provider_for_user", UserPoolId=COGNITO_POOL,
                            DestinationUser={"ProviderName": "Cognito", "ProviderAttributeValue": "alice@example.com"},
                            SourceUser={"ProviderName": "Facebook", "ProviderAttributeName": "Cognito_Subject", "ProviderAttributeValue": "1"})
    assert missing["Code"] == "InvalidParameterException"


def test_admin_disable_provider_for_user_unlinks_the_account_and_takes_a_native_password_away(cognito):
    google = {"ProviderName": "Google", "ProviderAttributeName": "Cognito_Subject", "ProviderAttributeValue": "100000000000000000001"}
    cognito.idp.admin_link_provider_for_user(
        UserPoolId=COGNITO_POOL, DestinationUser={"ProviderName": "Cognito", "ProviderAttributeValue": "alice@example.com"}, SourceUser=google)
    alice_sub = {a["Name"]: a["Value"] for a in cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="alice@example.com")["UserAttributes"]}["sub"]
    cognito.idp.admin_disable_provider_for_user(UserPoolId=COGNITO_POOL, User=google)
    attributes = {a["Name"]: a["Value"] for a in cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="alice@example.com")["UserAttributes"]}
    assert "identities" not in attributes
    # The account's next sign-in makes a user of its own, which is linked to no one.
    location, verifier = federated_sign_in(cognito, "Google", account="100000000000000000001")
    identity = cognito.verify(exchange(cognito, location, verifier)["id_token"], "id")
    assert identity["sub"] != alice_sub and identity["cognito:username"] == "google_100000000000000000001"
    refused = cognito.fails("admin_disable_provider_for_user", UserPoolId=COGNITO_POOL, User=google)
    assert refused == {"Code": "InvalidParameterException", "Message": "Account isn't linked to anyone else, verify that the account has been linked"}
    assert cognito.fails("admin_disable_provider_for_user", UserPoolId=COGNITO_POOL, User={**google, "ProviderName": "Facebook"})["Code"] \
        == "InvalidParameterException"

    # A native user named with ProviderName Cognito can no longer sign in with their password, until given one.
    cognito.idp.admin_disable_provider_for_user(UserPoolId=COGNITO_POOL, User={
        "ProviderName": "Cognito", "ProviderAttributeName": "Cognito_Subject", "ProviderAttributeValue": "alice@example.com"})
    assert cognito.fails("initiate_auth", ClientId=COGNITO_CLIENT, AuthFlow="USER_PASSWORD_AUTH",
                         AuthParameters={"USERNAME": "alice@example.com", "PASSWORD": "password123"})["Code"] == "NotAuthorizedException"
    cognito.idp.admin_set_user_password(UserPoolId=COGNITO_POOL, Username="alice@example.com", Password="password456", Permanent=True)
    assert cognito.password_auth("alice@example.com", "password456")["AuthenticationResult"]["AccessToken"]


def test_a_provider_error_goes_back_to_the_app(cognito):
    location, _ = federated_sign_in(cognito, "Google", error="access_denied")
    assert location.startswith(REDIRECT + "?")
    assert query(location)["error"] == "access_denied" and query(location)["state"] == "app-state"


def test_the_login_page_offers_the_clients_identity_providers(cognito):
    params = {"response_type": "code", "client_id": COGNITO_CLIENT, "redirect_uri": REDIRECT, "state": "s"}
    page = requests.get(f"{cognito.url}/login", params=params, timeout=30)
    assert "Continue with Google" in page.text and "Continue with SignInWithApple" in page.text
    unknown = requests.get(f"{cognito.url}/oauth2/authorize", params={**params, "identity_provider": "Facebook"},
                           allow_redirects=False, timeout=30)
    assert unknown.status_code == 302 and query(unknown.headers["Location"])["error"] == "invalid_request"
    stale = requests.get(f"{cognito.url}/oauth2/idpresponse", params={"code": "x", "state": "forged"}, timeout=30)
    assert stale.status_code == 400
