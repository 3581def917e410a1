import AuthCore
import Crypto
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// A service-role token for the test project (no `sub`, no `exp`, as the Supabase keys are).
let serviceRole: HTTPFields = {
    let token = try! JWS.sign(["role": "service_role", "iss": "supabase-demo"], with: projectKey)
    return [.authorization: "Bearer \(token)", HTTPField.Name("X-Supabase-Api-Version")!: "2024-01-01"]
}()

@Suite struct AdminTests {
    /// A banned user's refresh is refused in the grant's own words (GoTrue's tokens service), a sign-in in its.
    @Test func aBannedUsersRefreshIsRefusedInTheGrantsWords() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
            try await client.send(.put, "/auth/v1/admin/users/\(confirmedUser.id!)", json: ["ban_duration": "1h"], headers: serviceRole)
            let refresh = try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": session["refresh_token"]!],
                                                headers: .supabaseClient)
            #expect(refresh.status == .badRequest)
            #expect(refresh.json["code"] == "user_banned")
            #expect(refresh.json["message"] == "Invalid Refresh Token: User Banned")
            let signIn = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"],
                                               headers: .supabaseClient)
            #expect(signIn.json["message"] == "User is banned")
        }
    }

    @Test func adminRoutesNeedAnAdminRole() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            #expect(try await client.send(.get, "/auth/v1/admin/users", headers: .supabaseClient).json["code"] == "no_authorization")
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"])
            let asUser = try await client.send(.get, "/auth/v1/admin/users", headers: bearer(session.json))
            #expect(asUser.status == .forbidden)
            #expect(asUser.json == ["code": "not_admin", "message": "User not allowed"])
        }
    }

    @Test func usersAreCreatedReadUpdatedAndDeleted() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            let created = try await client.send(.post, "/auth/v1/admin/users", json: [
                "email": "made@example.com", "password": "secret123", "email_confirm": true, "user_metadata": ["name": "Made"],
                "app_metadata": ["plan": "pro"],
            ], headers: serviceRole)
            #expect(created.status == .ok)
            #expect(created.json["email_confirmed_at"] != nil)
            #expect(created.json["app_metadata"]?["plan"] == "pro")
            let id = try #require(created.json["id"]?.stringValue)
            #expect(try await client.send(.post, "/auth/v1/admin/users", json: ["email": "made@example.com"], headers: serviceRole).json["code"] == "email_exists")
            #expect(try await client.send(.post, "/auth/v1/admin/users", json: [:], headers: serviceRole).status == .badRequest)

            #expect(try await client.send(.get, "/auth/v1/admin/users/\(id)", headers: serviceRole).json["email"] == "made@example.com")
            #expect(try await client.send(.get, "/auth/v1/admin/users/not-a-uuid", headers: serviceRole).status == .notFound)
            #expect(try await client.send(.get, "/auth/v1/admin/users/\(UUID().uuidString.lowercased())", headers: serviceRole).json["code"] == "user_not_found")

            let updated = try await client.send(.put, "/auth/v1/admin/users/\(id)", json: [
                "user_metadata": ["name": nil, "team": "red"], "ban_duration": "24h",
            ], headers: serviceRole)
            #expect(updated.json["user_metadata"] == ["email_verified": true, "team": "red"])
            #expect(updated.json["banned_until"] == .string(RFC3339.string(from: Harness.epoch.addingTimeInterval(86400))))
            let banned = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "made@example.com", "password": "secret123"],
                                               headers: .supabaseClient)
            #expect(banned.json["code"] == "user_banned")
            try await client.send(.put, "/auth/v1/admin/users/\(id)", json: ["ban_duration": "none", "password": "newsecret1"], headers: serviceRole)
            let signedIn = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "made@example.com", "password": "newsecret1"])
            #expect(signedIn.status == .ok)

            #expect(try await client.send(.delete, "/auth/v1/admin/users/\(id)", json: ["should_soft_delete": false], headers: serviceRole).json == [:])
            #expect(try await client.send(.get, "/auth/v1/admin/users/\(id)", headers: serviceRole).status == .notFound)
        }
    }

    /// A soft deletion keeps the user, obfuscated with GoTrue's `obfuscateValue`, and takes away its factors, sessions and
    /// password; its identities stay empty under new subjects, so the provider's account makes a new user.
    @Test func aSoftDeletionKeepsTheUserObfuscated() async throws {
        let harness = try Harness(seed: project(["GOTRUE_MAILER_AUTOCONFIRM": "true"], users: [confirmedUser]))
        let id = confirmedUser.id!
        try await harness.run { client in
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
            _ = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp"], headers: bearer(session))
            #expect(try await client.send(.delete, "/auth/v1/admin/users/\(id)", json: ["should_soft_delete": true], headers: serviceRole).json == [:])
            let user = try await client.send(.get, "/auth/v1/admin/users/\(id)", headers: serviceRole).json
            let expected = Base64URL.encode(Array(SHA256.hash(data: Array((id + "done@example.com").utf8))))
            #expect(user["email"] == .string(expected))
            #expect(user["email"]?.stringValue?.count == 43)
            #expect(user["phone"]?.stringValue == String(Base64URL.encode(Array(SHA256.hash(data: Array(id.utf8)))).prefix(15)))
            #expect(user["deleted_at"] == .string(RFC3339.string(from: Harness.epoch)))
            #expect(user["factors"] == nil)
            #expect(try harness.emulator.sessions(in: "p", userId: id).isEmpty)
            #expect(try await client.send(.get, "/auth/v1/user", headers: bearer(session)).status == .forbidden)
            #expect(try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"],
                                          headers: .supabaseClient).json["code"] == "invalid_credentials")
            // Done again, nothing changes.
            harness.emulator.clock.advance(by: 60)
            #expect(try await client.send(.delete, "/auth/v1/admin/users/\(id)", json: ["should_soft_delete": true], headers: serviceRole).json == [:])
            #expect(try await client.send(.get, "/auth/v1/admin/users/\(id)", headers: serviceRole).json == user)
        }
    }

    /// A ban's length is read as Go's `time.ParseDuration` reads it, and refused in GoTrue's words around Go's. Another
    /// script's digits (taken by a regular expression's `\d`, then refused by `Double`) and a number of 400 digits (an
    /// infinite duration) each ended the process.
    @Test func aBanDurationIsAGoDuration() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let refusals = ["١h": #"time: invalid duration "\xd9\xa1h""#, "２４h": #"time: invalid duration "\xef\xbc\x92\xef\xbc\x94h""#,
                            String(repeating: "9", count: 400) + "h": "time: invalid duration \"\(String(repeating: "9", count: 400))h\"",
                            "24": #"time: missing unit in duration "24""#]
            for (duration, refusal) in refusals {
                let answer = try await client.send(.put, "/auth/v1/admin/users/\(confirmedUser.id!)", json: ["ban_duration": .string(duration)],
                                                   headers: serviceRole)
                #expect(answer.status == .badRequest)
                #expect(answer.json["code"] == "validation_failed")
                #expect(answer.json["message"] == .string("invalid format for ban duration: \(refusal)"))
            }
            let banned = try await client.send(.put, "/auth/v1/admin/users/\(confirmedUser.id!)", json: ["ban_duration": "1h30m0.5s"], headers: serviceRole)
            #expect(banned.json["banned_until"] == .string(RFC3339.string(from: Harness.epoch.addingTimeInterval(5400.5))))
            // A zero duration lifts the ban, as `none` does (GoTrue's `User.Ban` clears it).
            let lifted = try await client.send(.put, "/auth/v1/admin/users/\(confirmedUser.id!)", json: ["ban_duration": "0s"], headers: serviceRole)
            #expect(lifted.json["banned_until"] == nil || lifted.json["banned_until"] == .null)
        }
    }

    @Test func aBcryptHashFromAnotherSystemSignsInWithItsPassword() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            // "password123" at cost 4 (a vector in BcryptTests): imports keep the cost they were made with.
            let hash = "$2b$04$/38xmF/uz8yh1QOoIh5j1ONZI6kjmNCbT5ke/0Tv.6t43oNI.kVS."
            let created = try await client.send(.post, "/auth/v1/admin/users", json: [
                "email": "moved@example.com", "password_hash": .string(hash), "email_confirm": true,
            ], headers: serviceRole)
            #expect(created.status == .ok)
            let right = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "moved@example.com", "password": "password123"])
            #expect(right.status == .ok)
            let wrong = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "moved@example.com", "password": "password124"],
                                              headers: .supabaseClient)
            #expect(wrong.json["code"] == "invalid_credentials")

            let both = try await client.send(.post, "/auth/v1/admin/users", json: [
                "email": "both@example.com", "password": "secret123", "password_hash": .string(hash),
            ], headers: serviceRole)
            #expect(both.status == .badRequest)
            #expect(both.json["message"] == "Only a password or a password hash should be provided")
            let argon = try await client.send(.post, "/auth/v1/admin/users", json: [
                "email": "argon@example.com", "password_hash": "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA",
            ], headers: serviceRole)
            #expect(argon.status == .badRequest)
            let junk = try await client.send(.post, "/auth/v1/admin/users", json: ["email": "junk@example.com", "password_hash": "$2b$99$nope"],
                                             headers: serviceRole)
            #expect(junk.json["code"] == "validation_failed")
        }
    }

    @Test func listingPagesWithTotalsAndLinks() async throws {
        let harness = try Harness(seed: project())
        for i in 0..<5 { try harness.emulator.createUser(in: "p", NewUser(email: "u\(i)@example.com")) }
        try await harness.run { client in
            let page = try await client.send(.get, "/auth/v1/admin/users?page=2&per_page=2", headers: serviceRole)
            // Newest first, GoTrue's default order (all five were made in the same frozen instant: in reverse order of making).
            #expect(page.json["users"]?.arrayValue?.map { $0["email"] } == ["u2@example.com", "u1@example.com"])
            #expect(page.json["aud"] == "authenticated")
            #expect(page.headers[HTTPField.Name("X-Total-Count")!] == "5")
            #expect(page.headers[HTTPField.Name("Link")!] == #"</admin/users?page=3&per_page=2>; rel="next", </admin/users?page=3&per_page=2>; rel="last""#)
            let defaults = try await client.send(.get, "/auth/v1/admin/users?page=&per_page=", headers: serviceRole)
            #expect(defaults.json["users"]?.arrayValue?.count == 5)
            // The links keep the request's own query, as GoTrue re-encodes it (keys sorted, an empty per_page kept).
            #expect(defaults.headers[HTTPField.Name("Link")!] == #"</admin/users?page=1&per_page=>; rel="last""#)
            let filtered = try await client.send(.get, "/auth/v1/admin/users?sort=created_at+asc&per_page=1&filter=%40example", headers: serviceRole)
            #expect(filtered.headers[HTTPField.Name("Link")!]
                == #"</admin/users?filter=%40example&page=2&per_page=1&sort=created_at+asc>; rel="next", </admin/users?filter=%40example&page=5&per_page=1&sort=created_at+asc>; rel="last""#)
        }
    }

    @Test func generateLinkReturnsTheUserAndTheLinkWithoutSendingMail() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let reply = try await client.send(.post, "/auth/v1/admin/generate_link?redirect_to=myapp://in",
                                              json: ["type": "magiclink", "email": "done@example.com"], headers: serviceRole)
            #expect(reply.status == .ok)
            #expect(reply.json["id"] == .string(confirmedUser.id!))
            #expect(reply.json["verification_type"] == "magiclink")
            #expect(reply.json["redirect_to"] == "myapp://in")
            let otp = try #require(reply.json["email_otp"]?.stringValue)
            #expect(reply.json["hashed_token"] == .string(SHA224.hash(Array(("done@example.com" + otp).utf8)).hex))
            #expect(reply.json["action_link"]?.stringValue?.hasSuffix("&type=magiclink&redirect_to=myapp://in") == true)
            #expect(try harness.emulator.messages().isEmpty)
            let session = try await client.send(.post, "/auth/v1/verify", json: ["type": "magiclink", "token_hash": reply.json["hashed_token"]!])
            #expect(session.status == .ok)

            let signup = try await client.send(.post, "/auth/v1/admin/generate_link", json: ["type": "signup", "email": "gen@example.com", "password": "secret123"],
                                               headers: serviceRole)
            #expect(signup.json["email"] == "gen@example.com")
            #expect(try await client.send(.post, "/auth/v1/admin/generate_link", json: ["type": "recovery", "email": "ghost@example.com"],
                                          headers: serviceRole).json["code"] == "user_not_found")
            #expect(try await client.send(.post, "/auth/v1/admin/generate_link", json: ["type": "signup", "email": "done@example.com"],
                                          headers: serviceRole).json["code"] == "email_exists")
        }
    }

    /// From a sweep of GoTrue's admin.go: creation checks no password strength and gives a user without a password a
    /// random one; a user is answered with their factors; `email_confirm` records `email_verified`; a new phone
    /// reaches the phone identity; formatted numbers are refused; paging links count as GoTrue's do.
    @Test func adminUsersAreWrittenAndAnsweredAsGoTrueDoes() async throws {
        let harness = try Harness(seed: project(["GOTRUE_EXTERNAL_PHONE_ENABLED": "true"], users: [confirmedUser]))
        try await harness.run { client in
            let short = try await client.send(.post, "/auth/v1/admin/users", json: ["email": "short@example.com", "password": "123", "email_confirm": true],
                                              headers: serviceRole)
            #expect(short.status == .ok)
            #expect(try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "short@example.com", "password": "123"]).status == .ok)
            let blank = try await client.send(.post, "/auth/v1/admin/users", json: ["email": "blank@example.com", "password": ""], headers: serviceRole)
            let blankId = try #require(blank.json["id"]?.stringValue)
            #expect(try harness.emulator.hasPassword(in: "p", userId: blankId), "a random password nobody knows")
            #expect(try await client.send(.post, "/auth/v1/admin/users", json: ["email": "both@example.com", "password": "", "password_hash": "$2a$10$x"],
                                          headers: serviceRole).json["message"] == "Only a password or a password hash should be provided")

            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
            _ = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp", "friendly_name": "app"], headers: bearer(session))
            let fetched = try await client.send(.get, "/auth/v1/admin/users/\(confirmedUser.id!)", headers: serviceRole)
            #expect(fetched.json["factors"]?[0]?["friendly_name"] == "app")

            let unconfirmed = try await client.send(.post, "/auth/v1/admin/users", json: ["email": "later@example.com"], headers: serviceRole)
            let laterId = try #require(unconfirmed.json["id"]?.stringValue)
            let confirmed = try await client.send(.put, "/auth/v1/admin/users/\(laterId)", json: ["email_confirm": true, "phone": "+15550100066",
                                                                                                 "phone_confirm": true], headers: serviceRole)
            #expect(confirmed.json["user_metadata"]?["email_verified"] == true)
            let phoneIdentity = confirmed.json["identities"]?.arrayValue?.first { $0["provider"] == "phone" }
            #expect(phoneIdentity?["identity_data"]?["phone"] == "15550100066")
            #expect(phoneIdentity?["identity_data"]?["phone_verified"] == true)
            let both = try await client.send(.post, "/auth/v1/admin/users", json: ["email": "pair@example.com", "phone": "+15550100068"],
                                             headers: serviceRole)
            let pairPhone = both.json["identities"]?.arrayValue?.first { $0["provider"] == "phone" }
            #expect(pairPhone != nil && pairPhone?["email"] == nil, "GoTrue's identity email is its data's: a phone identity has none")
            let formatted = try await client.send(.put, "/auth/v1/admin/users/\(laterId)", json: ["phone": "+1 (555) 010-0067"], headers: serviceRole)
            #expect(formatted.status == .badRequest)

            let none = try await client.send(.get, "/auth/v1/admin/users?filter=nobody-at-all", headers: serviceRole)
            #expect(none.headers[HTTPField.Name("Link")!] == #"</admin/users?filter=nobody-at-all&page=0>; rel="last""#)
            let badSort = try await client.send(.get, "/auth/v1/admin/users?sort=created_at&sort=bogus", headers: serviceRole)
            #expect(badSort.status == .badRequest)
        }
    }

    /// GoTrue's `adminGenerateLink`: a sign-up link for a new address needs a password; one for an unconfirmed user merges
    /// `data` into its metadata; the body's `redirect_to` is read when allowed.
    @Test func generateLinkSignsUpAsGoTrueDoes() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            func link(_ body: JSON, query: String = "") async throws -> Reply {
                try await client.send(.post, "/auth/v1/admin/generate_link" + query, json: body, headers: serviceRole)
            }
            let passwordless = try await link(["type": "signup", "email": "new@example.com"])
            #expect(passwordless.status == .badRequest)
            #expect(passwordless.json == ["code": "validation_failed", "message": "Signup requires a valid password"])
            #expect(try await link(["type": "signup", "email": "new@example.com", "password": "123"]).json["code"] == "weak_password")
            let made = try await link(["type": "signup", "email": "new@example.com", "password": "secret123", "data": ["plan": "free", "team": "red"],
                                       "redirect_to": "http://127.0.0.1:3000/welcome"])
            #expect(made.json["user_metadata"] == ["plan": "free", "team": "red"])
            #expect(made.json["redirect_to"] == "http://127.0.0.1:3000/welcome")
            let again = try await link(["type": "signup", "email": "new@example.com", "data": ["plan": "pro", "team": nil]],
                                       query: "?redirect_to=http://127.0.0.1:3000/q")
            #expect(again.json["user_metadata"] == ["plan": "pro"])
            #expect(again.json["redirect_to"] == "http://127.0.0.1:3000/q", "the query's when the body names none")
            let refused = try await link(["type": "recovery", "email": "new@example.com", "redirect_to": "https://evil.example/"],
                                         query: "?redirect_to=http://127.0.0.1:3000/q")
            #expect(refused.json["redirect_to"] == "http://127.0.0.1:3000/q", "an unlisted body redirect is not taken")
        }
    }

    @Test func inviteSendsTheInvitationWhichSignsTheUserIn() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            let invited = try await client.send(.post, "/auth/v1/invite", json: ["email": "guest@example.com", "data": ["team": "blue"]], headers: serviceRole)
            #expect(invited.status == .ok)
            #expect(invited.json["user_metadata"] == ["team": "blue"])
            let message = try #require(try harness.emulator.messages().first)
            #expect(message.purpose == .invite)
            #expect(message.subject == "You've been invited")
            let session = try await client.send(.post, "/auth/v1/verify", json: ["type": "invite", "email": "guest@example.com", "token": .string(message.codes[0])])
            #expect(session.json["user"]?["email_confirmed_at"] != nil)
        }
    }
}
