import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct SignUpTests {
    @Test func anEmptyBodyCreatesAnAnonymousUserWithAnUnsignedToken() async throws {
        let harness = try Harness(seed: firebaseProject())
        let reply = try await harness.run { client in try await client.send(.post, accounts("signUp"), json: ["returnSecureToken": true]) }
        #expect(reply.status == .ok)
        #expect(reply.json["kind"] == "identitytoolkit#SignupNewUserResponse")
        #expect(reply.json["expiresIn"] == "3600")
        #expect(reply.json["refreshToken"]?.stringValue?.hasPrefix("AMf-vB") == true)
        let localId = try #require(reply.json["localId"]?.stringValue)
        #expect(localId.wholeMatch(of: #/[A-Za-z0-9]{28}/#) != nil)
        let token = try claims(reply.json["idToken"])
        let now = Int(Harness.epoch.timeIntervalSince1970)
        #expect(token["iss"] == "https://securetoken.google.com/p")
        #expect(token["aud"] == "p")
        #expect(token["sub"] == .string(localId))
        #expect(token["user_id"] == .string(localId))
        #expect(token["iat"] == .int(now))
        #expect(token["exp"] == .int(now + 3600))
        #expect(token["provider_id"] == "anonymous")
        #expect(token["firebase"]?["sign_in_provider"] == "anonymous")
        #expect(token["email"] == nil)
    }

    @Test func emailSignUpLowercasesTheEmailAndSignsTheUserIn() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let reply = try await client.send(.post, accounts("signUp"), json: ["email": "New@Example.com", "password": "secret123", "displayName": "Neo"])
            #expect(reply.status == .ok)
            #expect(reply.json["email"] == "new@example.com")
            #expect(reply.json["displayName"] == "Neo")
            let token = try claims(reply.json["idToken"])
            #expect(token["email"] == "new@example.com")
            #expect(token["email_verified"] == false)
            #expect(token["name"] == "Neo")
            #expect(token["provider_id"] == nil)
            #expect(token["firebase"] == ["identities": ["email": ["new@example.com"]], "sign_in_provider": "password"])

            let lookup = try await client.send(.post, accounts("lookup"), json: ["idToken": reply.json["idToken"]!])
            let user = try #require(lookup.json["users"]?[0])
            #expect(user["localId"] == reply.json["localId"])
            #expect(user["emailVerified"] == false)
            #expect(user["createdAt"] == .string(String(Int(Harness.epoch.timeIntervalSince1970) * 1000)))
            #expect(user["providerUserInfo"] == [["providerId": "password", "federatedId": "new@example.com", "email": "new@example.com",
                                                  "rawId": "new@example.com", "displayName": "Neo"]])
            // Never a usable hash: the redacted placeholder.
            #expect(user["passwordHash"] == "UkVEQUNURUQ=")
        }
    }

    @Test func signUpRefusesATakenEmailAWeakPasswordAndMissingFields() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let taken = try await client.send(.post, accounts("signUp"), json: ["email": "ALICE@example.com", "password": "secret123"])
            #expect(taken.status == .badRequest)
            #expect(errorMessage(taken) == "EMAIL_EXISTS")
            let weak = try await client.send(.post, accounts("signUp"), json: ["email": "w@example.com", "password": "12345"])
            #expect(errorMessage(weak) == "WEAK_PASSWORD : Password should be at least 6 characters")
            // Counted as the emulator's JavaScript counts: three emoji are six UTF-16 units, five accented letters five.
            let accented = try await client.send(.post, accounts("signUp"), json: ["email": "a@example.com", "password": "ééééé"])
            #expect(errorMessage(accented) == "WEAK_PASSWORD : Password should be at least 6 characters")
            let emoji = try await client.send(.post, accounts("signUp"), json: ["email": "e@example.com", "password": "😀😀😀"])
            #expect(emoji.status == .ok)
            #expect(errorMessage(try await client.send(.post, accounts("signUp"), json: ["password": "secret123"])) == "MISSING_EMAIL")
            #expect(errorMessage(try await client.send(.post, accounts("signUp"), json: ["email": "x@example.com"])) == "MISSING_PASSWORD")
            #expect(errorMessage(try await client.send(.post, accounts("signUp"), json: ["email": "", "password": ""])) == "INVALID_EMAIL")
        }
        #expect(try harness.emulator.users(in: "p").count == 2)
    }

    @Test func anAnonymousUserUpgradesToEmailAndKeepsItsLocalId() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let anonymous = try await client.send(.post, accounts("signUp"), json: [:]).json
            let upgraded = try await client.send(.post, accounts("signUp"), json: ["idToken": anonymous["idToken"]!, "email": "up@example.com",
                                                                                  "password": "secret123"])
            #expect(upgraded.status == .ok)
            #expect(upgraded.json["localId"] == anonymous["localId"])
            #expect(upgraded.json["email"] == "up@example.com")
            let token = try claims(upgraded.json["idToken"])
            #expect(token["provider_id"] == nil)
            #expect(token["firebase"]?["sign_in_provider"] == "password")
            let signedIn = try await passwordSignIn(client, "up@example.com")
            #expect(signedIn["localId"] == anonymous["localId"])
        }
    }

    @Test func adminCreateNeedsTheOwnerAndReturnsNoTokens() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let body: JSON = ["localId": "chosen-id", "email": "admin-made@example.com", "password": "secret123", "emailVerified": true,
                              "phoneNumber": "+15550100999", "displayName": "Made"]
            let created = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p/accounts", json: body, headers: owner)
            #expect(created.status == .ok)
            #expect(created.json["localId"] == "chosen-id")
            #expect(created.json["idToken"] == nil)
            #expect(created.json["refreshToken"] == nil)
            let again = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p/accounts", json: ["localId": "chosen-id"],
                                              headers: owner)
            #expect(errorMessage(again) == "DUPLICATE_LOCAL_ID")
            let clientChosen = try await client.send(.post, accounts("signUp"), json: ["localId": "mine", "email": "c@example.com", "password": "secret123"])
            #expect(errorMessage(clientChosen) == "UNEXPECTED_PARAMETER : User ID")
            let lookup = try await client.send(.post, projectAccounts("lookup"), json: ["localId": ["chosen-id"]], headers: owner)
            #expect(lookup.json["users"]?[0]?["emailVerified"] == true)
            #expect(lookup.json["users"]?[0]?["phoneNumber"] == "+15550100999")
        }
    }

    @Test func aTenantWithAnonymousSignInOffAnswersAdminOnlyOperation() async throws {
        let locked = Seed.TenantSeed(id: "p:locked", dialect: .firebase, settings: ["tenant_config": ["allowPasswordSignup": true]])
        let harness = try Harness(seed: firebaseProject(tenants: [locked]))
        try await harness.run { client in
            let anonymous = try await client.send(.post, accounts("signUp"), json: ["tenantId": "locked"])
            #expect(errorMessage(anonymous) == "ADMIN_ONLY_OPERATION")
            let password = try await client.send(.post, accounts("signUp"), json: ["tenantId": "locked", "email": "t@example.com", "password": "secret123"])
            #expect(password.status == .ok)
            #expect(try claims(password.json["idToken"])["firebase"]?["tenant"] == "locked")
        }
    }

    /// The Firebase emulator takes any `x@y` address (`/^[^@]+@[^@]+$/`), so test suites written against
    /// it use `dev@localhost`.
    @Test func anAddressWithoutADotInItsDomainIsAccepted() async throws {
        let harness = try Harness(seed: firebaseProject())
        let reply = try await harness.run { client in
            try await client.send(.post, accounts("signUp"), json: ["email": "dev@localhost", "password": "secret123"])
        }
        #expect(reply.status == .ok)
    }

    /// The JS SDK's `validatePassword` reads the rule sign-up applies, the project's minimum, from `/v2/passwordPolicy`.
    @Test func thePasswordPolicyIsTheMinimumSignUpApplies() async throws {
        let harness = try Harness(seed: firebaseProject(["password_min_length": 8]))
        try await harness.run { client in
            let policy = try await client.send(.get, "/identitytoolkit.googleapis.com/v2/passwordPolicy?key=k")
            #expect(policy.status == .ok)
            #expect(policy.json["customStrengthOptions"] == ["minPasswordLength": 8])
            #expect(policy.json["schemaVersion"] == 1)
            let short = try await client.send(.post, accounts("signUp"), json: ["email": "s@example.com", "password": "seven77"])
            #expect(errorMessage(short) == "WEAK_PASSWORD : Password should be at least 8 characters")
        }
    }
}
