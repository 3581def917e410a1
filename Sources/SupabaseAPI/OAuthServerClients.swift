import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// The OAuth clients (`oauthserver/handlers.go`, `service.go`): the admin's CRUD under
/// `/admin/oauth/clients` and RFC 7591 dynamic registration at `/oauth/clients/register`.
enum OAuthServerClients {
    /// `POST /admin/oauth/clients`: a client registered by hand.
    static func create(_ call: Call) throws -> Response {
        try register(call, project: try OAuthServer.project(call), type: "manual")
    }

    /// `POST /oauth/clients/register`: anyone may register a client when the project allows it.
    static func registerDynamically(_ call: Call) throws -> Response {
        let project = try OAuthServer.project(call)
        guard project.config.oauthServer.allowDynamicRegistration else {
            throw SupabaseError(status: .forbidden, code: .oauthDynamicClientRegistrationDisabled,
                                message: "Dynamic client registration is not enabled")
        }
        return try register(call, project: project, type: "dynamic")
    }

    static func list(_ call: Call) throws -> Response {
        let project = try OAuthServer.project(call)
        let clients = try call.emulator.oauthClients(in: project.storeTenant)
        // `clients` is `omitempty`: no clients is `{}`.
        return .json(clients.isEmpty ? [:] : ["clients": .array(clients.map { OAuthServer.clientJSON($0) })])
    }

    static func get(_ call: Call) throws -> Response {
        .json(OAuthServer.clientJSON(try client(call)))
    }

    static func update(_ call: Call) throws -> Response {
        var client = try client(call)
        let body = try OAuthServerBody.read(call)
        let changes = try ClientChanges(body)
        guard !changes.isEmpty else { throw SupabaseError.validation("No fields provided for update") }
        try changes.apply(to: &client)
        return .json(OAuthServer.clientJSON(try call.emulator.updateOAuthClient(client)))
    }

    static func delete(_ call: Call) throws -> Response {
        let client = try client(call)
        try call.emulator.deleteOAuthClient(in: client.tenant, id: client.id)
        return Response(status: .noContent)
    }

    static func regenerateSecret(_ call: Call) throws -> Response {
        let client = try client(call)
        guard !client.isPublic else { throw SupabaseError.validation("Cannot regenerate secret for public client") }
        let (updated, secret) = try call.emulator.regenerateOAuthClientSecret(client)
        return .json(OAuthServer.clientJSON(updated, secret: secret))
    }

    /// GoTrue's `LoadOAuthServerClient`: the `{client_id}` path parameter, a live client.
    private static func client(_ call: Call) throws -> OAuthClient {
        let project = try OAuthServer.project(call)
        guard let id = Validation.uuid(try call.parameter("id")) else { throw SupabaseError.validation("invalid client_id format") }
        guard let client = try call.emulator.oauthClient(in: project.storeTenant, id: id) else {
            throw SupabaseError(status: .notFound, code: .oauthClientNotFound, message: "OAuth client not found")
        }
        return client
    }

    /// `registerOAuthServerClient`. GoTrue wraps the validation error it gets back in another 400, so
    /// its message reads `400: …`.
    private static func register(_ call: Call, project: SupabaseProject, type: String) throws -> Response {
        let body = try OAuthServerBody.read(call)
        let draft: OAuthClient
        do {
            draft = try ClientRegistration(body).client(in: project.storeTenant, registrationType: type)
        } catch let error as SupabaseError where error.code == .validationFailed {
            throw SupabaseError.validation("400: \(error.message)")
        }
        let (client, secret) = try call.emulator.registerOAuthClient(draft)
        return .json(OAuthServer.clientJSON(client, secret: secret), status: .created)
    }
}

/// A body the OAuth server's handlers decode with `json.NewDecoder`: anything unreadable (an empty body,
/// a field of the wrong type) is one answer, 400 `bad_json` "Invalid JSON body".
enum OAuthServerBody {
    static func read(_ call: Call) throws -> JSONBody {
        do {
            let body = try call.body()
            // Reading every field now, so a wrong type is refused before anything is validated.
            for key in ["client_name", "client_uri", "logo_uri", "client_type", "token_endpoint_auth_method"] { _ = try body.string(key) }
            for key in ["redirect_uris", "grant_types"] { _ = try body.strings(key) }
            return body
        } catch let error as SupabaseError where error.code == .badJSON {
            throw SupabaseError(status: .badRequest, code: .badJSON, message: "Invalid JSON body")
        }
    }
}

/// `OAuthServerClientRegisterParams` and its `validate`.
struct ClientRegistration {
    var redirectURIs: [String]
    var grantTypes: [String]
    var clientType: String
    var authMethod: String
    var name: String
    var uri: String
    var logoURI: String

    static let authMethods = ["none", "client_secret_basic", "client_secret_post"]

    init(_ body: JSONBody) throws {
        redirectURIs = try body.strings("redirect_uris") ?? []
        grantTypes = try body.strings("grant_types") ?? []
        clientType = try body.string("client_type") ?? ""
        authMethod = try body.string("token_endpoint_auth_method") ?? ""
        name = try body.string("client_name") ?? ""
        uri = try body.string("client_uri") ?? ""
        logoURI = try body.string("logo_uri") ?? ""
    }

    func client(in tenant: String, registrationType: String) throws -> OAuthClient {
        guard !redirectURIs.isEmpty else { throw SupabaseError.validation("redirect_uris is required") }
        try ClientRules.redirectURIs(redirectURIs)
        if !grantTypes.isEmpty { try ClientRules.grantTypes(grantTypes) }
        try ClientRules.name(name)
        try ClientRules.link(uri, field: "client_uri")
        try ClientRules.link(logoURI, field: "logo_uri")
        guard ["", "public", "confidential"].contains(clientType) else {
            throw SupabaseError.validation("client_type must be 'public' or 'confidential'")
        }
        guard authMethod.isEmpty || Self.authMethods.contains(authMethod) else {
            throw SupabaseError.validation("token_endpoint_auth_method must be one of: [none client_secret_basic client_secret_post]")
        }
        let inferred = authMethod.isEmpty ? nil : (authMethod == "none" ? "public" : "confidential")
        if !clientType.isEmpty, let inferred, inferred != clientType {
            throw SupabaseError.validation("client_type '\(clientType)' is inconsistent with token_endpoint_auth_method '\(authMethod)' (expected client_type '\(inferred)')")
        }
        // Explicit type, else the one the method implies, else confidential; RFC 7591's default method is
        // client_secret_basic, and none for a public client.
        let type = clientType.isEmpty ? (inferred ?? "confidential") : clientType
        let method = authMethod.isEmpty ? (type == "public" ? "none" : "client_secret_basic") : authMethod
        return OAuthClient(tenant: tenant, registrationType: registrationType, clientType: type, tokenEndpointAuthMethod: method,
                           redirectURIs: redirectURIs, grantTypes: grantTypes.isEmpty ? ["authorization_code", "refresh_token"] : grantTypes,
                           name: name, uri: uri, logoURI: logoURI)
    }
}

/// `OAuthServerClientUpdateParams`: only the fields present (and not `null`) change.
struct ClientChanges {
    var redirectURIs: [String]?
    var grantTypes: [String]?
    var name: String?
    var uri: String?
    var logoURI: String?
    var authMethod: String?

    init(_ body: JSONBody) throws {
        redirectURIs = try body.strings("redirect_uris")
        grantTypes = try body.strings("grant_types")
        name = try body.string("client_name")
        uri = try body.string("client_uri")
        logoURI = try body.string("logo_uri")
        authMethod = try body.string("token_endpoint_auth_method")
    }

    var isEmpty: Bool { redirectURIs == nil && grantTypes == nil && name == nil && uri == nil && logoURI == nil && authMethod == nil }

    func apply(to client: inout OAuthClient) throws {
        if let redirectURIs {
            guard !redirectURIs.isEmpty else { throw SupabaseError.validation("redirect_uris cannot be empty") }
            try ClientRules.redirectURIs(redirectURIs)
        }
        if let grantTypes { try ClientRules.grantTypes(grantTypes) }
        if let name { try ClientRules.name(name) }
        if let uri { try ClientRules.link(uri, field: "client_uri") }
        if let logoURI { try ClientRules.link(logoURI, field: "logo_uri") }
        if let authMethod, !ClientRegistration.authMethods.contains(authMethod) {
            throw SupabaseError.validation("invalid token_endpoint_auth_method: must be one of [none client_secret_basic client_secret_post]")
        }
        client.redirectURIs = redirectURIs ?? client.redirectURIs
        client.grantTypes = grantTypes ?? client.grantTypes
        client.name = name ?? client.name
        client.uri = uri ?? client.uri
        client.logoURI = logoURI ?? client.logoURI
        if let authMethod {
            let valid = client.isPublic ? ["none"] : ["client_secret_basic", "client_secret_post"]
            guard valid.contains(authMethod) else {
                throw SupabaseError.validation("token_endpoint_auth_method '\(authMethod)' is not valid for client_type '\(client.clientType)'; valid methods: [\(valid.joined(separator: " "))]")
            }
            client.tokenEndpointAuthMethod = authMethod
        }
    }
}

/// The checks registration and update share (`service.go`).
enum ClientRules {
    static func redirectURIs(_ uris: [String]) throws {
        guard uris.count <= 10 else { throw SupabaseError.validation("redirect_uris cannot exceed 10 items") }
        for uri in uris {
            if let problem = redirectURIProblem(uri) { throw SupabaseError.validation("invalid redirect_uri '\(uri)': \(problem)") }
        }
    }

    /// RFC 6749 §3.1.2 as GoTrue applies it: absolute with a host, no fragment, no scheme a browser would
    /// run or read locally, plain http only on a loopback host; custom app schemes are fine.
    static func redirectURIProblem(_ uri: String) -> String? {
        guard !uri.isEmpty else { return "redirect URI cannot be empty" }
        guard let url = URLComponents(string: uri) else { return "invalid URL format" }
        guard let scheme = url.scheme, !scheme.isEmpty, let host = url.host, !host.isEmpty else { return "must have scheme and host" }
        if ["javascript", "data", "file", "vbscript", "about", "blob"].contains(scheme.lowercased()) {
            return "scheme '\(scheme)' is not allowed for security reasons"
        }
        if scheme == "http", !["localhost", "127.0.0.1", "::1", "[::1]"].contains(host) { return "HTTP scheme only allowed for localhost" }
        if let fragment = url.fragment, !fragment.isEmpty { return "fragment not allowed in redirect URI" }
        return nil
    }

    static func grantTypes(_ types: [String]) throws {
        guard !types.isEmpty else { throw SupabaseError.validation("grant_types cannot be empty") }
        guard types.allSatisfy({ $0 == "authorization_code" || $0 == "refresh_token" }) else {
            throw SupabaseError.validation("grant_types must only contain 'authorization_code' and/or 'refresh_token'")
        }
    }

    static func name(_ name: String) throws {
        guard name.count <= 1024 else { throw SupabaseError.validation("client_name cannot exceed 1024 characters") }
    }

    /// `client_uri` and `logo_uri`: empty, or what Go's `url.ParseRequestURI` takes (an absolute URI or path).
    static func link(_ value: String, field: String) throws {
        guard !value.isEmpty else { return }
        guard value.count <= 2048 else { throw SupabaseError.validation("\(field) cannot exceed 2048 characters") }
        let absolute = URLComponents(string: value).map { $0.scheme?.isEmpty == false || value.hasPrefix("/") } ?? false
        guard absolute else { throw SupabaseError.validation("\(field) must be a valid URL") }
    }
}
