import AuthCore
import Foundation
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import SupabaseAPI

/// A Supabase project's users kept in the app's own Postgres (`"db"` in the seed, `--supabase-db`): `auth.users` and
/// `auth.identities` with the columns GoTrue writes, so the app's tables can reference `auth.users` by foreign key
/// and the usual `on_auth_user_created` trigger makes its profile row, as under GoTrue.
///
/// Every event about a user of such a project brings its row up to date from the store (inserted the first time,
/// updated after, deleted with the user), one event at a time in the order they happened. A write that fails is a
/// `mirror.failed` event and a log line, never silent; the next event about the user writes its whole row again.
///
/// The database holds exactly the project's users: at start, and after every reset or restore that touches the
/// project, it is brought in step whole (rows of users the project no longer has are deleted, with whatever
/// cascades from them, as a per-test reset should leave the app's tables; the others written again). So one
/// database serves one project.
struct SupabaseDatabaseMirror: Service, CustomStringConvertible {
    let emulator: Emulator
    let logger: Logger
    var description: String { "Supabase database mirror" }
    /// Advanced past every event handled, so requests of mirrored projects can wait for their writes.
    let progress: SequenceBarrier

    /// GoTrue's `instance_id` for every row (`uuid.Nil`).
    static let instanceID = "00000000-0000-0000-0000-000000000000"

    func run() async throws {
        let feed = emulator.feed.subscribe()
        await cancelWhenGracefulShutdown {
            var connections = Connections(logger: logger)
            // The users the project starts with (the seed's, or a snapshot's), before any event is handled.
            for tenant in mirroredProjects() {
                await attempt(tenant, userId: nil, after: "start", connections: &connections) { try await sync(tenant, on: $0) }
            }
            for await item in feed {
                guard case .event(let event) = item else { continue }
                defer { progress.advance(to: event.sequence) }
                if event.type == .emulatorReset || event.type == .snapshotRestored {
                    for tenant in mirroredProjects() where event.tenant == nil || event.tenant == tenant {
                        await attempt(tenant, userId: nil, after: event.type.rawValue, connections: &connections) { try await sync(tenant, on: $0) }
                    }
                    continue
                }
                guard let tenant = event.tenant, let userId = event.userId, event.type != .mirrorFailed, database(of: tenant) != nil else { continue }
                await attempt(tenant, userId: userId, after: event.type.rawValue, connections: &connections) {
                    try await mirror(userId, in: tenant, on: $0)
                }
            }
            await connections.closeAll()
        }
    }

    /// Runs `work` on the project's database; a failure is a `mirror.failed` event and a log line, and drops the
    /// connection, so the next write connects afresh.
    private func attempt(_ tenant: String, userId: String?, after: String, connections: inout Connections,
                         _ work: (PostgresConnection) async throws -> Void) async {
        guard let url = database(of: tenant) else { return }
        do {
            let connection = try await connections.connection(to: url)
            do {
                try await work(connection)
            } catch {
                await connections.drop(url)
                throw error
            }
        } catch {
            let message = String(reflecting: error)
            logger.error("could not mirror \(userId.map { "user \($0)" } ?? "the users") of \(tenant) into \(Self.redacted(url)): \(message)")
            emulator.record(.mirrorFailed, tenant: tenant, userId: userId,
                            detail: ["database": .string(Self.redacted(url)), "error": .string(message), "after": .string(after)])
        }
    }

    /// The Supabase projects that mirror, now (a reset or restore may have added or removed some).
    func mirroredProjects() -> [String] {
        ((try? emulator.tenants()) ?? []).filter { $0.supabaseMirrorDatabase != nil }.map(\.id)
    }

    /// Brings the whole database in step with the project: rows of users it no longer has go first (a new user may
    /// hold a gone one's phone, which `auth.users` keeps unique), then every user is written again.
    func sync(_ tenant: String, on connection: PostgresConnection) async throws {
        let users = try emulator.users(in: tenant, limit: Int.max)
        let kept = "{" + users.map(\.id).joined(separator: ",") + "}"
        try await connection.query("DELETE FROM auth.identities WHERE NOT (user_id = ANY(\(kept)::uuid[]))", logger: logger)
        try await connection.query("DELETE FROM auth.users WHERE NOT (id = ANY(\(kept)::uuid[]))", logger: logger)
        for user in users { try await write(user, in: tenant, on: connection) }
    }

    /// The project's database URL, if it mirrors.
    func database(of tenant: String) -> String? {
        (try? emulator.tenant(tenant))?.supabaseMirrorDatabase
    }

    /// One user's rows as the store has them now, or their deletion if it has none.
    func mirror(_ userId: String, in tenant: String, on connection: PostgresConnection) async throws {
        guard let user = try emulator.user(in: tenant, id: userId) else {
            // Deleted: GoTrue's identities go with the user (ON DELETE CASCADE), as do the app's rows that say so.
            try await connection.query("DELETE FROM auth.identities WHERE user_id = \(userId)::uuid", logger: logger)
            try await connection.query("DELETE FROM auth.users WHERE id = \(userId)::uuid", logger: logger)
            return
        }
        try await write(user, in: tenant, on: connection)
    }

    /// Inserts or updates a user's row and identities (removing identities it no longer has).
    func write(_ user: User, in tenant: String, on connection: PostgresConnection) async throws {
        let password = try emulator.credential(in: tenant, userId: user.id, kind: "password")
        // GoTrue keeps bcrypt; Fauxth's own hashes mean nothing to anything reading the column, so only bcrypt is copied.
        let encrypted = password.flatMap { $0.hasPrefix("$2") ? $0 : nil } ?? ""
        let appMetadata = JSON.object(GoTrueJSON.appMetadata(user)).serialized()
        let userMetadata = JSON.object(user.userMetadata).serialized()
        // GoTrue stores phone numbers without their `+`.
        let phone = user.phone.map { $0.hasPrefix("+") ? String($0.dropFirst()) : $0 }
        let pendingPhone = user.pendingPhone.map { $0.hasPrefix("+") ? String($0.dropFirst()) : $0 } ?? ""
        try await connection.query("""
            INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, invited_at,
                confirmation_sent_at, recovery_sent_at, email_change_sent_at, phone_change_sent_at, reauthentication_sent_at,
                last_sign_in_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, phone,
                phone_confirmed_at, email_change, phone_change, banned_until, is_sso_user, is_anonymous, deleted_at)
            VALUES (\(Self.instanceID)::uuid, \(user.id)::uuid, 'authenticated', 'authenticated', \(user.email), \(encrypted),
                \(user.emailVerifiedAt), \(user.invitedAt), \(user.sentAt[.verification]), \(user.sentAt[.recovery]),
                \(user.sentAt[.emailChange]), \(user.sentAt[.phoneChange]), \(user.sentAt[.reauthentication]), \(user.lastSignInAt), \(appMetadata)::jsonb,
                \(userMetadata)::jsonb, \(user.createdAt), \(user.updatedAt), \(phone), \(user.phoneVerifiedAt), \(user.pendingEmail ?? ""),
                \(pendingPhone), \(user.bannedUntil), \(user.isSSOUser), \(user.isAnonymous), \(user.deletedAt))
            ON CONFLICT (id) DO UPDATE SET email = EXCLUDED.email, encrypted_password = EXCLUDED.encrypted_password,
                email_confirmed_at = EXCLUDED.email_confirmed_at, invited_at = EXCLUDED.invited_at,
                confirmation_sent_at = EXCLUDED.confirmation_sent_at, recovery_sent_at = EXCLUDED.recovery_sent_at,
                email_change_sent_at = EXCLUDED.email_change_sent_at, phone_change_sent_at = EXCLUDED.phone_change_sent_at,
                reauthentication_sent_at = EXCLUDED.reauthentication_sent_at, last_sign_in_at = EXCLUDED.last_sign_in_at,
                raw_app_meta_data = EXCLUDED.raw_app_meta_data, raw_user_meta_data = EXCLUDED.raw_user_meta_data,
                updated_at = EXCLUDED.updated_at, phone = EXCLUDED.phone, phone_confirmed_at = EXCLUDED.phone_confirmed_at,
                email_change = EXCLUDED.email_change, phone_change = EXCLUDED.phone_change, banned_until = EXCLUDED.banned_until,
                is_sso_user = EXCLUDED.is_sso_user, is_anonymous = EXCLUDED.is_anonymous, deleted_at = EXCLUDED.deleted_at
            """, logger: logger)
        let kept = "{" + user.identities.map(\.id).joined(separator: ",") + "}"
        try await connection.query("DELETE FROM auth.identities WHERE user_id = \(user.id)::uuid AND NOT (id = ANY(\(kept)::uuid[]))",
                                   logger: logger)
        for identity in user.identities {
            let data = GoTrueJSON.identity(identity)["identity_data"] ?? [:]
            try await connection.query("""
                INSERT INTO auth.identities (id, provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
                VALUES (\(identity.id)::uuid, \(identity.subject), \(user.id)::uuid, \(data.serialized())::jsonb, \(identity.provider),
                    \(identity.lastSignInAt), \(identity.createdAt), \(identity.updatedAt))
                ON CONFLICT (id) DO UPDATE SET provider_id = EXCLUDED.provider_id, identity_data = EXCLUDED.identity_data,
                    last_sign_in_at = EXCLUDED.last_sign_in_at,
                    updated_at = EXCLUDED.updated_at
                """, logger: logger)
        }
    }

    /// The URL without its password, for events and logs.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }

    /// One connection per database, opened on first use.
    struct Connections {
        let logger: Logger
        private var open: [String: PostgresConnection] = [:]
        private var nextID = 1

        init(logger: Logger) { self.logger = logger }

        mutating func connection(to url: String) async throws -> PostgresConnection {
            if let existing = open[url], !existing.isClosed { return existing }
            let connection = try await PostgresConnection.connect(configuration: try Self.configuration(url), id: nextID, logger: logger)
            nextID += 1
            open[url] = connection
            return connection
        }

        mutating func drop(_ url: String) async {
            try? await open.removeValue(forKey: url)?.close()
        }

        mutating func closeAll() async {
            for connection in open.values { try? await connection.close() }
            open = [:]
        }

        /// `postgres://user:password@host:port/database?sslmode=…`, as libpq and the Supabase CLI write it.
        static func configuration(_ url: String) throws -> PostgresConnection.Configuration {
            guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
                  let host = components.host, !host.isEmpty else {
                throw MirrorURLError(url: url)
            }
            let mode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
            let tls: PostgresConnection.Configuration.TLS = switch mode {
            case "disable", "allow": .disable
            case "prefer": .prefer(try .init(configuration: .makeClientConfiguration()))
            default: .require(try .init(configuration: .makeClientConfiguration()))
            }
            let database = components.path.count > 1 ? String(components.path.dropFirst()) : nil
            return PostgresConnection.Configuration(host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
                                                    password: components.password, database: database, tls: tls)
        }
    }

    struct MirrorURLError: Error, CustomStringConvertible {
        let url: String
        var description: String { "not a postgres:// URL: \(SupabaseDatabaseMirror.redacted(url))" }
    }
}
