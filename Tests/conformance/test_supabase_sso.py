"""Supabase SAML single sign-on against Fauxth's fake SAML identity provider: the admin SSO provider API (raw REST, as the
Supabase CLI and dashboards send it; supabase-py has no admin SSO methods), supabase-py's sign_in_with_sso in the implicit
and PKCE flows, the ACS's checks (signature, audience, time window, InResponseTo, replay, relay state), SSO accounts
beside ordinary ones with the same email, IdP-initiated sign-in, and interoperability with an independent XML-DSig
implementation (signxml) in both directions."""
import base64
import datetime
import urllib.parse

import jwt
import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from lxml import etree
from signxml import XMLSigner, XMLVerifier, methods
from supabase import ClientOptions, create_client

from conftest import Forms, query
from test_supabase_admin import SERVICE_ROLE_KEY
from test_supabase_slice import ANON_KEY

SITE = "http://localhost:3000"
APP = "http://localhost:3000/welcome"
ENV = {"GOTRUE_SAML_ENABLED": "true", "GOTRUE_SITE_URL": SITE}
SAML = "urn:oasis:names:tc:SAML:2.0:assertion"
SAMLP = "urn:oasis:names:tc:SAML:2.0:protocol"
DS = "http://www.w3.org/2000/09/xmldsig#"


@pytest.fixture
def sso(supabase_project):
    """A project with SAML on, a fake SAML IdP `acme` with one account, and that IdP registered as an SSO provider."""
    fauxth = supabase_project(ENV, [{"email": "sam@acme.test", "password": "ordinary-pass-1", "email_verified": True}])
    created = fauxth.control("POST", "/idp", json={"id": "acme", "kind": "saml", "name": "Acme SSO", "accounts": [
        {"sub": "acme-0001", "email": "sam@acme.test", "name": "Sam Acme", "given_name": "Sam", "family_name": "Acme",
         "department": "Engineering", "groups": ["staff", "admins"]}]})
    assert created.status_code == 201, created.text
    fauxth.idp = created.json()
    provider = admin(fauxth, "POST", "/sso/providers", json={
        "type": "saml", "metadata_url": fauxth.idp["metadata_url"], "domains": ["acme.test"],
        "attribute_mapping": {"keys": {"name": {"name": "name"}, "department": {"name": "department"},
                                       "groups": {"name": "groups", "array": True}, "tier": {"name": "tier", "default": "free"}}}})
    assert provider.status_code == 201, provider.text
    fauxth.provider = provider.json()
    return fauxth


def admin(fauxth, method, path, **kwargs):
    return requests.request(method, f"{fauxth.url}/auth/v1/admin{path}", timeout=30,
                            headers={"apikey": SERVICE_ROLE_KEY, "Authorization": f"Bearer {SERVICE_ROLE_KEY}"}, **kwargs)


def client(fauxth, flow="implicit"):
    return create_client(fauxth.url, ANON_KEY, options=ClientOptions(flow_type=flow, auto_refresh_token=False, persist_session=False)).auth


def idp_answer(browser, idp_url, account="acme-0001", error=None):
    """The person at the IdP: the account picker, one button. Returns the auto-posting form (the SAMLResponse to the ACS)."""
    page = browser.get(idp_url, timeout=30)
    assert page.status_code == 200, page.text
    forms = Forms(page.text).forms
    if error:
        form = next(f for f in forms if ("error", error) in f["buttons"])
        data = {**form["fields"], "error": error}
    else:
        form = next(f for f in forms if ("account", account) in f["buttons"])
        data = {**form["fields"], "account": account}
    answer = browser.post(urllib.parse.urljoin(idp_url, form["action"]), data=data, allow_redirects=False, timeout=30)
    assert answer.status_code == 200, answer.text
    [posting] = Forms(answer.text).forms
    return posting


def to_acs(browser, posting):
    back = browser.post(posting["action"], data=posting["fields"], allow_redirects=False, timeout=30)
    assert back.status_code in (302, 303), back.text
    return back.headers["Location"]


def fragment(location):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).fragment))


def sign_in(fauxth, **options):
    started = client(fauxth).sign_in_with_sso({"domain": "acme.test", "options": {"redirect_to": APP, **options}})
    browser = requests.Session()
    posting = idp_answer(browser, started.url)
    return browser, posting


def test_off_by_default(fauxth):
    response = requests.post(f"{fauxth.url}/auth/v1/sso", json={"domain": "acme.test"}, headers={"apikey": ANON_KEY}, timeout=30)
    assert response.status_code == 404 and response.json()["error_code"] == "saml_provider_disabled"
    assert requests.get(f"{fauxth.url}/auth/v1/settings", headers={"apikey": ANON_KEY}, timeout=30).json()["saml_enabled"] is False


def test_admin_sso_provider_api(sso):
    fauxth, provider = sso, sso.provider
    assert provider["saml"]["entity_id"] == "urn:fauxth:idp:saml:acme" and provider["domains"] == [{"domain": "acme.test"}]
    assert "<md:EntityDescriptor" in provider["saml"]["metadata_xml"] and provider["disabled"] is None
    listed = admin(fauxth, "GET", "/sso/providers").json()["items"]
    assert [p["id"] for p in listed] == [provider["id"]] and "metadata_xml" not in listed[0]["saml"]
    updated = admin(fauxth, "PUT", f"/sso/providers/{provider['id']}", json={"domains": ["acme.test", "acme.example"], "resource_id": "acme"})
    assert updated.status_code == 200 and [d["domain"] for d in updated.json()["domains"]] == ["acme.test", "acme.example"]
    assert admin(fauxth, "GET", "/sso/providers/resource_acme").json()["id"] == provider["id"]
    # Another provider may take neither the entity id nor a domain.
    again = admin(fauxth, "POST", "/sso/providers", json={"type": "saml", "metadata_xml": provider["saml"]["metadata_xml"]})
    assert again.status_code == 422 and again.json()["error_code"] == "saml_idp_already_exists"
    other = fauxth.control("POST", "/idp", json={"id": "globex", "kind": "saml"}).json()
    taken = admin(fauxth, "POST", "/sso/providers", json={"type": "saml", "metadata_url": other["metadata_url"], "domains": ["acme.test"]})
    assert taken.status_code == 400 and taken.json()["error_code"] == "sso_domain_already_exists"
    # Domains are GoTrue's: kept as written, matched exactly at /sso, unique whatever their case.
    shouted = admin(fauxth, "POST", "/sso/providers", json={"type": "saml", "metadata_url": other["metadata_url"], "domains": ["ACME.test"]})
    assert shouted.status_code == 400 and shouted.json()["error_code"] == "sso_domain_already_exists"
    globex = admin(fauxth, "POST", "/sso/providers", json={"type": "saml", "metadata_url": other["metadata_url"], "domains": ["Globex.test"]})
    assert globex.status_code == 201 and globex.json()["domains"] == [{"domain": "Globex.test"}]
    exact = requests.post(f"{fauxth.url}/auth/v1/sso", json={"domain": "globex.test"}, headers={"apikey": ANON_KEY}, timeout=30)
    assert exact.status_code == 404 and exact.json()["error_code"] == "sso_provider_not_found"
    moved = admin(fauxth, "PUT", f"/sso/providers/{globex.json()['id']}", json={"domains": ["Globex.test", "acme.test"]})
    assert moved.status_code == 400 and moved.json()["msg"] == f"SSO domain 'acme.test' already assigned to another provider ({provider['id']})"
    assert admin(fauxth, "DELETE", f"/sso/providers/{globex.json()['id']}").status_code == 200
    bad = admin(fauxth, "POST", "/sso/providers", json={"type": "saml", "metadata_xml": "<not-metadata/>"})
    assert bad.status_code == 400 and bad.json()["error_code"] == "validation_failed"
    outside = admin(fauxth, "POST", "/sso/providers", json={"type": "saml", "metadata_url": "http://idp.example/metadata"})
    assert outside.status_code == 400 and outside.json()["msg"] == "metadata_url is not a HTTPS URL"
    mismatch = admin(fauxth, "PUT", f"/sso/providers/{provider['id']}", json={"metadata_url": other["metadata_url"]})
    assert mismatch.status_code == 400 and mismatch.json()["error_code"] == "saml_entity_id_mismatch"
    assert admin(fauxth, "GET", "/sso/providers/not-a-uuid").json()["error_code"] == "sso_provider_not_found"
    # POST /sso decodes provider_id as a gofrs UUID, so a bad one is the JSON decoder's refusal in gofrs's words.
    unparsed = requests.post(f"{fauxth.url}/auth/v1/sso", json={"provider_id": "not-a-uuid"}, headers={"apikey": ANON_KEY}, timeout=30)
    assert unparsed.status_code == 400 and unparsed.json()["error_code"] == "bad_json"
    assert unparsed.json()["msg"] == 'Could not parse request body as JSON: uuid: incorrect UUID length 10 in string "not-a-uuid"'
    assert requests.get(f"{fauxth.url}/auth/v1/admin/sso/providers", headers={"apikey": ANON_KEY, "Authorization": f"Bearer {ANON_KEY}"},
                        timeout=30).status_code == 403
    assert admin(fauxth, "DELETE", f"/sso/providers/{provider['id']}").status_code == 200
    assert admin(fauxth, "GET", f"/sso/providers/{provider['id']}").status_code == 404


def test_sign_in_with_sso_implicit_flow(sso):
    fauxth = sso
    browser, posting = sign_in(fauxth)
    assert posting["action"] == f"{fauxth.url}/auth/v1/sso/saml/acs" and posting["fields"]["RelayState"]
    location = to_acs(browser, posting)
    assert location.startswith(APP + "#")
    session = fragment(location)
    claims = jwt.decode(session["access_token"], options={"verify_signature": False})
    assert claims["email"] == "sam@acme.test" and claims["amr"][0]["method"] == "sso/saml"
    user = client(fauxth).get_user(session["access_token"]).user
    # GoTrue's user JSON has no is_sso_user (its model's `json:"-"`); the account shows as its sso: provider.
    raw = requests.get(f"{fauxth.url}/auth/v1/user", timeout=30, headers={"apikey": ANON_KEY, "Authorization": f"Bearer {session['access_token']}"})
    assert raw.status_code == 200 and "is_sso_user" not in raw.json()
    [identity] = user.identities
    # /sso asks for a persistent NameID, so the subject is the IdP's stable id, not the email.
    assert identity.provider == f"sso:{fauxth.provider['id']}" and identity.id == "acme-0001"
    data = identity.identity_data
    assert data["iss"] == "urn:fauxth:idp:saml:acme" and data["email_verified"] is True and data["name"] == "Sam Acme"
    assert data["custom_claims"] == {"department": "Engineering", "groups": ["staff", "admins"], "tier": "free"}
    assert user.app_metadata["provider"] == f"sso:{fauxth.provider['id']}"
    # The SSO account is its own: the ordinary account with the same email still signs in with its password.
    ordinary = client(fauxth).sign_in_with_password({"email": "sam@acme.test", "password": "ordinary-pass-1"}).user
    assert ordinary.id != user.id and ordinary.app_metadata["provider"] == "email"
    # A second sign-in finds the same SSO account.
    browser, posting = sign_in(fauxth)
    again = to_acs(browser, posting)
    assert client(fauxth).get_user(fragment(again)["access_token"]).user.id == user.id
    # AsRedirectURL's fragment carries the `sb` marker supabase-js looks for (Fauxth's SAML redirect lacked it).
    assert "sb" in urllib.parse.parse_qs(urllib.parse.urlsplit(again).fragment, keep_blank_values=True)
    # The identity provider owns the SSO account's credentials (GoTrue's UserUpdate).
    refused = requests.put(f"{fauxth.url}/auth/v1/user", json={"password": "another-pass-1"}, timeout=30,
                           headers={"apikey": ANON_KEY, "Authorization": f"Bearer {session['access_token']}", "X-Supabase-Api-Version": "2024-01-01"})
    assert refused.status_code == 422 and refused.json() == {
        "code": "user_sso_managed", "message": "Updating email, phone, password of a SSO account only possible via SSO"}


def test_an_sso_identity_always_has_custom_claims(supabase_project):
    """GoTrue's attribute mapping answers an empty map, never nil, so identity_data and user_metadata carry
    "custom_claims": {} even when nothing was mapped beyond the standard claims."""
    fauxth = supabase_project(ENV)
    idp = fauxth.control("POST", "/idp", json={"id": "plain", "kind": "saml", "accounts": [{"sub": "p-1", "email": "pat@plain.test"}]}).json()
    assert admin(fauxth, "POST", "/sso/providers", json={"type": "saml", "metadata_url": idp["metadata_url"],
                                                          "domains": ["plain.test"]}).status_code == 201
    started = client(fauxth).sign_in_with_sso({"domain": "plain.test", "options": {"redirect_to": APP}})
    browser = requests.Session()
    location = to_acs(browser, idp_answer(browser, started.url, account="p-1"))
    user = client(fauxth).get_user(fragment(location)["access_token"]).user
    assert user.user_metadata["custom_claims"] == {} and user.identities[0].identity_data["custom_claims"] == {}


def test_sign_in_with_sso_pkce_flow(sso):
    fauxth = sso
    auth = client(fauxth, flow="pkce")
    started = auth.sign_in_with_sso({"provider_id": sso.provider["id"], "options": {"redirect_to": APP}})
    browser = requests.Session()
    location = to_acs(browser, idp_answer(browser, started.url))
    assert location.startswith(APP + "?code=")
    session = auth.exchange_code_for_session({"auth_code": query(location)["code"], "redirect_to": APP}).session
    assert session.user.email == "sam@acme.test" and session.user.app_metadata["provider"] == f"sso:{sso.provider['id']}"


def test_a_tester_signs_in_on_the_idp_page_in_chromium(sso, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    started = client(sso).sign_in_with_sso({"domain": "acme.test", "options": {"redirect_to": APP}})
    browser.get(started.url)
    wait = WebDriverWait(browser, 15)
    button = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, 'button[name="account"][value="acme-0001"]')))
    assert "Sign in with Acme SSO" in browser.title
    button.click()
    # The IdP's page posts the answer to the ACS by itself; nothing listens on the app's port, but the browser's
    # failed navigation still shows where it was sent.
    wait.until(lambda driver: driver.current_url.startswith(APP))
    session = fragment(browser.current_url)
    assert client(sso).get_user(session["access_token"]).user.email == "sam@acme.test"


def test_the_authn_request_and_the_idp_answer_verify_with_signxml(sso):
    fauxth = sso
    started = client(fauxth).sign_in_with_sso({"domain": "acme.test"})
    request = etree.fromstring(__import__("zlib").decompress(base64.b64decode(query(started.url)["SAMLRequest"]), -15))
    assert request.tag == f"{{{SAMLP}}}AuthnRequest"
    assert request.get("AssertionConsumerServiceURL") == f"{fauxth.url}/auth/v1/sso/saml/acs"
    assert request.find(f"{{{SAML}}}Issuer").text == f"{fauxth.url}/auth/v1/sso/saml/metadata"
    posting = idp_answer(requests.Session(), started.url)
    response = base64.b64decode(posting["fields"]["SAMLResponse"])
    metadata = etree.fromstring(requests.get(fauxth.idp["metadata_url"], timeout=30).content)
    certificate = metadata.find(f".//{{{DS}}}X509Certificate").text.strip()
    verified = XMLVerifier().verify(response, x509_cert=certificate, expect_references=1).signed_xml
    assert verified.tag == f"{{{SAML}}}Assertion" and verified.get("ID") == etree.fromstring(response).find(f"{{{SAML}}}Assertion").get("ID")
    assert verified.find(f".//{{{SAML}}}SubjectConfirmationData").get("InResponseTo") == request.get("ID")


@pytest.mark.parametrize("failure,reason", [
    ("expired", "expired"), ("wrong_audience", "meant for"), ("bad_signature", "digest"), ("unsigned", "signed"),
    ("access_denied", "AuthnFailed"),
])
def test_the_acs_refuses_what_a_service_provider_must_refuse(sso, failure, reason):
    fauxth = sso
    started = client(fauxth).sign_in_with_sso({"domain": "acme.test", "options": {"redirect_to": APP}})
    browser = requests.Session()
    location = to_acs(browser, idp_answer(browser, started.url, error=failure))
    # Every failure goes back to the site URL, as GoTrue sends it.
    assert location.startswith(SITE + "?")
    answer = query(location)
    assert answer["error"] == "invalid_request" and answer["error_code"] == "validation_failed"
    assert reason.lower() in answer["error_description"].lower(), answer["error_description"]


def test_an_answer_is_good_once_and_a_relay_state_expires(sso):
    fauxth = sso
    browser, posting = sign_in(fauxth)
    assert "access_token" in fragment(to_acs(browser, posting))
    # The same answer again: its relay state is spent.
    replay = query(to_acs(browser, posting))
    assert replay["error_code"] == "saml_relay_state_not_found" and replay["error"] == "server_error"
    # IdP-initiated replay of the same assertion (no relay state): the assertion id was already used.
    unsolicited = query(to_acs(browser, {"action": posting["action"], "fields": {"SAMLResponse": posting["fields"]["SAMLResponse"]}}))
    assert unsolicited["error_code"] == "validation_failed"
    # A relay state older than GOTRUE_SAML_RELAY_STATE_VALIDITY_PERIOD (2 minutes).
    assert fauxth.control("POST", "/clock/freeze").status_code == 200
    browser, posting = sign_in(fauxth)
    assert fauxth.control("POST", "/clock/advance", json={"seconds": 121}).status_code == 200
    assert query(to_acs(browser, posting))["error_code"] == "saml_relay_state_expired"


def test_idp_initiated_sign_in(sso):
    fauxth = sso
    params = {"acs": f"{fauxth.url}/auth/v1/sso/saml/acs", "audience": f"{fauxth.url}/auth/v1/sso/saml/metadata", "RelayState": APP,
              "fauxth_account": "sam@acme.test"}
    browser = requests.Session()
    answer = browser.get(fauxth.idp["sso_url"], params=params, timeout=30)
    [posting] = Forms(answer.text).forms
    assert posting["fields"]["RelayState"] == APP
    location = to_acs(browser, posting)
    assert location.startswith(APP + "#") and "access_token" in fragment(location)


def self_signed():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "independent idp")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
    return key, certificate


def independent_response(fauxth, key, certificate, acs, audience, subject="kim@independent.test"):
    """A Response whose assertion signxml signed (exclusive c14n, RSA-SHA256), as another IdP's library would."""
    now = fauxth.now().astimezone(datetime.timezone.utc)
    fmt = lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    assertion = etree.fromstring(f"""
<saml:Assertion xmlns:saml="{SAML}" ID="_a1b2c3" Version="2.0" IssueInstant="{fmt(now)}"><saml:Issuer>https://independent.test/idp</saml:Issuer>
<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">{subject}</saml:NameID>
<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="{fmt(now + datetime.timedelta(minutes=5))}" Recipient="{acs}"/></saml:SubjectConfirmation></saml:Subject>
<saml:Conditions NotBefore="{fmt(now - datetime.timedelta(minutes=1))}" NotOnOrAfter="{fmt(now + datetime.timedelta(minutes=5))}"><saml:AudienceRestriction><saml:Audience>{audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>
<saml:AuthnStatement AuthnInstant="{fmt(now)}" SessionIndex="_s1"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>
</saml:Assertion>""")
    signed = XMLSigner(method=methods.enveloped, signature_algorithm="rsa-sha256", digest_algorithm="sha256",
                       c14n_algorithm="http://www.w3.org/2001/10/xml-exc-c14n#").sign(
        assertion, key=key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
        cert=certificate.public_bytes(serialization.Encoding.PEM).decode(), reference_uri="_a1b2c3")
    # SAML puts the signature right after the Issuer.
    signature = signed.find(f"{{{DS}}}Signature")
    signed.remove(signature)
    signed.insert(1, signature)
    response = etree.fromstring(f"""<samlp:Response xmlns:samlp="{SAMLP}" xmlns:saml="{SAML}" ID="_r1" Version="2.0" IssueInstant="{fmt(now)}" Destination="{acs}"><saml:Issuer>https://independent.test/idp</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:Response>""")
    response.append(signed)
    return base64.b64encode(etree.tostring(response)).decode()


def test_an_assertion_signed_by_another_implementation_is_accepted_and_a_changed_one_refused(sso):
    fauxth = sso
    key, certificate = self_signed()
    der = base64.b64encode(certificate.public_bytes(serialization.Encoding.DER)).decode()
    metadata = f"""<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://independent.test/idp">
<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="{DS}"><ds:X509Data><ds:X509Certificate>{der}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://independent.test/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>"""
    assert admin(fauxth, "POST", "/sso/providers", json={"type": "saml", "metadata_xml": metadata}).status_code == 201
    acs, audience = f"{fauxth.url}/auth/v1/sso/saml/acs", f"{fauxth.url}/auth/v1/sso/saml/metadata"
    encoded = independent_response(fauxth, key, certificate, acs, audience)
    location = to_acs(requests.Session(), {"action": acs, "fields": {"SAMLResponse": encoded, "RelayState": APP}})
    assert location.startswith(APP + "#"), location
    assert client(fauxth).get_user(fragment(location)["access_token"]).user.email == "kim@independent.test"
    tampered = base64.b64encode(base64.b64decode(independent_response(fauxth, key, certificate, acs, audience))
                                .replace(b"kim@independent.test", b"boss@independent.test")).decode()
    refused = query(to_acs(requests.Session(), {"action": acs, "fields": {"SAMLResponse": tampered, "RelayState": APP}}))
    assert refused["error_code"] == "validation_failed" and "digest" in refused["error_description"].lower()
    # Signed by a key the provider's metadata does not have.
    stranger, stranger_certificate = self_signed()
    refused = query(to_acs(requests.Session(), {"action": acs, "fields": {
        "SAMLResponse": independent_response(fauxth, stranger, stranger_certificate, acs, audience, "eve@independent.test"), "RelayState": APP}}))
    assert refused["error_code"] == "validation_failed" and "signature" in refused["error_description"].lower()


def test_sp_metadata(sso):
    response = requests.get(f"{sso.url}/auth/v1/sso/saml/metadata", params={"download": "true"}, timeout=30)
    assert response.status_code == 200 and response.headers["Content-Disposition"] == 'attachment; filename="metadata.xml"'
    metadata = etree.fromstring(response.content)
    assert metadata.get("entityID") == f"{sso.url}/auth/v1/sso/saml/metadata"
    acs = metadata.find(".//{urn:oasis:names:tc:SAML:2.0:metadata}AssertionConsumerService")
    assert acs.get("Location") == f"{sso.url}/auth/v1/sso/saml/acs"


HOSTILE_XML = [
    b"", b"not xml at all", b"<samlp:Response", b"\xff\xfe<a/>",
    b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>',
    b'<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><l>&b;</l>',
    b"<a>" * 20_000 + b"</a>" * 20_000,
    b'<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="r" Version="2.0"><x:y/></samlp:Response>',
    f'<samlp:Response xmlns:samlp="{SAMLP}" xmlns:saml="{SAML}" ID="r" Version="2.0"><saml:Issuer>urn:fauxth:idp:saml:acme</saml:Issuer>'
    f'<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>'
    f'<saml:Assertion ID="r" Version="2.0"/><saml:Assertion ID="a" Version="2.0"/></samlp:Response>'.encode(),
    b"<r>" + b"&#x1F600;" * 50_000 + b"</r>",
]


def test_hostile_saml_gets_a_clear_refusal_never_a_5xx(sso):
    """What an attacker can post to an ACS or hand an IdP: malformed and hostile XML (DTDs, entity expansion, deep
    nesting, duplicate ids), garbage base64, and a deflate bomb. Every answer is a redirect with an error or a 4xx."""
    fauxth = sso
    acs = f"{fauxth.url}/auth/v1/sso/saml/acs"
    for xml in HOSTILE_XML:
        for relay in ("", APP, "00000000-0000-4000-8000-000000000000", "%ff\x00"):
            answer = requests.post(acs, data={"SAMLResponse": base64.b64encode(xml).decode(), "RelayState": relay}, allow_redirects=False, timeout=30)
            assert answer.status_code in (302, 303) and "error=" in answer.headers["Location"], (xml[:60], relay, answer.status_code, answer.text[:200])
    for garbage in ("%%%", "A" * 3, "=" * 10, "\u00ff" * 100):
        answer = requests.post(acs, data={"SAMLResponse": garbage}, allow_redirects=False, timeout=30)
        assert answer.status_code in (302, 303) and "error=" in answer.headers["Location"]
    # A deflated SAMLRequest that would inflate to 64 MB, and other garbage, at the IdP: a 4xx page.
    import zlib
    squeezer = zlib.compressobj(9, zlib.DEFLATED, -15)
    bomb = squeezer.compress(b"\0" * (64 << 20)) + squeezer.flush()
    for request in (base64.b64encode(bomb).decode(), "%ff", base64.b64encode(b"\x00" * 100).decode(),
                    base64.b64encode(zlib.compress(HOSTILE_XML[4])[2:-4]).decode()):
        answer = requests.get(fauxth.idp["sso_url"], params={"SAMLRequest": request}, timeout=30)
        assert 400 <= answer.status_code < 500, (request[:40], answer.status_code)
        answer = requests.post(fauxth.idp["sso_url"], data={"SAMLRequest": request}, timeout=30)
        assert 400 <= answer.status_code < 500
    assert requests.get(f"{fauxth.url}/auth/v1/health", timeout=30).status_code == 200


def test_gotrues_per_client_limiters_for_sso_saml_passkeys_and_client_registration(supabase_project):
    """GOTRUE_RATE_LIMIT_SSO, GOTRUE_SAML_RATE_LIMIT_ASSERTION, GOTRUE_RATE_LIMIT_PASSKEY and
    GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER, counted per client as GOTRUE_RATE_LIMIT_HEADER names them."""
    fauxth = supabase_project({**ENV, "GOTRUE_RATE_LIMIT_HEADER": "X-Client", "GOTRUE_RATE_LIMIT_SSO": "2", "GOTRUE_SAML_RATE_LIMIT_ASSERTION": "2",
                               "GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_RATE_LIMIT_PASSKEY": "2", "GOTRUE_OAUTH_SERVER_ENABLED": "true",
                               "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true", "GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER": "2"})
    routes = [("sso", {"domain": "nobody.test"}), ("sso/saml/acs", None), ("passkeys/authentication/options", {}),
              ("oauth/clients/register", {"client_name": "x", "redirect_uris": ["http://localhost:1/cb"]})]
    for path, body in routes:
        def send(client):
            kwargs = {"json": body} if body is not None else {"data": {"SAMLResponse": "x"}}
            return requests.post(f"{fauxth.url}/auth/v1/{path}", headers={"apikey": ANON_KEY, "X-Client": client}, allow_redirects=False,
                                 timeout=30, **kwargs)
        answers = [send("one").status_code for _ in range(3)]
        assert 429 not in answers[:2] and answers[2] == 429, (path, answers)
        refused = send("one")
        assert refused.json()["error_code"] == "over_request_rate_limit" and int(refused.headers["Retry-After"]) > 0
        # Another client is counted on its own.
        assert send("two").status_code != 429, path
