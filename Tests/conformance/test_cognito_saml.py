"""Cognito SAML identity providers: CreateIdentityProvider with ProviderType SAML (boto3), the hosted UI's round trip through
Fauxth's fake SAML IdP (AuthnRequest by HTTP-Redirect, the Response posted to /saml2/idpresponse), the federated user named
and mapped as Cognito does it, and the checks a bad answer fails."""
import base64
import urllib.parse
import zlib

import requests
from lxml import etree

from conftest import COGNITO_CLIENT, COGNITO_POOL, Forms, query
from test_cognito_federation import exchange, pkce

REDIRECT = "http://localhost:3000/callback"
EMAIL_CLAIM = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"


def saml_provider(cognito, name="AcmeSAML", **details):
    """A fake SAML IdP `acme` with one account, registered in the seed pool and offered by its client."""
    idp = cognito.fauxth.control("POST", "/idp", json={"id": "acme", "kind": "saml", "name": "Acme SSO", "accounts": [
        {"sub": "acme-0001", "email": "sam@acme.test", "name": "Sam Acme", "department": "Engineering"}]})
    assert idp.status_code == 201, idp.text
    cognito.idp.create_identity_provider(
        UserPoolId=COGNITO_POOL, ProviderName=name, ProviderType="SAML",
        ProviderDetails={"MetadataURL": idp.json()["metadata_url"], **details},
        AttributeMapping={"email": EMAIL_CLAIM, "name": "name"})
    client = cognito.idp.describe_user_pool_client(UserPoolId=COGNITO_POOL, ClientId=COGNITO_CLIENT)["UserPoolClient"]
    update = {k: client[k] for k in ("CallbackURLs", "AllowedOAuthFlows", "AllowedOAuthScopes", "AllowedOAuthFlowsUserPoolClient",
                                     "ExplicitAuthFlows", "LogoutURLs") if k in client}
    cognito.idp.update_user_pool_client(UserPoolId=COGNITO_POOL, ClientId=COGNITO_CLIENT,
                                        SupportedIdentityProviders=client["SupportedIdentityProviders"] + [name], **update)
    return idp.json()


def saml_sign_in(cognito, choice=("account", "acme-0001"), provider="AcmeSAML"):
    verifier, challenge = pkce()
    browser = requests.Session()
    started = browser.get(f"{cognito.url}/oauth2/authorize", allow_redirects=False, timeout=30, params={
        "response_type": "code", "client_id": COGNITO_CLIENT, "redirect_uri": REDIRECT, "state": "app-state", "scope": "openid email profile",
        "identity_provider": provider, "code_challenge": challenge, "code_challenge_method": "S256"})
    assert started.status_code == 302, started.text
    idp_url = started.headers["Location"]
    request = etree.fromstring(zlib.decompress(base64.b64decode(query(idp_url)["SAMLRequest"]), -15))
    assert request.find("{urn:oasis:names:tc:SAML:2.0:assertion}Issuer").text == f"urn:amazon:cognito:sp:{COGNITO_POOL}"
    assert request.get("AssertionConsumerServiceURL") == f"{cognito.url}/saml2/idpresponse"
    page = browser.get(idp_url, timeout=30)
    form = next(f for f in Forms(page.text).forms if choice in f["buttons"])
    answer = browser.post(urllib.parse.urljoin(idp_url, form["action"]), data={**form["fields"], choice[0]: choice[1]},
                          allow_redirects=False, timeout=30)
    [posting] = Forms(answer.text).forms
    assert posting["action"] == f"{cognito.url}/saml2/idpresponse"
    back = browser.post(posting["action"], data=posting["fields"], allow_redirects=False, timeout=30)
    return back, verifier, posting, browser


def test_saml_sign_in_makes_a_federated_user_named_and_mapped_as_cognito_does(cognito):
    saml_provider(cognito)
    described = cognito.idp.describe_identity_provider(UserPoolId=COGNITO_POOL, ProviderName="AcmeSAML")["IdentityProvider"]
    assert described["ProviderType"] == "SAML"
    back, verifier, posting, browser = saml_sign_in(cognito)
    assert back.status_code == 302, back.text
    location = back.headers["Location"]
    assert location.startswith(REDIRECT + "?") and query(location)["state"] == "app-state"
    identity = cognito.verify(exchange(cognito, location, verifier)["id_token"], "id")
    assert identity["cognito:username"] == "acmesaml_sam@acme.test"
    assert identity["email"] == "sam@acme.test" and identity["name"] == "Sam Acme"
    [linked] = identity["identities"]
    assert (linked["providerName"], linked["providerType"], linked["userId"]) == ("AcmeSAML", "SAML", "sam@acme.test")
    user = cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="acmesaml_sam@acme.test")
    assert user["UserStatus"] == "EXTERNAL_PROVIDER"
    # The same answer again: its relay state is spent, so the person is told to start over.
    replay = browser.post(posting["action"], data=posting["fields"], allow_redirects=False, timeout=30)
    assert replay.status_code == 400 and "expired or was already used" in replay.text


def test_a_bad_answer_goes_back_to_the_app_as_an_error(cognito):
    saml_provider(cognito)
    for failure, reason in [("wrong_audience", "meant for"), ("bad_signature", "digest"), ("access_denied", "AuthnFailed")]:
        back, _, _, _ = saml_sign_in(cognito, choice=("error", failure))
        assert back.status_code == 302, back.text
        answer = query(back.headers["Location"])
        assert answer["error"] == "invalid_request" and answer["state"] == "app-state"
        assert reason.lower() in answer["error_description"].lower(), answer["error_description"]


def test_create_identity_provider_checks_saml_metadata(cognito):
    bad = cognito.fails("create_identity_provider", UserPoolId=COGNITO_POOL, ProviderName="Broken", ProviderType="SAML",
                        ProviderDetails={"MetadataFile": "<not-metadata/>"})
    assert bad["Code"] == "InvalidParameterException"
    none = cognito.fails("create_identity_provider", UserPoolId=COGNITO_POOL, ProviderName="Broken", ProviderType="SAML",
                         ProviderDetails={})
    assert none["Code"] == "InvalidParameterException"
    plain = cognito.fails("create_identity_provider", UserPoolId=COGNITO_POOL, ProviderName="Broken", ProviderType="SAML",
                          ProviderDetails={"MetadataURL": "http://idp.example/metadata"})
    assert plain["Code"] == "InvalidParameterException"
    # A MetadataFile is as good as a URL.
    idp = cognito.fauxth.control("POST", "/idp", json={"id": "globex", "kind": "saml"}).json()
    metadata = requests.get(idp["metadata_url"], timeout=30).text
    cognito.idp.create_identity_provider(UserPoolId=COGNITO_POOL, ProviderName="Globex", ProviderType="SAML",
                                         ProviderDetails={"MetadataFile": metadata})


def idp_initiated(cognito, idp, relay_state, account="acme-0001"):
    """A sign-in started on the IdP's side (its app tile): the fake IdP's answer, posted unasked to /saml2/idpresponse
    with `relay_state` as its RelayState; the answer and what was posted."""
    page = requests.get(idp["metadata_url"].replace("/metadata", "/sso"), timeout=30, params={
        "acs": f"{cognito.url}/saml2/idpresponse", "audience": f"urn:amazon:cognito:sp:{COGNITO_POOL}",
        "RelayState": relay_state, "fauxth_account": account})
    [posting] = Forms(page.text).forms
    assert posting["action"] == f"{cognito.url}/saml2/idpresponse"
    return requests.post(posting["action"], data=posting["fields"], allow_redirects=False, timeout=30), posting


def test_idp_initiated_sign_in_is_for_providers_with_idpinit_on_clients_that_only_federate_with_saml(cognito):
    idp = saml_provider(cognito)
    details = {"MetadataURL": idp["metadata_url"], "IDPInit": "true"}
    relay_state = urllib.parse.urlencode({"identity_provider": "AcmeSAML", "client_id": COGNITO_CLIENT, "redirect_uri": REDIRECT,
                                          "response_type": "code", "scope": "openid email"})
    # Before IDPInit, an unasked answer is refused, back to the app.
    back, _ = idp_initiated(cognito, idp, relay_state)
    assert back.status_code == 302 and back.headers["Location"].startswith(REDIRECT + "?"), back.text
    assert query(back.headers["Location"])["error_description"] == "Invalid samlResponse or relayState from identity provider"
    # The seed's client also signs the pool's own users in (COGNITO), which IdP-initiated sign-in rules out (AWS).
    refused = cognito.fails("update_identity_provider", UserPoolId=COGNITO_POOL, ProviderName="AcmeSAML", ProviderDetails=details)
    assert refused["Code"] == "InvalidParameterException" and "COGNITO" in refused["Message"]
    client = cognito.idp.describe_user_pool_client(UserPoolId=COGNITO_POOL, ClientId=COGNITO_CLIENT)["UserPoolClient"]
    kept = {k: client[k] for k in ("CallbackURLs", "AllowedOAuthFlows", "AllowedOAuthScopes", "AllowedOAuthFlowsUserPoolClient",
                                   "ExplicitAuthFlows", "LogoutURLs") if k in client}
    cognito.idp.update_user_pool_client(UserPoolId=COGNITO_POOL, ClientId=COGNITO_CLIENT, SupportedIdentityProviders=["AcmeSAML"], **kept)
    cognito.idp.update_identity_provider(UserPoolId=COGNITO_POOL, ProviderName="AcmeSAML", ProviderDetails=details)
    described = cognito.idp.describe_identity_provider(UserPoolId=COGNITO_POOL, ProviderName="AcmeSAML")["IdentityProvider"]
    assert described["ProviderDetails"]["IDPInit"] == "true"
    back_again = cognito.fails("update_user_pool_client", UserPoolId=COGNITO_POOL, ClientId=COGNITO_CLIENT,
                               SupportedIdentityProviders=["AcmeSAML", "COGNITO"], **kept)
    assert back_again["Code"] == "InvalidParameterException"

    # Now the IdP's tile signs in: a code on the callback (no PKCE, as the app never asked), tokens for the federated user.
    back, posting = idp_initiated(cognito, idp, relay_state + "&state=from-the-tile")
    assert back.status_code == 302, back.text
    location = back.headers["Location"]
    assert location.startswith(REDIRECT + "?") and query(location)["state"] == "from-the-tile"
    identity = cognito.verify(exchange(cognito, location, None)["id_token"], "id")
    assert identity["cognito:username"] == "acmesaml_sam@acme.test" and identity["email"] == "sam@acme.test"
    # The same assertion twice is a replay.
    replay = requests.post(posting["action"], data=posting["fields"], allow_redirects=False, timeout=30)
    assert "already used" in query(replay.headers["Location"])["error_description"]
    # The RelayState is what /oauth2/authorize would check: a callback the client does not list sends the browser to the
    # domain's error page, as /oauth2/authorize does, never to the callback.
    outside, _ = idp_initiated(cognito, idp, relay_state.replace(urllib.parse.quote_plus(REDIRECT), urllib.parse.quote_plus("https://evil.example/")))
    assert outside.status_code == 302 and outside.headers["Location"].startswith("/error?error=redirect_mismatch&client_id=")
    shown = requests.get(urllib.parse.urljoin(cognito.url, outside.headers["Location"]), timeout=30)
    assert shown.status_code == 400 and "An error was encountered with the requested page." in shown.text
    # No RelayState at all: AWS requires one.
    bare, _ = idp_initiated(cognito, idp, "")
    assert bare.status_code == 400 and "Invalid samlResponse or relayState" in bare.text
