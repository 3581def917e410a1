import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct OobTests {
    /// The newest message's code, its action link (path and query) and the message.
    func lastCode(_ harness: Harness) throws -> (code: String, path: String, message: Message) {
        let message = try #require(try harness.emulator.messages().first)
        let link = try #require(message.links.first)
        return (try #require(message.codes.first), try pathAndQuery(link), message)
    }

    @Test func aPasswordResetSendsTheTemplatedEmailWithAnActionLink() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let reply = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "PASSWORD_RESET", "email": "Alice@Example.com"])
            #expect(reply.status == .ok)
            #expect(reply.json == ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": "alice@example.com"])
            let (code, _, message) = try lastCode(harness)
            #expect(message.purpose == .resetPassword)
            #expect(message.to == "alice@example.com")
            #expect(message.from == "noreply@p.firebaseapp.com")
            #expect(message.subject == "Reset your password for Demo App")
            #expect(message.text.contains("Follow this link to reset your Demo App password for your alice@example.com account."))
            #expect(code.wholeMatch(of: #/[A-Za-z0-9_-]{54}/#) != nil)
            let link = try #require(message.links.first)
            #expect(URLComponents(string: link)?.path == "/emulator/action")
            #expect(queryItems(link) == ["mode": "resetPassword", "lang": "en", "oobCode": code, "apiKey": "k"])

            let listed = try await client.send(.get, "/emulator/v1/projects/p/oobCodes")
            #expect(listed.json["oobCodes"] == [["email": "alice@example.com", "requestType": "PASSWORD_RESET", "oobCode": .string(code),
                                                 "oobLink": .string(link)]])
        }
    }

    @Test func resetPasswordInspectsThenUsesTheCodeOnce() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            _ = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "PASSWORD_RESET", "email": "alice@example.com"])
            let code = try lastCode(harness).code
            let inspected = try await client.send(.post, accounts("resetPassword"), json: ["oobCode": .string(code)])
            #expect(inspected.json == ["kind": "identitytoolkit#ResetPasswordResponse", "requestType": "PASSWORD_RESET", "email": "alice@example.com"])
            #expect(errorMessage(try await client.send(.post, accounts("resetPassword"), json: ["oobCode": .string(code), "newPassword": "123"]))
                    == "WEAK_PASSWORD : Password should be at least 6 characters")

            harness.emulator.clock.advance(by: 1)
            let reset = try await client.send(.post, accounts("resetPassword"), json: ["oobCode": .string(code), "newPassword": "new-secret"])
            #expect(reset.status == .ok)
            #expect(reset.json["email"] == "alice@example.com")
            #expect(errorMessage(try await client.send(.post, accounts("resetPassword"), json: ["oobCode": .string(code), "newPassword": "again-secret"]))
                    == "INVALID_OOB_CODE")
            #expect(try await passwordSignIn(client, "alice@example.com", "new-secret")["localId"] == "alice-uid")
            #expect(try await passwordSignIn(client)["error"]?["message"] == "INVALID_PASSWORD")
            // A reset revokes what was issued before it.
            #expect(errorMessage(try await client.send(.post, accounts("lookup"), json: ["idToken": session["idToken"]!])) == "TOKEN_EXPIRED")
        }
    }

    @Test func passwordResetCodesExpireAfterAnHour() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            _ = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "PASSWORD_RESET", "email": "alice@example.com"])
            let code = try lastCode(harness).code
            harness.emulator.clock.advance(by: 3601)
            let late = try await client.send(.post, accounts("resetPassword"), json: ["oobCode": .string(code), "newPassword": "new-secret"])
            #expect(errorMessage(late) == "EXPIRED_OOB_CODE")
            #expect(try await client.send(.get, "/emulator/v1/projects/p/oobCodes").json["oobCodes"] == [])
        }
    }

    @Test func theProjectsOobCodeTTLAppliesToEveryType() async throws {
        let harness = try Harness(seed: firebaseProject(["oob_code_ttl": 60], users: [unverifiedBob]))
        try await harness.run { client in
            let session = try await passwordSignIn(client, "bob@example.com")
            _ = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "VERIFY_EMAIL", "idToken": session["idToken"]!])
            let code = try lastCode(harness).code
            harness.emulator.clock.advance(by: 61)
            #expect(errorMessage(try await client.send(.post, accounts("update"), json: ["oobCode": .string(code)])) == "EXPIRED_OOB_CODE")
        }
    }

    @Test func aVerifyEmailCodeVerifiesTheCaller() async throws {
        let harness = try Harness(seed: firebaseProject(users: [unverifiedBob]))
        try await harness.run { client in
            let session = try await passwordSignIn(client, "bob@example.com")
            let sent = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "VERIFY_EMAIL", "idToken": session["idToken"]!])
            #expect(sent.json["email"] == "bob@example.com")
            let (code, _, message) = try lastCode(harness)
            #expect(message.purpose == .verifyEmail)
            #expect(message.subject == "Verify your email for Demo App")
            let applied = try await client.send(.post, accounts("update"), json: ["oobCode": .string(code)])
            #expect(applied.json["emailVerified"] == true)
            #expect(applied.json["localId"] == "bob-uid")
            let user = try await client.send(.post, projectAccounts("lookup"), json: ["localId": ["bob-uid"]], headers: owner).json["users"]?[0]
            #expect(user?["emailVerified"] == true)
        }
    }

    @Test func verifyAndChangeEmailMovesTheAddressAndSendsARecoveryLink() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice, unverifiedBob]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let taken = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": session["idToken"]!,
                                                                                    "newEmail": "bob@example.com"])
            #expect(errorMessage(taken) == "EMAIL_EXISTS")
            _ = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": session["idToken"]!,
                                                                            "newEmail": "alice.new@example.com"])
            let (code, _, message) = try lastCode(harness)
            #expect(message.to == "alice.new@example.com")
            #expect(message.purpose == .emailChange)
            let listed = try await client.send(.get, "/emulator/v1/projects/p/oobCodes").json["oobCodes"]?[0]
            #expect(listed?["email"] == "alice@example.com")
            #expect(listed?["newEmail"] == "alice.new@example.com")
            #expect(listed?["requestType"] == "VERIFY_AND_CHANGE_EMAIL")

            let applied = try await client.send(.post, accounts("update"), json: ["oobCode": .string(code)])
            #expect(applied.json["email"] == "alice.new@example.com")
            let recovery = try #require(try harness.emulator.messages().first)
            #expect(recovery.purpose == .recoverEmail)
            #expect(recovery.to == "alice@example.com")
            #expect(recovery.text.contains("was changed to alice.new@example.com"))
            #expect(try await passwordSignIn(client, "alice.new@example.com")["localId"] == "alice-uid")
        }
    }

    /// firebase-admin's generateVerifyAndChangeEmailLink names the account by its address (the emulator's sendOobCode);
    /// Fauxth answered MISSING_LOCAL_ID. The new address must be no account's, the account's own included.
    @Test func anAdminsChangeEmailLinkNamesTheAccountByItsAddress() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            func send(_ body: JSON) async throws -> Reply {
                try await client.send(.post, projectAccounts("sendOobCode"), json: body, headers: owner)
            }
            let link = try await send(["requestType": "VERIFY_AND_CHANGE_EMAIL", "email": "alice@example.com", "newEmail": "alice.new@example.com",
                                       "returnOobLink": true])
            #expect(link.status == .ok, "\(link.text)")
            #expect(queryItems(try #require(link.json["oobLink"]?.stringValue))["mode"] == "verifyAndChangeEmail")
            let unknown = try await send(["requestType": "VERIFY_AND_CHANGE_EMAIL", "email": "nobody@example.com", "newEmail": "x@example.com",
                                          "returnOobLink": true])
            #expect(errorMessage(unknown) == "USER_NOT_FOUND")
            let own = try await send(["requestType": "VERIFY_AND_CHANGE_EMAIL", "email": "alice@example.com", "newEmail": "alice@example.com",
                                      "returnOobLink": true])
            #expect(errorMessage(own) == "EMAIL_EXISTS")
        }
    }

    /// The emulator finds a code's account by the address it was sent to: a verification code sent before the address
    /// changed verifies nothing, and a password reset code dies with its account.
    @Test func aCodeFollowsTheAddressItWasSentTo() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice, unverifiedBob]))
        try await harness.run { client in
            let session = try await passwordSignIn(client, "bob@example.com")
            _ = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "VERIFY_EMAIL", "idToken": session["idToken"]!])
            let (verify, _, _) = try lastCode(harness)
            let moved = try await client.send(.post, projectAccounts("update"), json: ["localId": "bob-uid", "email": "bob.new@example.com"], headers: owner)
            #expect(moved.status == .ok)
            let applied = try await client.send(.post, accounts("update"), json: ["oobCode": .string(verify)])
            #expect(errorMessage(applied) == "INVALID_OOB_CODE")
            let bob = try await client.send(.post, projectAccounts("lookup"), json: ["localId": ["bob-uid"]], headers: owner).json["users"]?[0]
            #expect(bob?["emailVerified"] == false)

            _ = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "PASSWORD_RESET", "email": "alice@example.com"])
            let (reset, _, _) = try lastCode(harness)
            _ = try await client.send(.post, projectAccounts("delete"), json: ["localId": "alice-uid"], headers: owner)
            let used = try await client.send(.post, accounts("resetPassword"), json: ["oobCode": .string(reset), "newPassword": "another-secret"])
            #expect(errorMessage(used) == "INVALID_OOB_CODE")
        }
    }

    @Test func unknownAddressesAndRequestTypesAreRefused() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let unknown = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "PASSWORD_RESET", "email": "ghost@example.com"])
            #expect(errorMessage(unknown) == "EMAIL_NOT_FOUND")
            #expect(errorMessage(try await client.send(.post, accounts("sendOobCode"), json: ["email": "ghost@example.com"])) == "MISSING_REQ_TYPE")
            #expect(errorMessage(try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "BOGUS", "email": "ghost@example.com"]))
                    == "INVALID_REQ_TYPE : Unsupported request parameters.")
        }
        #expect(try harness.emulator.messages().isEmpty)
    }

    @Test func withEmailPrivacyAnUnknownAddressGetsTheSameAnswerAndNoEmail() async throws {
        let harness = try Harness(seed: firebaseProject(["config": ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]]]))
        let reply = try await harness.run { client in
            try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "PASSWORD_RESET", "email": "ghost@example.com"])
        }
        #expect(reply.status == .ok)
        #expect(reply.json == ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": "ghost@example.com"])
        #expect(try harness.emulator.messages().isEmpty)
    }

    func sendOob(_ client: Client, continueUrl: String?, type: String = "PASSWORD_RESET") async throws -> Reply {
        var body: [String: JSON] = ["requestType": .string(type), "email": "alice@example.com"]
        body["continueUrl"] = continueUrl.map(JSON.string)
        return try await client.send(.post, accounts("sendOobCode"), json: .object(body))
    }

    @Test func continueUrlsMustBeAbsoluteAndOnAnAuthorizedDomain() async throws {
        let harness = try Harness(seed: firebaseProject(["authorized_domains": ["app.example.com"]], users: [alice]))
        try await harness.run { client in
            let relative = try await sendOob(client, continueUrl: "/relative/path")
            #expect(errorMessage(relative) == "INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))")
            let foreign = try await sendOob(client, continueUrl: "https://evil.example/steal")
            #expect(errorMessage(foreign) == "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project")
            let missing = try await sendOob(client, continueUrl: nil, type: "EMAIL_SIGNIN")
            #expect(errorMessage(missing) == "MISSING_CONTINUE_URI : A continue URL must be provided in the request.")
            for allowed in ["http://localhost:3000/done", "https://app.example.com/done", "https://p.firebaseapp.com/x", "https://p.web.app/", "myapp://done"] {
                let reply = try await sendOob(client, continueUrl: allowed)
                #expect(reply.status == .ok, "\(allowed)")
            }
        }
        let link = try #require(try harness.emulator.messages().first?.links.first)
        #expect(queryItems(link)["continueUrl"] == "myapp://done")
    }

    /// App schemes are accepted on purpose, but script-carrying ones (`javascript:`, `data:`) are no app:
    /// the action page would render them as its Continue link.
    @Test func aJavascriptContinueUrlIsRefused() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let reply = try await sendOob(client, continueUrl: "javascript://x/%0Aalert(document.domain)")
            #expect(errorMessage(reply) == "INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))")
            #expect(try harness.emulator.messages().isEmpty)
        }
    }

    @Test func returnOobLinkIsForOwnersAndSendsNothing() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let notOwner = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "PASSWORD_RESET", "email": "alice@example.com",
                                                                                       "returnOobLink": true])
            #expect(errorMessage(notOwner) == "INSUFFICIENT_PERMISSION")
            let generated = try await client.send(.post, projectAccounts("sendOobCode"), json: ["requestType": "PASSWORD_RESET", "email": "alice@example.com",
                                                                                               "returnOobLink": true], headers: owner)
            #expect(generated.status == .ok)
            let code = try #require(generated.json["oobCode"]?.stringValue)
            // Without the caller's key the link carries the emulator's stand-in.
            #expect(queryItems(try #require(generated.json["oobLink"]?.stringValue)) == ["mode": "resetPassword", "lang": "en", "oobCode": code,
                                                                                         "apiKey": "fake-api-key"])
            let inspected = try await client.send(.post, accounts("resetPassword"), json: ["oobCode": .string(code)])
            #expect(inspected.json["requestType"] == "PASSWORD_RESET")
        }
        #expect(try harness.emulator.messages().isEmpty)
    }

    @Test func theActionPageVerifiesAnEmailAsAPageOrAsJSON() async throws {
        let harness = try Harness(seed: firebaseProject(users: [unverifiedBob]))
        try await harness.run { client in
            let verify: JSON = ["requestType": "VERIFY_EMAIL", "email": "bob@example.com"]
            _ = try await client.send(.post, projectAccounts("sendOobCode") + "?key=k", json: verify, headers: owner)
            let first = try lastCode(harness).path
            let page = try await client.send(.get, first)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains("<h1>Email verified</h1>"))
            #expect(page.text.contains("Your email has been verified."))
            let used = try await client.send(.get, first)
            #expect(used.status == .badRequest)
            #expect(used.text.contains("Your request has expired or the link has already been used."))

            _ = try await client.send(.post, projectAccounts("sendOobCode") + "?key=k", json: verify, headers: owner)
            let second = try lastCode(harness).path
            let json = try await client.send(.get, second, headers: [.accept: "application/json"])
            #expect(json.json == ["authEmulator": ["success": "Your email has been verified.", "email": "bob@example.com"]])
            let usedJSON = try await client.send(.get, second, headers: [.accept: "application/json"])
            #expect(usedJSON.status == .badRequest)
            #expect(usedJSON.json == ["authEmulator": ["error": "Your request has expired or the link has already been used."]])
        }
        #expect(try harness.emulator.user(in: "p", id: "bob-uid")?.emailVerifiedAt != nil)
    }

    @Test func theActionPageResetsAPasswordThroughItsForm() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            _ = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "PASSWORD_RESET", "email": "alice@example.com"])
            let (code, path, _) = try lastCode(harness)
            let form = try await client.send(.get, path)
            #expect(form.status == .ok)
            #expect(form.text.contains("Reset your password"))
            #expect(form.text.contains("name=\"oobCode\" value=\"\(code)\""))
            let instructions = try await client.send(.get, path, headers: [.accept: "application/json"])
            #expect(instructions.status == .badRequest)
            #expect(instructions.json["authEmulator"]?["error"] == "missing \"newPassword\" query parameter")
            #expect(instructions.json["authEmulator"]?["urlTemplate"]?.stringValue?.hasSuffix("&newPassword=NEW_PASSWORD_HERE") == true)

            let done = try await client.send(.get, path + "&newPassword=brand-new-pw")
            #expect(done.status == .ok)
            #expect(done.text.contains("Password changed"))
            #expect(try await passwordSignIn(client, "alice@example.com", "brand-new-pw")["localId"] == "alice-uid")
        }
    }

    @Test func theResetFormPostsTheNewPasswordInATenant() async throws {
        let tenant = Seed.TenantSeed(id: "p:acme", dialect: .firebase, settings: ["tenant_config": ["allowPasswordSignup": true]],
                                     users: [Seed.UserSeed(id: "acme-uid", email: "ann@acme.test", password: "secret123")])
        let harness = try Harness(seed: firebaseProject(tenants: [tenant]))
        try await harness.run { client in
            _ = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "PASSWORD_RESET", "email": "ann@acme.test", "tenantId": "acme"])
            let (code, path, message) = try lastCode(harness)
            #expect(message.tenant == "p:acme")
            #expect(queryItems(try #require(message.links.first))["tenantId"] == "acme")
            let form = try await client.send(.get, path)
            #expect(form.text.contains("name=\"tenantId\" value=\"acme\""))
            // What the page's form sends.
            let posted = try await client.send(.post, "/emulator/action",
                                               raw: "mode=resetPassword&oobCode=\(code)&apiKey=k&tenantId=acme&continueUrl=&newPassword=posted-pw1",
                                               headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(posted.status == .ok)
            #expect(posted.text.contains("Password changed"))
            let signedIn = try await client.send(.post, accounts("signInWithPassword"), json: ["email": "ann@acme.test", "password": "posted-pw1",
                                                                                              "tenantId": "acme"])
            #expect(signedIn.json["localId"] == "acme-uid")
        }
    }

    /// firebase-admin's `generatePasswordResetLink` calls with `Bearer owner` and no API key, so the link
    /// carries `apiKey=fake-api-key`; the action page finds the project from the code itself.
    @Test func anAdminLinkForAProjectOtherThanTheDefaultWorks() async throws {
        let other = Seed.TenantSeed(id: "q", dialect: .firebase, name: "Other App", settings: ["api_keys": ["kq"]],
                                    users: [Seed.UserSeed(id: "q-uid", email: "quinn@example.com", password: "secret123")])
        let harness = try Harness(seed: firebaseProject(tenants: [other]))
        try await harness.run { client in
            let generated = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/q/accounts:sendOobCode",
                                                  json: ["requestType": "VERIFY_EMAIL", "email": "quinn@example.com", "returnOobLink": true], headers: owner)
            let link = try #require(generated.json["oobLink"]?.stringValue)
            #expect(queryItems(link)["apiKey"] == "fake-api-key")
            // The code is live in project q…
            let listed = try await client.send(.get, "/emulator/v1/projects/q/oobCodes")
            #expect(listed.json["oobCodes"]?[0]?["oobCode"] == generated.json["oobCode"])
            // …but the page looks for it in p.
            let opened = try await client.send(.get, try pathAndQuery(link), headers: [.accept: "application/json"])
            #expect(opened.status == .ok)
            #expect(opened.json["authEmulator"]?["email"] == "quinn@example.com")
        }
    }

    @Test func anEmailSignInLinkWithAnAppContinueUrlIsCapturedAsADeepLink() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            _ = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": 6, "email": "app@example.com", "continueUrl": "myapp://finish?step=1"])
            let (code, path, message) = try lastCode(harness)
            #expect(message.purpose == .magicLink)
            let redirect = try await client.send(.get, path)
            #expect(redirect.status == .seeOther)
            let location = try #require(redirect.headers[.location])
            #expect(location.hasPrefix("myapp://finish?"))
            #expect(queryItems(location) == ["step": "1", "mode": "signIn", "oobCode": code, "apiKey": "k", "lang": "en"])
            let captured = try #require(try harness.emulator.deepLinks(scheme: "myapp").first)
            #expect(captured.url == location)
            #expect(captured.source == "firebase-action")
            #expect(captured.tenant == "p")
            #expect(captured.params["oobCode"] == code)
            // Opening the link does not use the code: the app completes the sign-in with it.
            let signedIn = try await client.send(.post, accounts("signInWithEmailLink"), json: ["email": "app@example.com", "oobCode": .string(code)])
            #expect(signedIn.status == .ok)
            #expect(signedIn.json["isNewUser"] == true)
        }
    }

    @Test func aVerifiedEmailRedirectsToItsContinueUrl() async throws {
        let harness = try Harness(seed: firebaseProject(users: [unverifiedBob]))
        try await harness.run { client in
            let session = try await passwordSignIn(client, "bob@example.com")
            _ = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "VERIFY_EMAIL", "idToken": session["idToken"]!,
                                                                            "continueUrl": "myapp://verified"])
            let redirect = try await client.send(.get, try lastCode(harness).path)
            #expect(redirect.status == .seeOther)
            #expect(redirect.headers[.location] == "myapp://verified")
            let captured = try #require(try harness.emulator.deepLinks().first)
            #expect(captured.url == "myapp://verified")
            #expect(captured.userId == "bob-uid")
        }
    }
}
