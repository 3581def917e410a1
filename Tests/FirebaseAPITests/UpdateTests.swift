import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct UpdateTests {
    @Test func aUserUpdatesAndClearsItsProfile() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let updated = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "displayName": "Alice B.",
                                                                                 "photoUrl": "https://example.com/a.png", "returnSecureToken": true])
            #expect(updated.json["kind"] == "identitytoolkit#SetAccountInfoResponse")
            #expect(updated.json["displayName"] == "Alice B.")
            #expect(updated.json["photoUrl"] == "https://example.com/a.png")
            // A profile change issues no new tokens.
            #expect(updated.json["idToken"] == nil)
            let cleared = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "deleteAttribute": ["DISPLAY_NAME"]])
            #expect(cleared.json["displayName"] == nil)
            #expect(cleared.json["photoUrl"] == "https://example.com/a.png")
            #expect(try claims(try await passwordSignIn(client)["idToken"])["picture"] == "https://example.com/a.png")
        }
    }

    /// Identity Toolkit wants a recent sign-in (five minutes by default) before a new password or email,
    /// or deleting the account; the SDKs turn `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` into `requires-recent-login`.
    @Test func sensitiveChangesNeedARecentSignIn() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            harness.emulator.clock.advance(by: 301)
            // Refreshing keeps the original sign-in time, so a fresh ID token does not count as recent.
            let refreshed = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": session["refreshToken"]!])
            let idToken = try #require(refreshed.json["id_token"])
            for change in [["password": "changed-pw"], ["email": "new@example.com"]] as [[String: JSON]] {
                let reply = try await client.send(.post, accounts("update"), json: .object(change.merging(["idToken": idToken]) { $1 }))
                #expect(errorMessage(reply) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            }
            #expect(errorMessage(try await client.send(.post, accounts("delete"), json: ["idToken": idToken])) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            let profile = try await client.send(.post, accounts("update"), json: ["idToken": idToken, "displayName": "Still fine"])
            #expect(profile.status == .ok)
            let again = try await passwordSignIn(client)
            let changed = try await client.send(.post, accounts("update"), json: ["idToken": again["idToken"]!, "password": "changed-pw"])
            #expect(changed.status == .ok)
        }
    }

    /// Under email enumeration protection a user changes their email only by a link to the new address
    /// (`verifyBeforeUpdateEmail`): `updateEmail` is refused in production's words (firebase-js-sdk #8009), where the
    /// Firebase emulator lets it through. An owner still sets it.
    @Test func enumerationProtectionRefusesAnEmailChangeWithoutVerification() async throws {
        let harness = try Harness(seed: firebaseProject(["config": ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]]], users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let refused = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "email": "new@example.com"])
            #expect(errorMessage(refused) == "OPERATION_NOT_ALLOWED : Please verify the new email before changing email.")
            let profile = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "displayName": "Alice B"])
            #expect(profile.status == .ok)
            let byOwner = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "email": "new@example.com"], headers: owner)
            #expect(byOwner.json["email"] == "new@example.com")
        }
    }

    @Test func aNewPasswordEndsOtherSessionsAndAnswersFreshTokens() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let other = try await passwordSignIn(client)
            let session = try await passwordSignIn(client)
            harness.emulator.clock.advance(by: 5)
            let weak = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "password": "short"])
            #expect(errorMessage(weak) == "WEAK_PASSWORD : Password should be at least 6 characters")
            let changed = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "password": "changed-pw"])
            #expect(changed.status == .ok)
            let fresh = try #require(changed.json["idToken"])
            #expect(changed.json["refreshToken"]?.stringValue != nil)
            #expect(try await client.send(.post, accounts("lookup"), json: ["idToken": fresh]).status == .ok)
            #expect(errorMessage(try await client.send(.post, accounts("lookup"), json: ["idToken": other["idToken"]!])) == "TOKEN_EXPIRED")
            let oldRefresh = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": other["refreshToken"]!])
            #expect(errorMessage(oldRefresh) == "TOKEN_EXPIRED")
            #expect(try await passwordSignIn(client, "alice@example.com", "changed-pw")["localId"] == "alice-uid")
        }
    }

    /// The JS SDK's `updatePassword` keeps the tokens it holds when the answer's ID token is the same one
    /// (`_updateTokensIfNecessary`), which it is when the change comes in the second of the sign-in.
    /// Firebase compares `validSince` in whole seconds, so that second's session stays valid and the
    /// refresh token the client kept still works; sessions from earlier seconds end.
    @Test func aPasswordChangeInTheSecondOfTheSignInKeepsThatSessionAndEndsOlderOnes() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let older = try await passwordSignIn(client)
            harness.emulator.clock.advance(by: 2)
            let session = try await passwordSignIn(client)
            let changed = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "password": "changed-pw",
                                                                                 "returnSecureToken": true])
            #expect(changed.status == .ok)
            #expect(changed.json["idToken"] == session["idToken"])
            let kept = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": session["refreshToken"]!])
            #expect(kept.status == .ok)
            #expect(try await client.send(.post, accounts("lookup"), json: ["idToken": kept.json["id_token"] ?? .null]).status == .ok)
            let ended = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": older["refreshToken"]!])
            #expect(errorMessage(ended) == "TOKEN_EXPIRED")
            #expect(errorMessage(try await client.send(.post, accounts("lookup"), json: ["idToken": older["idToken"]!])) == "TOKEN_EXPIRED")
        }
    }

    @Test func anEmailChangeIsUnverifiedAndCanBeUndoneFromTheOldAddress() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice, unverifiedBob]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let taken = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "email": "bob@example.com"])
            #expect(errorMessage(taken) == "EMAIL_EXISTS")
            let changed = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "email": "Moved@Example.com"])
            #expect(changed.json["email"] == "moved@example.com")
            #expect(changed.json["emailVerified"] == false)
            #expect(changed.json["idToken"]?.stringValue != nil)

            let recovery = try #require(try harness.emulator.messages().first)
            #expect(recovery.purpose == .recoverEmail)
            #expect(recovery.to == "alice@example.com")
            #expect(recovery.subject == "Your sign-in email was changed for Demo App")
            #expect(queryItems(try #require(recovery.links.first))["mode"] == "recoverEmail")
            let code = try #require(recovery.codes.first)
            let inspected = try await client.send(.post, accounts("resetPassword"), json: ["oobCode": .string(code)])
            #expect(inspected.json["requestType"] == "RECOVER_EMAIL")
            let recovered = try await client.send(.post, accounts("update"), json: ["oobCode": .string(code)])
            #expect(recovered.json["email"] == "alice@example.com")
            #expect(recovered.json["emailVerified"] == true)
            #expect(try await passwordSignIn(client)["localId"] == "alice-uid")
        }
    }

    @Test func ownersDisableUsersAndSetTheirPhone() async throws {
        let taken = Seed.UserSeed(id: "phone-uid", phone: "+15550100300", phoneVerified: true)
        let harness = try Harness(seed: firebaseProject(users: [alice, taken]))
        try await harness.run { client in
            let clash = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "phoneNumber": "+15550100300"], headers: owner)
            #expect(errorMessage(clash) == "PHONE_NUMBER_EXISTS")
            let bad = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "phoneNumber": "555"], headers: owner)
            #expect(errorMessage(bad) == "INVALID_PHONE_NUMBER : Invalid format.")
            let set = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "phoneNumber": "+15550100301",
                                                                                    "disableUser": true], headers: owner)
            #expect(set.status == .ok)
            let user = try await client.send(.post, projectAccounts("lookup"), json: ["localId": ["alice-uid"]], headers: owner).json["users"]?[0]
            #expect(user?["phoneNumber"] == "+15550100301")
            #expect(user?["disabled"] == true)
            #expect(errorMessage(try await client.send(.post, projectAccounts("update"), json: ["localId": "ghost", "displayName": "x"], headers: owner))
                    == "USER_NOT_FOUND")
        }
    }

    @Test func deleteProviderUnlinksAProvider() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            _ = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid",
                                                                               "linkProviderUserInfo": ["providerId": "github.com", "rawId": "gh-1"]],
                                      headers: owner)
            let session = try await passwordSignIn(client)
            #expect(try claims(session["idToken"])["firebase"]?["identities"]?["github.com"] == ["gh-1"])
            let unlinked = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "deleteProvider": ["github.com"]])
            #expect(unlinked.json["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue } == ["password"])
            let missingRaw = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid",
                                                                                           "linkProviderUserInfo": ["providerId": "github.com"]],
                                                   headers: owner)
            #expect(errorMessage(missingRaw) == "MISSING_RAW_ID")
        }
    }

    /// `deleteAttribute: ["PASSWORD"]` removes the password and `["EMAIL"]` the email, as the Firebase
    /// emulator does.
    @Test func deleteAttributeRemovesThePasswordAndTheEmail() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let reply = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "deleteAttribute": ["PASSWORD"]], headers: owner)
            #expect(reply.status == .ok)
            #expect(reply.json["passwordHash"] == nil)
            let signIn = try await passwordSignIn(client)
            #expect(signIn["idToken"] == nil)
            let email = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "deleteAttribute": ["EMAIL"]])
            #expect(email.status == .ok)
            #expect(email.json["email"] == nil)
        }
    }

    /// An owner update naming no user is `MISSING_LOCAL_ID`, and a client update with neither `idToken`
    /// nor `oobCode` is `INVALID_REQ_TYPE : Unsupported request parameters.`, as the Firebase emulator says.
    @Test func anUpdateNamingNoUserIsRefusedInTheEmulatorsWords() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let ownerReply = try await client.send(.post, projectAccounts("update"), json: ["displayName": "x"], headers: owner)
            #expect(ownerReply.status == .badRequest)
            let clientReply = try await client.send(.post, accounts("update"), json: ["displayName": "x"])
            #expect(clientReply.status == .badRequest)
            #expect(errorMessage(ownerReply) == "MISSING_LOCAL_ID")
            #expect(errorMessage(clientReply) == "INVALID_REQ_TYPE : Unsupported request parameters.")
        }
    }
}
