import AuthCore
import Crypto
import Foundation
import HTTPSupport
import Hummingbird
import IdentityProviders

/// `POST /token?grant_type=…` (`internal/api/token.go`): the password and refresh_token grants.
struct Token {
    let emulator: Emulator
    let projects: SupabaseProjects

    func handle(_ call: Call) async throws -> Response {
        let grant = call.request.uri.queryParameters.get("grant_type") ?? ""
        switch grant {
        case "password":
            return try await password(call).response
        case "refresh_token":
            return try await refresh(call).response
        case "pkce":
            return try await pkce(call).response
        case "id_token":
            return try await idToken(call).response
        case "web3":
            throw Disabled.web3()
        default:
            throw SupabaseError(status: .badRequest, code: .invalidCredentials, message: "unsupported_grant_type")
        }
    }

    /// Rotates the refresh token (`tokens/service.go` `RefreshTokenGrant`); reuse rules live in the core.
    private func refresh(_ call: Call) async throws -> GoTrueSession {
        let (origin, tenant) = (call.origin, call.tenant)
        let (body, project) = try call.bodyAndProject()
        let token = try body.string("refresh_token") ?? ""
        guard !token.isEmpty else {
            throw SupabaseError(status: .badRequest, code: .validationFailed, message: "refresh_token required", oauthError: "invalid_request")
        }
        guard token.count >= 12 else { throw SupabaseError.validation("Refresh token is not valid") }
        let user: User, issued: IssuedSession
        do {
            (user, issued) = try emulator.refresh(in: tenant, token: token, policy: project.config.refreshPolicy, origin: origin,
                                                 admit: OAuthServer.admitOrdinarySession, newToken: Emulator.goTrueRefreshToken)
        } catch AuthError.userBanned, AuthError.userDisabled {
            // The refresh grant's own words (GoTrue's tokens service), where a sign-in says "User is banned".
            throw SupabaseError(status: .badRequest, code: .userBanned, message: "Invalid Refresh Token: User Banned")
        }
        return try await emulator.goTrueSessionResponse(issued, userId: user.id, project: project, method: "token_refresh", origin: origin)
    }

    /// Exchanges the `?code=` an email link redirected with, and the verifier only the client knows.
    private func pkce(_ call: Call) async throws -> GoTrueSession {
        let (origin, tenant) = (call.origin, call.tenant)
        let (body, project) = try call.bodyAndProject()
        let code = try body.string("auth_code") ?? "", verifier = try body.string("code_verifier") ?? ""
        guard !code.isEmpty, !verifier.isEmpty else {
            throw SupabaseError.validation("invalid request: both auth code and code verifier should be non-empty")
        }
        let flow = try emulator.exchangeAuthCode(in: tenant, code: code, verifier: verifier, lifetime: project.config.flowStateExpiry)
        let user = try emulator.requireUser(in: tenant, id: flow.userId)
        var session = try await emulator.goTrueSession(for: user, method: flow.method, project: project, origin: origin)
        // An OAuth flow hands over the provider's access token with the session, as GoTrue's does.
        session.providerToken = flow.providerToken
        return session
    }

    /// `grant_type=id_token` (`api/token_oidc.go`): an ID token a native sign-in (Sign in with Apple,
    /// Google Sign-In) gave the app, signed by one of the fake providers, for an enabled provider whose
    /// client ids include its audience. A `nonce` must hash (hex SHA-256) to the token's. Signs in (or
    /// with `link_identity` and a user's token, links) as `/callback` does.
    private func idToken(_ call: Call) async throws -> GoTrueSession {
        let origin = call.origin
        let (body, project) = try call.bodyAndProject()
        func bad(_ error: String, _ description: String) -> SupabaseError {
            SupabaseError(status: .badRequest, code: .validationFailed, message: description, oauthError: error)
        }
        let token = try body.string("id_token") ?? ""
        guard !token.isEmpty else { throw bad("invalid request", "id_token required") }
        // GoTrue's IdTokenGrant, in its order: the parameters, the linking caller, the provider, the token, its
        // audience, its nonce. Provider names are matched as written.
        let name = try body.string("provider") ?? ""
        let clientId = try body.string("client_id") ?? "", issuer = try body.string("issuer") ?? ""
        guard !name.isEmpty || (!clientId.isEmpty && !issuer.isEmpty) else { throw bad("invalid request", "provider or client_id and issuer required") }
        var target: String?
        if case .bool(true)? = body.fields["link_identity"] {
            // Linking here needs no GOTRUE_SECURITY_MANUAL_LINKING_ENABLED: only the /user/identities routes ask for it.
            guard call.request.headers[.authorization] != nil else {
                throw bad("invalid request", "Linking requires a valid user access token in Authorization")
            }
            target = try Authentication(emulator: emulator).require(call.request, project: project).user.id
        }
        guard let provider = project.config.externalProviders[name], let providers = call.identityProviders,
              let fake = try providers.provider(name) else {
            throw SupabaseError.validation("Custom OIDC provider \"\(name)\" not allowed")
        }
        guard provider.enabled else {
            throw SupabaseError(status: .badRequest, code: .providerDisabled, message: "Provider (issuer \"\(fake.issuer(baseURL: call.request.baseURL))\") is not enabled")
        }
        // The client ids the provider accepts: GOTRUE_EXTERNAL_<NAME>_CLIENT_ID (comma-separated), and for
        // Apple the iOS bundle id.
        var audiences = provider.clientID.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if name == "apple", let bundle = project.config.iosBundleID { audiences.append(bundle) }
        var claims: [String: JSON]
        do {
            let verified = try providers.verify(token, audiences: nil, baseURL: call.request.baseURL)
            guard verified.provider.id == fake.id else { throw bad("invalid request", "Bad ID token") }
            claims = verified.claims
        } catch is ProviderError {
            throw bad("invalid request", "Bad ID token")
        }
        // `aud` is a string or a list (go-oidc reads both); the refusal prints the list as Go's %v prints a slice.
        let audience = claims["aud"].map { $0.arrayValue?.compactMap(\.stringValue) ?? [$0.stringValue].compactMap { $0 } } ?? []
        guard audience.contains(where: { !$0.isEmpty && audiences.contains($0) }) else {
            throw bad("invalid request", "Unacceptable audience in id_token: [\(audience.joined(separator: " "))]")
        }
        if !provider.skipNonceCheck {
            let nonce = try body.string("nonce") ?? ""
            let tokenNonce = claims["nonce"]?.stringValue ?? ""
            guard nonce.isEmpty == tokenNonce.isEmpty else {
                throw bad("invalid request", "Passed nonce and nonce in id_token should either both exist or not.")
            }
            if !nonce.isEmpty {
                guard constantTimeEquals(SHA256.hash(data: Array(nonce.utf8)).hex, tokenNonce) else { throw bad("invalid nonce", "Nonces mismatch") }
            }
        }
        // parseAppleIDToken takes Apple's address as verified whatever the token says.
        if name == "apple", claims["email"] != nil { claims["email_verified"] = true }
        let user = try await OAuthSignIn.user(for: claims, provider: name, project: project, emulator: emulator, origin: origin, linkingTarget: target,
                                              mailer: call.mailer(project))
        return try await emulator.goTrueSession(for: user, method: "oauth", project: project, origin: origin)
    }

    /// Email or phone plus password. An unconfirmed email is refused with `email_not_confirmed`.
    private func password(_ call: Call) async throws -> GoTrueSession {
        let (origin, tenant) = (call.origin, call.tenant)
        let (body, project) = try call.bodyAndProject()
        let email = try body.string("email") ?? "", phone = try body.string("phone") ?? ""
        let password = try body.string("password") ?? ""
        // GoTrue's ResourceOwnerPasswordGrant, in its order: one identifier, its provider switched on, then the user,
        // whose ban is told before the password is checked.
        guard email.isEmpty || phone.isEmpty else { throw SupabaseError.validation("Only an email address or phone number should be provided on login.") }
        let identifier: Identifier
        if !email.isEmpty {
            guard project.config.emailEnabled else {
                throw SupabaseError(status: .unprocessableContent, code: .emailProviderDisabled, message: "Email logins are disabled")
            }
            identifier = .email(email.trimmingSpaces())
        } else if !phone.isEmpty {
            guard project.config.phoneEnabled else {
                throw SupabaseError(status: .unprocessableContent, code: .phoneProviderDisabled, message: "Phone logins are disabled")
            }
            identifier = .phone(phone)
        } else {
            throw SupabaseError.validation("missing email or phone")
        }
        // The password verification attempt hook hears about every attempt on a known, unbanned user, right
        // password or not, and may reject it before GoTrue's own answer.
        let hooks = AuthHooks(emulator: emulator, project: project)
        if hooks.enabled(.passwordVerificationAttempt), let found = try emulator.user(in: tenant, identifier) {
            // The ban comes before the hook too: the core's gate, as refusesStateFirst applies it below.
            try emulator.checkCanSignIn(found, origin: origin)
            try await hooks.passwordAttempt(userId: found.id, valid: try emulator.checkPassword(password, in: tenant, userId: found.id), origin: origin)
        }
        // A ban is told before the password is checked (refusesStateFirst), whatever password was typed.
        let user = try emulator.authenticate(in: tenant, PasswordSignIn(identifier: identifier, password: password, requireVerified: true,
                                                                        refusesStateFirst: true), origin: origin)
        var session = try await emulator.goTrueSession(for: user, method: "password", project: project, origin: origin)
        // A right password that the policy would refuse now is told, not refused (token.go's checkPasswordStrength).
        do {
            try project.config.passwordPolicy.check(password)
        } catch AuthError.weakPassword(let reasons, let message) {
            session.weakPassword = (message, reasons)
        }
        return session
    }
}
