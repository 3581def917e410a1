import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// OIDC and SAML provider configurations (`/v2/projects/{p}[/tenants/{t}]/oauthIdpConfigs`, `…/inboundSamlConfigs`):
/// stored per project or tenant in the order they were made, answered as Identity Platform answers them, and a
/// configuration that is not enabled turning its provider's sign-in off.
@Suite struct ProviderConfigTests {
    let oidc = "/identitytoolkit.googleapis.com/v2/projects/p/oauthIdpConfigs"

    func create(_ client: Client, _ id: String, enabled: Bool = true, path: String? = nil) async throws -> Reply {
        try await client.send(.post, (path ?? oidc) + "?oauthIdpConfigId=\(id)",
                              json: ["clientId": "web", "issuer": "https://issuer.example.com", "enabled": .bool(enabled)], headers: owner)
    }

    @Test func aConfigurationIsAnsweredAsIdentityPlatformAnswersIt() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let created = try await create(client, "oidc.corp")
            #expect(created.json == ["name": "projects/p/oauthIdpConfigs/oidc.corp", "clientId": "web", "issuer": "https://issuer.example.com",
                                     "enabled": true, "responseType": ["idToken": true]])
            #expect(try await client.send(.get, oidc + "/oidc.corp", headers: owner).json == created.json)
            #expect(errorMessage(try await create(client, "oidc.corp")) == "CONFIGURATION_EXISTS : A configuration already exists with the provided identifier.")
            // Off: `enabled` false is left out, as the service leaves false fields out.
            let off = try await client.send(.patch, oidc + "/oidc.corp?updateMask=enabled", json: ["enabled": false], headers: owner)
            #expect(off.json["enabled"] == nil && off.json["clientId"] == "web")
            let unknownPath = try await client.send(.patch, oidc + "/oidc.corp?updateMask=name", json: ["name": "x"], headers: owner)
            #expect(errorMessage(unknownPath)?.hasPrefix("INVALID_CONFIG") == true)
            #expect(try await client.send(.delete, oidc + "/oidc.corp", headers: owner).json == [:])
            let gone = try await client.send(.get, oidc + "/oidc.corp", headers: owner)
            #expect(gone.status == .notFound && errorMessage(gone) == "CONFIGURATION_NOT_FOUND")
        }
    }

    @Test func aTenantListsItsOwnInPagesOldestFirst() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let tenantPath = "/identitytoolkit.googleapis.com/v2/projects/p/tenants/t1/oauthIdpConfigs"
            for id in ["oidc.zeta", "oidc.alpha", "oidc.mid"] { #expect(try await create(client, id, path: tenantPath).status == .ok) }
            let first = try await client.send(.get, tenantPath + "?pageSize=2", headers: owner)
            #expect(first.json["oauthIdpConfigs"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ==
                    ["projects/p/tenants/t1/oauthIdpConfigs/oidc.zeta", "projects/p/tenants/t1/oauthIdpConfigs/oidc.alpha"])
            let token = try #require(first.json["nextPageToken"]?.stringValue)
            let second = try await client.send(.get, tenantPath + "?pageSize=2&pageToken=\(token)", headers: owner)
            #expect(second.json["oauthIdpConfigs"]?.arrayValue?.count == 1 && second.json["nextPageToken"] == nil)
            #expect(try await client.send(.get, oidc, headers: owner).json == ["oauthIdpConfigs": []], "the project has none of the tenant's")
        }
    }

    /// A `postBody` as the SDKs write it.
    func form(_ fields: [(String, String)]) -> String {
        var components = URLComponents()
        components.queryItems = fields.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.percentEncodedQuery ?? ""
    }

    @Test func aConfigurationThatIsNotEnabledTurnsItsProvidersSignInOff() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            _ = try await create(client, "oidc.corp", enabled: false)
            let postBody = form([("providerId", "oidc.corp"), ("id_token", #"{"sub":"u-1","email":"u1@example.com"}"#)])
            let body: JSON = ["requestUri": "http://localhost", "postBody": .string(postBody), "returnSecureToken": true]
            let refused = try await client.send(.post, accounts("signInWithIdp"), json: body)
            #expect(errorMessage(refused) == "OPERATION_NOT_ALLOWED : The identity provider configuration is disabled.")
            _ = try await client.send(.patch, oidc + "/oidc.corp?updateMask=enabled", json: ["enabled": true], headers: owner)
            #expect(try await client.send(.post, accounts("signInWithIdp"), json: body).json["email"] == "u1@example.com")
            // A provider with no configuration signs in, as in the emulator.
            let other = form([("providerId", "oidc.other"), ("id_token", #"{"sub":"u-2"}"#)])
            #expect(try await client.send(.post, accounts("signInWithIdp"), json: ["requestUri": "http://localhost", "postBody": .string(other)])
                .status == .ok)
        }
    }
}
