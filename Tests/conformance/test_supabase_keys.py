"""An asymmetric (ES256) project: tokens carry a kid, the JWKS publishes the public key, and both
supabase-py's get_claims and PyJWT verify tokens against it."""
import json

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import ec
from supabase import create_client

from test_supabase_slice import ANON_KEY

@pytest.fixture
def es256_project(supabase_project):
    private = jwt.algorithms.ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()), as_dict=True)
    private.update({"kid": "fauxth-test-key", "key_ops": ["sign", "verify"], "alg": "ES256"})
    return supabase_project({"GOTRUE_JWT_KEYS": json.dumps([private]), "GOTRUE_MAILER_AUTOCONFIRM": "true"},
                            [{"email": "es@example.com", "password": "secret123", "email_verified": True}])


def test_tokens_verify_against_the_published_jwks(es256_project):
    url = es256_project.url
    keys = requests.get(f"{url}/auth/v1/.well-known/jwks.json").json()["keys"]
    assert [(k["kid"], k["kty"], k["crv"]) for k in keys] == [("fauxth-test-key", "EC", "P-256")]
    assert all("d" not in k for k in keys)
    # GoTrue publishes each key for verifying only, whatever the private key's key_ops.
    assert all((k["use"], k["key_ops"]) == ("sig", ["verify"]) for k in keys)

    auth = create_client(url, ANON_KEY).auth
    session = auth.sign_in_with_password({"email": "es@example.com", "password": "secret123"}).session
    header = jwt.get_unverified_header(session.access_token)
    assert (header["alg"], header["kid"], header["typ"]) == ("ES256", "fauxth-test-key", "JWT")

    public = jwt.PyJWK(keys[0]).key
    claims = jwt.decode(session.access_token, public, algorithms=["ES256"], audience="authenticated")
    assert claims["email"] == "es@example.com"

    # supabase-py verifies asymmetric tokens itself, against the JWKS, instead of asking /user.
    verified = auth.get_claims()
    assert verified["claims"]["sub"] == session.user.id
    discovery = requests.get(f"{url}/auth/v1/.well-known/openid-configuration").json()
    assert discovery["id_token_signing_alg_values_supported"] == ["ES256", "HS256"]


# The opaque keys `supabase start` prints; the gateway in front of GoTrue maps them to the anon and service roles.
PUBLISHABLE_KEY = "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH"
SECRET_KEY = "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz"


def test_supabase_py_works_with_the_clis_publishable_and_secret_keys(fauxth):
    admin = create_client(fauxth.url, SECRET_KEY).auth.admin
    created = admin.create_user({"email": "opaque@example.com", "password": "secret123", "email_confirm": True}).user
    assert created.email == "opaque@example.com"
    assert any(u.id == created.id for u in admin.list_users())

    auth = create_client(fauxth.url, PUBLISHABLE_KEY).auth
    session = auth.sign_in_with_password({"email": "opaque@example.com", "password": "secret123"}).session
    assert auth.get_user(session.access_token).user.id == created.id
    # The publishable key is no admin key.
    with pytest.raises(Exception) as refused:
        create_client(fauxth.url, PUBLISHABLE_KEY).auth.admin.list_users()
    assert "not allowed" in str(refused.value).lower() or "not_admin" in str(refused.value)


def test_raw_requests_with_the_keys_as_supabase_js_sends_them(fauxth):
    # supabase-js without a session: the key as apikey and as the Bearer token.
    listed = requests.get(f"{fauxth.url}/auth/v1/admin/users", timeout=30,
                          headers={"apikey": SECRET_KEY, "Authorization": f"Bearer {SECRET_KEY}", "X-Supabase-Api-Version": "2024-01-01"})
    assert listed.status_code == 200 and "users" in listed.json()
    wrong = requests.get(f"{fauxth.url}/auth/v1/admin/users", timeout=30,
                         headers={"apikey": "sb_secret_wrong", "Authorization": "Bearer sb_secret_wrong", "X-Supabase-Api-Version": "2024-01-01"})
    assert wrong.status_code == 401 and wrong.json()["code"] == "no_authorization"
    hints = next(t for t in fauxth.control("GET", "/info").json()["tenants"] if t["id"] == "default")["hints"]
    assert (hints["SUPABASE_PUBLISHABLE_KEY"], hints["SUPABASE_SECRET_KEY"]) == (PUBLISHABLE_KEY, SECRET_KEY)
