import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import IdentityProviders

/// Federated sign-in through the hosted UI: `/oauth2/authorize?identity_provider=Google` (or an
/// `idp_identifier`) goes to the fake provider standing in for the pool's identity provider, which
/// comes back to `/oauth2/idpresponse`; the provider's account becomes (or finds) a user named as
/// Cognito names them (`google_<sub>`), its attributes mapped by the provider's `AttributeMapping`.
extension HostedUI {
    /// How long the round trip through the provider may take.
    static let federationLifetime: TimeInterval = 600

    /// The pool's identity provider a request names by `identity_provider` or `idp_identifier`.
    func identityProvider(named name: String, pool: CognitoPool) -> [String: JSON]? {
        pool.identityProviders.first { $0["ProviderName"]?.stringValue == name }
            ?? pool.identityProvider(identifier: name)
    }

    /// The fake provider standing in for a pool identity provider: Google's and Apple's types map to
    /// `google` and `apple`; an OIDC provider to the fake provider its `oidc_issuer` points at (or that
    /// has its name, lowercased).
    func fakeProvider(for idp: [String: JSON]) throws -> FakeProvider? {
        guard let providers = dialect.identityProviders else { return nil }
        let name = idp["ProviderName"]?.stringValue ?? ""
        switch idp["ProviderType"]?.stringValue {
        case "Google"?: return try providers.provider("google")
        case "SignInWithApple"?: return try providers.provider("apple")
        default:
            if let issuer = idp["ProviderDetails"]?["oidc_issuer"]?.stringValue, let range = issuer.range(of: "/_emu/idp/") {
                return try providers.provider(String(issuer[range.upperBound...].prefix { $0 != "/" }))
            }
            return try providers.provider(name.lowercased())
        }
    }

    /// Back to the app with an OAuth error (and the app's `state`), as Cognito ends a federated sign-in that failed.
    static func failure(_ a: Authorization, _ error: String, _ description: String) -> Refusal {
        .redirect(redirect(a.redirectURI, [("error", error), ("error_description", description)] + (a.request["state"].map { [("state", $0)] } ?? []),
                           fragment: a.implicit))
    }

    /// Sends the browser to the fake provider, with the authorization request sealed into `state`.
    func startFederation(_ a: Authorization, providerName: String) throws -> Response {
        guard let idp = identityProvider(named: providerName, pool: a.pool) else {
            throw Self.failure(a, "invalid_request", "The identity provider \(providerName) does not exist in the user pool.")
        }
        let name = idp["ProviderName"]?.stringValue ?? providerName
        if idp["ProviderType"]?.stringValue == "SAML" { return try startSAML(a, idp: idp) }
        guard let fake = try fakeProvider(for: idp) else {
            throw Self.failure(a, "invalid_request", "Fauxth has no fake identity provider for \(name).")
        }
        let details = idp["ProviderDetails"]?.objectValue ?? [:]
        let clientId = details["client_id"]?.stringValue ?? a.client.id
        let state = ChallengeSession(poolId: a.pool.id, clientId: a.client.id, userId: "", challenge: "IDP_STATE", firstFactor: "federated",
                                     data: ["query": .string(a.request.query), "provider": .string(name), "fake": .string(fake.id),
                                            "idp_client": .string(clientId)],
                                     lifetime: Self.federationLifetime, emulator: emulator)
        var parameters = [("client_id", clientId), ("redirect_uri", "\(a.baseURL)/oauth2/idpresponse"), ("response_type", "code"),
                          ("scope", details["authorize_scopes"]?.stringValue ?? (fake.kind == "apple" ? "name email" : "openid email profile")),
                          ("state", try state.sealed(emulator))]
        // Apple answers by form_post when it is asked for the name or email, as Cognito asks it.
        if fake.kind == "apple" { parameters.append(("response_mode", "form_post")) }
        return Response(status: .found, headers: [.location: "\(fake.baseURL(a.baseURL))/authorize?" + FormBody.encode(parameters),
                                                  .cacheControl: "no-store"])
    }

    /// `GET|POST /oauth2/idpresponse`: the provider's answer. A provider error goes back to the app as
    /// an OAuth error; a code is exchanged in process and the hosted-UI sign-in completes.
    func idpResponse(_ call: HostedUICall) async throws -> Response {
        let (request, origin) = (call.request, call.origin)
        var parameters = request.queryFields
        if request.method == .post { parameters.merge(try call.form()) { $1 } }
        guard let providers = dialect.identityProviders, let sealed = parameters["state"],
              let state = try? ChallengeSession.open(sealed, clientId: nil, emulator: emulator, replays: pools.replays),
              state.challenge == "IDP_STATE", pools.replays.spend(state, now: emulator.clock.now) else {
            return pages.error("This sign-in has expired or was already used. Start it again from the app.")
        }
        let a: Authorization
        do {
            a = try validate(AuthorizeRequest(FormBody.decode(state.data["query"]?.stringValue ?? "")), baseURL: request.baseURL)
        } catch let refusal as Refusal {
            return render(refusal)
        }
        func fail(_ error: String, _ description: String) -> Response { render(Self.failure(a, error, description)) }
        if let error = parameters["error"], !error.isEmpty { return fail(error, parameters["error_description"] ?? error) }
        guard let code = parameters["code"], !code.isEmpty, let fakeId = state.data["fake"]?.stringValue,
              let providerName = state.data["provider"]?.stringValue, let idp = identityProvider(named: providerName, pool: a.pool) else {
            return fail("invalid_request", "The identity provider's answer has no code.")
        }
        let tokens: FakeIdentityProviders.Tokens
        do {
            tokens = try providers.exchange(fakeId, code: code, clientId: state.data["idp_client"]?.stringValue ?? "",
                                            redirectURI: "\(request.baseURL)/oauth2/idpresponse", verifier: nil, baseURL: request.baseURL)
        } catch let error as ProviderError {
            return fail("invalid_request", "The identity provider refused the code: \(error)")
        }
        // Apple sends the name in the `user` form field of the first sign-in only.
        let claims = FakeIdentityProviders.addingAppleUser(parameters["user"], to: tokens.claims)
        do {
            // A function's failure goes back to the app as Cognito sends it: `invalid_request` with its message.
            let user = try await federatedUser(claims, idp: idp, pool: a.pool, client: a.client, origin: origin)
            guard (try? emulator.checkCanSignIn(user, origin: origin)) != nil else { return fail("invalid_request", "User is disabled.") }
            return try await complete(user, firstFactor: "federated", mfa: nil, a, origin: origin)
        } catch let error as CognitoError {
            return fail("invalid_request", error.message)
        }
    }

    /// The user of a provider account: the one it is linked to (an earlier federated sign-in, or
    /// `AdminLinkProviderForUser`), with its mapped attributes refreshed, or a new `EXTERNAL_PROVIDER` user.
    /// A first sign-in through a provider makes the user, asking the pre sign-up function
    /// (`PreSignUp_ExternalProvider`, which may refuse it or verify the mapped addresses) and then telling the
    /// post confirmation function, as Cognito does for a user the provider vouches for.
    func federatedUser(_ claims: [String: JSON], idp: [String: JSON], pool: CognitoPool, client: CognitoClient,
                       origin: RequestOrigin) async throws -> User {
        let name = idp["ProviderName"]?.stringValue ?? "Federated"
        let subject = claims["sub"]?.stringValue ?? ""
        // AttributeMapping is pool attribute → provider claim; a provider without one maps the email.
        let mapping = idp["AttributeMapping"]?.objectValue?.compactMapValues(\.stringValue) ?? ["email": "email"]
        var attributes: [(name: String, value: String)] = []
        for (attribute, claim) in mapping.sorted(by: { $0.key < $1.key }) where attribute != "username" {
            switch claims[claim] {
            case .string(let text)?: attributes.append((attribute, text))
            case .bool(let flag)?: attributes.append((attribute, flag ? "true" : "false"))
            case .int(let number)?: attributes.append((attribute, String(number)))
            default: continue
            }
        }
        var changes = try CognitoUsers.changes(attributes, pool: pool)
        if changes.email != nil, changes.emailVerified == nil { changes.emailVerified = false }
        if let linked = try emulator.user(in: pool.id, provider: name, subject: subject) {
            if (try? emulator.updateUser(in: pool.id, id: linked.id, changes, origin: origin)) == nil {
                // The mapped email or phone is another user's: keep the rest of the refresh.
                changes.email = nil
                changes.phone = nil
                try emulator.updateUser(in: pool.id, id: linked.id, changes, origin: origin)
            }
            return try emulator.requireUser(in: pool.id, id: linked.id)
        }
        let username = "\(name)_\(subject)"
        let triggers = pools.triggers(pool, origin: origin)
        let decision = try await triggers.preSignUp(source: "PreSignUp_ExternalProvider", userName: username, clientId: client.id,
                                                    attributes: attributes, validationData: [], clientMetadata: .null)
        if decision.autoVerifyEmail, changes.email != nil { changes.emailVerified = true }
        if decision.autoVerifyPhone, changes.phone != nil { changes.phoneVerified = true }
        // Cognito puts a provider's users in a group of their own (`us-east-1_abc_Google`), which their tokens name.
        let group = try Groups.providerGroup(name, poolId: pool.id, pools: pools)
        var new = NewUser(id: emulator.generator.uuid(), email: changes.email, phone: changes.phone, username: pool.caseSensitive ? username : username.lowercased(),
                          emailVerified: changes.emailVerified ?? false, phoneVerified: changes.phoneVerified ?? false,
                          userMetadata: (changes.userMetadata ?? [:]).filter { !$0.value.isNull },
                          appMetadata: [CognitoUsers.statusKey: "EXTERNAL_PROVIDER", CognitoUsers.groupsKey: [.string(group)]],
                          addressIdentities: false,
                          identities: [NewIdentity(provider: name, subject: subject, email: claims["email"]?.stringValue,
                                                   data: claims.merging(["providerType": idp["ProviderType"] ?? .string(name)]) { $1 })])
        let user: User
        do {
            user = try emulator.createUser(in: pool.id, new, origin: origin, event: .userSignedUp)
        } catch AuthError.emailTaken {
            // Core keeps addresses unique in a pool, where Cognito would let the federated user share one.
            new.email = nil
            user = try emulator.createUser(in: pool.id, new, origin: origin, event: .userSignedUp)
        } catch AuthError.phoneTaken {
            new.phone = nil
            user = try emulator.createUser(in: pool.id, new, origin: origin, event: .userSignedUp)
        }
        try await triggers.postConfirmation(source: "PostConfirmation_ConfirmSignUp", user: user, clientId: client.id, clientMetadata: .null)
        return user
    }
}
