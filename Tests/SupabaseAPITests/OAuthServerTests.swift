import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// A project with GoTrue's OAuth 2.1 server on and the confirmed user `done@example.com`.
private func oauthProject(_ env: [String: String] = [:]) -> Seed {
    project(["GOTRUE_OAUTH_SERVER_ENABLED": "true"].merging(env) { $1 }, users: [confirmedUser])
}

private let verifier = "a-verifier-of-at-least-forty-three-characters-0123456789"
private let challenge = PKCEChallenge.s256(verifier: verifier).challenge
private let appRedirect = "myapp://callback"

/// An OAuth client registered by the admin; its id and secret (nil for a public client).
private func registerClient(_ client: Client, publicClient: Bool = false) async throws -> (id: String, secret: String?) {
    var body: JSON = ["client_name": "Acme Notes", "redirect_uris": [.string(appRedirect), "http://localhost:3000/cb"]]
    if publicClient, case .object(var fields) = body { fields["client_type"] = "public"; body = .object(fields) }
    let reply = try await client.send(.post, "/auth/v1/admin/oauth/clients", json: body, headers: serviceRole)
    #expect(reply.status == .created)
    return (reply.json["client_id"]?.stringValue ?? "", reply.json["client_secret"]?.stringValue)
}

/// `/oauth/authorize` with a PKCE challenge; `extra` adds or overrides query parameters.
private func authorize(_ client: Client, clientId: String, _ extra: [(String, String)] = []) async throws -> Reply {
    var query: [(String, String)] = [("client_id", clientId), ("redirect_uri", appRedirect), ("response_type", "code"),
                                     ("scope", "email"), ("state", "st-1"), ("code_challenge", challenge),
                                     ("code_challenge_method", "S256")]
    for (name, value) in extra {
        query.removeAll { $0.0 == name }
        if !value.isEmpty { query.append((name, value)) }
    }
    let encoded = query.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }.joined(separator: "&")
    return try await client.send(.get, "/auth/v1/oauth/authorize?" + encoded)
}

/// A redirect's query as the client reads it (`+` is a space).
private func redirectQuery(_ url: String) -> [String: String] {
    Dictionary((URLComponents(string: url.replacingOccurrences(of: "+", with: "%20"))?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
}

private func signIn(_ client: Client) async throws -> JSON {
    try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
}

/// Authorize, sign in, open and answer the request through GoTrue's consent API: the redirect URL.
private func consent(_ client: Client, clientId: String, action: String = "approve", _ extra: [(String, String)] = []) async throws
    -> (redirect: String, session: JSON) {
    let start = try await authorize(client, clientId: clientId, extra)
    let authorizationId = redirectQuery(start.headers[.location] ?? "")["authorization_id"] ?? ""
    let session = try await signIn(client)
    let details = try await client.send(.get, "/auth/v1/oauth/authorizations/\(authorizationId)", headers: bearer(session))
    if let redirect = details.json["redirect_url"]?.stringValue { return (redirect, session) }
    let answer = try await client.send(.post, "/auth/v1/oauth/authorizations/\(authorizationId)/consent", json: ["action": .string(action)],
                                       headers: bearer(session))
    return (answer.json["redirect_url"]?.stringValue ?? "", session)
}

private func basic(_ id: String, _ secret: String) -> HTTPFields {
    [.authorization: "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString(), .contentType: "application/x-www-form-urlencoded"]
}

private func exchange(_ client: Client, code: String, clientId: String, secret: String, codeVerifier: String = verifier,
                      redirect: String = "myapp%3A%2F%2Fcallback") async throws -> Reply {
    try await client.send(.post, "/auth/v1/oauth/token", raw: "grant_type=authorization_code&code=\(code)&redirect_uri=\(redirect)&code_verifier=\(codeVerifier)",
                          headers: basic(clientId, secret))
}

@Suite struct OAuthServerTests {
    @Test func offItAnswersAsGoTrueWithTheServerOff() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            let authorize = try await client.send(.get, "/auth/v1/oauth/authorize?client_id=x", headers: .supabaseClient)
            #expect(authorize.status == .notFound)
            #expect(authorize.json == ["code": "feature_disabled", "message": "OAuth server is disabled"])
            // The admin check comes first, as GoTrue's middleware order has it.
            #expect(try await client.send(.get, "/auth/v1/admin/oauth/clients").status == .unauthorized)
            #expect(try await client.send(.get, "/auth/v1/admin/oauth/clients", headers: serviceRole).json["code"] == "feature_disabled")
        }
    }

    @Test func theAdminManagesClients() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let created = try await client.send(.post, "/auth/v1/admin/oauth/clients", json: ["client_name": "Acme", "redirect_uris": ["https://acme.test/cb"]],
                                                headers: serviceRole)
            #expect(created.status == .created)
            #expect(created.json["client_type"] == "confidential")
            #expect(created.json["token_endpoint_auth_method"] == "client_secret_basic")
            #expect(created.json["registration_type"] == "manual")
            #expect(created.json["grant_types"] == ["authorization_code", "refresh_token"])
            #expect(created.json["response_types"] == ["code"])
            let id = created.json["client_id"]?.stringValue ?? ""
            let secret = created.json["client_secret"]?.stringValue ?? ""
            #expect(secret.count == 43)

            let listed = try await client.send(.get, "/auth/v1/admin/oauth/clients", headers: serviceRole)
            #expect(listed.json["clients"]?.arrayValue?.count == 1)
            #expect(listed.json["clients"]?[0]?["client_secret"] == nil)

            let updated = try await client.send(.put, "/auth/v1/admin/oauth/clients/\(id)", json: ["client_name": "Acme 2"], headers: serviceRole)
            #expect(updated.json["client_name"] == "Acme 2")
            let empty = try await client.send(.put, "/auth/v1/admin/oauth/clients/\(id)", json: [:], headers: serviceRole)
            #expect(empty.json == ["code": "validation_failed", "message": "No fields provided for update"])

            let rotated = try await client.send(.post, "/auth/v1/admin/oauth/clients/\(id)/regenerate_secret", headers: serviceRole)
            #expect(rotated.status == .ok)
            #expect(rotated.json["client_secret"]?.stringValue != secret)

            #expect(try await client.send(.delete, "/auth/v1/admin/oauth/clients/\(id)", headers: serviceRole).status == .noContent)
            let gone = try await client.send(.get, "/auth/v1/admin/oauth/clients/\(id)", headers: serviceRole)
            #expect(gone.status == .notFound)
            #expect(gone.json["code"] == "oauth_client_not_found")
            #expect(try await client.send(.get, "/auth/v1/admin/oauth/clients/nope", headers: serviceRole).json["message"] == "invalid client_id format")
        }
    }

    @Test func registrationChecksRedirectURIsAsGoTrueDoes() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let http = try await client.send(.post, "/auth/v1/admin/oauth/clients", json: ["redirect_uris": ["http://evil.test/cb"]], headers: serviceRole)
            #expect(http.status == .badRequest)
            #expect(http.json["message"] == "400: invalid redirect_uri 'http://evil.test/cb': HTTP scheme only allowed for localhost")
            let none = try await client.send(.post, "/auth/v1/admin/oauth/clients", json: ["client_name": "x"], headers: serviceRole)
            #expect(none.json["message"] == "400: redirect_uris is required")
            let mixed = try await client.send(.post, "/auth/v1/admin/oauth/clients", json: [
                "redirect_uris": ["https://a.test/cb"], "client_type": "public", "token_endpoint_auth_method": "client_secret_post",
            ], headers: serviceRole)
            #expect(mixed.json["message"]
                    == "400: client_type 'public' is inconsistent with token_endpoint_auth_method 'client_secret_post' (expected client_type 'confidential')")
        }
    }

    @Test func dynamicRegistrationFollowsItsSwitch() async throws {
        let off = try Harness(seed: oauthProject())
        try await off.run { client in
            let refused = try await client.send(.post, "/auth/v1/oauth/clients/register", json: ["redirect_uris": ["https://a.test/cb"]],
                                                headers: .supabaseClient)
            #expect(refused.status == .forbidden)
            #expect(refused.json["code"] == "oauth_dynamic_client_registration_disabled")
            #expect(try await client.send(.get, "/auth/v1/.well-known/oauth-authorization-server").json["registration_endpoint"] == nil)
        }
        let on = try Harness(seed: oauthProject(["GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true"]))
        try await on.run { client in
            let registered = try await client.send(.post, "/auth/v1/oauth/clients/register", json: [
                "redirect_uris": ["https://a.test/cb"], "token_endpoint_auth_method": "none",
            ])
            #expect(registered.status == .created)
            #expect(registered.json["registration_type"] == "dynamic")
            #expect(registered.json["client_type"] == "public")
            #expect(registered.json["client_secret"] == nil)
            let metadata = try await client.send(.get, "/auth/v1/.well-known/oauth-authorization-server")
            #expect(metadata.json["registration_endpoint"]?.stringValue?.hasSuffix("/auth/v1/oauth/clients/register") == true)
            #expect(metadata.json["code_challenge_methods_supported"] == ["S256", "plain"])
            #expect(metadata.json["token_endpoint"]?.stringValue?.hasSuffix("/auth/v1/oauth/token") == true)
        }
    }

    @Test func authorizeRequiresPKCEAndSaysSoOnTheRedirect() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, _) = try await registerClient(client)
            let reply = try await authorize(client, clientId: id, [("code_challenge", ""), ("code_challenge_method", "")])
            #expect(reply.status == .found)
            #expect(reply.headers[.location]
                    == "myapp://callback?error=invalid_request&error_description=PKCE+flow+requires+both+code_challenge+and+code_challenge_method&state=st-1")
            let scope = try await authorize(client, clientId: id, [("scope", "openid admin")])
            #expect(redirectQuery(scope.headers[.location] ?? "")["error_description"] == "unsupported scope: admin")
        }
    }

    @Test func theRedirectURIMustMatchExactlyAndIsNeverFollowedWhenItDoesNot() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, _) = try await registerClient(client)
            for wrong in ["myapp://callback/", "myapp://callback?x=1", "MYAPP://callback"] {
                let reply = try await authorize(client, clientId: id, [("redirect_uri", wrong)])
                #expect(reply.status == .badRequest)
                #expect(reply.headers[.location] == nil)
                #expect(reply.json["msg"] == "invalid redirect_uri")
            }
            let unknown = try await authorize(client, clientId: "22222222-2222-4222-8222-222222222222")
            #expect(unknown.json["error_code"] == "oauth_client_not_found")
        }
    }

    @Test func aCodeBecomesTokensOnceForItsClient() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, secret) = try await registerClient(client)
            let start = try await authorize(client, clientId: id)
            #expect(start.headers[.location]?.contains("/auth/v1/_emu/oauth/consent?authorization_id=") == true)
            let (redirect, _) = try await consent(client, clientId: id)
            let items = redirectQuery(redirect)
            #expect(redirect.hasPrefix("myapp://callback?code="))
            #expect(items["state"] == "st-1")
            let code = items["code"] ?? ""

            let tokens = try await exchange(client, code: code, clientId: id, secret: secret ?? "")
            #expect(tokens.status == .ok)
            #expect(Set(tokens.json.objectValue?.keys.map { $0 } ?? []) == ["access_token", "token_type", "expires_in", "refresh_token"])
            let claims = try JWS.verify(tokens.json["access_token"]?.stringValue ?? "", keys: [projectKey.verificationKey]).claims
            #expect(claims["client_id"] == .string(id))
            #expect(claims["scope"] == "email")
            #expect(claims["amr"]?[0]?["method"] == "oauth_provider/authorization_code")

            // Another redirect URI is GoTrue's own refusal (handlers.go), and it spends the code, as any failure does here.
            let (other, _) = try await consent(client, clientId: id)
            let elsewhere = try await exchange(client, code: redirectQuery(other)["code"] ?? "", clientId: id, secret: secret ?? "",
                                               redirect: "myapp%3A%2F%2Fother")
            #expect(elsewhere.json == ["error": "invalid_grant", "error_description": "Invalid redirect_uri"])

            // Single use: the same code again is refused.
            let again = try await exchange(client, code: code, clientId: id, secret: secret ?? "")
            #expect(again.status == .badRequest)
            #expect(again.json == ["error": "invalid_grant", "error_description": "Invalid authorization code"])

            // The client refreshes its own session; GoTrue's own /token will not.
            let refreshToken = tokens.json["refresh_token"]?.stringValue ?? ""
            let direct = try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": .string(refreshToken)])
            #expect(direct.json == ["error": "invalid_client", "error_description": "Client authentication required for OAuth session"])
            let refreshed = try await client.send(.post, "/auth/v1/oauth/token", raw: "grant_type=refresh_token&refresh_token=\(refreshToken)",
                                                  headers: basic(id, secret ?? ""))
            #expect(refreshed.status == .ok)
            #expect(refreshed.json["refresh_token"]?.stringValue != refreshToken)
        }
    }

    @Test func aClientRefreshesOnlyItsOwnSessionsAndARefusalRotatesNothing() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, secret) = try await registerClient(client)
            let (other, otherSecret) = try await registerClient(client)
            let code = redirectQuery(try await consent(client, clientId: id).redirect)["code"] ?? ""
            let refreshToken = try await exchange(client, code: code, clientId: id, secret: secret ?? "").json["refresh_token"]?.stringValue ?? ""
            func refresh(_ token: String, as clientId: String, _ clientSecret: String?) async throws -> Reply {
                try await client.send(.post, "/auth/v1/oauth/token", raw: "grant_type=refresh_token&refresh_token=\(token)",
                                      headers: basic(clientId, clientSecret ?? ""))
            }
            let stolen = try await refresh(refreshToken, as: other, otherSecret)
            #expect(stolen.json == ["error": "invalid_client", "error_description": "Client does not match the session's OAuth client"])
            // An ordinary sign-in's token is not an OAuth client's to refresh.
            let signedIn = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"])
            let ordinary = try await refresh(signedIn.json["refresh_token"]?.stringValue ?? "", as: id, secret)
            #expect(ordinary.json == ["error": "invalid_client", "error_description": "Client authentication not allowed for non-OAuth session"])
            // Neither refusal touched the tokens: each still refreshes where it belongs, once.
            let own = try await refresh(refreshToken, as: id, secret)
            #expect(own.status == .ok && own.json["refresh_token"]?.stringValue != refreshToken)
            let direct = try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": signedIn.json["refresh_token"] ?? ""])
            #expect(direct.status == .ok)
            let events = try harness.emulator.events(type: "token.refreshed")
            #expect(events.count == 2)
        }
    }

    @Test func theTokenEndpointAuthenticatesTheClientAsRegistered() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, secret) = try await registerClient(client)
            let code = redirectQuery(try await consent(client, clientId: id).redirect)["code"] ?? ""
            let wrong = try await exchange(client, code: code, clientId: id, secret: "not-the-secret")
            #expect(wrong.status == .badRequest)
            #expect(wrong.json["error_code"] == "invalid_credentials")
            #expect(wrong.json["msg"] == "invalid client credentials")
            let posted = try await client.send(.post, "/auth/v1/oauth/token", raw: "grant_type=authorization_code&code=\(code)&client_id=\(id)&client_secret=\(secret ?? "")",
                                               headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(posted.json["msg"] == "invalid authentication method: client is registered for 'client_secret_basic' but 'client_secret_post' was used")
            let anonymous = try await client.send(.post, "/auth/v1/oauth/token", raw: "grant_type=authorization_code&code=\(code)",
                                                  headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(anonymous.json["msg"] == "Invalid client credentials: client_id is required")
        }
    }

    @Test func aPublicClientProvesItselfWithTheVerifierAlone() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, secret) = try await registerClient(client, publicClient: true)
            #expect(secret == nil)
            let code = redirectQuery(try await consent(client, clientId: id).redirect)["code"] ?? ""
            let bad = try await client.send(.post, "/auth/v1/oauth/token", json: [
                "grant_type": "authorization_code", "code": .string(code), "client_id": .string(id), "code_verifier": "wrong-verifier",
            ])
            #expect(bad.json == ["error": "invalid_grant",
                                 "error_description": "PKCE verification failed: code challenge does not match previously saved code verifier"])
            // The failed attempt spent the code.
            let late = try await client.send(.post, "/auth/v1/oauth/token", json: [
                "grant_type": "authorization_code", "code": .string(code), "client_id": .string(id), "code_verifier": .string(verifier),
            ])
            #expect(late.json["error"] == "invalid_grant")
            let fresh = redirectQuery(try await consent(client, clientId: id).redirect)["code"] ?? ""
            let good = try await client.send(.post, "/auth/v1/oauth/token", json: [
                "grant_type": "authorization_code", "code": .string(fresh), "client_id": .string(id), "code_verifier": .string(verifier),
            ])
            #expect(good.status == .ok)
        }
    }

    @Test func aDeniedConsentSendsAccessDeniedBack() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, _) = try await registerClient(client)
            let (redirect, _) = try await consent(client, clientId: id, action: "deny")
            #expect(redirect == "myapp://callback?error=access_denied&error_description=User+denied+the+request&state=st-1")
        }
    }

    @Test func grantsAreListedRememberedAndRevoked() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, secret) = try await registerClient(client)
            let (first, session) = try await consent(client, clientId: id)
            let tokens = try await exchange(client, code: redirectQuery(first)["code"] ?? "", clientId: id, secret: secret ?? "")
            let grants = try await client.send(.get, "/auth/v1/user/oauth/grants", headers: bearer(session))
            #expect(grants.json[0]?["client"]?["name"] == "Acme Notes")
            #expect(grants.json[0]?["scopes"] == ["email"])

            // Consent already given for these scopes: opening the next request approves it at once.
            let start = try await authorize(client, clientId: id)
            let authorizationId = redirectQuery(start.headers[.location] ?? "")["authorization_id"] ?? ""
            let reopened = try await client.send(.get, "/auth/v1/oauth/authorizations/\(authorizationId)", headers: bearer(session))
            #expect(reopened.json["redirect_url"]?.stringValue?.hasPrefix("myapp://callback?code=") == true)

            let revoked = try await client.send(.delete, "/auth/v1/user/oauth/grants?client_id=\(id)", headers: bearer(session))
            #expect(revoked.status == .noContent)
            #expect(try await client.send(.get, "/auth/v1/user/oauth/grants", headers: bearer(session)).json == [])
            let refresh = try await client.send(.post, "/auth/v1/oauth/token",
                                                raw: "grant_type=refresh_token&refresh_token=\(tokens.json["refresh_token"]?.stringValue ?? "")",
                                                headers: basic(id, secret ?? ""))
            #expect(refresh.status != .ok)
            let twice = try await client.send(.delete, "/auth/v1/user/oauth/grants?client_id=\(id)", headers: bearer(session))
            #expect(twice.json["code"] == "oauth_consent_not_found")
        }
    }

    @Test func anAuthorizationExpiresOnTheEmulatorClock() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, _) = try await registerClient(client)
            let start = try await authorize(client, clientId: id)
            let authorizationId = redirectQuery(start.headers[.location] ?? "")["authorization_id"] ?? ""
            let session = try await signIn(client)
            harness.emulator.clock.advance(by: 601)
            let late = try await client.send(.get, "/auth/v1/oauth/authorizations/\(authorizationId)", headers: bearer(session))
            #expect(late.status == .notFound)
            #expect(late.json["code"] == "oauth_authorization_not_found")
        }
    }

    @Test func userInfoShowsWhatTheScopesAllow() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, secret) = try await registerClient(client)
            let code = redirectQuery(try await consent(client, clientId: id).redirect)["code"] ?? ""
            let tokens = try await exchange(client, code: code, clientId: id, secret: secret ?? "")
            let info = try await client.send(.get, "/auth/v1/oauth/userinfo", headers: bearer(tokens.json))
            #expect(info.json == ["sub": "11111111-1111-4111-8111-111111111111", "email": "done@example.com", "email_verified": true])
        }
    }

    @Test func theConsentPageSignsInAndAnswers() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, _) = try await registerClient(client)
            let location = try await authorize(client, clientId: id).headers[.location] ?? ""
            let path = String(location[location.range(of: "/auth/v1/")!.lowerBound...])
            let page = try await client.send(.get, path)
            #expect(page.status == .ok)
            #expect(page.text.contains("Acme Notes"))
            let authorizationId = redirectQuery(location)["authorization_id"] ?? ""
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let wrong = try await client.send(.post, "/auth/v1/_emu/oauth/consent",
                                              raw: "authorization_id=\(authorizationId)&email=done%40example.com&password=nope&action=approve", headers: form)
            #expect(wrong.status == .badRequest)
            #expect(wrong.text.contains("Invalid login credentials"))
            let approved = try await client.send(.post, "/auth/v1/_emu/oauth/consent",
                                                 raw: "authorization_id=\(authorizationId)&email=done%40example.com&password=secret123&action=approve", headers: form)
            #expect(approved.status == .seeOther)
            #expect(approved.headers[.location]?.hasPrefix("myapp://callback?code=") == true)
        }
    }

    @Test func openIDScopeAddsAnIDTokenSignedWithTheProjectsAsymmetricKey() async throws {
        let key = try SigningKey.generate(.ES256, generator: Generator(seed: 1))
        var jwk = try #require(key.privateJWK)
        jwk.key_ops = ["sign", "verify"]
        jwk.kid = "k1"
        let keys = String(decoding: try JSONEncoder().encode([jwk]), as: UTF8.self)
        let harness = try Harness(seed: oauthProject(["GOTRUE_JWT_KEYS": keys]))
        try await harness.run { client in
            let (id, secret) = try await registerClient(client)
            let code = redirectQuery(try await consent(client, clientId: id, [("scope", "openid email"), ("nonce", "n-1")]).redirect)["code"] ?? ""
            let tokens = try await exchange(client, code: code, clientId: id, secret: secret ?? "")
            #expect(tokens.status == .ok)
            let idToken = try JWS.verify(tokens.json["id_token"]?.stringValue ?? "", keys: [VerificationKey(key.verificationKey.material, kid: "k1")])
            #expect(idToken.claims["aud"] == .string(id))
            #expect(idToken.claims["nonce"] == "n-1")
            #expect(idToken.claims["email"] == "done@example.com")
            #expect(idToken.claims["email_verified"] == true)
        }
    }

    /// GoTrue will not sign an ID token with an HS256 key: the exchange fails with 500, as there.
    @Test func openIDScopeOnAnHS256ProjectFailsAsGoTrueDoes() async throws {
        let harness = try Harness(seed: oauthProject())
        try await harness.run { client in
            let (id, secret) = try await registerClient(client)
            let code = redirectQuery(try await consent(client, clientId: id, [("scope", "openid")]).redirect)["code"] ?? ""
            let tokens = try await exchange(client, code: code, clientId: id, secret: secret ?? "")
            #expect(tokens.status == .internalServerError)
            #expect(tokens.json["msg"] == "Error generating ID token")
        }
    }
}
