"""Identity Platform's OIDC and SAML provider configurations through firebase-admin in emulator mode (create, get,
update, list, delete, for the project and for a tenant), the errors its backend names, and a configuration that is
not enabled turning its provider's sign-in off. The Firebase Auth Emulator answers these endpoints 501."""
import urllib.parse
import uuid

import pytest
import requests
from firebase_admin import auth, exceptions, tenant_mgt

from conftest import FIREBASE_PROJECT, firebase_error
from test_firebase_admin import tenant_app  # noqa: F401 (firebase-admin pointed at fauxth for tenants)
from test_firebase_idp import auth_event, follow, handler, sign_in_with

CERTIFICATE = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----"


def unique(prefix):
    return f"{prefix}.test-{uuid.uuid4().hex[:10]}"


def v2(firebase, method, path, **kwargs):
    """A raw admin call under /v2/projects/{project}, as the Admin SDKs send it in emulator mode."""
    return requests.request(method, f"{firebase.url}/identitytoolkit.googleapis.com/v2/projects/{FIREBASE_PROJECT}{path}",
                            headers={"Authorization": "Bearer owner"}, timeout=30, **kwargs)


def test_an_oidc_configuration_is_created_read_updated_and_deleted(firebase, firebase_app):
    provider = unique("oidc")
    created = auth.create_oidc_provider_config(provider, client_id="web-client", issuer="https://issuer.example.com",
                                               display_name="Example", enabled=True, app=firebase_app)
    assert (created.provider_id, created.client_id, created.issuer, created.display_name, created.enabled) == \
        (provider, "web-client", "https://issuer.example.com", "Example", True)
    # No response type asked for: the ID token flow, and no secret.
    assert created.id_token_response_type is True and created.code_response_type is False and created.client_secret is None
    assert created._data["name"] == f"projects/{FIREBASE_PROJECT}/oauthIdpConfigs/{provider}"
    assert auth.get_oidc_provider_config(provider, app=firebase_app)._data == created._data

    with pytest.raises(exceptions.InvalidArgumentError, match="CONFIGURATION_EXISTS"):
        auth.create_oidc_provider_config(provider, client_id="other", issuer="https://issuer.example.com", app=firebase_app)

    updated = auth.update_oidc_provider_config(provider, display_name=auth.DELETE_ATTRIBUTE, enabled=False, client_secret="s3cret",
                                               id_token_response_type=False, code_response_type=True, app=firebase_app)
    assert updated.display_name is None and updated.enabled is False
    assert updated.code_response_type is True and updated.id_token_response_type is False and updated.client_secret == "s3cret"
    assert updated.client_id == "web-client", "fields the update mask leaves out stay"

    auth.delete_oidc_provider_config(provider, app=firebase_app)
    with pytest.raises(auth.ConfigurationNotFoundError):
        auth.get_oidc_provider_config(provider, app=firebase_app)
    with pytest.raises(auth.ConfigurationNotFoundError):
        auth.delete_oidc_provider_config(provider, app=firebase_app)


def test_a_saml_configuration_keeps_both_sides(firebase, firebase_app):
    provider = unique("saml")
    created = auth.create_saml_provider_config(provider, idp_entity_id="https://idp.example.com", sso_url="https://idp.example.com/sso",
                                               x509_certificates=[CERTIFICATE], rp_entity_id="fauxth-sp",
                                               callback_url=f"https://{FIREBASE_PROJECT}.firebaseapp.com/__/auth/handler",
                                               display_name="Corp SSO", enabled=True, app=firebase_app)
    assert (created.idp_entity_id, created.sso_url, created.x509_certificates, created.rp_entity_id) == \
        ("https://idp.example.com", "https://idp.example.com/sso", [CERTIFICATE], "fauxth-sp")
    updated = auth.update_saml_provider_config(provider, sso_url="https://idp.example.com/sso2", app=firebase_app)
    assert updated.sso_url == "https://idp.example.com/sso2" and updated.idp_entity_id == "https://idp.example.com"
    assert [c.provider_id for c in auth.list_saml_provider_configs(app=firebase_app).iterate_all()].count(provider) == 1
    assert provider not in [c.provider_id for c in auth.list_oidc_provider_configs(app=firebase_app).iterate_all()]
    auth.delete_saml_provider_config(provider, app=firebase_app)


def test_a_tenants_configurations_are_its_own_and_list_in_pages_oldest_first(tenant_app):  # noqa: F811
    tenant = tenant_mgt.create_tenant("providers", app=tenant_app)
    client = tenant_mgt.auth_for_tenant(tenant.tenant_id, app=tenant_app)
    made = [client.create_oidc_provider_config(f"oidc.p{i}", client_id=f"client-{i}", issuer="https://issuer.example.com").provider_id
            for i in range(3)]
    first = client.list_oidc_provider_configs(max_results=2)
    assert [c.provider_id for c in first.provider_configs] == made[:2] and first.has_next_page
    assert [c.provider_id for c in first.get_next_page().provider_configs] == made[2:]
    assert [c.provider_id for c in client.list_oidc_provider_configs().iterate_all()] == made
    got = client.get_oidc_provider_config("oidc.p1")
    assert got._data["name"] == f"projects/{FIREBASE_PROJECT}/tenants/{tenant.tenant_id}/oauthIdpConfigs/oidc.p1"
    # The project has none of them.
    project_ids = [c.provider_id for c in auth.list_oidc_provider_configs(app=tenant_app).iterate_all()]
    assert not set(made) & set(project_ids)
    tenant_mgt.delete_tenant(tenant.tenant_id, app=tenant_app)


def test_the_backend_names_what_a_configuration_lacks(firebase):
    checks = [
        ("POST", "/oauthIdpConfigs", {}, {"clientId": "c", "issuer": "https://i.example.com"}, "MISSING_PROVIDER_ID"),
        ("POST", "/oauthIdpConfigs", {"oauthIdpConfigId": "github.com"}, {"clientId": "c", "issuer": "https://i.example.com"}, "INVALID_PROVIDER_ID"),
        ("POST", "/oauthIdpConfigs", {"oauthIdpConfigId": "oidc.no-issuer"}, {"clientId": "c"}, "MISSING_ISSUER"),
        ("POST", "/oauthIdpConfigs", {"oauthIdpConfigId": "oidc.no-client"}, {"issuer": "https://i.example.com"}, "MISSING_OAUTH_CLIENT_ID"),
        ("POST", "/oauthIdpConfigs", {"oauthIdpConfigId": "oidc.bad-issuer"}, {"clientId": "c", "issuer": "not a url"}, "INVALID_CONFIG"),
        ("POST", "/oauthIdpConfigs", {"oauthIdpConfigId": "oidc.no-secret"},
         {"clientId": "c", "issuer": "https://i.example.com", "responseType": {"code": True}}, "INVALID_CONFIG"),
        ("POST", "/inboundSamlConfigs", {"inboundSamlConfigId": "saml.no-sp"},
         {"idpConfig": {"idpEntityId": "e", "ssoUrl": "https://idp.example.com", "idpCertificates": [{"x509Certificate": CERTIFICATE}]}},
         "MISSING_SAML_RELYING_PARTY_CONFIG"),
        ("GET", "/oauthIdpConfigs", {"pageToken": "oidc.never-made"}, None, "INVALID_PAGE_SELECTION"),
    ]
    for method, path, params, body, code in checks:
        answer = v2(firebase, method, path, params=params, json=body)
        assert firebase_error(answer).split(" : ")[0] == code, (path, params, answer.text)
    missing = v2(firebase, "GET", "/oauthIdpConfigs/oidc.never-made")
    assert firebase_error(missing, status=404) == "CONFIGURATION_NOT_FOUND"
    # The Admin API is an administrator's: an API key alone does not reach it.
    anonymous = requests.get(f"{firebase.url}/identitytoolkit.googleapis.com/v2/projects/{FIREBASE_PROJECT}/oauthIdpConfigs",
                             params={"key": firebase.api_key}, timeout=30)
    assert firebase_error(anonymous).startswith("INSUFFICIENT_PERMISSION")


def test_a_configuration_that_is_not_enabled_turns_its_providers_sign_in_off(firebase, firebase_app):
    provider = unique("oidc")
    auth.create_oidc_provider_config(provider, client_id="web-client", issuer="https://issuer.example.com", enabled=False, app=firebase_app)
    body = urllib.parse.urlencode({"providerId": provider, "id_token": '{"sub": "oidc-user-1", "email": "oidc@example.com"}'})
    refused = firebase.call("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": body, "returnSecureToken": True})
    assert firebase_error(refused) == "OPERATION_NOT_ALLOWED : The identity provider configuration is disabled."
    started = firebase.call("accounts:createAuthUri", {"providerId": provider, "continueUri": "http://localhost:3000/after"})
    assert firebase_error(started).startswith("OPERATION_NOT_ALLOWED")
    # The web SDK's redirect through the handler gets the error it would show: auth/operation-not-allowed.
    page = follow(handler(firebase.fauxth, providerId=provider, redirectUrl="http://localhost:3000/after"))
    assert "auth/operation-not-allowed" in page.text

    auth.update_oidc_provider_config(provider, enabled=True, app=firebase_app)
    signed_in = sign_in_with(firebase, "http://localhost", postBody=body)
    assert signed_in["providerId"] == provider and signed_in["email"] == "oidc@example.com"
    auth.delete_oidc_provider_config(provider, app=firebase_app)


def test_a_configurations_issuer_on_this_server_is_where_its_sign_in_goes(firebase, firebase_app):
    # An OIDC configuration whose issuer is one of Fauxth's fake providers: the SDK's redirect goes there, as Identity
    # Platform goes to the configured issuer, and the account picked there signs in under the configuration's id.
    provider = unique("oidc")
    auth.create_oidc_provider_config(provider, client_id="web-client", issuer=f"{firebase.url}/_emu/idp/google", enabled=True,
                                     app=firebase_app)
    started = handler(firebase.fauxth, providerId=provider, redirectUrl="http://localhost:3000/after")
    assert started.status_code == 302 and "/_emu/idp/google/authorize?" in started.headers["Location"]
    firebase.fauxth.control("POST", "/idp/google/next", json={"account": "alice@example.com"})
    event = auth_event(follow(started))["event"]
    assert event["error"] is None
    signed_in = sign_in_with(firebase, event["urlResponse"], sessionId=event["sessionId"])
    assert signed_in["providerId"] == provider and signed_in["email"] == "alice@example.com"
    auth.delete_oidc_provider_config(provider, app=firebase_app)
