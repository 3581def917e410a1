import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// `/verify` (`internal/api/verify.go`): POST with a code or a link token answers a Session; GET (the
/// link in the email) always answers 303 to the redirect, with the session or the error in the
/// fragment. A redirect to an app scheme is captured as a deep link.
struct Verify {
    let emulator: Emulator
    let projects: SupabaseProjects

    /// GoTrue's verification types and the message purposes whose codes each accepts. An invitation is a confirmation
    /// token there, so `signup` and `invite` take either; magic links and password resets are one `recovery_token`,
    /// so `magiclink` and `recovery` take either; `email` takes a confirmation, then a recovery token.
    static let purposes: [String: [MessagePurpose]] = [
        "signup": [.verifyEmail, .invite], "email": [.verifyEmail, .invite, .magicLink, .resetPassword], "magiclink": [.magicLink, .resetPassword],
        "invite": [.invite, .verifyEmail], "recovery": [.resetPassword, .magicLink], "email_change": [.emailChange], "sms": [.otp, .verifyEmail],
        "phone_change": [.phoneChange],
    ]

    /// The types a texted code is verified with; every other type names an email's.
    static let phoneTypes: Set<String> = ["sms", "phone_change"]

    func post(_ call: Call) async throws -> JSON {
        let origin = call.origin
        let (body, project) = try call.bodyAndProject()
        // `VerifyParams.Validate`: the type, a token or a token hash (not both), then the address the
        // token went to, checked before any token is looked up; the type's validity comes after.
        let type = try body.string("type") ?? ""
        guard !type.isEmpty else { throw SupabaseError.validation("Verify requires a verification type") }
        let token = try body.string("token") ?? "", hash = try body.string("token_hash") ?? ""
        let email = try body.string("email") ?? "", phone = try body.string("phone") ?? ""
        guard token.isEmpty != hash.isEmpty else { throw SupabaseError.validation("Verify requires either a token or a token hash") }
        let proof: CodeProof
        var expiredMessage = "Token has expired or is invalid"
        if !token.isEmpty {
            if !phone.isEmpty, email.isEmpty {
                proof = .code(token, target: try Validation.phone(phone))
            } else if !email.isEmpty, phone.isEmpty {
                guard Validation.isEmailFormat(email) else {
                    throw SupabaseError(status: .unprocessableContent, code: .validationFailed, message: "Invalid email format")
                }
                proof = .code(token, target: email.lowercased())
            } else {
                throw SupabaseError.validation("Only an email address or phone number should be provided on verify")
            }
        } else {
            guard email.isEmpty, phone.isEmpty, (try body.string("redirect_to") ?? "").isEmpty else {
                throw SupabaseError.validation("Only the token_hash and type should be provided")
            }
            proof = .linkToken(hash)
            expiredMessage = "Email link is invalid or has expired"
        }
        let expired = SupabaseError(status: .forbidden, code: .otpExpired, message: expiredMessage)
        guard let purposes = Self.purposes[type], !(hash.isEmpty ? false : Self.phoneTypes.contains(type)) else {
            // `verifyTokenHash` knows the email types only; `verifyUserAndToken`'s default finds no user for another.
            if !hash.isEmpty { throw Self.invalidType }
            throw expired
        }
        // A texted code's type looks its user up by phone, an email's by address: the other address finds nobody.
        if case .code = proof, Self.phoneTypes.contains(type) != !phone.isEmpty { throw expired }
        if type == "sms", case .code(let code, let number) = proof, let user = try testNumberUser(number, code: code, project: project) {
            // GoTrue's verifyUserAndToken: a `GOTRUE_SMS_TEST_OTP` number's fixed code passes every time it is given,
            // before any code sent is looked at, so a test suite signs in with it again and again.
            try emulator.checkCanSignIn(user, origin: origin)
            let confirmed = try emulator.confirm(in: project.storeTenant, userId: user.id, channel: .sms)
            try emulator.retireCodes(in: project.storeTenant, userId: user.id)
            return try await emulator.goTrueSession(for: confirmed, method: "otp", project: project, origin: origin).json
        }
        do {
            switch try complete(proof, purposes: purposes, project: project, origin: origin) {
            case .signIn(let user, _):
                return try await emulator.goTrueSession(for: user, method: "otp", project: project, origin: origin).json
            case .awaitingOtherLink:
                return ["msg": .string(Self.otherLinkPending), "code": "200"]
            }
        } catch AuthError.codeInvalid, AuthError.codeExpired, AuthError.wrongCode, AuthError.tooManyAttempts {
            throw expired
        } catch AuthError.userBanned {
            throw Self.banned
        }
    }

    /// GoTrue's refusals here that are not a bad token: a banned user (403, where sign-ins say 400), and a link type
    /// that is no email's.
    static let banned = SupabaseError(status: .forbidden, code: .userBanned, message: "User is banned")
    static let invalidType = SupabaseError.validation("Invalid email verification type")

    /// The link in the email: 303 to the redirect, with the session in the fragment, a PKCE code in the query, or the
    /// error in the fragment (and the query, for PKCE), as GoTrue's `verifyGet` builds them; a link without a type or
    /// token is a 400, as its `Validate` answers.
    func get(_ call: Call) async throws -> Response {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let project = try call.project()
        let type = request.uri.queryParameters.get("type").map { String($0) } ?? ""
        let token = request.uri.queryParameters.get("token").map { String($0) } ?? ""
        guard !type.isEmpty else { throw SupabaseError.validation("Verify requires a verification type") }
        guard !token.isEmpty else { throw SupabaseError.validation("Verify requires a token or a token hash") }
        let redirect = Redirects.target(for: request, project: project, emulator: emulator)
        let isPKCE = token.hasPrefix(PKCE.tokenPrefix)
        var location: String
        var userId: String?
        do {
            guard let purposes = Self.purposes[type], !Self.phoneTypes.contains(type) else { throw Self.invalidType }
            switch try complete(.linkToken(token), purposes: purposes, project: project, origin: origin) {
            case .awaitingOtherLink:
                return Response(status: .seeOther, headers: [.location: Self.messageLocation(redirect, Self.otherLinkPending, pkce: isPKCE)])
            case .signIn(let user, let purpose):
                userId = user.id
                // `verifyTokenHash` names an `email` link by what it turned out to be.
                let shownType = type != "email" ? type : [MessagePurpose.verifyEmail, .invite].contains(purpose) ? "signup" : "magiclink"
                if isPKCE {
                    // PKCE: the app exchanges this code with its verifier (`grant_type=pkce`). Without the flow GoTrue
                    // rolls the verification back; here the link is spent, though the answer is the same.
                    guard let code = try emulator.issueAuthCode(in: tenant, userId: user.id, authenticationMethod: Self.authenticationMethod(type)) else {
                        throw SupabaseError(status: .badRequest, code: .flowStateNotFound,
                                            message: "No associated flow state found. 422: No valid flow state found for user.")
                    }
                    location = GoQueryURL.url(redirect, setting: [("code", code)])
                } else {
                    let session = try await emulator.goTrueSession(for: user, method: "otp", project: project, origin: origin)
                    let fragment = session.fragment + [("sb", ""), ("type", shownType)]
                    location = redirect + "#" + Self.formEncode(fragment.sorted { $0.0 < $1.0 })
                }
            }
        } catch AuthError.codeInvalid, AuthError.codeExpired, AuthError.wrongCode, AuthError.tooManyAttempts {
            location = Self.errorLocation(redirect, SupabaseError(status: .forbidden, code: .otpExpired, message: "Email link is invalid or has expired"),
                                          pkce: isPKCE)
        } catch AuthError.userBanned {
            location = Self.errorLocation(redirect, Self.banned, pkce: isPKCE)
        } catch let error as SupabaseError {
            location = Self.errorLocation(redirect, error, pkce: isPKCE)
        }
        try emulator.captureIfAppLink(location, tenant: tenant, source: "verify", userId: userId)
        return Response(status: .seeOther, headers: [.location: location])
    }

    /// GoTrue's `prepErrorRedirectURL`: the redirect's fragment replaced by the error (OAuth's name for its status,
    /// the code, the message and the `sb` marker), and for a PKCE flow the query given the same, re-encoded as Go does.
    static func errorLocation(_ redirect: String, _ error: SupabaseError, pkce: Bool) -> String {
        let name = [400: "invalid_request", 401: "unauthorized_client", 403: "access_denied", 500: "server_error"][error.status.code]
        let pairs = (name.map { [("error", $0)] } ?? []) + [("error_code", error.code.rawValue), ("error_description", error.message)]
        let base = withoutFragment(redirect)
        return (pkce ? GoQueryURL.url(base, setting: pairs) : base) + "#" + formEncode(pairs + [("sb", "")])
    }

    /// GoTrue's `prepRedirectURL`: the fragment replaced by the message, the query re-encoded (with the message too,
    /// for a PKCE flow).
    static func messageLocation(_ redirect: String, _ message: String, pkce: Bool) -> String {
        let base = withoutFragment(redirect)
        let query = pkce ? [("message", message)] : []
        let located = pkce || base.contains("?") ? GoQueryURL.url(base, setting: query) : base
        return located + "#" + formEncode([("message", message), ("sb", "")])
    }

    private static func withoutFragment(_ url: String) -> String {
        String(url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }

    /// The flow a link of `type` continues (GoTrue's `ParseAuthenticationMethod`: any `…signup` is `email/signup`).
    static func authenticationMethod(_ type: String) -> String { type.hasSuffix("signup") ? "email/signup" : type }

    /// The user of a test number whose fixed code `code` is.
    private func testNumberUser(_ number: String, code: String, project: SupabaseProject) throws -> User? {
        guard let fixed = project.config.smsTestOTP[GoTrueJSON.phone(number)], constantTimeEquals(fixed, code) else { return nil }
        return try emulator.user(in: project.storeTenant, .phone(number))
    }

    /// What a used code leads to.
    enum Outcome {
        /// The user signed in by a code of `purpose`.
        case signIn(User, purpose: MessagePurpose)
        /// One of the two links of a secure email change; the other is still to be used.
        case awaitingOtherLink
    }

    static let otherLinkPending = "Confirmation link accepted. Please proceed to confirm link sent to the other email"

    /// Uses the code (refused, and left usable, when its user is banned, as GoTrue checks the ban first) and confirms
    /// what it proves; a confirmation retires the user's other codes, as GoTrue's does.
    private func complete(_ proof: CodeProof, purposes: [MessagePurpose], project: SupabaseProject, origin: RequestOrigin) throws -> Outcome {
        let tenant = project.storeTenant
        let used = try emulator.consumeCode(in: tenant, purposes: purposes, proof, gatingOwner: true, origin: origin)
        guard let userId = used.userId else { throw AuthError.codeInvalid }
        let user = try emulator.requireUser(in: tenant, id: userId)
        let confirmed: User
        switch used.purpose {
        case .verifyEmail, .magicLink, .invite, .resetPassword, .otp:
            // GoTrue's Confirm records `email_verified` in the metadata; its ConfirmPhone records nothing there
            // (supabase/auth#1906: `phone_verified` stays false).
            let email = used.target.contains("@")
            confirmed = try emulator.confirm(in: tenant, userId: userId, channel: email ? .email : .sms, metadata: email ? ["email_verified": true] : [:])
        case .emailChange:
            guard let newEmail = user.pendingEmail else { throw AuthError.codeInvalid }
            // With autoconfirm GoTrue's emailChangeVerify skips the second confirmation: either link completes it.
            if !project.config.mailerAutoconfirm, try !emulator.liveCodeTargets(in: tenant, userId: userId, purpose: .emailChange).isEmpty {
                return .awaitingOtherLink
            }
            confirmed = try emulator.confirmAddressChange(in: tenant, userId: userId, channel: .email, address: newEmail, origin: origin)
        case .phoneChange:
            guard let newPhone = user.pendingPhone, newPhone == used.target else { throw AuthError.codeInvalid }
            confirmed = try emulator.confirmAddressChange(in: tenant, userId: userId, channel: .sms, address: newPhone, origin: origin)
        case .mfa, .reauthentication, .notification, .recoverEmail, .app:
            return .signIn(user, purpose: used.purpose)
        }
        try emulator.retireCodes(in: tenant, userId: userId)
        return .signIn(confirmed, purpose: used.purpose)
    }

    /// `application/x-www-form-urlencoded`, as Go's `url.Values.Encode` writes it (spaces as `+`).
    static func formEncode(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map { key, value in
            let encoded = (value.addingPercentEncoding(withAllowedCharacters: allowed.union(.init(charactersIn: " "))) ?? value)
                .replacingOccurrences(of: " ", with: "+")
            return "\(key)=\(encoded)"
        }.joined(separator: "&")
    }
}
