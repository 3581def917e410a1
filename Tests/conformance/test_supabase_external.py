"""OAuth entry points, identity linking and the features GoTrue ships off, through supabase-py."""
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from supabase import create_client
from supabase_auth.errors import AuthApiError

from test_supabase_slice import ANON_KEY

GOOGLE = {"GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": "web-client",
          "GOTRUE_EXTERNAL_GOOGLE_SECRET": "shh", "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true",
          "GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_URI_ALLOW_LIST": "myapp://**"}
BOTH = {"email": "both@example.com", "phone": "+15550100077", "password": "secret123",
        "email_verified": True, "phone_verified": True}


def test_sign_in_with_oauth_url_redirects_to_the_provider_and_the_callback_reports_back(supabase_project):
    fauxth = supabase_project(GOOGLE)
    auth = create_client(fauxth.url, ANON_KEY).auth
    oauth = auth.sign_in_with_oauth({"provider": "google", "options": {"redirect_to": "myapp://done"}})
    answer = requests.get(oauth.url, allow_redirects=False, timeout=10)
    assert answer.status_code == 302
    provider = urlparse(answer.headers["location"])
    assert provider.netloc == "accounts.google.com"
    query = parse_qs(provider.query)
    assert query["client_id"] == ["web-client"]
    assert query["redirect_uri"] == [f"{fauxth.url}/auth/v1/callback"]
    # The user cancels at the provider: GoTrue sends the app the provider's error.
    back = requests.get(f"{fauxth.url}/auth/v1/callback", params={"error": "access_denied", "state": query["state"][0]},
                        allow_redirects=False, timeout=10)
    assert back.headers["location"].startswith("myapp://done?error=access_denied")
    links = fauxth.control("GET", "/deeplinks").json()["deeplinks"]
    assert links[0]["params"]["error"] == "access_denied"


def test_a_disabled_provider_is_refused_as_gotrue_refuses_it(fauxth):
    auth = create_client(fauxth.url, ANON_KEY).auth
    url = auth.sign_in_with_oauth({"provider": "github"}).url
    answer = requests.get(url, allow_redirects=False, timeout=10)
    assert answer.status_code == 400
    assert answer.json()["msg"] == "Unsupported provider: provider is not enabled"


def test_link_identity_and_unlink_identity(supabase_project):
    fauxth = supabase_project(GOOGLE, [BOTH])
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "both@example.com", "password": "secret123"})
    link = auth.link_identity({"provider": "google"})
    assert urlparse(link.url).netloc == "accounts.google.com"
    identities = auth.get_user_identities().identities
    assert {i.provider for i in identities} == {"email", "phone"}
    phone = next(i for i in identities if i.provider == "phone")
    auth.unlink_identity(phone)
    user = auth.get_user().user
    assert [i.provider for i in user.identities] == ["email"]
    assert not user.phone
    with pytest.raises(AuthApiError) as error:
        auth.unlink_identity(user.identities[0])
    assert error.value.code == "single_identity_not_deletable"


def test_manual_linking_is_off_by_default(fauxth):
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    with pytest.raises(AuthApiError) as error:
        auth.unlink_identity(auth.get_user().user.identities[0])
    assert error.value.code == "manual_linking_disabled"


@pytest.mark.parametrize("method,path,code", [
    ("POST", "/passkeys/authentication/options", "passkey_disabled"),
    ("POST", "/oauth/clients/register", "feature_disabled"),
    ("GET", "/scim/v2/ServiceProviderConfig", "feature_disabled"),
])
def test_features_gotrue_ships_off_answer_disabled(fauxth, method, path, code):
    answer = requests.request(method, f"{fauxth.url}/auth/v1{path}", headers={"X-Supabase-Api-Version": "2024-01-01"}, timeout=10)
    assert answer.status_code == 404
    assert answer.json()["code"] == code
    assert answer.headers["x-sb-error-code"] == code
