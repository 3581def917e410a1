import AuthCore
import Foundation
import HTTPSupport
import Hummingbird
import IdentityProviders

/// `/admin/sso/providers` (`internal/api/ssoadmin.go`): the service role's CRUD of a project's SAML identity
/// providers. A provider is given by its metadata (`metadata_xml`, or `metadata_url`, which Fauxth reads
/// only from its own fake identity providers: nothing else is reachable offline). The routes answer whether
/// or not `GOTRUE_SAML_ENABLED` is on, as GoTrue's do.
enum SSOAdmin {
    static let nameIDFormats = ["urn:oasis:names:tc:SAML:2.0:nameid-format:persistent", "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
                                "urn:oasis:names:tc:SAML:2.0:nameid-format:transient", "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified"]

    /// `GET`: every provider, without its metadata XML (GoTrue blanks it "so that the returned JSON is not ginormous").
    static func list(_ call: Call) throws -> Response {
        let project = try admin(call)
        let providers = try call.emulator.ssoProviders(in: project.storeTenant)
        return .json(["items": .array(providers.map { json($0, withMetadata: false) })])
    }

    static func create(_ call: Call) async throws -> Response {
        let project = try admin(call)
        let params = try Params(try call.body(), forUpdate: false)
        guard params.type == "saml" else { throw SupabaseError.validation("Only 'saml' supported for SSO provider type") }
        let (xml, metadata) = try await params.metadata(call)
        var draft = SSOProvider(tenant: project.storeTenant, entityID: metadata.entityID, metadataXML: xml, metadataURL: params.metadataURL,
                                nameIDFormat: params.nameIDFormat.flatMap { $0.isEmpty ? nil : $0 }, attributeMapping: .object(params.attributeMapping ?? [:]),
                                domains: params.domains ?? [])
        draft.resourceId = params.resourceId
        draft.disabled = params.disabled
        return .json(json(try write { try call.emulator.createSSOProvider(draft) }), status: .created)
    }

    static func get(_ call: Call) throws -> Response {
        _ = try admin(call)
        return .json(json(try provider(call)))
    }

    /// `PUT`: only what the body names changes; new metadata must keep the provider's entity id, and
    /// `domains` replaces the list when present (an empty list clears it).
    static func update(_ call: Call) async throws -> Response {
        _ = try admin(call)
        var provider = try provider(call)
        let params = try Params(try call.body(), forUpdate: true)
        if params.metadataXML != nil || params.metadataURL != nil {
            let (xml, metadata) = try await params.metadata(call)
            guard metadata.entityID == provider.entityID else {
                throw SupabaseError(status: .badRequest, code: .samlEntityIDMismatch, message: """
                    SAML Metadata can be updated only if the EntityID matches for the provider; expected '\(provider.entityID)' but got \
                    '\(metadata.entityID)'
                    """)
            }
            provider.metadataXML = xml
            if let url = params.metadataURL { provider.metadataURL = url }
        }
        if let domains = params.domains { provider.domains = domains }
        if let mapping = params.attributeMapping, mapping["keys"] != nil { provider.attributeMapping = .object(mapping) }
        // GoTrue compares the body's format (empty when absent) with the stored one: leaving it out clears it.
        provider.nameIDFormat = params.nameIDFormat.flatMap { $0.isEmpty ? nil : $0 }
        if let resource = params.resourceId { provider.resourceId = resource.isEmpty ? nil : resource }
        if let disabled = params.disabled { provider.disabled = disabled }
        let updated = provider
        return .json(json(try write(updating: true) { try call.emulator.updateSSOProvider(updated) }))
    }

    static func delete(_ call: Call) throws -> Response {
        _ = try admin(call)
        let provider = try provider(call)
        try call.emulator.deleteSSOProvider(in: provider.tenant, id: provider.id)
        return .json(json(provider))
    }

    private static func admin(_ call: Call) throws -> SupabaseProject {
        let project = try call.project()
        try Authentication(emulator: call.emulator).requireAdmin(call.request, project: project)
        return project
    }

    /// GoTrue's `loadSSOProvider`: `{idp_id}` is a UUID, or `resource_<id>`.
    private static func provider(_ call: Call) throws -> SSOProvider {
        let project = try call.project()
        let parameter = try call.parameter("id")
        let key: Emulator.SSOProviderKey
        if parameter.hasPrefix("resource_") {
            key = .resourceId(String(parameter.dropFirst("resource_".count)))
        } else if let id = Validation.uuid(parameter) {
            key = .id(id)
        } else {
            throw SupabaseError(status: .notFound, code: .ssoProviderNotFound, message: "SSO Identity Provider not found")
        }
        guard let provider = try call.emulator.ssoProvider(in: project.storeTenant, key) else {
            throw SupabaseError(status: .notFound, code: .ssoProviderNotFound, message: "SSO Identity Provider not found")
        }
        return provider
    }

    /// The core's conflicts in GoTrue's words, which differ between creating and updating a provider.
    private static func write(updating: Bool = false, _ body: () throws -> SSOProvider) throws -> SSOProvider {
        do { return try body() } catch let conflict as SSOProviderConflict {
            switch conflict {
            case .entityID(let entity):
                throw SupabaseError(status: .unprocessableContent, code: .samlIdPAlreadyExists,
                                    message: "SAML Identity Provider with this EntityID (\(entity)) already exists")
            case .domain(let domain, let owner):
                throw SupabaseError(status: .badRequest, code: .ssoDomainAlreadyExists, message: updating
                                    ? "SSO domain '\(domain)' already assigned to another provider (\(owner))"
                                    : "SSO Domain '\(domain)' is already assigned to an SSO identity provider (\(owner))")
            }
        }
    }

    /// GoTrue's `CreateSSOProviderParams` and its `validate`.
    struct Params {
        var type: String
        var metadataURL: String?
        var metadataXML: String?
        var domains: [String]?
        var attributeMapping: [String: JSON]?
        var nameIDFormat: String?
        var resourceId: String?
        var disabled: Bool?

        init(_ body: JSONBody, forUpdate: Bool) throws {
            type = try body.string("type") ?? ""
            metadataURL = try body.string("metadata_url").flatMap { $0.isEmpty ? nil : $0 }
            metadataXML = try body.string("metadata_xml").flatMap { $0.isEmpty ? nil : $0 }
            domains = try body.strings("domains")
            attributeMapping = try body.object("attribute_mapping")
            nameIDFormat = try body.string("name_id_format")
            resourceId = try body.string("resource_id")
            disabled = try body.bool("disabled")
            if !forUpdate, type != "saml" { throw SupabaseError.validation("Only 'saml' supported for SSO provider type") }
            if metadataURL != nil, metadataXML != nil { throw SupabaseError.validation("Only one of metadata_xml or metadata_url needs to be set") }
            if !forUpdate, metadataURL == nil, metadataXML == nil { throw SupabaseError.validation("Either metadata_xml or metadata_url must be set") }
            if let url = metadataURL {
                guard let parsed = URLComponents(string: url), let scheme = parsed.scheme, parsed.host != nil else {
                    throw SupabaseError.validation("metadata_url is not a valid URL")
                }
                // GoTrue takes HTTPS only; Fauxth's own fake IdPs are served over plain HTTP on localhost.
                guard scheme == "https" || FakeSAMLMetadataURL.isFake(url) else { throw SupabaseError.validation("metadata_url is not a HTTPS URL") }
            }
            if let format = nameIDFormat, !format.isEmpty, !SSOAdmin.nameIDFormats.contains(format) {
                throw SupabaseError.validation("name_id_format must be unspecified or one of \(SSOAdmin.nameIDFormats.joined(separator: ", "))")
            }
        }

        /// The metadata text and what GoTrue's `parseSAMLMetadata` reads from it.
        func metadata(_ call: Call) async throws -> (String, SAMLIdentityProviderMetadata) {
            let xml: String
            if let metadataXML {
                xml = metadataXML
            } else if let url = metadataURL {
                guard let fetched = try call.identityProviders?.samlMetadata(at: url) else {
                    throw SupabaseError(status: .badRequest, code: .samlMetadataFetchFailed, message: """
                        Fauxth reads metadata_url only from its own fake SAML identity providers (/_emu/idp/saml/<name>/metadata); \
                        pass the IdP's metadata as metadata_xml instead
                        """)
                }
                xml = fetched
            } else {
                throw SupabaseError.validation("Either metadata_xml or metadata_url must be set")
            }
            do throws(SAMLError) {
                return (xml, try SAMLMetadata.parseIdentityProvider(Array(xml.utf8)))
            } catch {
                throw SupabaseError.validation(error.reason)
            }
        }
    }

    /// GoTrue's `SSOProvider` JSON: `saml` with the entity id, metadata and mapping, `domains` as objects.
    static func json(_ provider: SSOProvider, withMetadata: Bool = true) -> JSON {
        var saml: [String: JSON] = ["entity_id": .string(provider.entityID)]
        if withMetadata, !provider.metadataXML.isEmpty { saml["metadata_xml"] = .string(provider.metadataXML) }
        saml["metadata_url"] = provider.metadataURL.map(JSON.string)
        // A Go struct is never left out by `omitempty`: no mapping is `{}`.
        saml["attribute_mapping"] = provider.attributeMapping.objectValue.map(JSON.object) ?? [:]
        saml["name_id_format"] = provider.nameIDFormat.map(JSON.string)
        var o: [String: JSON] = [
            "id": .string(provider.id), "disabled": provider.disabled.map(JSON.bool) ?? .null, "saml": .object(saml),
            "domains": .array(provider.domains.map { ["domain": .string($0)] }),
            "created_at": GoTrueJSON.time(provider.createdAt), "updated_at": GoTrueJSON.time(provider.updatedAt),
        ]
        o["resource_id"] = provider.resourceId.map(JSON.string)
        return .object(o)
    }
}
