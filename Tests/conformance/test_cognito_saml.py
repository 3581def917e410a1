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
