import AuthCore
import Foundation
import HTTPSupport
import Hummingbird
import IdentityProviders

/// `/_emu/v1/idp`: the fake identity providers, their accounts, tokens minted as a native sign-in sheet
/// would hand them to an app, and the choice the next browser sign-in makes without its page.
extension ControlAPI {
    func addIdentityProviderRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get { request, _ in
            let providers = try identityProviders.providers()
            return ControlJSON.response(["identity_providers": .array(try providers.map { try describe($0, baseURL: request.baseURL) })])
        }
        group.post { request, _ in
            let body = try await ControlRequest(request: request).body()
            let id = try body.string("id", required: true) ?? ""
            guard id.wholeMatch(of: #/[a-z0-9][a-z0-9_-]{0,63}/#) != nil else {
                throw ControlError.badRequest("id: 1-64 lowercase letters, digits, '_' or '-'")
            }
            let kind = try body.string("kind") ?? (["google", "apple"].contains(id) ? id : "oidc")
            guard ["google", "apple", "oidc", "saml"].contains(kind) else { throw ControlError.badRequest("kind: google, apple, oidc or saml") }
            let settings = body.filter { !["id", "kind", "name", "accounts"].contains($0.key) }
            try emulator.saveIdentityProvider(IdentityProviderRecord(id: id, kind: kind, name: try body.string("name") ?? id, settings: settings))
            for account in body["accounts"]?.arrayValue ?? [] {
                guard let claims = account.objectValue else { throw ControlError.badRequest("accounts: expected objects") }
                try identityProviders.createAccount(id, claims: claims)
            }
            return ControlJSON.response(try describe(try provider(id), baseURL: request.baseURL), status: .created)
        }
        group.post(":provider/accounts") { request, context in
            let provider = try provider(try context.parameters.decoded("provider"))
            let claims = try await ControlRequest(request: request).body()
            guard claims["email"]?.stringValue != nil || claims["sub"]?.stringValue != nil else { throw ControlError.badRequest("email or sub is required") }
            let account = try identityProviders.createAccount(provider.id, claims: claims)
            return ControlJSON.response(Self.account(account), status: .created)
        }
        group.post(":provider/tokens") { request, context in
            let provider = try provider(try context.parameters.decoded("provider"))
            let tokens = try identityProviders.mintNative(provider.id, request: try await ControlRequest(request: request).body(), baseURL: request.baseURL)
            var answer: [String: JSON] = ["id_token": .string(tokens.idToken), "access_token": .string(tokens.accessToken), "claims": .object(tokens.claims),
                                          "account": Self.account(tokens.account)]
            answer["code"] = tokens.code.map(JSON.string)
            answer["user"] = tokens.firstConsentUser
            return ControlJSON.response(.object(answer))
        }
        group.post(":provider/next") { request, context in
            let provider = try provider(try context.parameters.decoded("provider"))
            let body = try await ControlRequest(request: request).body()
            if let error = try body.string("error") {
                let allowed = provider.kind == "saml" ? FakeIdentityProviders.samlFailures
                    : ["access_denied", "server_error", "temporarily_unavailable", "invalid_request", "login_required"]
                guard allowed.contains(error) else { throw ControlError.badRequest("error: one of \(allowed.joined(separator: ", "))") }
                identityProviders.queue(error: error, for: provider.id)
            } else {
                guard let key = try body.string("account") else { throw ControlError.badRequest("account (a sub or an email) or error is required") }
                identityProviders.queue(account: key, for: provider.id)
            }
            return ControlJSON.response(["queued": true], status: .accepted)
        }
    }

    private func provider(_ id: String) throws -> FakeProvider {
        guard let provider = try identityProviders.provider(id) else { throw ControlError(.notFound, "provider_not_found", "no identity provider \(id)") }
        return provider
    }

    private func describe(_ provider: FakeProvider, baseURL: String) throws -> JSON {
        if let saml = try identityProviders.samlEndpoints(provider.id, serverURL: baseURL) {
            return ["id": .string(provider.id), "kind": "saml", "name": .string(provider.name), "entity_id": .string(saml.entityID),
                    "metadata_url": .string(saml.metadataURL), "sso_url": .string(saml.ssoURL),
                    "accounts": .array(try emulator.identityProviderAccounts(provider.id).map(Self.account))]
        }
        let base = provider.baseURL(baseURL)
        return ["id": .string(provider.id), "kind": .string(provider.kind), "name": .string(provider.name),
                "issuer": .string(provider.issuer(baseURL: baseURL)), "discovery_url": .string("\(base)/.well-known/openid-configuration"),
                "jwks_uri": .string("\(base)/jwks"), "authorization_endpoint": .string("\(base)/authorize"),
                "accounts": .array(try emulator.identityProviderAccounts(provider.id).map(Self.account))]
    }

    static func account(_ account: IdentityProviderAccount) -> JSON {
        var o = account.claims
        o["sub"] = .string(account.sub)
        o["created_at"] = ControlJSON.time(account.createdAt)
        return .object(o)
    }
}
