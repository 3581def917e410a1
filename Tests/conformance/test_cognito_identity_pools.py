"""Cognito identity pools (cognito-identity, JSON 1.1 on fauxth's port) as boto3 drives them and as Amplify JS v6 sends
them (`fetchAuthSession` with an `identityPoolId` and `identityPoolEndpoint`): GetId and GetCredentialsForIdentity for
a signed-in user and for a guest, the ID token checked as AWS checks it, and the pools' administration."""
import re

import boto3
import pytest
import requests
from botocore.config import Config
from botocore.exceptions import ClientError

from conftest import COGNITO_CLIENT, COGNITO_POOL, COGNITO_REGION, jwt_claims

SEED_IDENTITY_POOL = "us-east-1:00000000-0000-4000-8000-00000000f001"
IDENTITY_ID = re.compile(r"^us-east-1:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


@pytest.fixture
def identity(fauxth):
    return boto3.client("cognito-identity", endpoint_url=fauxth.url, region_name=COGNITO_REGION, aws_access_key_id="x",
                        aws_secret_access_key="x", config=Config(retries={"total_max_attempts": 1}))


def logins(id_token):
    """The Logins map as Amplify forms it (`formLoginsMap`): the ID token's issuer without its scheme."""
    return {re.sub(r"^\w+://", "", jwt_claims(id_token)["iss"]): id_token}


def error(call, **params):
    with pytest.raises(ClientError) as raised:
        call(**params)
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    return raised.value.response["Error"]["Code"], raised.value.response["Error"]["Message"]


def amplify(fauxth, operation, body):
    """A call as Amplify's cognito-identity client sends it: unsigned, JSON 1.1, the target header."""
    return requests.post(fauxth.url + "/", json=body, timeout=30, headers={
        "Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": f"AWSCognitoIdentityService.{operation}",
        "Cache-Control": "no-store"})


def test_a_signed_in_user_gets_one_identity_and_credentials(cognito, identity):
    tokens = cognito.tokens("alice@example.com")
    first = identity.get_id(IdentityPoolId=SEED_IDENTITY_POOL, Logins=logins(tokens["IdToken"]))["IdentityId"]
    assert IDENTITY_ID.match(first)
    again = cognito.tokens("alice@example.com")
    assert identity.get_id(IdentityPoolId=SEED_IDENTITY_POOL, Logins=logins(again["IdToken"]))["IdentityId"] == first

    answer = identity.get_credentials_for_identity(IdentityId=first, Logins=logins(tokens["IdToken"]))
    assert answer["IdentityId"] == first
    credentials = answer["Credentials"]
    assert re.fullmatch(r"ASIA[A-Z2-7]{16}", credentials["AccessKeyId"])
    assert len(credentials["SecretKey"]) == 40
    # A JSON 1.1 timestamp (epoch seconds), which botocore reads as a datetime: an hour on the emulator clock.
    assert abs(credentials["Expiration"].timestamp() - (cognito.now().timestamp() + 3600)) < 5

    assert error(identity.get_credentials_for_identity, IdentityId=first) == (
        "NotAuthorizedException", "Logins don't match. Please include at least one valid login for this identity or identity pool.")
    described = identity.describe_identity(IdentityId=first)
    assert described["Logins"] == [f"cognito-idp.us-east-1.amazonaws.com/{COGNITO_POOL}"]


def test_a_guest_signing_in_keeps_its_identity_as_amplify_sends_it(fauxth, cognito):
    # Amplify asks for a guest identity with an empty Logins map, and its credentials with none.
    guest = amplify(fauxth, "GetId", {"IdentityPoolId": SEED_IDENTITY_POOL, "Logins": {}})
    assert guest.status_code == 200, guest.text
    assert guest.headers["Content-Type"].startswith("application/x-amz-json-1.1")
    guest_id = guest.json()["IdentityId"]
    unauthenticated = amplify(fauxth, "GetCredentialsForIdentity", {"IdentityId": guest_id})
    assert unauthenticated.status_code == 200, unauthenticated.text
    assert set(unauthenticated.json()["Credentials"]) == {"AccessKeyId", "SecretKey", "SessionToken", "Expiration"}

    # After the sign-in it asks for the stored guest id's credentials with the user's login: the user keeps it.
    tokens = cognito.tokens("carol@example.com")
    signed_in = amplify(fauxth, "GetCredentialsForIdentity", {"IdentityId": guest_id, "Logins": logins(tokens["IdToken"])})
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["IdentityId"] == guest_id

    # Another guest of the same user is merged into that identity, and disabled.
    other = amplify(fauxth, "GetId", {"IdentityPoolId": SEED_IDENTITY_POOL, "Logins": {}}).json()["IdentityId"]
    merged = amplify(fauxth, "GetCredentialsForIdentity", {"IdentityId": other, "Logins": logins(tokens["IdToken"])})
    assert merged.json()["IdentityId"] == guest_id
    forbidden = amplify(fauxth, "GetCredentialsForIdentity", {"IdentityId": other})
    assert forbidden.status_code == 400
    assert forbidden.headers["x-amzn-ErrorType"] == "NotAuthorizedException:"
    assert forbidden.json() == {"__type": "NotAuthorizedException", "message": f"Access to Identity '{other}' is forbidden."}


def test_a_login_token_is_checked_as_aws_checks_it(fauxth, cognito, identity):
    assert fauxth.control("POST", "/clock/freeze").status_code == 200
    tokens = cognito.tokens("alice@example.com")
    key = f"cognito-idp.us-east-1.amazonaws.com/{COGNITO_POOL}"
    assert error(identity.get_id, IdentityPoolId=SEED_IDENTITY_POOL, Logins={key: tokens["AccessToken"]}) == (
        "NotAuthorizedException", "Invalid login token. Missing a required claim: aud")
    assert error(identity.get_id, IdentityPoolId=SEED_IDENTITY_POOL, Logins={key: tokens["IdToken"][:-6] + "AAAAAA"}) == (
        "NotAuthorizedException", "Invalid login token. Couldn't verify signed token.")
    assert error(identity.get_id, IdentityPoolId=SEED_IDENTITY_POOL, Logins={"accounts.google.com": tokens["IdToken"]}) == (
        "NotAuthorizedException", "Token is not from a supported provider of this identity pool.")
    cognito.advance(3600)
    code, message = error(identity.get_id, IdentityPoolId=SEED_IDENTITY_POOL, Logins={key: tokens["IdToken"]})
    expiry = jwt_claims(tokens["IdToken"])["exp"]
    assert (code, message) == ("NotAuthorizedException", f"Invalid login token. Token expired: {int(cognito.now().timestamp())} >= {expiry}")
    assert error(identity.get_id, IdentityPoolId="us-east-1:00000000-0000-4000-8000-000000000000") == (
        "ResourceNotFoundException", "IdentityPool 'us-east-1:00000000-0000-4000-8000-000000000000' not found.")


def test_pools_are_administered_with_boto3_and_their_roles_decide_credentials(cognito, identity):
    provider = {"ProviderName": f"cognito-idp.us-east-1.amazonaws.com/{COGNITO_POOL}", "ClientId": COGNITO_CLIENT,
                "ServerSideTokenCheck": False}
    created = identity.create_identity_pool(IdentityPoolName="members only", AllowUnauthenticatedIdentities=False,
                                            CognitoIdentityProviders=[provider])
    pool_id = created["IdentityPoolId"]
    assert pool_id.startswith("us-east-1:")
    assert identity.describe_identity_pool(IdentityPoolId=pool_id)["CognitoIdentityProviders"] == [provider]
    assert error(identity.get_id, IdentityPoolId=pool_id) == (
        "NotAuthorizedException", "Unauthenticated access is not supported for this identity pool.")

    tokens = cognito.tokens("alice@example.com")
    identity_id = identity.get_id(IdentityPoolId=pool_id, Logins=logins(tokens["IdToken"]))["IdentityId"]
    assert error(identity.get_credentials_for_identity, IdentityId=identity_id, Logins=logins(tokens["IdToken"])) == (
        "InvalidIdentityPoolConfigurationException", "Invalid identity pool configuration. Check assigned IAM roles for this pool.")
    roles = {"authenticated": "arn:aws:iam::000000000000:role/members"}
    identity.set_identity_pool_roles(IdentityPoolId=pool_id, Roles=roles)
    assert identity.get_identity_pool_roles(IdentityPoolId=pool_id)["Roles"] == roles
    assert identity.get_credentials_for_identity(IdentityId=identity_id, Logins=logins(tokens["IdToken"]))["IdentityId"] == identity_id

    identity.update_identity_pool(IdentityPoolId=pool_id, IdentityPoolName="renamed", AllowUnauthenticatedIdentities=True,
                                  CognitoIdentityProviders=[provider])
    names = {pool["IdentityPoolName"] for pool in identity.list_identity_pools(MaxResults=60)["IdentityPools"]}
    assert names == {"fauxth_identities", "renamed"}
    listed = identity.list_identities(IdentityPoolId=pool_id, MaxResults=10)["Identities"]
    assert [item["IdentityId"] for item in listed] == [identity_id]
    assert identity.delete_identities(IdentityIdsToDelete=[identity_id])["UnprocessedIdentityIds"] == []
    assert error(identity.describe_identity, IdentityId=identity_id) == ("ResourceNotFoundException", f"Identity '{identity_id}' not found.")
    identity.delete_identity_pool(IdentityPoolId=pool_id)
    assert error(identity.describe_identity_pool, IdentityPoolId=pool_id) == ("ResourceNotFoundException", f"IdentityPool '{pool_id}' not found.")
    code, message = error(identity.describe_identity_pool, IdentityPoolId="not-a-pool")
    assert code == "ValidationException" and "at 'identityPoolId' failed to satisfy constraint" in message


def test_role_mappings_are_checked_and_deny_what_they_do_not_resolve(cognito, identity):
    """SetIdentityPoolRoles' RoleMappings as the model checks them (a Token or Rules type, AmbiguousRoleResolution
    required, rules for Rules), then applied: Token takes cognito:preferred_role or a CustomRoleArn among
    cognito:roles, Rules the first rule a claim matches, and Deny refuses what neither decides (the developer guide's
    role-based access control; Fauxth stored the mappings and never read them)."""
    provider = f"cognito-idp.us-east-1.amazonaws.com/{COGNITO_POOL}"
    pool_id = identity.create_identity_pool(IdentityPoolName="mapped", AllowUnauthenticatedIdentities=False, CognitoIdentityProviders=[
        {"ProviderName": provider, "ClientId": COGNITO_CLIENT, "ServerSideTokenCheck": False}])["IdentityPoolId"]
    roles = {"authenticated": "arn:aws:iam::000000000000:role/members"}
    key = f"{provider}:{COGNITO_CLIENT}"
    # The model's enum is this service's ValidationException; the other refusals are InvalidParameterException.
    for bad, code in [({"Type": "Bogus", "AmbiguousRoleResolution": "Deny"}, "ValidationException"),
                      ({"Type": "Token"}, "InvalidParameterException"), ({"Type": "Rules", "AmbiguousRoleResolution": "Deny"}, "InvalidParameterException")]:
        assert error(identity.set_identity_pool_roles, IdentityPoolId=pool_id, Roles=roles, RoleMappings={key: bad})[0] == code

    def credentials(email, **extra):
        tokens = cognito.tokens(email)
        identity_id = identity.get_id(IdentityPoolId=pool_id, Logins=logins(tokens["IdToken"]))["IdentityId"]
        return lambda: identity.get_credentials_for_identity(IdentityId=identity_id, Logins=logins(tokens["IdToken"]), **extra)

    # alice has no group role: "choose role from token" has nothing to choose.
    identity.set_identity_pool_roles(IdentityPoolId=pool_id, Roles=roles, RoleMappings={key: {"Type": "Token", "AmbiguousRoleResolution": "Deny"}})
    alice = credentials("alice@example.com")
    assert error(alice) == ("NotAuthorizedException", "The ambiguous role mapping rules denied this request.")
    identity.set_identity_pool_roles(IdentityPoolId=pool_id, Roles=roles,
                                     RoleMappings={key: {"Type": "Token", "AmbiguousRoleResolution": "AuthenticatedRole"}})
    assert alice()["Credentials"]["AccessKeyId"]
    # A group with a role gives carol one to choose, and a CustomRoleArn she does not hold is denied.
    cognito.idp.update_group(UserPoolId=COGNITO_POOL, GroupName="admins", RoleArn="arn:aws:iam::000000000000:role/admins", Precedence=1)
    identity.set_identity_pool_roles(IdentityPoolId=pool_id, Roles=roles, RoleMappings={key: {"Type": "Token", "AmbiguousRoleResolution": "Deny"}})
    assert credentials("carol@example.com")()["Credentials"]["AccessKeyId"]
    assert error(credentials("carol@example.com", CustomRoleArn="arn:aws:iam::000000000000:role/other"))[0] == "NotAuthorizedException"
    # Rules: the first rule a claim matches.
    rules = {"Rules": [{"Claim": "email", "MatchType": "StartsWith", "Value": "carol", "RoleARN": "arn:aws:iam::000000000000:role/carol"}]}
    identity.set_identity_pool_roles(IdentityPoolId=pool_id, Roles=roles, RoleMappings={key: {
        "Type": "Rules", "AmbiguousRoleResolution": "Deny", "RulesConfiguration": rules}})
    assert credentials("carol@example.com")()["Credentials"]["AccessKeyId"]
    assert error(credentials("alice@example.com"))[0] == "NotAuthorizedException"
