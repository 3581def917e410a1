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

    /// GoTrue's verification types and the message purposes whose codes each accepts. Magic links and password resets
    /// are one `recovery_token` there, so `magiclink` and `recovery` take either; `email` takes the confirmation, then it.
    static let purposes: [String: [MessagePurpose]] = [
        "signup": [.verifyEmail], "email": [.verifyEmail, .magicLink, .resetPassword], "magiclink": [.magicLink, .resetPassword],
        "invite": [.invite], "recovery": [.resetPassword, .magicLink], "email_change": [.emailChange], "sms": [.otp, .verifyEmail],
        "phone_change": [.phoneChange],
    ]

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
        guard let purposes = Self.purposes[type] else { throw SupabaseError.validation("Unsupported verification type") }
        if type == "sms", case .code(let code, let number) = proof, let user = try testNumberUser(number, code: code, project: project) {
            // GoTrue's verifyUserAndToken: a `GOTRUE_SMS_TEST_OTP` number's fixed code passes every time it is given,
            // before any code sent is looked at, so a test suite signs in with it again and again.
            try emulator.checkCanSignIn(user, origin: origin)
            let confirmed = try emulator.confirm(in: project.storeTenant, userId: user.id, channel: .sms)
            return try await emulator.goTrueSession(for: confirmed, method: "otp", project: project, origin: origin).json
        }
        do {
            switch try complete(proof, purposes: purposes, project: project, origin: origin) {
            case .signIn(let user):
                return try await emulator.goTrueSession(for: user, method: "otp", project: project, origin: origin).json
            case .awaitingOtherLink:
                return ["msg": .string(Self.otherLinkPending), "code": "200"]
            }
        } catch AuthError.codeInvalid, AuthError.codeExpired, AuthError.wrongCode, AuthError.tooManyAttempts {
            throw SupabaseError(status: .forbidden, code: .otpExpired, message: expiredMessage)
        }
    }

    func get(_ call: Call) async throws -> Response {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let project = try call.project()
        let redirect = Redirects.target(for: request, project: project, emulator: emulator)
        let type = request.uri.queryParameters.get("type") ?? ""
        let token = request.uri.queryParameters.get("token") ?? ""
        let isPKCE = token.hasPrefix(PKCE.tokenPrefix)
        var location: String
        var userId: String?
        do {
            guard let purposes = Self.purposes[type] else { throw AuthError.codeInvalid }
            guard case .signIn(let user) = try complete(.linkToken(token), purposes: purposes, project: project, origin: origin) else {
                // GoTrue's prepRedirectURL: the message in the fragment, and for a PKCE flow in the query too.
                let fragment = Self.formEncode([("message", Self.otherLinkPending), ("sb", "")])
                let query = isPKCE ? (redirect.contains("?") ? "&" : "?") + Self.formEncode([("message", Self.otherLinkPending)]) : ""
                return Response(status: .seeOther, headers: [.location: redirect + query + "#" + fragment])
            }
            userId = user.id
            if isPKCE, let code = try emulator.issueAuthCode(in: tenant, userId: user.id, authenticationMethod: Self.authenticationMethod(type)) {
                // PKCE: the app exchanges this code with its verifier (`grant_type=pkce`).
                location = redirect + (redirect.contains("?") ? "&" : "?") + Self.formEncode([("code", code)])
            } else {
                let session = try await emulator.goTrueSession(for: user, method: "otp", project: project, origin: origin)
                let fragment = session.fragment + [("sb", ""), ("type", type)]
                location = redirect + "#" + Self.formEncode(fragment.sorted { $0.0 < $1.0 })
            }
        } catch AuthError.codeInvalid, AuthError.codeExpired, AuthError.wrongCode, AuthError.tooManyAttempts {
            let pairs = [("error", "access_denied"), ("error_code", "otp_expired"), ("error_description", "Email link is invalid or has expired")]
            let fragment = Self.formEncode(pairs + [("sb", "")])
            // With PKCE GoTrue puts the error in the query as well, where server-side handlers read it, without the `sb`
            // marker it adds to the fragment only (`prepErrorRedirectURL`).
            location = isPKCE ? redirect + (redirect.contains("?") ? "&" : "?") + Self.formEncode(pairs) + "#" + fragment : redirect + "#" + fragment
        }
        try emulator.captureIfAppLink(location, tenant: tenant, source: "verify", userId: userId)
        return Response(status: .seeOther, headers: [.location: location])
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
        case signIn(User)
        /// One of the two links of a secure email change; the other is still to be used.
        case awaitingOtherLink
    }

    static let otherLinkPending = "Confirmation link accepted. Please proceed to confirm link sent to the other email"

    /// Uses the code and confirms what it proves.
    private func complete(_ proof: CodeProof, purposes: [MessagePurpose], project: SupabaseProject, origin: RequestOrigin) throws -> Outcome {
        let tenant = project.storeTenant
        let used = try emulator.consumeCode(in: tenant, purposes: purposes, proof, origin: origin)
        guard let userId = used.userId else { throw AuthError.codeInvalid }
        let user = try emulator.requireUser(in: tenant, id: userId)
        try emulator.checkCanSignIn(user, origin: origin)
        switch used.purpose {
        case .verifyEmail, .magicLink, .invite, .resetPassword, .otp:
            // GoTrue's Confirm records `email_verified` in the metadata; its ConfirmPhone records nothing there
            // (supabase/auth#1906: `phone_verified` stays false).
            let email = used.target.contains("@")
            return .signIn(try emulator.confirm(in: tenant, userId: userId, channel: email ? .email : .sms, metadata: email ? ["email_verified": true] : [:]))
        case .emailChange:
            guard let newEmail = user.pendingEmail else { throw AuthError.codeInvalid }
            guard try emulator.liveCodeTargets(in: tenant, userId: userId, purpose: .emailChange).isEmpty else { return .awaitingOtherLink }
            return .signIn(try emulator.confirmAddressChange(in: tenant, userId: userId, channel: .email, address: newEmail, origin: origin))
        case .phoneChange:
            guard let newPhone = user.pendingPhone, newPhone == used.target else { throw AuthError.codeInvalid }
            return .signIn(try emulator.confirmAddressChange(in: tenant, userId: userId, channel: .sms, address: newPhone, origin: origin))
        case .mfa, .reauthentication, .notification, .recoverEmail, .app:
            return .signIn(user)
        }
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
