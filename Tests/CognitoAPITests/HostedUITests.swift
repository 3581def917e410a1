import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// The hosted UI driven as a browser drives it (authorize → `/login` with its CSRF cookie → callback)
/// and the OAuth endpoints as an app's library calls them.
@Suite struct HostedUITests {
    static let callback = "http://localhost:3000/callback"
    static let ssoCookie = "cognito-\(seedPool)"

    static func authorize(_ responseType: String = "code", clientId: String = seedClient, scope: String = "openid email",
                          extra: [(String, String)] = []) -> [(String, String)] {
        [("response_type", responseType), ("client_id", clientId), ("redirect_uri", callback), ("state", "st4te"), ("scope", scope)] + extra
    }

    /// `GET /login`: the page and the CSRF token its cookie carries.
    func loginPage(_ client: Client, _ query: [(String, String)], page: String = "/login") async throws -> (Reply, String) {
        let reply = try await client.send(.get, page + "?" + formEncode(query))
        #expect(reply.status == .ok)
        let csrf = try #require(reply.cookie("XSRF-TOKEN"), "\(reply.headers)")
        #expect(reply.text.contains("name=\"_csrf\" value=\"\(csrf)\""))
        return (reply, csrf)
    }

    /// Opens the login page and posts the form; answers the response to the post.
    func logIn(_ client: Client, _ query: [(String, String)], _ username: String = "alice@example.com", _ secret: String = password) async throws -> Reply {
        let (_, csrf) = try await loginPage(client, query)
        return try await client.form("/login", query + [("username", username), ("password", secret), ("_csrf", csrf)], cookies: ["XSRF-TOKEN": csrf])
    }

    func exchange(_ client: Client, _ fields: [(String, String)], headers: HTTPFields = [:]) async throws -> Reply {
        try await client.form("/oauth2/token", fields, headers: headers)
    }

    @Test func authorizeSendsTheBrowserToTheLoginPage() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let query = Self.authorize(extra: [("code_challenge", pkceChallenge("v")), ("code_challenge_method", "S256")])
            let reply = try await client.send(.get, "/oauth2/authorize?" + formEncode(query))
            #expect(reply.status == .found)
            let location = try #require(reply.location)
            #expect(location.hasPrefix("/login?"))
            let carried = parameters("http://x" + location)
            #expect(carried["client_id"] == seedClient && carried["redirect_uri"] == Self.callback && carried["state"] == "st4te")
            #expect(carried["code_challenge"] == pkceChallenge("v"))
            let (page, _) = try await loginPage(client, query)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("name=\"password\""))
        }
    }

    @Test func theLoginFormNeedsItsCSRFTokenAndTheRightPassword() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let query = Self.authorize()
            let (_, csrf) = try await loginPage(client, query)
            let noCookie = try await client.form("/login", query + [("username", "alice@example.com"), ("password", password), ("_csrf", csrf)])
            #expect(noCookie.status == .forbidden)
            #expect(noCookie.text.contains("This page expired"))
            let wrongToken = try await client.form("/login", query + [("username", "alice@example.com"), ("password", password),
                                                                      ("_csrf", String(csrf.reversed()))], cookies: ["XSRF-TOKEN": csrf])
            #expect(wrongToken.status == .forbidden)
            let wrongPassword = try await logIn(client, query, "alice@example.com", "password124")
            #expect(wrongPassword.status == .ok)
            #expect(wrongPassword.location == nil)
            #expect(wrongPassword.text.contains("Incorrect username or password."))
            #expect(try harness.emulator.sessions(in: seedPool, userId: aliceId).isEmpty)
        }
    }

    @Test func theCodeFlowWithPKCES256EndsInTokens() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let verifier = "verifier-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFG"
            let query = Self.authorize(extra: [("code_challenge", pkceChallenge(verifier)), ("code_challenge_method", "S256")])
            let loggedIn = try await logIn(client, query)
            #expect(loggedIn.status == .found)
            let location = try #require(loggedIn.location)
            #expect(location.hasPrefix(Self.callback + "?"))
            let returned = parameters(location)
            #expect(returned["state"] == "st4te")
            let code = try #require(returned["code"])

            let fields = [("grant_type", "authorization_code"), ("client_id", seedClient), ("code", code), ("redirect_uri", Self.callback),
                          ("code_verifier", verifier)]
            let tokens = try await exchange(client, fields)
            #expect(tokens.status == .ok)
            #expect(tokens.json["token_type"] == "Bearer")
            #expect(tokens.json["expires_in"] == 3600)
            #expect(tokens.json["refresh_token"]?.stringValue?.isEmpty == false)
            let access = try claims(tokens.json["access_token"])
            #expect(access["scope"] == "openid email")
            #expect(access["sub"] == .string(aliceId))
            let id = try claims(tokens.json["id_token"])
            #expect(id["aud"] == .string(seedClient))
            #expect(id["email"] == "alice@example.com")
            #expect(try await exchange(client, fields).json["error"] == "invalid_grant", "a code is single use")
            // The hosted UI's ID tokens carry the access token's hash.
            let expected = atHash(try #require(tokens.json["access_token"]?.stringValue))
            #expect(id["at_hash"] == .string(expected))
            // Without aws.cognito.signin.user.admin the token cannot call the user API.
            let getUser = try await client.cognito("GetUser", ["AccessToken": tokens.json["access_token"] ?? .null])
            #expect(getUser.json == ["__type": "NotAuthorizedException", "message": "Access Token does not have required scopes"])
        }
    }

    @Test(arguments: [[("code_challenge_method", "plain")], []])
    func onlyS256ChallengesAreTaken(method: [(String, String)]) async throws {
        let harness = try Harness()
        try await harness.run { client in
            let query = Self.authorize(extra: [("code_challenge", "the-verifier-itself-with-enough-characters-0000000000")] + method)
            let reply = try await client.send(.get, "/oauth2/authorize?" + formEncode(query))
            let refused = parameters(try #require(reply.location))
            #expect(refused["error"] == "invalid_request" && refused["state"] == "st4te")
        }
    }

    @Test func aWrongOrMissingVerifierIsInvalidGrant() async throws {
        let harness = try Harness()
        try await harness.run { client async throws in
            let verifier = "the-right-verifier-with-enough-characters-000000000000"
            let challenge = pkceChallenge(verifier)
            func code() async throws -> String {
                let reply = try await logIn(client, Self.authorize(extra: [("code_challenge", challenge), ("code_challenge_method", "S256")]))
                return try callbackCode(reply)
            }
            func redeem(_ code: String, _ verifier: String?) async throws -> Reply {
                try await exchange(client, [("grant_type", "authorization_code"), ("client_id", seedClient), ("code", code),
                                            ("redirect_uri", Self.callback)] + (verifier.map { [("code_verifier", $0)] } ?? []))
            }
            #expect(try await redeem(try await code(), "the-wrong-verifier-with-enough-characters-000000000000").json["error"] == "invalid_grant")
            #expect(try await redeem(try await code(), nil).json["error"] == "invalid_grant")
            #expect(try await redeem(try await code(), verifier).json["access_token"] != nil)
        }
    }

    @Test func codesLastFiveMinutesAndNeedTheirRedirectURI() async throws {
        let harness = try Harness()
        try await harness.run { client in
            func code() async throws -> String { try callbackCode(try await logIn(client, Self.authorize())) }
            let otherURI = try await exchange(client, [("grant_type", "authorization_code"), ("client_id", seedClient), ("code", try await code()),
                                                       ("redirect_uri", "myapp://callback")])
            #expect(otherURI.json["error"] == "unauthorized_client" && otherURI.json["error_description"] == "invalid_redirect")
            let late = try await code()
            harness.emulator.clock.advance(by: 301)
            let expired = try await exchange(client, [("grant_type", "authorization_code"), ("client_id", seedClient), ("code", late),
                                                      ("redirect_uri", Self.callback)])
            #expect(expired.status == .badRequest)
            #expect(expired.json["error"] == "invalid_grant")
        }
    }

    @Test func theImplicitFlowReturnsTokensInTheFragment() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let reply = try await logIn(client, Self.authorize("token", extra: [("nonce", "n0nce")]))
            let location = try #require(reply.location)
            #expect(location.hasPrefix(Self.callback + "#"))
            let fragment = parameters(location, fragment: true)
            #expect(fragment["token_type"] == "Bearer")
            #expect(fragment["expires_in"] == "3600")
            #expect(fragment["state"] == "st4te")
            #expect(fragment["refresh_token"] == nil)
            #expect(try claims(fragment["id_token"].map(JSON.string))["nonce"] == "n0nce")
            #expect(try claims(fragment["access_token"].map(JSON.string))["scope"] == "openid email")
        }
    }

    @Test func userInfoAnswersByTheTokensScopes() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let implicit = parameters(try #require(try await logIn(client, Self.authorize("token")).location), fragment: true)
            let access = try #require(implicit["access_token"])
            let info = try await client.send(.get, "/oauth2/userInfo", headers: [.authorization: "Bearer \(access)"])
            #expect(info.status == .ok)
            #expect(info.json["sub"] == .string(aliceId))
            #expect(info.json["email"] == "alice@example.com")
            #expect(info.json["email_verified"] == "true")
            #expect(info.json["name"] == nil, "name needs the profile scope")

            let missing = try await client.send(.get, "/oauth2/userInfo")
            #expect(missing.status == .unauthorized)
            #expect(missing.json["error"] == "invalid_token")
            #expect(missing.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
        }
    }

    @Test func revokeEndsTheSessionOfARefreshToken() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let code = try callbackCode(try await logIn(client, Self.authorize()))
            let tokens = try await exchange(client, [("grant_type", "authorization_code"), ("client_id", seedClient), ("code", code), ("redirect_uri", Self.callback)])
            let refreshToken = try #require(tokens.json["refresh_token"]?.stringValue)
            let refreshed = try await exchange(client, [("grant_type", "refresh_token"), ("client_id", seedClient), ("refresh_token", refreshToken)])
            #expect(refreshed.json["access_token"] != nil && refreshed.json["id_token"] != nil)
            #expect(refreshed.json["refresh_token"] == nil)

            let revoked = try await client.form("/oauth2/revoke", [("token", refreshToken), ("client_id", seedClient)])
            #expect(revoked.status == .ok)
            let after = try await exchange(client, [("grant_type", "refresh_token"), ("client_id", seedClient), ("refresh_token", refreshToken)])
            #expect(after.json["error"] == "invalid_grant")
            let info = try await client.send(.get, "/oauth2/userInfo", headers: [.authorization: "Bearer \(tokens.json["access_token"]?.stringValue ?? "")"])
            #expect(info.status == .unauthorized)
        }
    }

    @Test func aSignedInBrowserGoesStraightBackUnlessPromptIsLogin() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let first = try await logIn(client, Self.authorize())
            let sso = try #require(first.cookie(Self.ssoCookie))
            #expect(first.headers[values: .setCookie].contains { $0.hasPrefix(Self.ssoCookie) && $0.contains("HttpOnly") })
            let cookie: HTTPFields = [.cookie: "\(Self.ssoCookie)=\(sso)"]
            let again = try await client.send(.get, "/oauth2/authorize?" + formEncode(Self.authorize()), headers: cookie)
            #expect(again.status == .found)
            let location = try #require(again.location)
            #expect(location.hasPrefix(Self.callback + "?"))
            #expect(parameters(location)["code"] != nil)
            let forced = try await client.send(.get, "/oauth2/authorize?" + formEncode(Self.authorize(extra: [("prompt", "login")])), headers: cookie)
            #expect(forced.location?.hasPrefix("/login?") == true)

            // Logging out clears the cookie and goes to a sign-out URL of the client.
            let logout = try await client.send(.get, "/logout?" + formEncode([("client_id", seedClient), ("logout_uri", "http://localhost:3000/")]), headers: cookie)
            #expect(logout.status == .found)
            #expect(logout.location == "http://localhost:3000/")
            #expect(logout.cookie(Self.ssoCookie) == "")
            let unlisted = try await client.send(.get, "/logout?" + formEncode([("client_id", seedClient), ("logout_uri", "https://evil.example/")]))
            #expect(unlisted.status == .badRequest)
            #expect(unlisted.location == nil)
            #expect(unlisted.text.contains("Required String parameter &#39;redirect_uri&#39; is not present") || unlisted.text.contains("Required String parameter 'redirect_uri' is not present"))
            // A disabled user's cookie signs nobody in.
            _ = try await client.cognito("AdminDisableUser", ["UserPoolId": .string(seedPool), "Username": "alice@example.com"])
            let disabled = try await client.send(.get, "/oauth2/authorize?" + formEncode(Self.authorize()), headers: cookie)
            #expect(disabled.location?.hasPrefix("/login?") == true)
        }
    }

    @Test func anUnlistedRedirectURIOrAPoolWithoutDomainGetsAnErrorPage() async throws {
        let harness = try Harness(seed: try builtInAnd(cognitoSeed(client: [
            "AllowedOAuthFlows": ["code"], "AllowedOAuthScopes": ["openid"], "AllowedOAuthFlowsUserPoolClient": true, "CallbackURLs": [.string(Self.callback)],
        ])))
        try await harness.run { client in
            let unlisted = try await client.send(.get, "/oauth2/authorize?" + formEncode([("response_type", "code"), ("client_id", seedClient),
                                                                                          ("redirect_uri", "https://evil.example/cb")]))
            // As on AWS: the browser goes to the domain's own error page, never to the unlisted URI.
            let errorPage = try #require(unlisted.location)
            #expect(unlisted.status == .found)
            #expect(errorPage == "/error?" + formEncode([("error", "redirect_mismatch"), ("client_id", seedClient)]))
            let shown = try await client.send(.get, errorPage)
            #expect(shown.status == .badRequest)
            #expect(shown.text.contains("An error was encountered with the requested page."))
            #expect(shown.text.contains("(redirect_mismatch) The redirect_uri is not one of the callback URLs of app client \(seedClient): "))
            #expect(shown.text.contains(Self.callback))
            let noDomain = try await client.send(.get, "/oauth2/authorize?" + formEncode(Self.authorize(clientId: testClient, scope: "openid")))
            #expect(noDomain.status == .badRequest)
            #expect(noDomain.text.contains("has no domain"))
            let badScope = try await client.send(.get, "/oauth2/authorize?" + formEncode(Self.authorize(scope: "openid admin:everything")))
            let refusal = try #require(badScope.location)
            #expect(refusal.hasPrefix(Self.callback + "?"))
            #expect(parameters(refusal)["error"] == "invalid_scope")
            #expect(parameters(refusal)["state"] == "st4te")
        }
    }

    @Test func clientCredentialsGiveAMachineItsOwnToken() async throws {
        let secret = "m2msecret0000000000000000000000000000000000000000"
        let harness = try Harness(seed: cognitoSeed(client: [
            "ClientSecret": .string(secret), "AllowedOAuthFlows": ["client_credentials"], "AllowedOAuthFlowsUserPoolClient": true,
            "AllowedOAuthScopes": ["https://api.example.com/read", "https://api.example.com/write"],
        ], settings: ["domain": "tests-auth"]))
        try await harness.run { client in
            let auth: HTTPFields = [.authorization: basicAuth(testClient, secret)]
            let reply = try await exchange(client, [("grant_type", "client_credentials"), ("scope", "https://api.example.com/read")], headers: auth)
            #expect(reply.status == .ok)
            #expect(reply.json["id_token"] == nil && reply.json["refresh_token"] == nil)
            let access = try claims(reply.json["access_token"])
            #expect(access["sub"] == .string(testClient))
            #expect(access["scope"] == "https://api.example.com/read")
            #expect(access["token_use"] == "access")
            let all = try await exchange(client, [("grant_type", "client_credentials"), ("client_id", testClient), ("client_secret", secret)])
            #expect(try claims(all.json["access_token"])["scope"] == "https://api.example.com/read https://api.example.com/write")

            let wrongSecret = try await exchange(client, [("grant_type", "client_credentials")], headers: [.authorization: basicAuth(testClient, "nope")])
            #expect(wrongSecret.json["error"] == "invalid_client")
            let badScope = try await exchange(client, [("grant_type", "client_credentials"), ("scope", "openid")], headers: auth)
            #expect(badScope.json["error"] == "invalid_scope")
            let form = try await client.send(.post, "/oauth2/token", raw: "{\"grant_type\":\"client_credentials\"}", headers: auth)
            #expect(form.json["error"] == "invalid_request")
        }
        let seeded = try Harness()
        let publicClient = try await seeded.run { client in
            try await exchange(client, [("grant_type", "client_credentials"), ("client_id", seedClient)])
        }
        #expect(publicClient.json["error"] == "unauthorized_client")
    }

    @Test func aPoolsHostedUIPortServesItsOwnDomain() async throws {
        let harness = try Harness(seed: cognitoSeed(client: [
            "AllowedOAuthFlows": ["code"], "AllowedOAuthScopes": ["openid"], "AllowedOAuthFlowsUserPoolClient": true, "CallbackURLs": [.string(Self.callback)],
        ], settings: ["domain": "tests-auth", "hosted_ui_port": 19_443]))
        try await harness.runProject(testPool) { client in
            let query = Self.authorize(clientId: testClient, scope: "openid")
            let authorize = try await client.send(.get, "/oauth2/authorize?" + formEncode(query))
            #expect(authorize.location?.hasPrefix("/login?") == true)
            let loggedIn = try await logIn(client, query, "dave")
            let code = try callbackCode(loggedIn)
            let tokens = try await exchange(client, [("grant_type", "authorization_code"), ("client_id", testClient), ("code", code), ("redirect_uri", Self.callback)])
            #expect(try claims(tokens.json["id_token"])["cognito:username"] == "dave")
            #expect(try await client.send(.get, "/\(testPool)/.well-known/jwks.json").status == .ok)
            let api = try await client.cognito("DescribeUserPool", ["UserPoolId": .string(testPool)])
            #expect(api.json["UserPool"] == nil, "the JSON API stays on the main port")
        }
    }
}
