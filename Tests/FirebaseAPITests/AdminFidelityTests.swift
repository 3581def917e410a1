import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// firebase-admin's owner calls as the emulator's operations.ts answers them: create, update, lookup, query.
@Suite struct AdminFidelityTests {
    func create(_ client: Client, _ body: JSON) async throws -> Reply {
        try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p/accounts", json: body, headers: owner)
    }

    func lookup(_ client: Client, _ body: JSON) async throws -> [JSON] {
        try await client.send(.post, projectAccounts("lookup"), json: body, headers: owner).json["users"]?.arrayValue ?? []
    }

    /// An admin form sends every field: the unchanged address keeps its verification (setAccountInfoImpl compares).
    @Test func theSameEmailSentAgainStaysVerified() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let updated = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "email": "Alice@Example.com",
                                                                                        "displayName": "Alice A."], headers: owner)
            #expect(updated.status == .ok)
            #expect(try await lookup(client, ["localId": ["alice-uid"]]).first?["emailVerified"] == true)
            _ = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "email": "alice2@example.com"], headers: owner)
            #expect(try await lookup(client, ["localId": ["alice-uid"]]).first?["emailVerified"] == false)
        }
    }

    /// signUp's owner checks in the emulator's order: a taken id first, then the phone as written (E.164), and
    /// createUser's enrolled factors are kept.
    @Test func anOwnersCreateChecksTheIdFirstAndKeepsTheFactors() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let taken = try await create(client, ["localId": "alice-uid", "email": "alice@example.com", "password": "1"])
            #expect(errorMessage(taken) == "DUPLICATE_LOCAL_ID")
            let bare = try await create(client, ["localId": "u2", "phoneNumber": "15555550100"])
            #expect(errorMessage(bare) == "INVALID_PHONE_NUMBER : Invalid format.")
            let badFactor = try await create(client, ["localId": "u2", "mfaInfo": [["phoneInfo": "not a number"]]])
            #expect(errorMessage(badFactor) == "INVALID_MFA_PHONE_NUMBER : Invalid format.")
            #expect(try await lookup(client, ["localId": ["u2"]]).isEmpty, "a refused create makes nobody")
            let made = try await create(client, ["localId": "u2", "email": "two@example.com", "password": "secret123",
                                                  "mfaInfo": [["phoneInfo": "+15555550111", "displayName": "work phone"]]])
            #expect(made.status == .ok, "\(made.text)")
            let factors = try await lookup(client, ["localId": ["u2"]]).first?["mfaInfo"]?.arrayValue ?? []
            #expect(factors.count == 1 && factors.first?["phoneInfo"] == "+15555550111" && factors.first?["displayName"] == "work phone")
        }
    }

    /// update_user's factors: a number given twice is kept once, and a bad number refuses the list without touching
    /// the factors the user has (they were deleted before the check).
    @Test func anOwnersFactorListIsCheckedWholeAndKeepsANumberOnce() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            func update(_ enrollments: JSON) async throws -> Reply {
                try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "mfa": ["enrollments": enrollments]], headers: owner)
            }
            let twice = try await update([["phoneInfo": "+15555550111"], ["phoneInfo": "+15555550111", "displayName": "again"]])
            #expect(twice.status == .ok, "\(twice.text)")
            #expect(try await lookup(client, ["localId": ["alice-uid"]]).first?["mfaInfo"]?.arrayValue?.count == 1)
            let bad = try await update([["phoneInfo": "+15555550122"], ["phoneInfo": "15555550133"]])
            #expect(errorMessage(bad) == "INVALID_MFA_PHONE_NUMBER : Invalid format.")
            let kept = try await lookup(client, ["localId": ["alice-uid"]]).first?["mfaInfo"]?.arrayValue ?? []
            #expect(kept.count == 1 && kept.first?["phoneInfo"] == "+15555550111")
        }
    }

    /// set_custom_user_claims replaces the claims whole, a null claim kept as the emulator stores the string it is given.
    @Test func customClaimsAreReplacedWholeWithTheirNulls() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            func set(_ claims: String) async throws {
                let reply = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "customAttributes": .string(claims)],
                                                  headers: owner)
                #expect(reply.status == .ok, "\(reply.text)")
            }
            func current() async throws -> JSON? {
                let text = try await lookup(client, ["localId": ["alice-uid"]]).first?["customAttributes"]?.stringValue
                return try text.map { try JSON.parse(text: $0) }
            }
            try await set(#"{"role":"admin","tier":1}"#)
            try await set(#"{"role":null,"plan":"pro"}"#)
            #expect(try await current() == ["role": .null, "plan": "pro"])
        }
    }

    /// get_users([ProviderIdentifier("phone", …)]): the emulator finds the password and phone providers by address.
    @Test func aFederatedIdLookupFindsThePasswordAndPhoneProvidersByAddress() async throws {
        let phoneUser = Seed.UserSeed(id: "phone-uid", phone: "+15555550142", phoneVerified: true)
        let harness = try Harness(seed: firebaseProject(users: [alice, phoneUser]))
        try await harness.run { client in
            let found = try await lookup(client, ["federatedUserId": [["providerId": "phone", "rawId": "+15555550142"],
                                                                      ["providerId": "password", "rawId": "alice@example.com"]]])
            #expect(Set(found.compactMap { $0["localId"]?.stringValue }) == ["phone-uid", "alice-uid"])
        }
    }

    /// queryAccounts sorts by user id, ascending unless `order` is DESC; creation order on request.
    @Test func queryListsByUserIdInEitherOrder() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            for id in ["b", "c", "a"] { #expect(try await create(client, ["localId": .string(id)]).status == .ok) }
            func ids(_ body: JSON) async throws -> [String] {
                try await client.send(.post, projectAccounts("query"), json: body, headers: owner).json["userInfo"]?.arrayValue?
                    .compactMap { $0["localId"]?.stringValue } ?? []
            }
            #expect(try await ids([:]) == ["a", "b", "c"])
            #expect(try await ids(["order": "DESC"]) == ["c", "b", "a"])
            #expect(try await ids(["sortBy": "CREATED_AT"]) == ["b", "c", "a"])
            let other = try await client.send(.post, projectAccounts("query"), json: ["sortBy": "NAME"], headers: owner)
            #expect(other.status == .notImplemented)
        }
    }
}
