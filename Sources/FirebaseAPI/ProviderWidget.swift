import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import IdentityProviders

/// `/emulator/auth/handler`: the page the Firebase SDKs open, instead of `<authDomain>/__/auth/handler`,
/// for `signInWithPopup`/`signInWithRedirect` on the web and the generic IdP flow on Android (`apn`) and
/// iOS (`ibi`). Google, Apple and the declared fake providers (`oidc.<id>`, or a provider declared under
/// the provider id itself) sign the person in on their own page and come back here with a code; other
/// providers get the Firebase emulator's kind of picker here (the project's accounts of that provider,
/// or a new one). Either way the result is the emulator's: a `urlResponse` of this handler's URL with
/// the provider's `id_token`, which the SDK then hands to `signInWithIdp` as the `requestUri`.
enum ProviderWidget {
    /// The SDK's parameters, carried through the provider's page in a signed `state`.
    static let names = ["apiKey", "appName", "authType", "providerId", "redirectUrl", "eventId", "tid", "tenantId", "apn", "ibi",
                        "clientId", "appId", "scopes", "v"]

    /// How long a person may take at the provider's page.
    static let stateLifetime = 600

    static func handle(_ call: FirebaseCall) async throws -> Response {
        var params: [String: String] = [:]
        for (key, value) in call.request.uri.queryParameters { params[String(key)] = String(value) }
        for (key, value) in call.body.fields { params[key] = value.stringValue ?? params[key] }
        if let state = params["state"], !state.isEmpty { return try await returned(call, state: state, params: params) }
        // Where Android's intent falls back to when no app takes it.
        if call.request.method == .get, let error = params["error"], !error.isEmpty { return picker(call).error(error, status: .ok) }
        guard let apiKey = params["apiKey"], !apiKey.isEmpty, let providerId = params["providerId"]?.lowercased(), !providerId.isEmpty else {
            return .json(["authEmulator": ["error": "missing apiKey or providerId query parameters"]], status: .badRequest)
        }
        let widget = params.filter { names.contains($0.key) && !$0.value.isEmpty }
        guard ["appName", "clientId", "appId", "apn", "ibi"].contains(where: { widget[$0] != nil }) else {
            return picker(call).error("Missing one of appName / clientId / appId / apn / ibi query params.", status: .badRequest)
        }
        let scope = try self.scope(call, widget: widget)
        do {
            try ProviderConfigs.requireEnabled(providerId, in: scope, emulator: call.emulator)
        } catch let error as FirebaseError {
            // A provider the project turned off: the SDK gets the error the production handler hands it.
            return try deliver(call, widget: widget, outcome: .refused(error))
        }
        if let providers = call.identityProviders, let fake = try fakeProvider(providerId, in: providers, scope: scope, emulator: call.emulator) {
            return try toProvider(call, fake: fake, widget: widget, scope: scope)
        }
        if call.request.method == .post { return try await chosen(call, widget: widget, params: params, scope: scope, provider: providerId) }
        return try localPicker(call, widget: widget, scope: scope, provider: providerId)
    }

    /// The fake provider standing in for a Firebase provider id: the one an OIDC configuration's `issuer` names on
    /// this server, `google.com` and `apple.com` for Google and Apple, `oidc.<id>` for a declared provider `<id>`, or
    /// one declared under the provider id itself.
    static func fakeProvider(_ providerId: String, in providers: FakeIdentityProviders, scope: FirebaseScope,
                             emulator: Emulator) throws -> FakeProvider? {
        if let configured = try ProviderConfigs.fakeProviderId(for: providerId, in: scope, emulator: emulator),
           let provider = try providers.provider(configured) {
            return provider
        }
        switch providerId {
        case "google.com": return try providers.provider("google")
        case "apple.com": return try providers.provider("apple")
        default:
            if providerId.hasPrefix("oidc."), let declared = try providers.provider(String(providerId.dropFirst(5))) { return declared }
            return try providers.provider(providerId)
        }
    }

    /// The client id the project signs in with at a fake provider (Firebase keeps it in the provider's
    /// configuration, which Fauxth does not model): any id does, as the handler exchanges the code itself.
    static func clientId(_ scope: FirebaseScope) -> String { "fauxth-firebase-\(scope.projectId)" }

    /// The project (and Identity Platform tenant) the SDK's API key and `tid` name.
    static func scope(_ call: FirebaseCall, widget: [String: String]) throws -> FirebaseScope {
        try call.projects.scope(project: try call.projects.project(forAPIKey: widget["apiKey"] ?? ""), tenant: widget["tid"] ?? widget["tenantId"])
    }

    static func callbackURL(_ call: FirebaseCall) -> String { "\(call.request.baseURL)/emulator/auth/handler" }

    static func picker(_ call: FirebaseCall) -> AccountPicker { AccountPicker(page: call.pages.page) }

    // MARK: Through a fake provider

    static func toProvider(_ call: FirebaseCall, fake: FakeProvider, widget: [String: String], scope: FirebaseScope) throws -> Response {
        let now = Int(call.emulator.clock.now.timeIntervalSince1970)
        var claims: [String: JSON] = widget.mapValues(JSON.string)
        claims["exp"] = .int(now + stateLifetime)
        let state = try JWS.sign(claims, with: stateKey(call))
        var query: [(String, String)] = [("client_id", clientId(scope)), ("redirect_uri", callbackURL(call)), ("response_type", "code"),
                                         ("scope", "openid email profile"), ("state", state)]
        // Apple answers a web sign-in by posting a form, and sends the name only that way.
        if fake.kind == "apple" { query.append(("response_mode", "form_post")) }
        return Response(status: .found, headers: [.location: "\(fake.baseURL(call.request.baseURL))/authorize?\(FormBody.encode(query))",
                                                  .cacheControl: "no-store"])
    }

    static func stateKey(_ call: FirebaseCall) -> SigningKey { call.emulator.keyring.hmacKey("firebase:auth-handler", generator: call.emulator.generator) }

    /// The provider came back: exchange its code for an ID token, or pass on its error.
    static func returned(_ call: FirebaseCall, state: String, params: [String: String]) async throws -> Response {
        guard let claims = try? JWS.verify(state, keys: [stateKey(call).verificationKey]).claims,
              !call.emulator.clock.hasPassed(expiryOf: claims, required: true) else {
            return picker(call).error("This sign-in expired or was not started here; start it again from the app.", status: .badRequest)
        }
        let widget = claims.compactMapValues(\.stringValue).filter { names.contains($0.key) }
        let providerId = widget["providerId"]?.lowercased() ?? ""
        if let error = params["error"], !error.isEmpty { return try deliver(call, widget: widget, outcome: .failed(error)) }
        let scope = try self.scope(call, widget: widget)
        guard let providers = call.identityProviders, let fake = try fakeProvider(providerId, in: providers, scope: scope, emulator: call.emulator) else {
            return picker(call).error("No identity provider stands in for \(providerId).", status: .badRequest)
        }
        let tokens: FakeIdentityProviders.Tokens
        do {
            tokens = try providers.exchange(fake.id, code: params["code"] ?? "", clientId: clientId(scope), redirectURI: callbackURL(call),
                                            verifier: nil, baseURL: call.request.baseURL)
        } catch let error as ProviderError {
            return picker(call).error("The provider refused the sign-in: \(error.description)", status: .badRequest)
        }
        return try deliver(call, widget: widget, outcome: .signedIn(tokens.idToken))
    }

    // MARK: The emulator's own picker, for providers with no fake one

    static func localPicker(_ call: FirebaseCall, widget: [String: String], scope: FirebaseScope, provider: String) throws -> Response {
        let choices = try call.emulator.identities(in: scope.coreTenant, provider: provider).map { identity in
            AccountPicker.Choice(value: identity.subject, name: identity.data["name"]?.stringValue ?? "(No display name)",
                                 detail: identity.email ?? identity.subject)
        }
        return picker(call).render(providerName: provider, action: "/emulator/auth/handler", hidden: widget.sorted { $0.key < $1.key },
                                   accounts: choices, audience: scope.projectId, privateRelay: false)
    }

    /// What the person picked on the local picker: an existing account, a new one, or a failure.
    static func chosen(_ call: FirebaseCall, widget: [String: String], params: [String: String], scope: FirebaseScope,
                       provider: String) async throws -> Response {
        if let error = params["error"], !error.isEmpty { return try deliver(call, widget: widget, outcome: .failed(error)) }
        var claims: [String: JSON]
        if let subject = params["account"], !subject.isEmpty {
            guard let identity = try call.emulator.user(in: scope.coreTenant, provider: provider, subject: subject)?.identities
                .first(where: { $0.provider == provider && $0.subject == subject }) else {
                return picker(call).error("No \(provider) account \(subject) in this project.", status: .badRequest)
            }
            claims = identity.data
            claims["email"] = claims["email"] ?? identity.email.map(JSON.string)
            claims["email_verified"] = claims["email_verified"] ?? true
        } else {
            let email = (params["email"] ?? "").trimmingCharacters(in: .whitespaces)
            guard email.contains("@") else { return picker(call).error("An email address is needed for a new account.", status: .badRequest) }
            claims = ["email": .string(email), "email_verified": .bool(params["emailVerified"] != nil)]
            let name = (params["name"] ?? "").trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { claims["name"] = .string(name) }
        }
        // The Firebase emulator's shape: 40 digits for a new account, and the claims it ignores left empty.
        claims["sub"] = .string(params["account"].flatMap { $0.isEmpty ? nil : $0 } ?? call.emulator.generator.digits(40))
        claims.merge(["iss": "", "aud": "", "exp": 0, "iat": 0]) { current, _ in current }
        return try deliver(call, widget: widget, outcome: .signedIn(JSON.object(claims).serialized()))
    }

    // MARK: Back to the app

    enum Outcome {
        case signedIn(String)
        /// The provider answered this OAuth error (`access_denied`…).
        case failed(String)
        /// Identity Toolkit refused the sign-in; the SDK gets the error it names (`auth/operation-not-allowed`).
        case refused(FirebaseError)
    }

    /// Hands the result to the SDK the way it waits for it: a deep link into the Android or iOS app, or
    /// the web SDK's redirect event (session storage, then `redirectUrl`) or popup relay.
    static func deliver(_ call: FirebaseCall, widget: [String: String], outcome: Outcome) throws -> Response {
        let authType = authType(widget)
        var event: [String: JSON] = ["type": .string(authType), "eventId": JSON(widget["eventId"]), "sessionId": "ValueNotUsedByAuthEmulator",
                                     "postBody": "", "tenantId": JSON(widget["tid"] ?? widget["tenantId"]), "urlResponse": .null, "error": .null]
        switch outcome {
        case .signedIn(let idToken):
            let providerId = widget["providerId"] ?? ""
            var fields = [("providerId", providerId), ("id_token", idToken)]
            // A SAML provider's answer also carries the emulator's fake assertion, whose subject is the account's email.
            if providerId.lowercased().hasPrefix("saml.") {
                let email = (try? SignInWithIdp.claims(in: idToken))??["email"]?.stringValue
                let subject: JSON = email.map { ["nameId": .string($0)] } ?? [:]
                fields.append(("SAMLResponse", JSON.object(["assertion": ["subject": subject]]).serialized()))
            }
            event["urlResponse"] = .string("\(callbackURL(call))?\(FormBody.encode(fields))")
        case .failed(let error):
            event["error"] = ["code": .string(error == "access_denied" ? "auth/user-cancelled" : "auth/internal-error"),
                              "message": .string("The identity provider answered \(error).")]
        case .refused(let error):
            // The JS SDK's own naming of a server code it has no entry for: lower case, hyphens.
            event["error"] = ["code": .string("auth/" + error.code.rawValue.lowercased().replacingOccurrences(of: "_", with: "-")),
                              "message": .string(error.detail ?? error.message)]
        }
        let isPopup = authType.lowercased().contains("popup")
        if !isPopup, let link = appLink(call, widget: widget, event: event) {
            guard case .signedIn = outcome else {
                return picker(call).error("The sign-in ended with \(event["error"]?["message"]?.stringValue ?? "an error"). Close this page: the app sees a cancelled sign-in.",
                                          status: .ok)
            }
            let tenant = (try? scope(call, widget: widget).coreTenant) ?? ""
            try call.emulator.captureIfAppLink(link, tenant: tenant, source: "auth_handler")
            return Response(status: .seeOther, headers: [.location: link, .cacheControl: "no-store"])
        }
        if !isPopup, (widget["redirectUrl"] ?? "").isEmpty {
            return picker(call).error("This feature is not implemented in Auth Emulator yet. Please use signInWithCredential for now.", status: .badRequest)
        }
        return resultPage(call, widget: widget, event: event, popup: isPopup)
    }

    static func authType(_ widget: [String: String]) -> String { widget["authType"] ?? "signInViaRedirect" }

    /// The deep link the Android (`apn`) or iOS (`ibi`) SDK is opened with, in the shapes the production
    /// handler uses.
    static func appLink(_ call: FirebaseCall, widget: [String: String], event: [String: JSON]) -> String? {
        let urlResponse = event["urlResponse"]?.stringValue ?? ""
        let authType = authType(widget)
        if let package = widget["apn"] {
            // The Host header shapes this URL; one URLComponents cannot read still gets a relative fallback.
            var fallback = URLComponents(string: callbackURL(call)) ?? URLComponents(string: "/emulator/auth/handler") ?? URLComponents()
            fallback.queryItems = widget.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
                + [URLQueryItem(name: "error", value: "App not found for intent")]
            var link = "intent://firebase.auth/#Intent;scheme=genericidp;package=\(package);S.authType=\(authType);"
            if let eventId = widget["eventId"] { link += "S.eventId=\(eventId);" }
            link += "S.link=\(percentEncoded(urlResponse));B.encryptionEnabled=false;S.browser_fallback_url=\(percentEncoded(fallback.string ?? ""));end;"
            return link
        }
        if let bundle = widget["ibi"] {
            var inner = "\(call.request.baseURL)/__/auth/callback?authType=\(percentEncoded(authType))&link=\(percentEncoded(urlResponse))"
            if let eventId = widget["eventId"] { inner += "&eventId=\(eventId)" }
            let scheme: String
            if let client = widget["clientId"] { scheme = client.split(separator: ".").reversed().joined(separator: ".") }
            else if let app = widget["appId"] { scheme = "app-" + app.replacingOccurrences(of: ":", with: "-") }
            else { scheme = bundle }
            let host = widget["clientId"] != nil || widget["appId"] != nil ? "firebaseauth" : "google"
            return "\(scheme)://\(host)/link?deep_link_id=\(percentEncoded(inner))"
        }
        return nil
    }

    /// `encodeURIComponent`'s escaping.
    static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.!~*'()")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// A page whose script passes the event to the web SDK: stored under the SDK's redirect-event key, then
    /// on to `redirectUrl`; or, for a popup, posted to the SDK's helper frame in the opener.
    static func resultPage(_ call: FirebaseCall, widget: [String: String], event: [String: JSON], popup: Bool) -> Response {
        let data: JSON = ["event": .object(event), "storageKey": .string("\(widget["apiKey"] ?? ""):\(widget["appName"] ?? "")"),
                          "apiKey": JSON(widget["apiKey"]), "appName": JSON(widget["appName"]), "redirectUrl": JSON(widget["redirectUrl"]),
                          "popup": .bool(popup)]
        // Inside a <script type="application/json"> nothing but "</" could end the element early.
        let embedded = data.serialized().replacingOccurrences(of: "</", with: "<\\/")
        let template = call.pages.page("web/firebase-auth-handler.html")
            ?? "<!doctype html><title>Signing in</title><script id=\"auth-event\" type=\"application/json\">{{event}}</script>"
        // The page's one inline script delivers the event; it loads nothing.
        return HTMLPage.response(HTMLPage.fill(template, values: [:], markup: ["event": embedded]),
                                 contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-ancestors 'none'")
    }
}

extension ProviderWidget {
    /// `GET /emulator/auth/iframe`: the JS SDK's helper frame (see `web/firebase-auth-iframe.html`).
    static func helperFrame(_ call: FirebaseCall) async throws -> Response {
        let html = call.pages.page("web/firebase-auth-iframe.html") ?? "<!doctype html><title>Fauxth auth helper frame</title>"
        // Framed by the app's page by design; its one outside script is the SDK's own gapi.
        return HTMLPage.response(html, contentSecurityPolicy: "default-src 'none'; script-src 'unsafe-inline' https://apis.google.com; frame-src https:; connect-src https:")
    }
}

/// `createAuthUri` with a `providerId`, as Identity Toolkit answers it for a provider it knows: the
/// provider's authorization URL (a fake provider's here) and a `sessionId`; the app opens the URL, the
/// provider comes back to `continueUri` with a code, and `signInWithIdp` with that URL as `requestUri`
/// and the same `sessionId` exchanges the code.
extension ProviderWidget {
    static func authUri(_ call: FirebaseCall, providerId: String) throws -> Response {
        let scope = try call.scope()
        try ProviderConfigs.requireEnabled(providerId, in: scope, emulator: call.emulator)
        guard let continueUri = try call.body.string("continueUri"), !continueUri.isEmpty else { throw FirebaseError(.missingContinueURI) }
        guard let url = URLComponents(string: continueUri), url.scheme != nil else { throw FirebaseError(.invalidContinueURI) }
        guard let providers = call.identityProviders, let fake = try fakeProvider(providerId, in: providers, scope: scope, emulator: call.emulator) else {
            // As a provider the project has not enabled: a real one cannot be reached from here.
            throw FirebaseError(.operationNotAllowed).withMessage(
                "No identity provider stands in for \(providerId): declare one (oidc.<id> or \(providerId)) to use createAuthUri with it.")
        }
        let now = Int(call.emulator.clock.now.timeIntervalSince1970)
        var session: [String: JSON] = ["providerId": .string(providerId), "continueUri": .string(continueUri), "project": .string(scope.projectId),
                                       "exp": .int(now + stateLifetime)]
        session["tid"] = scope.tenantId.map(JSON.string)
        let sessionId = try JWS.sign(session, with: stateKey(call))
        var query: [(String, String)] = [("client_id", clientId(scope)), ("redirect_uri", continueUri), ("response_type", "code"),
                                         ("scope", (try call.body.string("oauthScope")).map { "openid email profile \($0)" } ?? "openid email profile")]
        if fake.kind == "apple" { query.append(("response_mode", "form_post")) }
        return .json(["kind": "identitytoolkit#CreateAuthUriResponse", "authUri": .string("\(fake.baseURL(call.request.baseURL))/authorize?\(FormBody.encode(query))"),
                      "providerId": .string(providerId), "sessionId": .string(sessionId)])
    }

    /// What createAuthUri put in a `sessionId` it gave; nil for any other session id.
    static func session(_ call: FirebaseCall, _ sessionId: String) -> [String: JSON]? {
        sessionId.isEmpty ? nil : try? JWS.verify(sessionId, keys: [stateKey(call).verificationKey]).claims
    }

    /// The ID token behind a `code` the provider sent to `continueUri`, for the `sessionId` createAuthUri
    /// gave; nil when `sessionId` is not one of those.
    static func idToken(_ call: FirebaseCall, code: String, sessionId: String, providerId: String) throws -> String? {
        guard let session = session(call, sessionId), let continueUri = session["continueUri"]?.stringValue else { return nil }
        let scope = try call.scope()
        guard !call.emulator.clock.hasPassed(expiryOf: session, required: true),
              session["providerId"]?.stringValue == providerId, let providers = call.identityProviders,
              let fake = try fakeProvider(providerId, in: providers, scope: scope, emulator: call.emulator) else {
            throw FirebaseError(.invalidIDPResponse, "((The sessionId has expired or belongs to another provider.))")
        }
        do {
            return try providers.exchange(fake.id, code: code, clientId: clientId(scope), redirectURI: continueUri, verifier: nil,
                                          baseURL: call.request.baseURL).idToken
        } catch let error as ProviderError {
            throw FirebaseError(.invalidIDPResponse, "((\(error.description)))")
        }
    }
}
