"""Cognito user-pool administration (pools, app clients, groups, domains, resource servers) through boto3 and the
AWS CLI, and the AWS JSON 1.1 wire shape of answers and errors."""
import json
import os
import re
import subprocess
import sys

import requests

from conftest import COGNITO_CLIENT, COGNITO_POOL

TARGET = "AWSCognitoIdentityProviderService"


def raw_call(url, operation, body):
    """The request an AWS SDK sends for `operation`, made by hand (unsigned, as for public operations)."""
    return requests.post(f"{url}/", data=json.dumps(body), timeout=30, headers={
        "X-Amz-Target": f"{TARGET}.{operation}", "Content-Type": "application/x-amz-json-1.1"})


def test_the_seeded_pool_is_described_with_its_policy_mfa_and_domain(cognito):
    response = cognito.idp.describe_user_pool(UserPoolId=COGNITO_POOL)
    pool = response["UserPool"]
    assert response["ResponseMetadata"]["RequestId"]
    assert pool["Id"] == COGNITO_POOL
    assert pool["Name"] == "Local Cognito pool"
    assert pool["UsernameAttributes"] == ["email"]
    assert pool["AutoVerifiedAttributes"] == ["email"]
    policy = pool["Policies"]["PasswordPolicy"]
    assert policy["MinimumLength"] == 8
    assert (policy["RequireLowercase"], policy["RequireNumbers"]) == (True, True)
    assert (policy["RequireUppercase"], policy["RequireSymbols"]) == (False, False)
    assert pool["MfaConfiguration"] == "OPTIONAL"
    assert pool["Domain"] == "fauxth-local"
    mfa = cognito.idp.get_user_pool_mfa_config(UserPoolId=COGNITO_POOL)
    assert mfa["MfaConfiguration"] == "OPTIONAL"
    assert mfa["SoftwareTokenMfaConfiguration"]["Enabled"] is True
    assert "SmsMfaConfiguration" in mfa
    domain = cognito.idp.describe_user_pool_domain(Domain="fauxth-local")["DomainDescription"]
    assert domain["UserPoolId"] == COGNITO_POOL and domain["Domain"] == "fauxth-local"


def test_the_seeded_app_client_has_its_flows_urls_and_scopes(cognito):
    client = cognito.idp.describe_user_pool_client(UserPoolId=COGNITO_POOL, ClientId=COGNITO_CLIENT)["UserPoolClient"]
    assert re.fullmatch(r"[a-z0-9]{26}", client["ClientId"])
    assert client["ClientName"] == "local-app"
    assert "ClientSecret" not in client
    assert set(client["ExplicitAuthFlows"]) == {"ALLOW_USER_SRP_AUTH", "ALLOW_USER_PASSWORD_AUTH",
                                                "ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_USER_AUTH"}
    assert client["CallbackURLs"] == ["myapp://callback", "http://localhost:3000/callback"]
    assert client["LogoutURLs"] == ["myapp://signout", "http://localhost:3000/"]
    assert set(client["AllowedOAuthFlows"]) == {"code", "implicit"}
    assert set(client["AllowedOAuthScopes"]) == {"openid", "email", "profile", "phone", "aws.cognito.signin.user.admin"}
    assert client["AllowedOAuthFlowsUserPoolClient"] is True
    assert client["SupportedIdentityProviders"] == ["COGNITO", "Google", "SignInWithApple"]
    listed = cognito.idp.list_user_pool_clients(UserPoolId=COGNITO_POOL, MaxResults=60)["UserPoolClients"]
    assert {"ClientId": COGNITO_CLIENT, "UserPoolId": COGNITO_POOL, "ClientName": "local-app"} in listed


def test_a_created_pool_gets_a_region_prefixed_id_and_can_be_listed_updated_and_deleted(cognito):
    created = cognito.idp.create_user_pool(PoolName="made-by-boto3", UsernameAttributes=["email"],
                                           Policies={"PasswordPolicy": {"MinimumLength": 12, "RequireUppercase": True}})["UserPool"]
    pool_id = created["Id"]
    assert re.fullmatch(r"us-east-1_[0-9A-Za-z]{9}", pool_id)
    assert created["Name"] == "made-by-boto3"
    assert created["Arn"].endswith(f":userpool/{pool_id}")
    assert created["Policies"]["PasswordPolicy"]["MinimumLength"] == 12
    assert created["Policies"]["PasswordPolicy"]["RequireUppercase"] is True
    listed = cognito.idp.list_user_pools(MaxResults=60)["UserPools"]
    assert {p["Id"] for p in listed} >= {pool_id, COGNITO_POOL}
    assert [p["Name"] for p in listed if p["Id"] == pool_id] == ["made-by-boto3"]

    cognito.idp.update_user_pool(UserPoolId=pool_id, MfaConfiguration="OFF",
                                 Policies={"PasswordPolicy": {"MinimumLength": 10}},
                                 UserPoolTags={"team": "fauxth"})
    updated = cognito.idp.describe_user_pool(UserPoolId=pool_id)["UserPool"]
    assert updated["Policies"]["PasswordPolicy"]["MinimumLength"] == 10
    assert updated["UserPoolTags"] == {"team": "fauxth"}

    cognito.idp.delete_user_pool(UserPoolId=pool_id)
    error = cognito.fails("describe_user_pool", UserPoolId=pool_id)
    assert error["Code"] == "ResourceNotFoundException"
    assert pool_id not in {p["Id"] for p in cognito.idp.list_user_pools(MaxResults=60)["UserPools"]}


def test_app_clients_are_created_with_or_without_a_secret_updated_and_deleted(cognito):
    pool_id = cognito.create_pool()
    public = cognito.create_client(pool_id)
    assert re.fullmatch(r"[a-z0-9]{26}", public["ClientId"])
    assert "ClientSecret" not in public
    confidential = cognito.create_client(pool_id, secret=True)
    assert len(confidential["ClientSecret"]) >= 40
    described = cognito.idp.describe_user_pool_client(UserPoolId=pool_id, ClientId=confidential["ClientId"])["UserPoolClient"]
    assert described["ClientSecret"] == confidential["ClientSecret"]
    assert described["UserPoolId"] == pool_id
    listed = cognito.idp.list_user_pool_clients(UserPoolId=pool_id, MaxResults=60)["UserPoolClients"]
    assert {c["ClientId"] for c in listed} == {public["ClientId"], confidential["ClientId"]}

    updated = cognito.idp.update_user_pool_client(UserPoolId=pool_id, ClientId=public["ClientId"], ClientName="renamed",
                                                  ExplicitAuthFlows=["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"])["UserPoolClient"]
    assert updated["ClientName"] == "renamed"
    assert set(updated["ExplicitAuthFlows"]) == {"ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"}

    cognito.idp.delete_user_pool_client(UserPoolId=pool_id, ClientId=public["ClientId"])
    error = cognito.fails("describe_user_pool_client", UserPoolId=pool_id, ClientId=public["ClientId"])
    assert error["Code"] == "ResourceNotFoundException"


def test_token_validities_are_held_to_cognitos_ranges(cognito):
    # Access and ID tokens 5 minutes to a day, refresh tokens an hour to ten years, in the client's units. An access
    # token validity of 8e15 hours once overflowed the next token's exp and ended the process.
    pool_id = cognito.create_pool()
    for extra in ({"AccessTokenValidity": 25}, {"IdTokenValidity": 4, "TokenValidityUnits": {"IdToken": "minutes"}},
                  {"RefreshTokenValidity": 3651}, {"AccessTokenValidity": 8_000_000_000_000_000}):
        error = cognito.fails("create_user_pool_client", UserPoolId=pool_id, ClientName="c", **extra)
        assert (error["Code"], error["Message"]) == ("InvalidParameterException", "Invalid range for token validity."), extra
    client = cognito.create_client(pool_id, AccessTokenValidity=5, IdTokenValidity=1440, RefreshTokenValidity=60,
                                   TokenValidityUnits={"AccessToken": "minutes", "IdToken": "minutes", "RefreshToken": "minutes"})
    error = cognito.fails("update_user_pool_client", UserPoolId=pool_id, ClientId=client["ClientId"], AccessTokenValidity=2,
                          TokenValidityUnits={"AccessToken": "days"})
    assert error["Message"] == "Invalid range for token validity."


def test_groups_are_created_listed_updated_and_deleted_and_names_are_unique(cognito):
    pool_id = cognito.create_pool()
    group = cognito.idp.create_group(UserPoolId=pool_id, GroupName="editors", Description="Can edit", Precedence=5)["Group"]
    assert (group["GroupName"], group["UserPoolId"], group["Description"], group["Precedence"]) == ("editors", pool_id, "Can edit", 5)
    assert "CreationDate" in group and "LastModifiedDate" in group
    duplicate = cognito.fails("create_group", UserPoolId=pool_id, GroupName="editors")
    assert duplicate["Code"] == "GroupExistsException"
    cognito.idp.create_group(UserPoolId=pool_id, GroupName="viewers")
    assert sorted(g["GroupName"] for g in cognito.idp.list_groups(UserPoolId=pool_id)["Groups"]) == ["editors", "viewers"]

    updated = cognito.idp.update_group(UserPoolId=pool_id, GroupName="editors", Description="Edits things", Precedence=1)["Group"]
    assert (updated["Description"], updated["Precedence"]) == ("Edits things", 1)
    assert cognito.idp.get_group(UserPoolId=pool_id, GroupName="editors")["Group"]["Description"] == "Edits things"

    cognito.idp.delete_group(UserPoolId=pool_id, GroupName="editors")
    assert cognito.fails("get_group", UserPoolId=pool_id, GroupName="editors")["Code"] == "ResourceNotFoundException"
    # The seed pool's group is untouched.
    assert cognito.idp.get_group(UserPoolId=COGNITO_POOL, GroupName="admins")["Group"]["GroupName"] == "admins"


def test_a_domain_is_created_described_and_deleted(cognito):
    pool_id = cognito.create_pool()
    prefix = f"fauxth-{pool_id.split('_')[1].lower()}"
    cognito.idp.create_user_pool_domain(UserPoolId=pool_id, Domain=prefix)
    described = cognito.idp.describe_user_pool_domain(Domain=prefix)["DomainDescription"]
    assert (described["UserPoolId"], described["Domain"], described["Status"]) == (pool_id, prefix, "ACTIVE")
    assert cognito.idp.describe_user_pool(UserPoolId=pool_id)["UserPool"]["Domain"] == prefix
    taken = cognito.fails("create_user_pool_domain", UserPoolId=cognito.create_pool(), Domain=prefix)
    assert taken["Code"] == "InvalidParameterException"

    cognito.idp.delete_user_pool_domain(UserPoolId=pool_id, Domain=prefix)
    # Real Cognito answers an unknown domain with an empty description, not an error.
    assert cognito.idp.describe_user_pool_domain(Domain=prefix)["DomainDescription"].get("UserPoolId") is None


def test_resource_servers_are_created_with_their_scopes(cognito):
    pool_id = cognito.create_pool()
    scopes = [{"ScopeName": "read", "ScopeDescription": "Read things"}, {"ScopeName": "write", "ScopeDescription": "Write things"}]
    created = cognito.idp.create_resource_server(UserPoolId=pool_id, Identifier="https://api.fauxth.test",
                                                 Name="Fauxth API", Scopes=scopes)["ResourceServer"]
    assert (created["UserPoolId"], created["Identifier"], created["Name"]) == (pool_id, "https://api.fauxth.test", "Fauxth API")
    assert created["Scopes"] == scopes
    described = cognito.idp.describe_resource_server(UserPoolId=pool_id, Identifier="https://api.fauxth.test")["ResourceServer"]
    assert described["Scopes"] == scopes
    listed = cognito.idp.list_resource_servers(UserPoolId=pool_id, MaxResults=50)["ResourceServers"]
    assert [r["Identifier"] for r in listed] == ["https://api.fauxth.test"]
    missing = cognito.fails("describe_resource_server", UserPoolId=pool_id, Identifier="https://nope.fauxth.test")
    assert missing["Code"] == "ResourceNotFoundException"


def test_a_pool_is_tagged_by_its_arn_as_infrastructure_tools_do(cognito):
    pool = cognito.idp.create_user_pool(PoolName="tagged", AutoVerifiedAttributes=["email"], UserPoolTags={"team": "auth"})["UserPool"]
    arn = pool["Arn"]
    assert cognito.idp.list_tags_for_resource(ResourceArn=arn)["Tags"] == {"team": "auth"}
    cognito.idp.tag_resource(ResourceArn=arn, Tags={"env": "test", "fauxth:fixed_code": "123456"})
    cognito.idp.untag_resource(ResourceArn=arn, TagKeys=["team"])
    assert cognito.idp.list_tags_for_resource(ResourceArn=arn)["Tags"] == {"env": "test", "fauxth:fixed_code": "123456"}
    assert cognito.idp.describe_user_pool(UserPoolId=pool["Id"])["UserPool"]["UserPoolTags"] == {"env": "test", "fauxth:fixed_code": "123456"}
    # The fixed-code tag works as if the pool had been created with it: a sign-up's code is 123456.
    client_id = cognito.create_client(pool["Id"])["ClientId"]
    cognito.idp.sign_up(ClientId=client_id, Username="tagged@example.com", Password="Passw0rd!x",
                        UserAttributes=[{"Name": "email", "Value": "tagged@example.com"}])
    assert cognito.code("tagged@example.com") == "123456"
    assert cognito.fails("list_tags_for_resource", ResourceArn=arn.replace(pool["Id"], "us-east-1_nosuchone"))["Code"] == "ResourceNotFoundException"
    assert cognito.fails("tag_resource", ResourceArn="arn:aws:s3:::bucket-not-a-pool", Tags={"a": "b"})["Code"] == "InvalidParameterException"


def test_an_identity_provider_is_found_by_one_of_its_identifiers(cognito):
    cognito.idp.create_identity_provider(UserPoolId=COGNITO_POOL, ProviderName="ExampleCorp", ProviderType="OIDC",
                                         ProviderDetails={"client_id": "corp", "client_secret": "s", "authorize_scopes": "openid",
                                                          "oidc_issuer": "https://idp.example.com", "attributes_request_method": "GET"},
                                         IdpIdentifiers=["examplecorp", "example.com"])
    found = cognito.idp.get_identity_provider_by_identifier(UserPoolId=COGNITO_POOL, IdpIdentifier="example.com")["IdentityProvider"]
    assert found["ProviderName"] == "ExampleCorp" and found["UserPoolId"] == COGNITO_POOL
    missing = cognito.fails("get_identity_provider_by_identifier", UserPoolId=COGNITO_POOL, IdpIdentifier="globex")
    assert missing["Code"] == "ResourceNotFoundException"


def test_an_unknown_pool_is_a_resource_not_found_error(cognito):
    for operation, params in [("describe_user_pool", {}), ("list_users", {}), ("list_groups", {}),
                              ("admin_get_user", {"Username": "alice@example.com"})]:
        error = cognito.fails(operation, UserPoolId="us-east-1_NoSuchPoo", **params)
        assert error["Code"] == "ResourceNotFoundException", operation
    assert cognito.fails("describe_user_pool", UserPoolId="us-east-1_NoSuchPoo")["Message"] == "User pool us-east-1_NoSuchPoo does not exist."


def test_answers_are_aws_json_with_request_ids_and_errors_name_their_type_in_a_header(cognito):
    ok = raw_call(cognito.url, "DescribeUserPoolClient", {"UserPoolId": COGNITO_POOL, "ClientId": COGNITO_CLIENT})
    assert ok.status_code == 200
    assert ok.headers["Content-Type"].startswith("application/x-amz-json-1.1")
    assert ok.headers["x-amzn-RequestId"]
    assert ok.json()["UserPoolClient"]["ClientName"] == "local-app"

    missing = raw_call(cognito.url, "DescribeUserPool", {"UserPoolId": "us-east-1_NoSuchPoo"})
    assert missing.status_code == 400
    assert missing.headers["Content-Type"].startswith("application/x-amz-json-1.1")
    assert missing.headers["x-amzn-ErrorType"] == "ResourceNotFoundException:"
    assert missing.headers["x-amzn-RequestId"] not in ("", ok.headers["x-amzn-RequestId"])
    body = missing.json()
    assert body["__type"] == "ResourceNotFoundException"
    assert "us-east-1_NoSuchPoo" in body["message"]

    wrong = raw_call(cognito.url, "InitiateAuth", {"ClientId": COGNITO_CLIENT, "AuthFlow": "USER_PASSWORD_AUTH",
                                                   "AuthParameters": {"USERNAME": "alice@example.com", "PASSWORD": "nope-nope1"}})
    assert wrong.status_code == 400
    assert wrong.headers["x-amzn-ErrorType"] == "NotAuthorizedException:"
    assert wrong.json() == {"__type": "NotAuthorizedException", "message": "Incorrect username or password."}


def test_an_unknown_operation_is_a_json_400_naming_it(cognito):
    response = raw_call(cognito.url, "NoSuchOperation", {})
    assert response.status_code == 400
    body = response.json()
    assert body["__type"]
    assert "NoSuchOperation" in body["message"]
    assert response.headers["x-amzn-ErrorType"].startswith(body["__type"].split("#")[-1])


def test_the_aws_cli_lists_pools_and_creates_a_group(cognito):
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "AWS_DEFAULT_REGION": "us-east-1",
           "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull}

    def aws(*args):
        result = subprocess.run([sys.executable, "-m", "awscli", "cognito-idp", *args, "--endpoint-url", cognito.url,
                                 "--output", "json"], env=env, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout) if result.stdout.strip() else None

    pools = aws("list-user-pools", "--max-results", "10")["UserPools"]
    assert {"Id": COGNITO_POOL, "Name": "Local Cognito pool"}.items() <= next(p for p in pools if p["Id"] == COGNITO_POOL).items()
    created = aws("create-group", "--user-pool-id", COGNITO_POOL, "--group-name", "from-the-cli", "--description", "Made by aws")
    assert created["Group"]["GroupName"] == "from-the-cli"
    assert cognito.idp.get_group(UserPoolId=COGNITO_POOL, GroupName="from-the-cli")["Group"]["Description"] == "Made by aws"
