import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// `/verify` as GoTrue's `verify.go` answers it (bc32168), from a supabase-js sweep: what a code stands for, when it is
/// refused, what a confirmation retires, and the redirects GoTrue builds.
@Suite struct VerifyFidelityTests {
    func newest(_ harness: Harness, to address: String) throws -> Message {
        try #require(try harness.emulator.messages(MessageFilter(to: address)).first)
    }

    func linkPath(_ message: Message) throws -> String {
        let link = try #require(message.links.first { $0.contains("/auth/v1/verify") })
        return String(link[link.range(of: "/auth/v1/verify")!.lowerBound...])
    }

    func signIn(_ client: Client) async throws -> JSON {
        try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
    }

    /// `emailChangeVerify` skips the second confirmation under autoconfirm (the Supabase CLI's default: confirmations
    /// off, double confirmation on): the first code completes the change.
    @Test func underAutoconfirmOneEmailChangeCodeCompletesTheChange() async throws {
        let harness = try Harness(seed: project(["GOTRUE_MAILER_AUTOCONFIRM": "true"], users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            #expect(try await client.send(.put, "/auth/v1/user", json: ["email": "moved@example.com"], headers: bearer(session)).status == .ok)
            let code = try #require(try newest(harness, to: "moved@example.com").codes.first)
            let verified = try await client.send(.post, "/auth/v1/verify", json: ["type": "email_change", "email": "moved@example.com", "token": .string(code)])
            #expect(verified.json["user"]?["email"] == "moved@example.com")
        }
    }

    /// `prepPKCERedirectURL` puts the code in the redirect's query, before a hash router's fragment.
    @Test func aPKCECodeGoesIntoTheQueryBeforeTheRedirectsFragment() async throws {
        let harness = try Harness(seed: project())
        let verifier = "a-very-long-code-verifier-of-at-least-43-characters"
        try await harness.run { client in
            _ = try await client.send(.post, "/auth/v1/signup?redirect_to=http%3A%2F%2F127.0.0.1%3A3000%2F%3Ftab%3Db%23%2Fauth%2Fcallback", json: [
                "email": "hash@example.com", "password": "secret123",
                "code_challenge": .string(PKCEChallenge.s256(verifier: verifier).challenge), "code_challenge_method": "s256",
            ])
            let location = try #require(try await client.send(.get, try linkPath(try newest(harness, to: "hash@example.com"))).headers[.location])
            let code = try #require(location.firstMatch(of: /code=([0-9a-f-]+)/)?.1)
            #expect(location == "http://127.0.0.1:3000/?code=\(code)&tab=b#/auth/callback")

            // A PKCE link whose flow is another kind's finds no flow: GoTrue's error, never a session in the fragment.
            _ = try await client.send(.post, "/auth/v1/recover?redirect_to=myapp://reset", json: [
                "email": "hash@example.com", "code_challenge": .string(PKCEChallenge.s256(verifier: verifier).challenge), "code_challenge_method": "s256",
            ])
            let reset = try linkPath(try newest(harness, to: "hash@example.com")).replacingOccurrences(of: "type=recovery", with: "type=magiclink")
            #expect(try await client.send(.get, reset).headers[.location] == "myapp://reset?error=invalid_request&error_code=flow_state_not_found"
                + "&error_description=No+associated+flow+state+found.+422%3A+No+valid+flow+state+found+for+user."
                + "#error=invalid_request&error_code=flow_state_not_found"
                + "&error_description=No+associated+flow+state+found.+422%3A+No+valid+flow+state+found+for+user.&sb=")
        }
    }

    /// GoTrue checks the ban before the token: a banned user's code is refused with 403 (a redirect for a link) and
    /// stays good for after the ban.
    @Test func aBannedUsersCodeIsRefusedAndKept() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            _ = try await client.send(.post, "/auth/v1/otp", json: ["email": "done@example.com"])
            let message = try newest(harness, to: "done@example.com")
            try await client.send(.put, "/auth/v1/admin/users/\(confirmedUser.id!)", json: ["ban_duration": "1h"], headers: serviceRole)
            let refused = try await client.send(.post, "/auth/v1/verify", json: ["type": "magiclink", "email": "done@example.com", "token": .string(message.codes[0])],
                                                headers: .supabaseClient)
            #expect(refused.status == .forbidden)
            #expect(refused.json == ["code": "user_banned", "message": "User is banned"])
            let link = try await client.send(.get, try linkPath(message))
            #expect(link.headers[.location] == "http://127.0.0.1:3000#error=access_denied&error_code=user_banned&error_description=User+is+banned&sb=")
            try await client.send(.put, "/auth/v1/admin/users/\(confirmedUser.id!)", json: ["ban_duration": "none"], headers: serviceRole)
            let after = try await client.send(.post, "/auth/v1/verify", json: ["type": "magiclink", "email": "done@example.com", "token": .string(message.codes[0])])
            #expect(after.status == .ok)
        }
    }

    /// An invitation is a confirmation token in GoTrue: `signup` and `email` verify it as `invite` does; and a
    /// confirmation retires the user's other links (`ClearAllOneTimeTokensForUser`).
    @Test func anInvitationIsAConfirmationAndAConfirmationRetiresOtherLinks() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            _ = try await client.send(.post, "/auth/v1/invite", json: ["email": "guest@example.com"], headers: serviceRole)
            let invitation = try newest(harness, to: "guest@example.com")
            let hash = try #require(invitation.links.first?.firstMatch(of: /token=([0-9a-f]+)/)?.1)
            let verified = try await client.send(.post, "/auth/v1/verify", json: ["type": "signup", "token_hash": .string(String(hash))])
            #expect(verified.json["user"]?["email"] == "guest@example.com")

            let session = try await signIn(client)
            _ = try await client.send(.put, "/auth/v1/user", json: ["email": "next@example.com"], headers: bearer(session))
            let change = try #require(try newest(harness, to: "next@example.com").codes.first)
            harness.emulator.clock.advance(by: 61)
            _ = try await client.send(.post, "/auth/v1/otp", json: ["email": "done@example.com"])
            let magic = try newest(harness, to: "done@example.com")
            #expect(magic.purpose == .magicLink)
            #expect(try await client.send(.post, "/auth/v1/verify", json: ["type": "magiclink", "email": "done@example.com", "token": .string(magic.codes[0])]).status == .ok)
            let stale = try await client.send(.post, "/auth/v1/verify", json: ["type": "email_change", "email": "next@example.com", "token": .string(change)],
                                              headers: .supabaseClient)
            #expect(stale.json["code"] == "otp_expired")
        }
    }

    /// The GET link's checks: a missing type or token is a 400; a type no email has redirects with GoTrue's
    /// `validation_failed`; an `email` link's session is named by what the token was.
    @Test func theLinkNamesItsTypeAndRefusesOthersAsGoTrueDoes() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            #expect(try await client.send(.get, "/auth/v1/verify?token=x", headers: .supabaseClient).json["message"] == "Verify requires a verification type")
            #expect(try await client.send(.get, "/auth/v1/verify?type=signup", headers: .supabaseClient).json["message"]
                == "Verify requires a token or a token hash")
            let sms = try await client.send(.get, "/auth/v1/verify?type=sms&token=abc")
            #expect(sms.headers[.location]
                == "http://127.0.0.1:3000#error=invalid_request&error_code=validation_failed&error_description=Invalid+email+verification+type&sb=")
            _ = try await client.send(.post, "/auth/v1/signup", json: ["email": "named@example.com", "password": "secret123"])
            let path = try linkPath(try newest(harness, to: "named@example.com")).replacingOccurrences(of: "type=signup", with: "type=email")
            let location = try #require(try await client.send(.get, path).headers[.location])
            #expect(location.contains("&type=signup"))
        }
    }
}
