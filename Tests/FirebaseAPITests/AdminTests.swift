import AuthCore
import Crypto
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// One `accounts:batchCreate` hash family: the request's hash parameters and the imported user's
/// `passwordHash`/`salt`, computed here independently of Fauxth, for the password `password`.
struct ImportedHashCase: Sendable, CustomTestStringConvertible {
    var algorithm: String
    var parameters: [String: JSON]
    var password: String
    var hash: [UInt8]
    var salt: [UInt8]

    var testDescription: String { algorithm }

    static let salt = Array("NaCl-salt".utf8)
    static let key = Array("signer-key-0123456789".utf8)
    static let password = "imported-pw"

    static let all: [ImportedHashCase] = [
        ImportedHashCase(algorithm: "BCRYPT", parameters: [:], password: "password123",
                         hash: Array("$2b$04$/38xmF/uz8yh1QOoIh5j1ONZI6kjmNCbT5ke/0Tv.6t43oNI.kVS.".utf8), salt: []),
        ImportedHashCase(algorithm: "HMAC_SHA256", parameters: ["signerKey": .string(Data(key).base64EncodedString())], password: password,
                         hash: Array(HMAC<SHA256>.authenticationCode(for: salt + Array(password.utf8), using: SymmetricKey(data: key))), salt: salt),
        ImportedHashCase(algorithm: "HMAC_SHA512", parameters: ["signerKey": .string(Data(key).base64EncodedString()), "passwordHashOrder": "PASSWORD_AND_SALT"],
                         password: password,
                         hash: Array(HMAC<SHA512>.authenticationCode(for: Array(password.utf8) + salt, using: SymmetricKey(data: key))), salt: salt),
        ImportedHashCase(algorithm: "SHA256", parameters: ["rounds": 1], password: password,
                         hash: Array(SHA256.hash(data: salt + Array(password.utf8))), salt: salt),
        ImportedHashCase(algorithm: "MD5", parameters: ["rounds": 1, "passwordHashOrder": "PASSWORD_AND_SALT"], password: password,
                         hash: Array(Insecure.MD5.hash(data: Array(password.utf8) + salt)), salt: salt),
        ImportedHashCase(algorithm: "PBKDF2_SHA256", parameters: ["rounds": 1000], password: password,
                         hash: pbkdf2SHA256(Array(password.utf8), salt: salt, rounds: 1000), salt: salt),
        // firebase/scrypt's published vector for Firebase's modified scrypt.
        ImportedHashCase(algorithm: "SCRYPT",
                         parameters: ["signerKey": "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
                                      "saltSeparator": "Bw==", "rounds": 8, "memoryCost": 14],
                         password: "user1password",
                         hash: Array(Data(base64Encoded: "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")!),
                         salt: Array(Data(base64Encoded: "42xEC+ixf3L2lw==")!)),
    ]

    /// PBKDF2-HMAC-SHA256 (RFC 8018), one 32-byte block.
    static func pbkdf2SHA256(_ password: [UInt8], salt: [UInt8], rounds: Int) -> [UInt8] {
        let key = SymmetricKey(data: password)
        var u = Array(HMAC<SHA256>.authenticationCode(for: salt + [0, 0, 0, 1], using: key))
        var t = u
        for _ in 1..<rounds {
            u = Array(HMAC<SHA256>.authenticationCode(for: u, using: key))
            for i in t.indices { t[i] ^= u[i] }
        }
        return t
    }
}

@Suite struct AdminTests {
    @Test(arguments: ImportedHashCase.all)
    func batchCreateImportsAHashThatSignsIn(_ hashCase: ImportedHashCase) async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            var body = hashCase.parameters
            body["hashAlgorithm"] = .string(hashCase.algorithm)
            var user: [String: JSON] = ["localId": "imported", "email": "imported@example.com",
                                        "passwordHash": .string(Data(hashCase.hash).base64EncodedString())]
            if !hashCase.salt.isEmpty { user["salt"] = .string(Data(hashCase.salt).base64EncodedString()) }
            body["users"] = [.object(user)]
            let imported = try await client.send(.post, projectAccounts("batchCreate"), json: .object(body), headers: owner)
            #expect(imported.json == ["kind": "identitytoolkit#UploadAccountResponse"])
            let signedIn = try await passwordSignIn(client, "imported@example.com", hashCase.password)
            #expect(signedIn["localId"] == "imported")
            let wrong = try await passwordSignIn(client, "imported@example.com", hashCase.password + "x")
            #expect(wrong["error"]?["message"] == "INVALID_PASSWORD")
        }
    }

    @Test func batchCreateReportsBadUsersByIndexAndKeepsTheRest() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let users: JSON = [["localId": "good", "email": "good@example.com", "displayName": "Good", "customAttributes": #"{"level":3}"#,
                                "createdAt": "1500000000000",
                                "providerUserInfo": [["providerId": "google.com", "rawId": "g-good", "email": "good@example.com"]]],
                               ["email": "no-id@example.com"],
                               ["localId": "bad-email", "email": "nope"]]
            let reply = try await client.send(.post, projectAccounts("batchCreate"), json: ["users": users], headers: owner)
            #expect(reply.status == .ok)
            #expect(reply.json["error"] == [["index": 1, "message": "MISSING_LOCAL_ID"], ["index": 2, "message": "INVALID_EMAIL"]])
            let lookup = try await client.send(.post, projectAccounts("lookup"), json: ["localId": ["good", "bad-email"]], headers: owner)
            #expect(lookup.json["users"]?.arrayValue?.count == 1)
            #expect(lookup.json["users"]?[0]?["customAttributes"] == #"{"level":3}"#)
            #expect(lookup.json["users"]?[0]?["createdAt"] == "1500000000000")
            #expect(lookup.json["users"]?[0]?["providerUserInfo"]?[0]?["providerId"] == "google.com")

            let unsupported = try await client.send(.post, projectAccounts("batchCreate"), json: ["hashAlgorithm": "ROT13", "users": [["localId": "r"]]],
                                                    headers: owner)
            #expect(errorMessage(unsupported) == "INVALID_ARGUMENT : Unsupported hash algorithm ROT13")
            let empty = try await client.send(.post, projectAccounts("batchCreate"), json: ["users": []], headers: owner)
            #expect(errorMessage(empty) == "MISSING_USER_ACCOUNT")
            let notOwner = try await client.send(.post, projectAccounts("batchCreate") + "?key=k", json: ["users": []])
            #expect(errorMessage(notOwner) == "INSUFFICIENT_PERMISSION")
        }
    }

    @Test func batchCreateWithSanityCheckRefusesDuplicateEmails() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let users: JSON = [["localId": "a", "email": "dup@example.com"], ["localId": "b", "email": "DUP@example.com"]]
            let reply = try await client.send(.post, projectAccounts("batchCreate"), json: ["users": users, "sanityCheck": true], headers: owner)
            #expect(errorMessage(reply) == "DUPLICATE_EMAIL : dup@example.com")
            let google: JSON = [["providerId": "google.com", "rawId": "g-1"]]
            let sameAccount: JSON = [["localId": "c", "providerUserInfo": google], ["localId": "d", "providerUserInfo": google]]
            let twice = try await client.send(.post, projectAccounts("batchCreate"), json: ["users": sameAccount, "sanityCheck": true], headers: owner)
            #expect(errorMessage(twice) == "DUPLICATE_RAW_ID : Provider id(google.com), Raw id(g-1)")
        }
        #expect(try harness.emulator.users(in: "p").isEmpty)
    }

    @Test func batchDeleteNeedsDisabledAccountsUnlessForced() async throws {
        let carol = Seed.UserSeed(id: "carol-uid", email: "carol@example.com", disabled: true)
        let harness = try Harness(seed: firebaseProject(users: [alice, carol]))
        try await harness.run { client in
            let reply = try await client.send(.post, projectAccounts("batchDelete"), json: ["localIds": ["alice-uid", "carol-uid", "ghost"]], headers: owner)
            #expect(reply.json == ["errors": [["index": 0, "localId": "alice-uid", "message": "NOT_DISABLED : Disable the account before batch deletion."]]])
            #expect(try harness.emulator.user(in: "p", id: "carol-uid") == nil)
            #expect(try harness.emulator.user(in: "p", id: "alice-uid") != nil)
            let forced = try await client.send(.post, projectAccounts("batchDelete"), json: ["localIds": ["alice-uid"], "force": true], headers: owner)
            #expect(forced.json == [:])
            #expect(try harness.emulator.user(in: "p", id: "alice-uid") == nil)
            let empty = try await client.send(.post, projectAccounts("batchDelete"), json: ["localIds": []], headers: owner)
            #expect(errorMessage(empty) == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
        }
    }

    @Test func batchGetPagesInLocalIdOrder() async throws {
        let users = ["u3", "u1", "u2"].map { (id: String) in Seed.UserSeed(id: id, email: "\(id)@example.com") }
        let harness = try Harness(seed: firebaseProject(users: users))
        try await harness.run { client in
            let first = try await client.send(.get, projectAccounts("batchGet") + "?maxResults=2", headers: owner)
            #expect(first.json["kind"] == "identitytoolkit#DownloadAccountResponse")
            #expect(first.json["users"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["u1", "u2"])
            #expect(first.json["nextPageToken"] == "u2")
            let second = try await client.send(.get, projectAccounts("batchGet") + "?maxResults=2&nextPageToken=u2", headers: owner)
            #expect(second.json["users"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["u3"])
            #expect(second.json["nextPageToken"] == nil)
            let all = try await client.send(.get, projectAccounts("batchGet") + "?maxResults=-1", headers: owner)
            #expect(all.json["users"]?.arrayValue?.count == 3)
            let zero = try await client.send(.get, projectAccounts("batchGet") + "?maxResults=0", headers: owner)
            #expect(errorMessage(zero) == "INVALID_ARGUMENT : maxResults must be between 1 and 1000")
        }
    }

    @Test func queryCountsOrListsTheUsers() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice, unverifiedBob]))
        try await harness.run { client in
            let count = try await client.send(.post, projectAccounts("query"), json: ["returnUserInfo": false], headers: owner)
            #expect(count.json == ["recordsCount": "2"])
            let listed = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p:queryAccounts", json: [:], headers: owner)
            #expect(listed.json["recordsCount"] == "2")
            #expect(listed.json["userInfo"]?.arrayValue?.compactMap { $0["email"]?.stringValue }.sorted() == ["alice@example.com", "bob@example.com"])
            // The first expression filters (email in any case, user id, phone); offset and limit page.
            let expression = try await client.send(.post, projectAccounts("query"), json: ["expression": [["email": "ALICE@example.com"]]], headers: owner)
            #expect(expression.json["recordsCount"] == "1" && expression.json["userInfo"]?[0]?["email"] == "alice@example.com")
            let paged = try await client.send(.post, projectAccounts("query"), json: ["offset": "1", "limit": 1], headers: owner)
            #expect(paged.json["recordsCount"] == "2" && paged.json["userInfo"]?.arrayValue?.count == 1)
            let tooMany = try await client.send(.post, projectAccounts("query"), json: ["limit": 501], headers: owner)
            #expect(errorMessage(tooMany) == "INVALID_ARGUMENT : limit must be between 1 and 500")
            let notAnObject = try await client.send(.post, projectAccounts("query"), json: ["expression": ["alice"]], headers: owner)
            #expect(notAnObject.status == .badRequest)
        }
    }

    @Test func createSessionCookieRespectsTheDurationBounds() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let path = "/identitytoolkit.googleapis.com/v1/projects/p:createSessionCookie"
            for duration in [299, 1_209_601] {
                let refused = try await client.send(.post, path, json: ["idToken": session["idToken"]!, "validDuration": .int(duration)], headers: owner)
                #expect(errorMessage(refused) == "INVALID_DURATION", "\(duration)")
            }
            let cookie = try await client.send(.post, path, json: ["idToken": session["idToken"]!, "validDuration": "3600"], headers: owner)
            let cookieClaims = try claims(cookie.json["sessionCookie"])
            let now = Int(Harness.epoch.timeIntervalSince1970)
            #expect(cookieClaims["iss"] == "https://session.firebase.google.com/p")
            #expect(cookieClaims["sub"] == "alice-uid")
            #expect(cookieClaims["aud"] == "p")
            #expect(cookieClaims["exp"] == .int(now + 3600))
            let twoWeeks = try await client.send(.post, path, json: ["idToken": session["idToken"]!], headers: owner)
            #expect(try claims(twoWeeks.json["sessionCookie"])["exp"] == .int(now + 1_209_600))
            let notOwner = try await client.send(.post, path + "?key=k", json: ["idToken": session["idToken"]!])
            #expect(errorMessage(notOwner) == "INSUFFICIENT_PERMISSION")
        }
    }

    @Test func ownersSetCustomClaimsThatReachTheIdToken() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let before = try await passwordSignIn(client)
            let set = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "customAttributes": #"{"tier":"gold","name":"Boss"}"#],
                                            headers: owner)
            #expect(set.status == .ok)
            // A session open before the change gets the claims at its next refresh.
            let refreshed = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": before["refreshToken"]!])
            #expect(try claims(refreshed.json["id_token"])["tier"] == "gold")
            let token = try claims(try await passwordSignIn(client)["idToken"])
            #expect(token["tier"] == "gold")
            // Custom claims may override the profile's name, never the reserved claims.
            #expect(token["name"] == "Boss")
            let reserved = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "customAttributes": #"{"iss":"me"}"#],
                                                 headers: owner)
            #expect(errorMessage(reserved) == "FORBIDDEN_CLAIM : iss")
            let tooLarge = try await client.send(.post, projectAccounts("update"),
                                                 json: ["localId": "alice-uid", "customAttributes": .string(#"{"x":""# + String(repeating: "a", count: 1000) + #""}"#)],
                                                 headers: owner)
            #expect(errorMessage(tooLarge) == "CLAIMS_TOO_LARGE")
            let session = try await passwordSignIn(client)
            let byUser = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "customAttributes": #"{"tier":"free"}"#])
            #expect(errorMessage(byUser) == "INSUFFICIENT_PERMISSION")
            // Replacing the claims drops the ones left out.
            _ = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "customAttributes": #"{"beta":true}"#], headers: owner)
            let replaced = try claims(try await passwordSignIn(client)["idToken"])
            #expect(replaced["beta"] == true)
            #expect(replaced["tier"] == nil)
        }
    }

    @Test func ownerLookupFindsUsersByEveryIdentifier() async throws {
        let phoneUser = Seed.UserSeed(id: "phone-uid", phone: "+15550100200", phoneVerified: true)
        let harness = try Harness(seed: firebaseProject(users: [alice, unverifiedBob, phoneUser]))
        try await harness.run { client in
            _ = try await client.send(.post, projectAccounts("update"), json: ["localId": "bob-uid",
                                                                               "linkProviderUserInfo": ["providerId": "github.com", "rawId": "gh-bob"]],
                                      headers: owner)
            let found = try await client.send(.post, projectAccounts("lookup"), json: [
                "localId": ["alice-uid"], "email": ["nobody@example.com"], "phoneNumber": ["+15550100200"],
                "federatedUserId": [["providerId": "github.com", "rawId": "gh-bob"]],
            ], headers: owner)
            #expect(found.json["users"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["alice-uid", "phone-uid", "bob-uid"])
            let none = try await client.send(.post, projectAccounts("lookup"), json: ["email": ["nobody@example.com"]], headers: owner)
            #expect(none.json == ["kind": "identitytoolkit#GetAccountInfoResponse"])
        }
    }

    @Test func theEmulatorEndpointClearsEveryAccount() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice, unverifiedBob]))
        try await harness.run { client in
            let cleared = try await client.send(.delete, "/emulator/v1/projects/p/accounts")
            #expect(cleared.status == .ok)
            #expect(cleared.json == [:])
            #expect(try await client.send(.post, projectAccounts("query"), json: ["returnUserInfo": false], headers: owner).json == ["recordsCount": "0"])
        }
    }
}
