import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// The OAuth endpoints' rules from AWS's references for them (token, user attributes, revocation,
/// authorization), each answer as an OIDC library or a backend reads it.
@Suite struct OAuthEndpointTests {
    let ui = HostedUITests()

    /// Changes the built-in client the way an administrator would: its description, `changes` over it,
    /// back through `UpdateUserPoolClient` (which resets what it is not given).
    func updateSeedClient(_ client: Client, _ changes: [String: JSON]) async throws {
        let described = try await client.cognito("DescribeUserPoolClient", ["UserPoolId": .string(seedPool), "ClientId": .string(seedClient)])
        var fields = try #require(described.json["UserPoolClient"]?.objectValue)
        fields.merge(changes) { $1 }
        let updated = try await client.cognito("UpdateUserPoolClient", .object(fields))
        #expect(updated.status == .ok, "\(updated.text)")
    }

    func tokens(_ client: Client, scope: String) async throws -> JSON {
        let code = try callbackCode(try await ui.logIn(client, HostedUITests.authorize(scope: scope)))
        let reply = try await ui.exchange(client, [("grant_type", "authorization_code"), ("client_id", seedClient), ("code", code),
                                                   ("redirect_uri", HostedUITests.callback)])
        #expect(reply.status == .ok, "\(reply.text)")
        return reply.json
    }

    func userInfo(_ client: Client, _ token: JSON?) async throws -> Reply {
        try await client.send(.get, "/oauth2/userInfo", headers: [.authorization: "Bearer \(token?.stringValue ?? "")"])
    }

    @Test func userInfoNeedsOpenIdAndAnswersWithinTheScopesAndTheClientsReadAttributes() async throws {
        let harness = try Harness()
        try await harness.run { client in
            // openid alone: every attribute the client can read.
            let everything = try await userInfo(client, try await tokens(client, scope: "openid")["access_token"])
            #expect(everything.status == .ok, "\(everything.text)")
            #expect(everything.json["email"] == "alice@example.com" && everything.json["name"] == "Alice Verified")
            // A group narrows it, and the API's own scope adds nothing.
            let email = try await userInfo(client, try await tokens(client, scope: "openid email aws.cognito.signin.user.admin")["access_token"])
            #expect(email.json["email"] == "alice@example.com" && email.json["name"] == nil)
            #expect(email.json["sub"] == .string(aliceId) && email.json["username"] != nil)

            // The API's tokens carry no openid: refused, in Cognito's words.
            let api = try await client.signIn("alice@example.com")
            let refused = try await userInfo(client, api["AccessToken"])
            #expect(refused.status == .forbidden)
            #expect(refused.json["error_description"] == "Access token does not contain openid scope")

            try await updateSeedClient(client, ["ReadAttributes": ["email", "email_verified"]])
            let narrowed = try await userInfo(client, try await tokens(client, scope: "openid")["access_token"])
            #expect(narrowed.json["email"] == "alice@example.com")
            #expect(narrowed.json["name"] == nil, "the client cannot read name")

            let forged = try await userInfo(client, "not.a.token")
            #expect(forged.status == .unauthorized)
            #expect(forged.json["error"] == "invalid_token")
            #expect(forged.json["error_description"] == "Access token is expired, disabled, or deleted, or the user has globally signed out.")
        }
    }

    @Test func aCodeSentWithAnotherRedirectURIIsInvalidRedirect() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let code = try callbackCode(try await ui.logIn(client, HostedUITests.authorize()))
            let reply = try await ui.exchange(client, [("grant_type", "authorization_code"), ("client_id", seedClient), ("code", code),
                                                       ("redirect_uri", HostedUITests.callback + "/")])
            #expect(reply.status == .badRequest)
            #expect(reply.json["error"] == "unauthorized_client" && reply.json["error_description"] == "invalid_redirect")
        }
    }

    @Test func aRotatingClientsRefreshAtTheTokenEndpointAnswersTheNewRefreshToken() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await updateSeedClient(client, ["RefreshTokenRotation": ["Feature": "ENABLED", "RetryGracePeriodSeconds": 0]])
            let first = try #require(try await tokens(client, scope: "openid")["refresh_token"]?.stringValue)
            let refreshed = try await ui.exchange(client, [("grant_type", "refresh_token"), ("client_id", seedClient), ("refresh_token", first)])
            #expect(refreshed.status == .ok, "\(refreshed.text)")
            let second = try #require(refreshed.json["refresh_token"]?.stringValue)
            #expect(second != first)
            let replayed = try await ui.exchange(client, [("grant_type", "refresh_token"), ("client_id", seedClient), ("refresh_token", first)])
            #expect(replayed.json["error"] == "invalid_grant", "no grace period: the replaced token is spent")
            let again = try await ui.exchange(client, [("grant_type", "refresh_token"), ("client_id", seedClient), ("refresh_token", second)])
            #expect(again.status == .ok && again.json["refresh_token"] != nil)
        }
    }

    @Test func revocationAnswersAnUnknownClientWith401AndADisabledOneWithInvalidRequest() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let refresh = try #require(try await tokens(client, scope: "openid")["refresh_token"]?.stringValue)
            let unknown = try await client.form("/oauth2/revoke", [("token", refresh), ("client_id", "nosuchclient")])
            #expect(unknown.status == .unauthorized && unknown.json["error"] == "invalid_client")

            try await updateSeedClient(client, ["EnableTokenRevocation": false])
            let disabled = try await client.form("/oauth2/revoke", [("token", refresh), ("client_id", seedClient)])
            #expect(disabled.status == .badRequest && disabled.json["error"] == "invalid_request", "\(disabled.text)")
        }
    }

    @Test func authorizeWithoutAResponseTypeIsAMissingParameter() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let query = HostedUITests.authorize().filter { $0.0 != "response_type" }
            let reply = try await client.send(.get, "/oauth2/authorize?" + formEncode(query))
            let location = try #require(reply.location)
            #expect(location.hasPrefix(HostedUITests.callback))
            #expect(parameters(location)["error"] == "invalid_request" && parameters(location)["state"] == "st4te")
            let other = try await client.send(.get, "/oauth2/authorize?" + formEncode(HostedUITests.authorize("id_token")))
            #expect(parameters(try #require(other.location))["error"] == "unsupported_response_type")
        }
    }
}
