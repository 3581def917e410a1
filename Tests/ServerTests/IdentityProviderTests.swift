import AuthCore
import Crypto
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// The fake identity providers' tokens: signed with the provider's published key, and shaped like the
/// real provider's; and their codes: single use, bound, short-lived.
@Suite struct IdentityProviderTests {
    static func mint(_ client: Client, _ provider: String, _ body: JSON) async throws -> JSON {
        let reply = try await client.send(.post, "/_emu/v1/idp/\(provider)/tokens", json: body)
        #expect(reply.status == .ok, "\(reply.text)")
        return reply.json
    }

    /// Verifies `token` with the provider's JWKS as a relying party does; answers the claims.
    static func verify(_ client: Client, _ provider: String, _ token: String) async throws -> [String: JSON] {
        let jwks = try await client.send(.get, "/_emu/idp/\(provider)/jwks").json
        let key = try #require(jwks["keys"]?[0])
        let jwk = JWK(kty: "RSA", kid: key["kid"]?.stringValue, n: key["n"]?.stringValue, e: key["e"]?.stringValue)
        let verified = try JWS.verify(token, keys: [try jwk.verificationKey()])
        #expect(verified.header["kid"] == key["kid"])
        return verified.claims
    }

    static func halfHash(_ value: String) -> String { Base64URL.encode(Array(SHA256.hash(data: Array(value.utf8)).prefix(16))) }

    @Test func googleTokensAreShapedLikeGooglesAndVerifyWithItsKeys() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let minted = try await Self.mint(client, "google", ["email": "alice@example.com", "aud": "web-client", "nonce": "n1"])
            let claims = try await Self.verify(client, "google", try #require(minted["id_token"]?.stringValue))
            #expect(claims["iss"] == "https://accounts.google.com" && claims["aud"] == "web-client" && claims["azp"] == "web-client")
            #expect(claims["sub"] == "100000000000000000001" && claims["email_verified"] == true && claims["nonce"] == "n1")
            #expect(claims["name"] == "Alice Verified" && claims["picture"] != nil && claims["auth_time"] == nil)
            #expect(claims["at_hash"] == .string(Self.halfHash(try #require(minted["access_token"]?.stringValue))))
            #expect(claims["iat"] == .int(Int(Harness.epoch.timeIntervalSince1970)) && claims["exp"] == .int(Int(Harness.epoch.timeIntervalSince1970) + 3600))
            // Apple's key does not verify Google's token.
            await #expect(throws: (any Error).self) { try await Self.verify(client, "apple", try #require(minted["id_token"]?.stringValue)) }
        }
    }

    @Test func appleTokensWriteBooleansAsStringsAndKeepTheNameOutOfTheToken() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let minted = try await Self.mint(client, "apple", ["sub": "000002.e41200000000000000000000000000e4.0002", "aud": "com.example.app"])
            let claims = try await Self.verify(client, "apple", try #require(minted["id_token"]?.stringValue))
            #expect(claims["iss"] == "https://appleid.apple.com")
            #expect(claims["email_verified"] == "true" && claims["is_private_email"] == "true")
            #expect(claims["real_user_status"] == 2 && claims["nonce_supported"] == true)
            #expect(claims["given_name"] == nil && claims["name"] == nil)
            #expect(claims["c_hash"] == .string(Self.halfHash(try #require(minted["code"]?.stringValue))))
            #expect(minted["user"]?["name"] == ["firstName": "Erin", "lastName": "Private"])
            let again = try await Self.mint(client, "apple", ["sub": "000002.e41200000000000000000000000000e4.0002", "aud": "com.example.app"])
            #expect(again["user"] == nil)
            let newcomer = try await Self.mint(client, "apple", ["email": "new@example.com", "aud": "com.example.app"])
            let sub = try #require(newcomer["account"]?["sub"]?.stringValue)
            #expect(sub.wholeMatch(of: #/000\d{3}\.[0-9a-f]{32}\.\d{4}/#) != nil)
        }
    }

    @Test func aGenericProviderIssuesOnThisServerAndItsClaimsCannotReplaceTheProtocolsOwn() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let declared = try await client.send(.post, "/_emu/v1/idp", json: [
                "id": "acme", "claims": ["tier": "gold", "iss": "https://evil.example"],
                "accounts": [["sub": "u1", "email": "w@acme.test", "aud": "someone-else"]],
            ])
            #expect(declared.status == .created)
            let minted = try await Self.mint(client, "acme", ["sub": "u1", "aud": "app"])
            let claims = try await Self.verify(client, "acme", try #require(minted["id_token"]?.stringValue))
            #expect(claims["iss"] == "http://localhost/_emu/idp/acme" && claims["aud"] == "app" && claims["tier"] == "gold")
            let discovery = try await client.send(.get, "/_emu/idp/acme/.well-known/openid-configuration").json
            #expect(discovery["issuer"] == claims["iss"])
        }
    }

    @Test func codesAreSingleUseBoundToTheirRedirectAndVerifierAndShortLived() async throws {
        let harness = try Harness()
        try await harness.run { client in
            func code(_ extra: String = "") async throws -> String {
                let reply = try await client.send(.get, "/_emu/idp/google/authorize?client_id=c&redirect_uri=http://app.test/cb&fauxth_account=alice@example.com\(extra)")
                let location = try #require(reply.headers[.location])
                return try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
            }
            func exchange(_ code: String, redirect: String = "http://app.test/cb", verifier: String? = nil) async throws -> Reply {
                var form = "grant_type=authorization_code&client_id=c&code=\(code)&redirect_uri=\(redirect)"
                if let verifier { form += "&code_verifier=\(verifier)" }
                return try await client.send(.post, "/_emu/idp/google/token", raw: form, headers: [.contentType: "application/x-www-form-urlencoded"])
            }
            let first = try await code()
            #expect(try await exchange(first, redirect: "http://other.test/cb").json["error"] == "invalid_grant")
            #expect(try await exchange(first).json["error"] == "invalid_grant", "a failed exchange used the code up")
            let plain = try await code("&code_challenge=the-verifier-the-verifier-the-verifier-12345&code_challenge_method=plain")
            #expect(try await exchange(plain, verifier: "wrong").json["error"] == "invalid_grant")
            let good = try await code("&code_challenge=the-verifier-the-verifier-the-verifier-12345&code_challenge_method=plain")
            let tokens = try await exchange(good, verifier: "the-verifier-the-verifier-the-verifier-12345")
            #expect(tokens.status == .ok && tokens.json["token_type"] == "Bearer" && tokens.json["expires_in"] == 3600)
            let late = try await code()
            harness.emulator.clock.advance(by: 601)
            #expect(try await exchange(late).json["error"] == "invalid_grant")
            let bearer = "Bearer \(tokens.json["access_token"]?.stringValue ?? "")"
            let info = try await client.send(.get, "/_emu/idp/google/userinfo", headers: [.authorization: bearer])
            #expect(info.status == .ok && info.json["email"] == "alice@example.com")
            harness.emulator.clock.advance(by: 3600)
            let expired = try await client.send(.get, "/_emu/idp/google/userinfo", headers: [.authorization: bearer])
            #expect(expired.status == .unauthorized, "the access token expired with the clock")
        }
    }

    @Test func queuedChoicesAreUsedInOrderAndOnce() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let failing = try await client.send(.post, "/_emu/v1/idp/google/next", json: ["error": "server_error"])
            let picking = try await client.send(.post, "/_emu/v1/idp/google/next", json: ["account": "dana@example.com"])
            #expect(failing.status == .accepted && picking.status == .accepted)
            let path = "/_emu/idp/google/authorize?client_id=c&redirect_uri=http://app.test/cb&state=x"
            let first = try await client.send(.get, path), second = try await client.send(.get, path), third = try await client.send(.get, path)
            #expect(first.headers[.location]?.contains("error=server_error") == true)
            #expect(second.headers[.location]?.contains("code=") == true)
            #expect(third.status == .ok)
        }
    }
}
