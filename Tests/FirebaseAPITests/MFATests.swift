import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct MFATests {
    /// The newest SMS code sent for multi-factor (enrollment or sign-in).
    func lastMFACode(_ harness: Harness) throws -> String {
        try #require(try harness.emulator.messages(MessageFilter(channel: .sms, purpose: .mfa)).first?.codes.first)
    }

    /// Enrolls `phone` as alice's second factor; answers the enrollment id.
    func enrollPhone(_ client: Client, _ harness: Harness, _ phone: String = "+15550100100") async throws -> String {
        let session = try await passwordSignIn(client)
        let started = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": session["idToken"]!,
                                                                                     "phoneEnrollmentInfo": ["phoneNumber": .string(phone)]])
        let sessionInfo = try #require(started.json["phoneSessionInfo"]?["sessionInfo"])
        let finalized = try await client.send(.post, mfa("mfaEnrollment:finalize"), json: [
            "idToken": session["idToken"]!, "displayName": "Work phone",
            "phoneVerificationInfo": ["sessionInfo": sessionInfo, "code": .string(try lastMFACode(harness))],
        ])
        #expect(finalized.status == .ok)
        #expect(finalized.json["idToken"]?.stringValue != nil)
        #expect(finalized.json["refreshToken"]?.stringValue != nil)
        let user = try await client.send(.post, projectAccounts("lookup"), json: ["localId": ["alice-uid"]], headers: owner).json["users"]?[0]
        return try #require(user?["mfaInfo"]?[0]?["mfaEnrollmentId"]?.stringValue)
    }

    /// The authenticator for a `totpSessionInfo`'s shared secret.
    func authenticator(_ info: JSON) throws -> TOTP {
        let secret = try #require(info["sharedSecretKey"]?.stringValue)
        return TOTP(secret: try #require(Base32.decode(secret)))
    }

    /// Enrolls a TOTP authenticator for alice; answers its secret.
    func enrollTOTP(_ client: Client, _ harness: Harness) async throws -> TOTP {
        let session = try await passwordSignIn(client)
        let started = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": session["idToken"]!, "totpEnrollmentInfo": [:]])
        let info = try #require(started.json["totpSessionInfo"])
        let totp = try authenticator(info)
        let finalized = try await client.send(.post, mfa("mfaEnrollment:finalize"), json: [
            "idToken": session["idToken"]!,
            "totpVerificationInfo": ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(totp.code(at: harness.emulator.clock.now))],
        ])
        #expect(finalized.status == .ok)
        return totp
    }

    @Test func aPhoneSecondFactorIsEnrolledThenAskedForAtSignIn() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let enrollmentId = try await enrollPhone(client, harness)
            let user = try await client.send(.post, projectAccounts("lookup"), json: ["localId": ["alice-uid"]], headers: owner).json["users"]?[0]
            #expect(user?["mfaInfo"]?[0]?["phoneInfo"] == "+15550100100")
            #expect(user?["mfaInfo"]?[0]?["displayName"] == "Work phone")
            #expect(user?["mfaInfo"]?[0]?["enrolledAt"] == .string(RFC3339.string(from: Harness.epoch)))

            let pending = try await passwordSignIn(client)
            #expect(pending["idToken"] == nil)
            #expect(pending["refreshToken"] == nil)
            #expect(pending["mfaInfo"]?[0]?["phoneInfo"] == "+*******0100")
            #expect(pending["mfaInfo"]?[0]?["mfaEnrollmentId"] == .string(enrollmentId))
            let credential = try #require(pending["mfaPendingCredential"])

            // Enrolling and signing in straight after each get their text.
            let started = try await client.send(.post, mfa("mfaSignIn:start"), json: ["mfaPendingCredential": credential,
                                                                                     "mfaEnrollmentId": .string(enrollmentId)])
            #expect(started.status == .ok)
            let sessionInfo = try #require(started.json["phoneResponseInfo"]?["sessionInfo"])
            let code = try lastMFACode(harness)
            let wrong = try await client.send(.post, mfa("mfaSignIn:finalize"), json: [
                "mfaPendingCredential": credential, "phoneVerificationInfo": ["sessionInfo": sessionInfo, "code": code == "000000" ? "111111" : "000000"],
            ])
            #expect(errorMessage(wrong) == "INVALID_CODE")
            let finalized = try await client.send(.post, mfa("mfaSignIn:finalize"), json: [
                "mfaPendingCredential": credential, "phoneVerificationInfo": ["sessionInfo": sessionInfo, "code": .string(code)],
            ])
            #expect(finalized.status == .ok)
            let token = try claims(finalized.json["idToken"])
            #expect(token["sub"] == "alice-uid")
            #expect(token["firebase"]?["sign_in_provider"] == "password")
            #expect(token["firebase"]?["sign_in_second_factor"] == "phone")
            #expect(token["firebase"]?["second_factor_identifier"] == .string(enrollmentId))
            // A refresh keeps the second factor in the token.
            let refreshed = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": finalized.json["refreshToken"]!])
            #expect(try claims(refreshed.json["id_token"])["firebase"]?["sign_in_second_factor"] == "phone")
        }
    }

    @Test func enrollmentNeedsAVerifiedEmailAndASupportedFirstFactor() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice, unverifiedBob]))
        try await harness.run { client in
            let bob = try await passwordSignIn(client, "bob@example.com")
            let unverified = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": bob["idToken"]!,
                                                                                            "phoneEnrollmentInfo": ["phoneNumber": "+15550100101"]])
            #expect(errorMessage(unverified) == "UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.")
            let anonymous = try await client.send(.post, accounts("signUp"), json: [:])
            let anonymousStart = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": anonymous.json["idToken"]!,
                                                                                                "phoneEnrollmentInfo": ["phoneNumber": "+15550100101"]])
            #expect(errorMessage(anonymousStart) == "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor.")

            let session = try await passwordSignIn(client)
            let nothing = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": session["idToken"]!])
            #expect(errorMessage(nothing) == "INVALID_ARGUMENT : ((Missing phoneEnrollmentInfo.))")
            let badNumber = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": session["idToken"]!,
                                                                                           "phoneEnrollmentInfo": ["phoneNumber": "555"]])
            #expect(errorMessage(badNumber) == "INVALID_MFA_PHONE_NUMBER : Invalid format.")

            _ = try await enrollPhone(client, harness)
            let fresh = try await client.send(.post, accounts("lookup"), json: ["idToken": session["idToken"]!])
            #expect(fresh.status == .ok)
            let twice = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": session["idToken"]!,
                                                                                       "phoneEnrollmentInfo": ["phoneNumber": "+15550100100"]])
            #expect(errorMessage(twice) == "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account.")
        }
    }

    @Test func aTOTPAuthenticatorIsEnrolledAndCompletesSignIn() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let started = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": session["idToken"]!, "totpEnrollmentInfo": [:]])
            let info = try #require(started.json["totpSessionInfo"])
            #expect(info["verificationCodeLength"] == 6)
            #expect(info["hashingAlgorithm"] == "SHA1")
            #expect(info["periodSec"] == 30)
            #expect(info["finalizeEnrollmentTime"] == .string(RFC3339.string(from: Harness.epoch.addingTimeInterval(600))))
            let totp = try authenticator(info)
            let badCode = try await client.send(.post, mfa("mfaEnrollment:finalize"), json: [
                "idToken": session["idToken"]!,
                "totpVerificationInfo": ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(totp.code(at: Harness.epoch.addingTimeInterval(300)))],
            ])
            #expect(errorMessage(badCode) == "INVALID_CODE")
            let finalized = try await client.send(.post, mfa("mfaEnrollment:finalize"), json: [
                "idToken": session["idToken"]!,
                "totpVerificationInfo": ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(totp.code(at: harness.emulator.clock.now))],
            ])
            #expect(finalized.status == .ok)

            let pending = try await passwordSignIn(client)
            #expect(pending["mfaInfo"]?[0]?["totpInfo"] == [:])
            let enrollmentId = try #require(pending["mfaInfo"]?[0]?["mfaEnrollmentId"])
            harness.emulator.clock.advance(by: 90)
            let stale = try await client.send(.post, mfa("mfaSignIn:finalize"), json: [
                "mfaPendingCredential": pending["mfaPendingCredential"]!, "mfaEnrollmentId": enrollmentId,
                "totpVerificationInfo": ["verificationCode": .string(totp.code(at: Harness.epoch))],
            ])
            #expect(errorMessage(stale) == "INVALID_CODE")
            let signedIn = try await client.send(.post, mfa("mfaSignIn:finalize"), json: [
                "mfaPendingCredential": pending["mfaPendingCredential"]!, "mfaEnrollmentId": enrollmentId,
                "totpVerificationInfo": ["verificationCode": .string(totp.code(at: harness.emulator.clock.now))],
            ])
            #expect(signedIn.status == .ok)
            let token = try claims(signedIn.json["idToken"])
            #expect(token["firebase"]?["sign_in_second_factor"] == "totp")
            #expect(token["firebase"]?["second_factor_identifier"] == enrollmentId)
        }
    }

    @Test func aTOTPEnrollmentSessionLastsTenMinutes() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let info = try #require(try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": session["idToken"]!,
                                                                                                   "totpEnrollmentInfo": [:]]).json["totpSessionInfo"])
            let totp = try authenticator(info)
            // An enrollment not finalized is no second factor yet.
            #expect(try await passwordSignIn(client)["mfaPendingCredential"] == nil)
            harness.emulator.clock.advance(by: 600)
            // A new sign-in, as finalizing needs a recent one: what ran out is the enrolment's ten minutes.
            let again = try await passwordSignIn(client)
            let late = try await client.send(.post, mfa("mfaEnrollment:finalize"), json: [
                "idToken": again["idToken"]!,
                "totpVerificationInfo": ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(totp.code(at: harness.emulator.clock.now))],
            ])
            #expect(errorMessage(late) == "SESSION_EXPIRED")
        }
    }

    /// Signs alice in with her enrolled phone; answers the second sign-in's ID token.
    func phoneSignIn(_ client: Client, _ harness: Harness, enrollmentId: String) async throws -> JSON {
        let pending = try await passwordSignIn(client)
        let credential = try #require(pending["mfaPendingCredential"])
        let started = try await client.send(.post, mfa("mfaSignIn:start"), json: ["mfaPendingCredential": credential,
                                                                                 "mfaEnrollmentId": .string(enrollmentId)])
        let sessionInfo = try #require(started.json["phoneResponseInfo"]?["sessionInfo"])
        let finalized = try await client.send(.post, mfa("mfaSignIn:finalize"), json: [
            "mfaPendingCredential": credential, "phoneVerificationInfo": ["sessionInfo": sessionInfo, "code": .string(try lastMFACode(harness))],
        ])
        return try #require(finalized.json["idToken"])
    }

    /// `mfaEnrollment:start` promises ten minutes (`finalizeEnrollmentTime`), whatever other enrollments
    /// happen meanwhile (each of which ends the sessions before it, so the TOTP one finishes from a new sign-in).
    @Test func aTOTPEnrollmentSurvivesAnotherEnrollmentWithinItsTenMinutes() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let started = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": session["idToken"]!, "totpEnrollmentInfo": [:]])
            let info = try #require(started.json["totpSessionInfo"])
            let totp = try authenticator(info)
            harness.emulator.clock.advance(by: 400)
            let enrollmentId = try await enrollPhone(client, harness)
            let idToken = try await phoneSignIn(client, harness, enrollmentId: enrollmentId)
            let finalized = try await client.send(.post, mfa("mfaEnrollment:finalize"), json: [
                "idToken": idToken,
                "totpVerificationInfo": ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(totp.code(at: harness.emulator.clock.now))],
            ])
            #expect(finalized.status == .ok)
            #expect(errorMessage(finalized) != "SESSION_EXPIRED")
        }
    }

    /// Only enrolled factors count towards Firebase's limit of five: unfinished TOTP starts take no slot.
    @Test func unfinishedTOTPEnrollmentsDoNotUseUpTheFactorLimit() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            var statuses: [Int] = []
            for _ in 0..<7 {
                let started = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": session["idToken"]!, "totpEnrollmentInfo": [:]])
                statuses.append(started.status.code)
            }
            #expect(statuses.prefix(6).allSatisfy { $0 == 200 })
            #expect(statuses.last == 200)
            let user = try await client.send(.post, projectAccounts("lookup"), json: ["localId": ["alice-uid"]], headers: owner).json["users"]?[0]
            #expect(user?["mfaInfo"] == nil)
        }
    }

    /// A TOTP code is good once (RFC 6238 §5.2), as in every dialect: the code that finished the
    /// enrolment, or one that finished a sign-in, does not finish another.
    @Test func aTOTPCodeAlreadyUsedDoesNotFinishASignIn() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let totp = try await enrollTOTP(client, harness)
            func finish(at instant: Date) async throws -> Reply {
                let pending = try await passwordSignIn(client)
                return try await client.send(.post, mfa("mfaSignIn:finalize"), json: [
                    "mfaPendingCredential": pending["mfaPendingCredential"]!, "mfaEnrollmentId": pending["mfaInfo"]![0]!["mfaEnrollmentId"]!,
                    "totpVerificationInfo": ["verificationCode": .string(totp.code(at: instant))],
                ])
            }
            #expect(errorMessage(try await finish(at: harness.emulator.clock.now)) == "INVALID_CODE")
            harness.emulator.clock.advance(by: 30)
            #expect(try await finish(at: harness.emulator.clock.now).status == .ok)
            #expect(errorMessage(try await finish(at: harness.emulator.clock.now)) == "INVALID_CODE")
        }
    }

    @Test func withdrawingTheFactorRestoresSingleFactorSignIn() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let totp = try await enrollTOTP(client, harness)
            // The enrolment spent this step's code: the sign-in uses the next one.
            harness.emulator.clock.advance(by: 30)
            let pending = try await passwordSignIn(client)
            #expect(pending["idToken"] == nil)
            let enrollmentId = try #require(pending["mfaInfo"]?[0]?["mfaEnrollmentId"])
            let signedIn = try await client.send(.post, mfa("mfaSignIn:finalize"), json: [
                "mfaPendingCredential": pending["mfaPendingCredential"]!, "mfaEnrollmentId": enrollmentId,
                "totpVerificationInfo": ["verificationCode": .string(totp.code(at: harness.emulator.clock.now))],
            ])
            let idToken = try #require(signedIn.json["idToken"])

            let unknown = try await client.send(.post, mfa("mfaEnrollment:withdraw"), json: ["idToken": idToken, "mfaEnrollmentId": "nope"])
            #expect(errorMessage(unknown) == "MFA_ENROLLMENT_NOT_FOUND")
            let withdrawn = try await client.send(.post, mfa("mfaEnrollment:withdraw"), json: ["idToken": idToken, "mfaEnrollmentId": enrollmentId])
            #expect(withdrawn.status == .ok)
            #expect(withdrawn.json["idToken"]?.stringValue != nil)
            #expect(withdrawn.json["refreshToken"]?.stringValue != nil)
            #expect(withdrawn.json["expiresIn"] == "3600")
            let plain = try await passwordSignIn(client)
            #expect(plain["mfaPendingCredential"] == nil)
            #expect(plain["idToken"]?.stringValue != nil)
        }
    }

    @Test func pendingCredentialsAreCheckedAndExpire() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let enrollmentId = try await enrollPhone(client, harness)
            let pending = try await passwordSignIn(client)
            let missing = try await client.send(.post, mfa("mfaSignIn:start"), json: ["mfaEnrollmentId": .string(enrollmentId)])
            #expect(errorMessage(missing) == "MISSING_MFA_PENDING_CREDENTIAL : Request does not have MFA pending credential.")
            let forged = try await client.send(.post, mfa("mfaSignIn:start"), json: ["mfaPendingCredential": "forged", "mfaEnrollmentId": .string(enrollmentId)])
            #expect(errorMessage(forged) == "INVALID_MFA_PENDING_CREDENTIAL")
            let noId = try await client.send(.post, mfa("mfaSignIn:start"), json: ["mfaPendingCredential": pending["mfaPendingCredential"]!])
            #expect(errorMessage(noId) == "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
            harness.emulator.clock.advance(by: 600)
            let expired = try await client.send(.post, mfa("mfaSignIn:start"), json: ["mfaPendingCredential": pending["mfaPendingCredential"]!,
                                                                                     "mfaEnrollmentId": .string(enrollmentId)])
            #expect(errorMessage(expired) == "INVALID_MFA_PENDING_CREDENTIAL : The MFA pending credential has expired.")
        }
    }

    @Test func aTenantWithMFADisabledRefusesEnrollment() async throws {
        let tenant = Seed.TenantSeed(id: "p:nomfa", dialect: .firebase, settings: ["tenant_config": ["allowPasswordSignup": true,
                                                                                                    "mfaConfig": ["state": "DISABLED"]]],
                                     users: [Seed.UserSeed(id: "t-user", email: "t@example.com", password: "secret123", emailVerified: true)])
        let harness = try Harness(seed: firebaseProject(tenants: [tenant]))
        try await harness.run { client in
            let session = try await client.send(.post, accounts("signInWithPassword"), json: ["email": "t@example.com", "password": "secret123",
                                                                                             "tenantId": "nomfa"])
            #expect(session.status == .ok)
            let refused = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": session.json["idToken"]!, "tenantId": "nomfa",
                                                                                          "phoneEnrollmentInfo": ["phoneNumber": "+15550100102"]])
            #expect(errorMessage(refused) == "OPERATION_NOT_ALLOWED : SMS based MFA not enabled.")
        }
    }

    /// The tokens an enrolment answers name the new factor, as the emulator's do (operations.ts issues them with the
    /// `secondFactor`), and the user's other sessions end ("On successful enrollment, existing Firebase sessions
    /// (refresh tokens) are revoked", the JS SDK's `enroll`). The new session's refresh keeps the factor.
    @Test func anEnrolmentAnswersTokensNamingTheFactorAndEndsOtherSessions() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let other = try await passwordSignIn(client)
            let session = try await passwordSignIn(client)
            harness.emulator.clock.advance(by: 10)
            let started = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": session["idToken"]!,
                                                                                         "phoneEnrollmentInfo": ["phoneNumber": "+15550100100"]])
            let sessionInfo = try #require(started.json["phoneSessionInfo"]?["sessionInfo"])
            let finalized = try await client.send(.post, mfa("mfaEnrollment:finalize"), json: [
                "idToken": session["idToken"]!, "phoneVerificationInfo": ["sessionInfo": sessionInfo, "code": .string(try lastMFACode(harness))],
            ])
            #expect(finalized.status == .ok)
            let token = try claims(finalized.json["idToken"])
            let user = try await client.send(.post, projectAccounts("lookup"), json: ["localId": ["alice-uid"]], headers: owner).json["users"]?[0]
            #expect(token["firebase"]?["sign_in_provider"] == "password")
            #expect(token["firebase"]?["sign_in_second_factor"] == "phone")
            #expect(token["firebase"]?["second_factor_identifier"] == user?["mfaInfo"]?[0]?["mfaEnrollmentId"])
            let refreshed = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": finalized.json["refreshToken"]!])
            #expect(try claims(refreshed.json["id_token"])["firebase"]?["sign_in_second_factor"] == "phone")

            for ended in [other, session] {
                #expect(errorMessage(try await client.send(.post, accounts("lookup"), json: ["idToken": ended["idToken"]!])) == "TOKEN_EXPIRED")
                let refresh = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": ended["refreshToken"]!])
                #expect(errorMessage(refresh) == "TOKEN_EXPIRED")
            }
            // No sign-in is recorded for an enrolment: the audit trail's second-factor sign-ins are real ones.
            #expect(try harness.emulator.events(type: "signin.succeeded").allSatisfy { $0.detail["aal"] != "aal2" })
        }
    }

    /// Enrolling and withdrawing need a recent sign-in ("Recent re-authentication is required", the SDK's `enroll` and
    /// `unenroll`; generating a TOTP secret too, flutterfire #12087), as email and password changes do; withdrawing
    /// leaves the other sessions ("Sessions are not revoked when the account is unenrolled").
    @Test func enrollingAndWithdrawingNeedARecentSignIn() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let stale = try await passwordSignIn(client)
            harness.emulator.clock.advance(by: 301)
            // A TOTP secret is refused at once; a phone code is sent, and the enrolment refused at its finalize.
            let secret = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": stale["idToken"]!, "totpEnrollmentInfo": [:]])
            #expect(errorMessage(secret) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            let texted = try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": stale["idToken"]!,
                                                                                        "phoneEnrollmentInfo": ["phoneNumber": "+15550100100"]])
            let sessionInfo = try #require(texted.json["phoneSessionInfo"]?["sessionInfo"])
            let lateFinalize = try await client.send(.post, mfa("mfaEnrollment:finalize"), json: [
                "idToken": stale["idToken"]!, "phoneVerificationInfo": ["sessionInfo": sessionInfo, "code": .string(try lastMFACode(harness))],
            ])
            #expect(errorMessage(lateFinalize) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            let enrollmentId = try await enrollPhone(client, harness)
            let recent = try await phoneSignIn(client, harness, enrollmentId: enrollmentId)
            let bystander = try await phoneSignIn(client, harness, enrollmentId: enrollmentId)
            harness.emulator.clock.advance(by: 301)
            let late = try await client.send(.post, mfa("mfaEnrollment:withdraw"), json: ["idToken": recent, "mfaEnrollmentId": .string(enrollmentId)])
            #expect(errorMessage(late) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            let fresh = try await phoneSignIn(client, harness, enrollmentId: enrollmentId)
            let withdrawn = try await client.send(.post, mfa("mfaEnrollment:withdraw"), json: ["idToken": fresh, "mfaEnrollmentId": .string(enrollmentId)])
            #expect(withdrawn.status == .ok)
            #expect(try await client.send(.post, accounts("lookup"), json: ["idToken": bystander]).status == .ok)
        }
    }

    /// Identity Platform switches SMS and TOTP second factors on apart: SMS by `mfaConfig.state` with `PHONE_SMS`,
    /// TOTP by an ENABLED `providerConfigs` entry with a `totpProviderConfig` (Firebase's "Enable TOTP MFA"). Either one
    /// on makes a sign-in ask an enrolled user for the factor.
    @Test func smsAndTOTPSecondFactorsAreSwitchedOnApart() async throws {
        func tenant(_ id: String, _ mfaConfig: JSON) -> Seed.TenantSeed {
            Seed.TenantSeed(id: "p:\(id)", dialect: .firebase, settings: ["tenant_config": ["allowPasswordSignup": true, "mfaConfig": mfaConfig]],
                            users: [Seed.UserSeed(id: "\(id)-user", email: "t@example.com", password: "secret123", emailVerified: true)])
        }
        let harness = try Harness(seed: firebaseProject(tenants: [
            tenant("sms", ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]]),
            tenant("totp", ["providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 5]]]]),
        ]))
        try await harness.run { client in
            func signIn(_ tenant: String) async throws -> JSON {
                try await client.send(.post, accounts("signInWithPassword"), json: ["email": "t@example.com", "password": "secret123",
                                                                                    "tenantId": .string(tenant)]).json
            }
            func start(_ tenant: String, _ info: [String: JSON]) async throws -> Reply {
                let idToken = try #require(try await signIn(tenant)["idToken"])
                return try await client.send(.post, mfa("mfaEnrollment:start"), json: .object(info.merging(["idToken": idToken, "tenantId": .string(tenant)]) { $1 }))
            }
            let phone: [String: JSON] = ["phoneEnrollmentInfo": ["phoneNumber": "+15550100103"]], totp: [String: JSON] = ["totpEnrollmentInfo": [:]]
            #expect(errorMessage(try await start("sms", totp)) == "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled.")
            #expect(try await start("sms", phone).status == .ok)
            #expect(errorMessage(try await start("totp", phone)) == "OPERATION_NOT_ALLOWED : SMS based MFA not enabled.")

            let idToken = try #require(try await signIn("totp")["idToken"])
            let info = try #require(try await client.send(.post, mfa("mfaEnrollment:start"), json: ["idToken": idToken, "tenantId": "totp",
                                                                                                  "totpEnrollmentInfo": [:]]).json["totpSessionInfo"])
            let finalized = try await client.send(.post, mfa("mfaEnrollment:finalize"), json: [
                "idToken": idToken, "tenantId": "totp",
                "totpVerificationInfo": ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(try authenticator(info).code(at: harness.emulator.clock.now))],
            ])
            #expect(finalized.status == .ok)
            #expect(try await signIn("totp")["mfaPendingCredential"] != nil)
        }
    }

    /// A tenant's `totpProviderConfig.adjacentIntervals` is how many 30-second steps either way a code may be: 0 takes
    /// only the current one, 3 one from 90 seconds ago.
    @Test func aTenantsAdjacentIntervalsBoundTheAuthenticatorsDrift() async throws {
        func tenant(_ id: String, intervals: Int) -> Seed.TenantSeed {
            Seed.TenantSeed(id: "p:\(id)", dialect: .firebase, settings: ["tenant_config": ["allowPasswordSignup": true, "mfaConfig": [
                "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": .int(intervals)]]]]]],
                            users: [Seed.UserSeed(id: "\(id)-user", email: "t@example.com", password: "secret123", emailVerified: true)])
        }
        let harness = try Harness(seed: firebaseProject(tenants: [tenant("tight", intervals: 0), tenant("loose", intervals: 3)]))
        try await harness.run { client in
            func finalize(_ tenant: String, codeFrom secondsAgo: Double) async throws -> Reply {
                let idToken = try #require(try await client.send(.post, accounts("signInWithPassword"), json: [
                    "email": "t@example.com", "password": "secret123", "tenantId": .string(tenant)]).json["idToken"])
                let info = try #require(try await client.send(.post, mfa("mfaEnrollment:start"), json: [
                    "idToken": idToken, "tenantId": .string(tenant), "totpEnrollmentInfo": [:]]).json["totpSessionInfo"])
                let code = try authenticator(info).code(at: harness.emulator.clock.now.addingTimeInterval(-secondsAgo))
                return try await client.send(.post, mfa("mfaEnrollment:finalize"), json: [
                    "idToken": idToken, "tenantId": .string(tenant),
                    "totpVerificationInfo": ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(code)]])
            }
            let late = try await finalize("tight", codeFrom: 30), drifted = try await finalize("loose", codeFrom: 90)
            let current = try await finalize("tight", codeFrom: 0)
            #expect(late.status == .badRequest)
            #expect(drifted.status == .ok)
            #expect(current.status == .ok)
        }
    }
}
