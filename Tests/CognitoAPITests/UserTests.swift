import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// A user's own attributes (`GetUser`, `UpdateUserAttributes`, verification, `DeleteUserAttributes`,
/// `DeleteUser`), the admin user operations, and `ListUsers`.
@Suite struct UserTests {
    func attributes(_ reply: Reply, _ key: String = "UserAttributes") -> [String: String] {
        Dictionary((reply.json[key]?.arrayValue ?? []).compactMap { item in
            item["Name"]?.stringValue.map { ($0, item["Value"]?.stringValue ?? "") }
        }) { $1 }
    }

    func adminGet(_ client: Client, _ username: String, pool: String = testPool) async throws -> Reply {
        try await client.cognito("AdminGetUser", ["UserPoolId": .string(pool), "Username": .string(username)])
    }

    @Test func getUserAnswersTheCallersAttributes() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let tokens = try await client.signIn("alice@example.com")
            let reply = try await client.cognito("GetUser", ["AccessToken": tokens["AccessToken"] ?? .null])
            #expect(reply.json["Username"] == .string(aliceId))
            #expect(attributes(reply) == ["sub": aliceId, "email": "alice@example.com", "email_verified": "true", "name": "Alice Verified"])
            #expect(reply.json["UserStatus"] == nil)
            #expect(try await client.cognito("GetUser", ["AccessToken": "garbage"]).json == ["__type": "NotAuthorizedException", "message": "Invalid Access Token"])
            let idToken = try await client.cognito("GetUser", ["AccessToken": tokens["IdToken"] ?? .null])
            #expect(idToken.errorType == "NotAuthorizedException", "an ID token is no access token")
        }
    }

    @Test func changingTheEmailSendsACodeToTheNewAddress() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let access = try await client.signIn("alice@example.com")["AccessToken"] ?? .null
            let updated = try await client.cognito("UpdateUserAttributes", ["AccessToken": access, "UserAttributes": [
                ["Name": "email", "Value": "alice.new@example.com"], ["Name": "name", "Value": "Alice Renamed"],
            ]])
            #expect(updated.json == ["CodeDeliveryDetailsList": [["Destination": "a***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"]]])
            let now = attributes(try await client.cognito("GetUser", ["AccessToken": access]))
            #expect(now["email"] == "alice.new@example.com")
            #expect(now["email_verified"] == "false")
            #expect(now["name"] == "Alice Renamed")

            let code = try latestCode(harness, to: "alice.new@example.com", purpose: .verifyEmail)
            let wrong = try await client.cognito("VerifyUserAttribute", ["AccessToken": access, "AttributeName": "email",
                                                                         "Code": .string(code == "000000" ? "111111" : "000000")])
            #expect(wrong.errorType == "CodeMismatchException")
            #expect(try await client.cognito("VerifyUserAttribute", ["AccessToken": access, "AttributeName": "email", "Code": .string(code)]).json == [:])
            #expect(attributes(try await client.cognito("GetUser", ["AccessToken": access]))["email_verified"] == "true")
            #expect(try await client.passwordAuth("alice.new@example.com").json["AuthenticationResult"] != nil)
        }
    }

    @Test func aHeldEmailChangeKeepsTheOldAddressUntilVerified() async throws {
        let harness = try Harness(seed: cognitoSeed(pool: ["UserAttributeUpdateSettings": ["AttributesRequireVerificationBeforeUpdate": ["email"]]]))
        try await harness.run { client in
            let access = try await client.signIn("dave", clientId: testClient)["AccessToken"] ?? .null
            let updated = try await client.cognito("UpdateUserAttributes", ["AccessToken": access, "UserAttributes": [["Name": "email", "Value": "dave2@example.com"]]])
            #expect(updated.json["CodeDeliveryDetailsList"]?[0]?["AttributeName"] == "email")
            let pending = attributes(try await adminGet(client, "dave"))
            #expect(pending["email"] == "dave@example.com")
            #expect(pending["email_verified"] == "true")
            #expect(try harness.emulator.messages(MessageFilter(to: "dave@example.com")).isEmpty)

            let code = try latestCode(harness, to: "dave2@example.com", purpose: .verifyEmail)
            #expect(try await client.cognito("VerifyUserAttribute", ["AccessToken": access, "AttributeName": "email", "Code": .string(code)]).status == .ok)
            let verified = attributes(try await adminGet(client, "dave"))
            #expect(verified["email"] == "dave2@example.com")
            #expect(verified["email_verified"] == "true")
        }
    }

    @Test func usersCannotWriteVerificationFlagsOrUnknownAttributes() async throws {
        let harness = try Harness(seed: cognitoSeed(extraClients: [["ClientId": "namesonlyclient00000000001", "ExplicitAuthFlows": ["ALLOW_USER_PASSWORD_AUTH"],
                                                                     "WriteAttributes": ["name"]]]))
        try await harness.run { client in
            let access = try await client.signIn("dave", clientId: testClient)["AccessToken"] ?? .null
            func update(_ token: JSON, _ name: String, _ value: String) async throws -> Reply {
                try await client.cognito("UpdateUserAttributes", ["AccessToken": token, "UserAttributes": [["Name": .string(name), "Value": .string(value)]]])
            }
            #expect(try await update(access, "email_verified", "false").json
                    == ["__type": "NotAuthorizedException", "message": "A client attempted to write unauthorized attribute"])
            #expect(try await update(access, "shoe_size", "42").errorType == "InvalidParameterException")
            #expect(try await update(access, "sub", "someone-else").status == .badRequest)
            let limited = try await client.signIn("dave", clientId: "namesonlyclient00000000001")["AccessToken"] ?? .null
            #expect(try await update(limited, "email", "x@example.com").errorType == "NotAuthorizedException")
            #expect(try await update(limited, "name", "Dave D").status == .ok)
            #expect(attributes(try await adminGet(client, "dave"))["email"] == "dave@example.com")
        }
    }

    @Test func deleteUserAttributesRemovesAllButTheSignInAttribute() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let access = try await client.signIn("alice@example.com")["AccessToken"] ?? .null
            #expect(try await client.cognito("DeleteUserAttributes", ["AccessToken": access, "UserAttributeNames": ["name"]]).json == [:])
            #expect(attributes(try await client.cognito("GetUser", ["AccessToken": access]))["name"] == nil)
            #expect(try await client.cognito("DeleteUserAttributes", ["AccessToken": access, "UserAttributeNames": ["email"]]).errorType == "InvalidParameterException")
            #expect(try await client.cognito("DeleteUserAttributes", ["AccessToken": access, "UserAttributeNames": ["sub"]]).errorType == "InvalidParameterException")
            #expect(attributes(try await client.cognito("GetUser", ["AccessToken": access]))["email"] == "alice@example.com")
        }
    }

    @Test func aPhoneIsVerifiedWithATextedCode() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            _ = try await client.cognito("AdminUpdateUserAttributes", ["UserPoolId": .string(testPool), "Username": "dave",
                                                                      "UserAttributes": [["Name": "phone_number", "Value": "+15555550177"]]])
            let access = try await client.signIn("dave", clientId: testClient)["AccessToken"] ?? .null
            let sent = try await client.cognito("GetUserAttributeVerificationCode", ["AccessToken": access, "AttributeName": "phone_number"])
            #expect(sent.json == ["CodeDeliveryDetails": ["Destination": "+*******0177", "DeliveryMedium": "SMS", "AttributeName": "phone_number"]])
            let code = try latestCode(harness, to: "+15555550177")
            #expect(try await client.cognito("VerifyUserAttribute", ["AccessToken": access, "AttributeName": "phone_number", "Code": .string(code)]).status == .ok)
            #expect(attributes(try await adminGet(client, "dave"))["phone_number_verified"] == "true")
        }
    }

    @Test func adminCreateUserInvitesWithATemporaryPassword() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let created = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(testPool), "Username": "nina", "DesiredDeliveryMediums": ["EMAIL"],
                                                                       "UserAttributes": [["Name": "email", "Value": "nina@example.com"],
                                                                                          ["Name": "email_verified", "Value": "true"]]])
            let user = try #require(created.json["User"])
            #expect(user["Username"] == "nina")
            #expect(user["UserStatus"] == "FORCE_CHANGE_PASSWORD")
            #expect(user["Enabled"] == true)
            #expect(user["UserCreateDate"]?.intValue == Int(Harness.epoch.timeIntervalSince1970), "dates are epoch seconds")
            #expect(user["Attributes"]?.arrayValue?.contains(["Name": "email_verified", "Value": "true"]) == true)
            let invite = try #require(try harness.emulator.messages(MessageFilter(to: "nina@example.com", purpose: .invite)).first)
            let temporary = try #require(invite.codes.first)
            #expect(invite.text == "Your username is nina and temporary password is \(temporary). ")
            #expect(temporary.count >= 8)
            #expect(try await client.passwordAuth("nina", temporary, clientId: testClient).json["ChallengeName"] == "NEW_PASSWORD_REQUIRED")

            let duplicate = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(testPool), "Username": "nina"])
            #expect(duplicate.json == ["__type": "UsernameExistsException", "message": "User already exists"])
            let resent = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(testPool), "Username": "nina", "MessageAction": "RESEND",
                                                                      "DesiredDeliveryMediums": ["EMAIL"]])
            #expect(resent.status == .ok)
            let second = try #require(try harness.emulator.messages(MessageFilter(to: "nina@example.com", purpose: .invite)).first?.codes.first)
            #expect(second != temporary)
            #expect(try await client.passwordAuth("nina", temporary, clientId: testClient).errorType == "NotAuthorizedException")
            let confirmed = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(testPool), "Username": "dave", "MessageAction": "RESEND"])
            #expect(confirmed.errorType == "UnsupportedUserStateException")

            _ = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(testPool), "Username": "omar", "MessageAction": "SUPPRESS",
                                                            "UserAttributes": [["Name": "email", "Value": "omar@example.com"]]])
            #expect(try harness.emulator.messages(MessageFilter(to: "omar@example.com")).isEmpty)
        }
    }

    @Test func adminAttributeUpdatesAndDeletion() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let tokens = try await client.signIn("dave", clientId: testClient)
            _ = try await client.cognito("AdminUpdateUserAttributes", ["UserPoolId": .string(testPool), "Username": "dave", "UserAttributes": [
                ["Name": "email", "Value": "dave.admin@example.com"], ["Name": "email_verified", "Value": "true"], ["Name": "family_name", "Value": "D"],
            ]])
            #expect(try harness.emulator.messages(MessageFilter(to: "dave.admin@example.com")).isEmpty, "verified by the admin, no code")
            _ = try await client.cognito("AdminDeleteUserAttributes", ["UserPoolId": .string(testPool), "Username": "dave", "UserAttributeNames": ["name"]])
            let now = attributes(try await adminGet(client, "dave"))
            #expect(now["email"] == "dave.admin@example.com" && now["email_verified"] == "true" && now["family_name"] == "D" && now["name"] == nil)

            #expect(try await client.cognito("AdminDeleteUser", ["UserPoolId": .string(testPool), "Username": "dave"]).json == [:])
            #expect(try await adminGet(client, "dave").json == ["__type": "UserNotFoundException", "message": "User does not exist."])
            #expect(try await client.cognito("GetUser", ["AccessToken": tokens["AccessToken"] ?? .null]).errorType == "NotAuthorizedException")
            #expect(try await client.passwordAuth("dave", clientId: testClient).errorType == "UserNotFoundException")
        }
    }

    @Test func deleteUserRemovesTheCaller() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let tokens = try await client.signIn("carol@example.com")
            #expect(try await client.cognito("DeleteUser", ["AccessToken": tokens["AccessToken"] ?? .null]).json == [:])
            #expect(try harness.emulator.user(in: seedPool, id: carolId) == nil)
            #expect(try await client.cognito("GetUser", ["AccessToken": tokens["AccessToken"] ?? .null]).errorType == "NotAuthorizedException")
        }
    }

    @Test func disablingAUserRevokesTheirSessions() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let tokens = try await client.signIn("alice@example.com")
            #expect(try await client.cognito("AdminDisableUser", ["UserPoolId": .string(seedPool), "Username": "alice@example.com"]).status == .ok)
            #expect(try await adminGet(client, "alice@example.com", pool: seedPool).json["Enabled"] == false)
            #expect(try await client.cognito("GetUser", ["AccessToken": tokens["AccessToken"] ?? .null]).errorType == "NotAuthorizedException")
            let refreshed = try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "REFRESH_TOKEN_AUTH",
                                                                      "AuthParameters": ["REFRESH_TOKEN": tokens["RefreshToken"] ?? .null]])
            #expect(refreshed.errorType == "NotAuthorizedException")
            #expect(try await client.passwordAuth("alice@example.com").json == ["__type": "NotAuthorizedException", "message": "User is disabled."])

            _ = try await client.cognito("AdminEnableUser", ["UserPoolId": .string(seedPool), "Username": "alice@example.com"])
            #expect(try await client.passwordAuth("alice@example.com").json["AuthenticationResult"] != nil)
            let stillRevoked = try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "REFRESH_TOKEN_AUTH",
                                                                         "AuthParameters": ["REFRESH_TOKEN": tokens["RefreshToken"] ?? .null]])
            #expect(stillRevoked.errorType == "NotAuthorizedException")
        }
    }

    @Test func listUsersFiltersByOneCondition() async throws {
        let harness = try Harness()
        try await harness.run { client in
            func usernames(_ filter: String) async throws -> [String]? {
                let reply = try await client.cognito("ListUsers", ["UserPoolId": .string(seedPool), "Filter": .string(filter)])
                return reply.json["Users"]?.arrayValue?.compactMap { $0["Username"]?.stringValue }
            }
            #expect(try await usernames("email = \"alice@example.com\"") == [aliceId])
            #expect(try await usernames("email ^= \"CAR\"") == [carolId], "email compares without case")
            #expect(try await usernames("cognito:user_status = \"UNCONFIRMED\"") == [bobId])
            #expect(try await usernames("phone_number=\"+15555550100\"") == [carolId])
            #expect(try await usernames("name ^= \"Alice\"") == [aliceId])
            #expect(try await usernames("sub = \"\(bobId)\"") == [bobId])
            #expect(try await usernames("status = \"Enabled\"")?.count == 3)
            #expect(try await usernames("status = \"enabled\"") == [], "status keeps case, as the API reference says")
            #expect(try await usernames("cognito:user_status = \"unconfirmed\"") == [bobId])
            #expect(try await usernames("email = \"nobody@example.com\"") == [])
            #expect(try await usernames("") == [aliceId, bobId, carolId].sorted())

            let unquoted = try await client.cognito("ListUsers", ["UserPoolId": .string(seedPool), "Filter": "email = alice"])
            #expect(unquoted.json == ["__type": "InvalidParameterException", "message": "Error while parsing filter."])
            let custom = try await client.cognito("ListUsers", ["UserPoolId": .string(seedPool), "Filter": "custom:plan = \"pro\""])
            #expect(custom.errorType == "InvalidParameterException")
            #expect(custom.message?.hasPrefix("Invalid search attribute") == true)
        }
    }

    /// A filtered list pages as an unfiltered one does: a token while another match follows, none on the last
    /// page, even a full one, and the matches in username order across pages.
    @Test func listUsersPagesThroughAFilter() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            for i in 0..<25 {
                let email = i % 2 == 0 ? "even\(i)@example.com" : "odd\(i)@example.com"
                _ = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(testPool), "Username": .string(String(format: "user%02d", i)),
                                                                 "MessageAction": "SUPPRESS", "UserAttributes": [["Name": "email", "Value": .string(email)]]])
            }
            func pages(_ filter: String, limit: Int) async throws -> [[String]] {
                var pages: [[String]] = []
                var token: JSON = .null
                repeat {
                    var body: [String: JSON] = ["UserPoolId": .string(testPool), "Filter": .string(filter), "Limit": .int(limit)]
                    if !token.isNull { body["PaginationToken"] = token }
                    let reply = try await client.cognito("ListUsers", .object(body))
                    pages.append(reply.json["Users"]?.arrayValue?.compactMap { $0["Username"]?.stringValue } ?? [])
                    token = reply.json["PaginationToken"] ?? .null
                } while !token.isNull && pages.count < 10
                return pages
            }
            // Users list in `sub` order; the filter keeps that order.
            let everyone = try await pages("", limit: 60).joined()
            let evens = everyone.filter { Int($0.dropFirst(4)).map { $0 % 2 == 0 } ?? false }
            let ones = everyone.filter { $0.hasPrefix("user1") }
            #expect(evens.count == 13 && ones.count == 10)
            #expect(try await pages("email ^= \"EVEN\"", limit: 5) == [Array(evens[0..<5]), Array(evens[5..<10]), Array(evens[10...])])
            #expect(try await pages("email ^= \"even\"", limit: 13) == [evens], "a full last page has no token")
            #expect(try await pages("username ^= \"user1\"", limit: 4) == [Array(ones[0..<4]), Array(ones[4..<8]), Array(ones[8...])])
        }
    }

    @Test func listUsersPagesAndPicksAttributes() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let first = try await client.cognito("ListUsers", ["UserPoolId": .string(seedPool), "Limit": 2, "AttributesToGet": ["email"]])
            let firstUsers = first.json["Users"]?.arrayValue ?? []
            #expect(firstUsers.count == 2)
            #expect(firstUsers.allSatisfy { $0["Attributes"]?.arrayValue?.count == 1 && $0["Attributes"]?[0]?["Name"] == "email" })
            #expect(firstUsers.first?["UserStatus"] != nil && firstUsers.first?["Enabled"] == true)
            let token = try #require(first.json["PaginationToken"])
            let second = try await client.cognito("ListUsers", ["UserPoolId": .string(seedPool), "Limit": 2, "PaginationToken": token])
            let secondUsers = second.json["Users"]?.arrayValue ?? []
            #expect(secondUsers.count == 1)
            #expect(second.json["PaginationToken"] == nil)
            let all = (firstUsers + secondUsers).compactMap { $0["Username"]?.stringValue }
            #expect(Set(all) == [aliceId, bobId, carolId])
            #expect(try await client.cognito("ListUsers", ["UserPoolId": .string(seedPool), "Limit": 61]).errorType == "InvalidParameterException")
        }
    }
}
