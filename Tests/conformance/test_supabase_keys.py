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
