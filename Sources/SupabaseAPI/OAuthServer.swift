import AuthCore
import Foundation
import Hummingbird

/// What every OAuth 2.1 server family shares (`internal/api/oauthserver`): the feature switch, the
/// client's JSON, and GoTrue's OAuth-shaped errors.
enum OAuthServer {
    /// GoTrue's `requireOAuthServerEnabled`: with `GOTRUE_OAUTH_SERVER_ENABLED` off every route answers
    /// 404 `feature_disabled`.
    static func project(_ call: Call) throws -> SupabaseProject {
        let project = try call.project()
        guard project.config.oauthServer.enabled else {
            throw SupabaseError(status: .notFound, code: .featureDisabled, message: "OAuth server is disabled")
        }
        return project
    }

    /// An admin route: GoTrue's `requireAdminCredentials` runs before the switch is looked at.
    static func admin(_ handle: @escaping @Sendable (Call) async throws -> Response) -> @Sendable (Call) async throws -> Response {
        { call in
            try Authentication(emulator: call.emulator).requireAdmin(call.request, project: try call.project())
            return try await handle(call)
        }
    }

    /// `{"error","error_description"}` with 400, whatever the API version (`apierrors.OAuthError`).
    static func error(_ error: String, _ description: String) -> SupabaseError {
        SupabaseError(status: .badRequest, code: .validationFailed, message: description, oauthError: error)
    }

    /// Which sessions a refresh may continue (the core's `refresh(admit:)`): a session an OAuth client opened is
    /// refreshed only at `/oauth/token`, by that client, and an ordinary sign-in's only at `/token`.
    static func admitOrdinarySession(_ session: Session) throws {
        if session.claims["client_id"] != nil { throw error("invalid_client", "Client authentication required for OAuth session") }
    }

    static func admit(_ session: Session, for client: OAuthClient) throws {
        guard let owner = session.claims["client_id"]?.stringValue else {
            throw error("invalid_client", "Client authentication not allowed for non-OAuth session")
        }
        guard owner == client.id else { throw error("invalid_client", "Client does not match the session's OAuth client") }
    }

    /// `OAuthServerClientResponse`: empty optional fields left out (`omitempty`), `response_types` always
    /// `["code"]`; the plaintext secret only when one was just made.
    static func clientJSON(_ client: OAuthClient, secret: String? = nil) -> JSON {
        var fields: [String: JSON] = [
            "client_id": .string(client.id), "client_type": .string(client.clientType),
            "token_endpoint_auth_method": .string(client.tokenEndpointAuthMethod), "response_types": ["code"],
            "registration_type": .string(client.registrationType),
            "created_at": GoTrueJSON.time(client.createdAt), "updated_at": GoTrueJSON.time(client.updatedAt),
        ]
        if !client.redirectURIs.isEmpty { fields["redirect_uris"] = .array(client.redirectURIs.map(JSON.string)) }
        if !client.grantTypes.isEmpty { fields["grant_types"] = .array(client.grantTypes.map(JSON.string)) }
        for (key, value) in [("client_name", client.name), ("client_uri", client.uri), ("logo_uri", client.logoURI)] {
            if let value, !value.isEmpty { fields[key] = .string(value) }
        }
        if let secret { fields["client_secret"] = .string(secret) }
        return .object(fields)
    }

    /// `ClientDetailsResponse`, as the consent screen and the grants list show a client.
    static func clientDetails(_ client: OAuthClient) -> JSON {
        var fields: [String: JSON] = ["id": .string(client.id)]
        for (key, value) in [("name", client.name), ("uri", client.uri), ("logo_uri", client.logoURI)] {
            if let value, !value.isEmpty { fields[key] = .string(value) }
        }
        return .object(fields)
    }

    /// The scopes GoTrue's server supports (`models.SupportedOAuthScopes`), in its order.
    static let supportedScopes = ["openid", "profile", "email", "phone", "offline_access"]

    /// GoTrue's amr method for a session an authorization code opened (`OAuthProviderAuthorizationCode`).
    static let authenticationMethod = "oauth_provider/authorization_code"
}
