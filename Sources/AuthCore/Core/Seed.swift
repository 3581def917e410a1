import Foundation

/// The starting state: tenants with their settings and demo users. Read from `seed/*.json`
/// (format documented in `seed/schema.json`).
public struct Seed: Sendable, Equatable {
    public struct TenantSeed: Sendable, Equatable {
        public var id: String
        public var dialect: Dialect
        public var name: String?
        /// Everything else in the tenant object: the dialect's own settings.
        public var settings: [String: JSON]
        public var users: [UserSeed]
        /// The tenant of an earlier seed this entry is laid over (`"extends"`), so a seed can change one
        /// setting of the built-in project without copying it; nil for a tenant of its own.
        public var extends: String?
        /// Where the entry was read (`file: $.tenants[1]`), for an error found when seeds are merged.
        public var source: String?

        public init(id: String, dialect: Dialect, name: String? = nil, settings: [String: JSON] = [:], users: [UserSeed] = [],
                    extends: String? = nil, source: String? = nil) {
            self.id = id; self.dialect = dialect; self.name = name; self.settings = settings; self.users = users
            self.extends = extends; self.source = source
        }

        /// This entry laid over `base`: objects merged key by key (at every depth), other values and the
        /// name replaced, users added (one with the same id, email, phone or username replacing the base's).
        func laid(over base: TenantSeed) -> TenantSeed {
            var merged = base
            merged.id = id
            merged.name = name ?? base.name
            for (key, value) in settings { merged.settings[key] = Self.merge(base.settings[key], value) }
            for user in users {
                merged.users.removeAll { $0.sameAccount(as: user) }
                merged.users.append(user)
            }
            merged.extends = nil
            merged.source = source
            return merged
        }

        private static func merge(_ base: JSON?, _ value: JSON) -> JSON {
            guard case .object(var fields)? = base, case .object(let overrides) = value else { return value }
            for (key, override) in overrides { fields[key] = merge(fields[key], override) }
            return .object(fields)
        }
    }

    public struct UserSeed: Sendable, Equatable {
        public var id: String?
        public var email: String?
        public var phone: String?
        public var username: String?
        public var password: String?
        /// A bcrypt hash brought from another system, instead of `password`.
        public var passwordHash: String?
        public var emailVerified: Bool
        public var phoneVerified: Bool
        public var disabled: Bool
        public var userMetadata: [String: JSON]
        public var appMetadata: [String: JSON]

        public init(id: String? = nil, email: String? = nil, phone: String? = nil, username: String? = nil, password: String? = nil,
                    passwordHash: String? = nil, emailVerified: Bool = false, phoneVerified: Bool = false, disabled: Bool = false,
                    userMetadata: [String: JSON] = [:], appMetadata: [String: JSON] = [:]) {
            self.id = id; self.email = email; self.phone = phone; self.username = username; self.password = password
            self.passwordHash = passwordHash
            self.emailVerified = emailVerified; self.phoneVerified = phoneVerified; self.disabled = disabled
            self.userMetadata = userMetadata; self.appMetadata = appMetadata
        }

        /// Whether both name the same account: the same id, or the same email, phone or username.
        func sameAccount(as other: UserSeed) -> Bool {
            func same(_ a: String?, _ b: String?) -> Bool { a != nil && a?.lowercased() == b?.lowercased() }
            return same(id, other.id) || same(email, other.email) || same(phone, other.phone) || same(username, other.username)
        }
    }

    /// A fake identity provider and its accounts.
    public struct IdentityProviderSeed: Sendable, Equatable {
        public var id: String
        /// `google`, `apple` or `oidc`.
        public var kind: String
        public var name: String
        /// Everything else in the provider object (issuer, claims every token carries…).
        public var settings: [String: JSON]
        /// Each account's claims; `sub` is generated when absent.
        public var accounts: [[String: JSON]]

        public init(id: String, kind: String, name: String, settings: [String: JSON] = [:], accounts: [[String: JSON]] = []) {
            self.id = id; self.kind = kind; self.name = name; self.settings = settings; self.accounts = accounts
        }
    }

    public var tenants: [TenantSeed]
    public var identityProviders: [IdentityProviderSeed]

    public init(tenants: [TenantSeed] = [], identityProviders: [IdentityProviderSeed] = []) {
        self.tenants = tenants
        self.identityProviders = identityProviders
    }

    /// This seed with `other`'s tenants and providers added; one whose id is already here is replaced,
    /// and one that `extends` a tenant here is laid over it.
    public func merged(with other: Seed) throws -> Seed {
        var result = self
        for var tenant in other.tenants {
            if let base = tenant.extends {
                guard let found = result.tenants.first(where: { $0.id == base }) else {
                    let (file, path) = Self.split(tenant.source)
                    throw SeedError(file: file, path: "\(path).extends", reason: "no earlier seed has a tenant \(base) to extend"
                                    + Suggestion.hint(for: base, in: result.tenants.map(\.id)))
                }
                guard found.dialect == tenant.dialect else {
                    let (file, path) = Self.split(tenant.source)
                    throw SeedError(file: file, path: "\(path).dialect", reason: "\(base) is a \(found.dialect.rawValue) tenant, not \(tenant.dialect.rawValue)")
                }
                tenant = tenant.laid(over: found)
            }
            if let i = result.tenants.firstIndex(where: { $0.id == tenant.id }) { result.tenants[i] = tenant }
            else { result.tenants.append(tenant) }
        }
        for provider in other.identityProviders {
            if let i = result.identityProviders.firstIndex(where: { $0.id == provider.id }) { result.identityProviders[i] = provider }
            else { result.identityProviders.append(provider) }
        }
        return result
    }
}

extension Seed {
    /// `file: path` back into its parts.
    static func split(_ source: String?) -> (String, String) {
        guard let source, let colon = source.range(of: ": ", options: .backwards) else { return (source ?? "seed", "$") }
        return (String(source[..<colon.lowerBound]), String(source[colon.upperBound...]))
    }
}

/// A seed file that cannot be used: where, at which JSON path, and why.
public struct SeedError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var path: String
    public var reason: String
    public var description: String { "\(file): \(path): \(reason)" }

    public init(file: String, path: String, reason: String) {
        self.file = file; self.path = path; self.reason = reason
    }
}

extension Seed {
    /// Parses and validates seed JSON; `file` names it in errors.
    public static func parse(_ data: Data, file: String) throws -> Seed {
        let json: JSON
        do { json = try JSON.parse(data) } catch {
            throw SeedError(file: file, path: "$", reason: "not valid JSON (\(Self.describe(error)))")
        }
        var reader = SeedReader(file: file)
        return try reader.seed(json)
    }

    /// Reads a seed file from disk.
    public static func load(path: String) throws -> Seed {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SeedError(file: path, path: "$", reason: "cannot read the file")
        }
        return try parse(data, file: path)
    }

    private static func describe(_ error: any Error) -> String {
        if let syntax = error as? JSONSyntaxError { return syntax.description }
        if case DecodingError.dataCorrupted(let context) = error {
            return (context.underlyingError as? NSError)?.userInfo["NSDebugDescription"] as? String ?? context.debugDescription
        }
        return "\(error)"
    }
}

/// Every tenant key the seed format has, for the test that keeps `seed/schema.json` in step.
enum SeedReaderKeys {
    static var all: Set<String> { SeedReader.commonKeys.union(SeedReader.dialectKeys.values.flatMap { $0 }) }
}

/// Walks seed JSON, keeping the JSON path of each value for error messages.
private struct SeedReader {
    let file: String

    func fail(_ path: String, _ reason: String) -> SeedError { SeedError(file: file, path: path, reason: reason) }

    func object(_ value: JSON?, _ path: String) throws -> [String: JSON] {
        guard case .object(let o)? = value else { throw fail(path, "expected an object, got \(value?.typeName ?? "nothing")") }
        return o
    }

    func string(_ value: JSON?, _ path: String, required: Bool = false) throws -> String? {
        switch value {
        case nil, .null?: if required { throw fail(path, "is required") } else { return nil }
        case .string(let s)?: return s
        case let other?: throw fail(path, "expected a string, got \(other.typeName)")
        }
    }

    func bool(_ value: JSON?, _ path: String) throws -> Bool {
        switch value {
        case nil, .null?: return false
        case .bool(let b)?: return b
        case let other?: throw fail(path, "expected a boolean, got \(other.typeName)")
        }
    }

    mutating func seed(_ json: JSON) throws -> Seed {
        let root = try object(json, "$")
        for key in root.keys.sorted() where !["tenants", "identity_providers", "$schema", "description"].contains(key) {
            throw fail("$.\(key)", "unknown key" + Suggestion.hint(for: key, in: ["tenants", "identity_providers"]) + " (expected tenants or identity_providers)")
        }
        guard case .array(let items)? = root["tenants"] ?? .array([]) else { throw fail("$.tenants", "expected an array") }
        var seen = Set<String>()
        let tenants = try items.enumerated().map { index, item in
            let tenant = try self.tenant(item, "$.tenants[\(index)]")
            guard seen.insert(tenant.id).inserted else { throw fail("$.tenants[\(index)].id", "duplicate tenant id \(tenant.id)") }
            return tenant
        }
        guard case .array(let providerItems)? = root["identity_providers"] ?? .array([]) else {
            throw fail("$.identity_providers", "expected an array")
        }
        var seenProviders = Set<String>()
        let providers = try providerItems.enumerated().map { index, item in
            let provider = try identityProvider(item, "$.identity_providers[\(index)]")
            guard seenProviders.insert(provider.id).inserted else {
                throw fail("$.identity_providers[\(index)].id", "duplicate identity provider id \(provider.id)")
            }
            return provider
        }
        return Seed(tenants: tenants, identityProviders: providers)
    }

    /// `{"id", "kind"?, "name"?, "accounts"?: [{claims}], …settings}`; `google` and `apple` are of their
    /// own kind, any other id a generic OIDC provider unless `kind` says otherwise.
    func identityProvider(_ json: JSON, _ path: String) throws -> Seed.IdentityProviderSeed {
        var o = try object(json, path)
        guard let id = try string(o["id"], "\(path).id", required: true), id.wholeMatch(of: #/[a-z0-9][a-z0-9_-]{0,63}/#) != nil else {
            throw fail("\(path).id", "must be 1-64 lowercase letters, digits, '_' or '-'")
        }
        let kind = try string(o["kind"], "\(path).kind") ?? (["google", "apple"].contains(id) ? id : "oidc")
        guard ["google", "apple", "oidc", "saml"].contains(kind) else { throw fail("\(path).kind", "must be google, apple, oidc or saml") }
        let name = try string(o["name"], "\(path).name") ?? (["google": "Google", "apple": "Apple"][id] ?? id)
        var accounts: [[String: JSON]] = []
        switch o["accounts"] {
        case nil, .null?: break
        case .array(let items)?:
            accounts = try items.enumerated().map { index, item in
                let account = try object(item, "\(path).accounts[\(index)]")
                if let sub = account["sub"], sub.stringValue?.isEmpty ?? true {
                    throw fail("\(path).accounts[\(index)].sub", "expected a non-empty string")
                }
                return account
            }
        case let other?: throw fail("\(path).accounts", "expected an array, got \(other.typeName)")
        }
        for key in ["id", "kind", "name", "accounts"] { o.removeValue(forKey: key) }
        return Seed.IdentityProviderSeed(id: id, kind: kind, name: name, settings: o, accounts: accounts)
    }

    func tenant(_ json: JSON, _ path: String) throws -> Seed.TenantSeed {
        var o = try object(json, path)
        guard let id = try string(o["id"], "\(path).id", required: true), !id.isEmpty,
              id.wholeMatch(of: #/[A-Za-z0-9_.:-]{1,128}/#) != nil else {
            throw fail("\(path).id", "must be 1-128 letters, digits, '_', '.', ':' or '-'")
        }
        let extends = try string(o["extends"], "\(path).extends")
        let dialectName = try string(o["dialect"], "\(path).dialect", required: true) ?? ""
        guard let dialect = Dialect(rawValue: dialectName) else {
            throw fail("\(path).dialect", "must be one of \(Dialect.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        try checkKeys(o, dialect: dialect, path)
        let name = try string(o["name"], "\(path).name")
        let users: [Seed.UserSeed]
        switch o["users"] {
        case nil, .null?: users = []
        case .array(let items)?: users = try items.enumerated().map { try user($1, "\(path).users[\($0)]") }
        case let other?: throw fail("\(path).users", "expected an array, got \(other.typeName)")
        }
        try settings(o, dialect: dialect, path)
        for key in ["id", "dialect", "name", "users", "extends"] { o.removeValue(forKey: key) }
        return Seed.TenantSeed(id: id, dialect: dialect, name: name, settings: o, users: users, extends: extends, source: "\(file): \(path)")
    }

    /// The keys a tenant object may have (`seed/schema.json`): every dialect's, then each dialect's own.
    static let commonKeys: Set<String> = ["id", "dialect", "name", "users", "extends", "deep_link_interstitial", "app_links", "policies"]
    static let dialectKeys: [Dialect: Set<String>] = [
        .supabase: ["port", "gotrue_env", "publishable_key", "secret_key", "upstream", "db"],
        .firebase: ["api_keys", "id_token_signing", "config", "test_phone_numbers", "oob_code_ttl", "phone_code_ttl", "phone_resend_interval",
                    "id_token_ttl", "refresh_token_ttl", "password_min_length", "authorized_domains", "tenant_config", "recent_sign_in_window",
                    "passkey_rp_id", "passkey_origins"],
        .cognito: ["pool", "clients", "groups", "resource_servers", "identity_providers", "domain", "issuer", "fixed_code", "hosted_ui_port", "lambda_endpoint",
                   "identity_pools"],
    ]

    /// A key no dialect knows is a typo (the nearest one is suggested); one another dialect knows is refused
    /// as not this dialect's, so it cannot silently do nothing.
    func checkKeys(_ o: [String: JSON], dialect: Dialect, _ path: String) throws {
        let own = Self.commonKeys.union(Self.dialectKeys[dialect] ?? [])
        for key in o.keys.sorted() where !own.contains(key) {
            if let other = Self.dialectKeys.first(where: { $0.value.contains(key) })?.key {
                throw fail("\(path).\(key)", "applies to \(other.rawValue) tenants, not \(dialect.rawValue) ones")
            }
            throw fail("\(path).\(key)", "unknown key for a \(dialect.rawValue) tenant" + Suggestion.hint(for: key, in: own))
        }
    }

    /// Checks the dialect settings whose shape the schema fixes.
    func settings(_ o: [String: JSON], dialect: Dialect, _ path: String) throws {
        if let env = o["gotrue_env"] {
            for (key, value) in try object(env, "\(path).gotrue_env") where value.stringValue == nil {
                throw fail("\(path).gotrue_env.\(key)", "expected a string, got \(value.typeName)")
            }
        }
        if let port = o["port"] {
            guard let p = port.intValue, (1...65535).contains(p) else { throw fail("\(path).port", "expected a port number 1-65535") }
        }
        if let upstream = o["upstream"] {
            guard let text = upstream.stringValue, RedirectURL.isWeb(text) else {
                throw fail("\(path).upstream", "expected an http:// or https:// URL (supabase start's API, e.g. http://127.0.0.1:54321)")
            }
        }
        if let db = o["db"] {
            guard let text = db.stringValue, let url = URL(string: text), ["postgres", "postgresql"].contains(url.scheme ?? ""), url.host != nil else {
                throw fail("\(path).db", "expected a postgres:// URL (supabase start's DB URL, e.g. postgresql://postgres:postgres@127.0.0.1:54322/postgres)")
            }
        }
        // Supabase's opaque keys are told apart from JWTs by their prefix, by clients and the gateway alike.
        for (key, prefix) in [("publishable_key", "sb_publishable_"), ("secret_key", "sb_secret_")] {
            guard let value = o[key] else { continue }
            guard let text = value.stringValue, text.hasPrefix(prefix), text.count > prefix.count else {
                throw fail("\(path).\(key)", "expected a key starting with \(prefix)")
            }
        }
    }

    func user(_ json: JSON, _ path: String) throws -> Seed.UserSeed {
        let o = try object(json, path)
        let known: Set = ["id", "email", "phone", "username", "password", "password_hash", "email_verified", "phone_verified", "disabled",
                          "user_metadata", "app_metadata"]
        if let unknown = o.keys.sorted().first(where: { !known.contains($0) }) {
            throw fail("\(path).\(unknown)", "unknown key" + Suggestion.hint(for: unknown, in: known)
                       + " (expected one of \(known.sorted().joined(separator: ", ")))")
        }
        let email = try string(o["email"], "\(path).email")
        let phone = try string(o["phone"], "\(path).phone")
        let username = try string(o["username"], "\(path).username")
        guard email != nil || phone != nil || username != nil else { throw fail(path, "a user needs an email, phone or username") }
        do { _ = try Identifiers.email(email) } catch { throw fail("\(path).email", "not a valid email address") }
        do { _ = try Identifiers.phone(phone) } catch { throw fail("\(path).phone", "not an E.164 phone number") }
        let password = try string(o["password"], "\(path).password"), passwordHash = try string(o["password_hash"], "\(path).password_hash")
        if let passwordHash {
            guard password == nil else { throw fail("\(path).password_hash", "give password or password_hash, not both") }
            guard Bcrypt.Hash(passwordHash) != nil else { throw fail("\(path).password_hash", "not a bcrypt hash ($2a$, $2b$ or $2y$)") }
        }
        return Seed.UserSeed(
            id: try string(o["id"], "\(path).id"), email: email, phone: phone, username: username,
            password: password, passwordHash: passwordHash,
            emailVerified: try bool(o["email_verified"], "\(path).email_verified"),
            phoneVerified: try bool(o["phone_verified"], "\(path).phone_verified"),
            disabled: try bool(o["disabled"], "\(path).disabled"),
            userMetadata: o["user_metadata"] == nil ? [:] : try object(o["user_metadata"], "\(path).user_metadata"),
            appMetadata: o["app_metadata"] == nil ? [:] : try object(o["app_metadata"], "\(path).app_metadata"))
    }
}

extension Emulator {
    /// Creates the seed's identity providers with their accounts, then its tenants and users.
    func apply(_ seed: Seed) throws {
        for provider in seed.identityProviders {
            try saveIdentityProvider(IdentityProviderRecord(id: provider.id, kind: provider.kind, name: provider.name, settings: provider.settings))
            for account in provider.accounts {
                try saveIdentityProviderAccount(provider.id, sub: account["sub"]?.stringValue ?? generator.digits(21), claims: account)
            }
        }
        for tenant in seed.tenants {
            try createTenant(id: tenant.id, dialect: tenant.dialect, name: tenant.name, settings: tenant.settings)
            for user in tenant.users {
                try createUser(in: tenant.id, NewUser(
                    id: user.id, email: user.email, phone: user.phone, username: user.username, password: user.password,
                    passwordHash: user.passwordHash, emailVerified: user.emailVerified, phoneVerified: user.phoneVerified, disabled: user.disabled,
                    userMetadata: user.userMetadata, appMetadata: user.appMetadata))
            }
        }
    }
}
