/// A new store's schema, made in one step (`Schema.migrations` bring older snapshots to it).
extension Schema {
    /// The schema a new store starts from, in one step: what the migrations leave at `version`, table by table with its
    /// indexes. Making a new store through every migration (21 then) took about 30 ms of each start-up and of each test's
    /// emulator (three tables made twice, each `ALTER TABLE` parsing the whole schema again). The statements repeat the
    /// migrations' on purpose: a migration records how older snapshots were made and never changes, where this follows
    /// the latest. `MigrationTests.aNewStoreHasTheSchemaTheMigrationsLeave` fails when the two part, so a new migration
    /// changes this text too.
    static let current = """
        CREATE TABLE tenants (
            id TEXT PRIMARY KEY, dialect TEXT NOT NULL, name TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL);
        CREATE TABLE users (
            tenant TEXT NOT NULL, id TEXT NOT NULL, email TEXT, phone TEXT, username TEXT,
            email_verified_at REAL, phone_verified_at REAL, disabled INTEGER NOT NULL DEFAULT 0,
            banned_until REAL, is_anonymous INTEGER NOT NULL DEFAULT 0,
            user_metadata TEXT NOT NULL DEFAULT '{}', app_metadata TEXT NOT NULL DEFAULT '{}',
            verification_sent_at REAL, created_at REAL NOT NULL, updated_at REAL NOT NULL, last_sign_in_at REAL,
            pending_email TEXT, pending_phone TEXT, tokens_valid_after REAL, invited_at REAL, is_sso_user INTEGER NOT NULL DEFAULT 0,
            recovery_sent_at REAL, email_change_sent_at REAL, phone_change_sent_at REAL, reauthentication_sent_at REAL,
            deleted_at REAL, role TEXT, PRIMARY KEY (tenant, id));
        CREATE UNIQUE INDEX users_username ON users (tenant, username) WHERE username IS NOT NULL;
        CREATE INDEX users_email ON users (tenant, email COLLATE NOCASE) WHERE email IS NOT NULL;
        CREATE INDEX users_phone ON users (tenant, phone) WHERE phone IS NOT NULL;
        CREATE INDEX users_created ON users (tenant, created_at);
        CREATE TABLE identities (
            tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, provider TEXT NOT NULL,
            subject TEXT NOT NULL, email TEXT, data TEXT NOT NULL DEFAULT '{}',
            created_at REAL NOT NULL, updated_at REAL NOT NULL, last_sign_in_at REAL,
            PRIMARY KEY (tenant, id), UNIQUE (tenant, provider, subject));
        CREATE INDEX identities_user ON identities (tenant, user_id);
        CREATE TABLE credentials (
            tenant TEXT NOT NULL, user_id TEXT NOT NULL, kind TEXT NOT NULL, secret TEXT NOT NULL,
            updated_at REAL NOT NULL, PRIMARY KEY (tenant, user_id, kind)) WITHOUT ROWID;
        CREATE TABLE factors (
            tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, kind TEXT NOT NULL,
            secret TEXT, phone TEXT, status TEXT NOT NULL, friendly_name TEXT,
            created_at REAL NOT NULL, updated_at REAL NOT NULL, last_challenged_at REAL, last_used_step INTEGER, PRIMARY KEY (tenant, id));
        CREATE INDEX factors_user ON factors (tenant, user_id);
        CREATE TABLE sessions (
            tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, aal TEXT NOT NULL,
            amr TEXT NOT NULL DEFAULT '[]', user_agent TEXT, ip TEXT,
            created_at REAL NOT NULL, refreshed_at REAL, revoked_at REAL, claims TEXT NOT NULL DEFAULT '{}', revoked_reason TEXT,
            PRIMARY KEY (tenant, id));
        CREATE INDEX sessions_user_created ON sessions (tenant, user_id, created_at);
        CREATE INDEX sessions_revoked ON sessions (revoked_at) WHERE revoked_at IS NOT NULL;
        CREATE TABLE refresh_tokens (
            tenant TEXT NOT NULL, token_hash TEXT NOT NULL PRIMARY KEY, session_id TEXT NOT NULL, parent_hash TEXT,
            created_at REAL NOT NULL, revoked_at REAL);
        CREATE INDEX refresh_tokens_session ON refresh_tokens (tenant, session_id);
        CREATE INDEX refresh_tokens_revoked ON refresh_tokens (revoked_at) WHERE revoked_at IS NOT NULL;
        CREATE TABLE spent_refresh_tokens (
            tenant TEXT NOT NULL, token_hash TEXT NOT NULL, session_id TEXT NOT NULL, PRIMARY KEY (tenant, token_hash)) WITHOUT ROWID;
        CREATE INDEX spent_refresh_tokens_session ON spent_refresh_tokens (tenant, session_id);
        CREATE TABLE codes (
            tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT, purpose TEXT NOT NULL, channel TEXT NOT NULL,
            target TEXT NOT NULL, value_hash TEXT NOT NULL, link_token TEXT,
            created_at REAL NOT NULL, expires_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, used_at REAL,
            PRIMARY KEY (tenant, id));
        CREATE INDEX codes_link_token ON codes (link_token);
        CREATE INDEX codes_user ON codes (tenant, user_id, purpose);
        CREATE INDEX codes_target ON codes (tenant, target COLLATE NOCASE);
        CREATE INDEX codes_expires ON codes (expires_at);
        CREATE TABLE messages (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, tenant TEXT NOT NULL,
            channel TEXT NOT NULL, recipient TEXT NOT NULL, sender TEXT NOT NULL, subject TEXT,
            text TEXT NOT NULL, html TEXT, purpose TEXT NOT NULL, codes TEXT NOT NULL, links TEXT NOT NULL,
            status TEXT NOT NULL, reason TEXT, created_at REAL NOT NULL);
        CREATE TABLE deeplinks (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, tenant TEXT NOT NULL,
            url TEXT NOT NULL, scheme TEXT NOT NULL, params TEXT NOT NULL, source TEXT NOT NULL,
            user_id TEXT, created_at REAL NOT NULL);
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, type TEXT NOT NULL, tenant TEXT,
            user_id TEXT, ip TEXT, user_agent TEXT, detail TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL);
        INSERT INTO sqlite_sequence (name, seq) VALUES ('events', 0);
        CREATE TABLE flow_states (
            tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, code_challenge TEXT NOT NULL,
            code_challenge_method TEXT NOT NULL, authentication_method TEXT NOT NULL,
            created_at REAL NOT NULL, auth_code_issued_at REAL, provider_token TEXT, PRIMARY KEY (tenant, id));
        CREATE INDEX flow_states_user ON flow_states (tenant, user_id);
        CREATE TABLE challenges (
            tenant TEXT NOT NULL, id TEXT NOT NULL, factor_id TEXT NOT NULL, ip TEXT,
            created_at REAL NOT NULL, verified_at REAL, PRIMARY KEY (tenant, id));
        CREATE TABLE authorization_codes (
            tenant TEXT NOT NULL, code_hash TEXT NOT NULL, user_id TEXT NOT NULL, client_id TEXT NOT NULL,
            redirect_uri TEXT NOT NULL, scope TEXT NOT NULL, nonce TEXT, code_challenge TEXT, code_challenge_method TEXT,
            session_id TEXT, data TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL, expires_at REAL NOT NULL, used_at REAL,
            PRIMARY KEY (tenant, code_hash));
        CREATE INDEX authorization_codes_expires ON authorization_codes (expires_at);
        CREATE TABLE idp_providers (
            id TEXT PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, settings TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL);
        CREATE TABLE idp_accounts (
            provider TEXT NOT NULL, sub TEXT NOT NULL, claims TEXT NOT NULL DEFAULT '{}', consented_clients TEXT NOT NULL DEFAULT '[]',
            created_at REAL NOT NULL, PRIMARY KEY (provider, sub));
        CREATE TABLE devices (
            tenant TEXT NOT NULL, key TEXT NOT NULL, user_id TEXT NOT NULL, group_key TEXT NOT NULL, name TEXT,
            remembered INTEGER NOT NULL, verifier TEXT NOT NULL, last_ip TEXT,
            created_at REAL NOT NULL, updated_at REAL NOT NULL, last_authenticated_at REAL, PRIMARY KEY (tenant, key));
        CREATE INDEX devices_user ON devices (tenant, user_id);
        CREATE TABLE webauthn_credentials (
            tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, kind TEXT NOT NULL, factor_id TEXT,
            credential_id TEXT NOT NULL, public_key TEXT NOT NULL, algorithm INTEGER NOT NULL, user_handle TEXT NOT NULL,
            rp_id TEXT NOT NULL, attestation_format TEXT NOT NULL, aaguid TEXT NOT NULL, sign_count INTEGER NOT NULL DEFAULT 0,
            transports TEXT NOT NULL DEFAULT '[]', backup_eligible INTEGER NOT NULL DEFAULT 0, backed_up INTEGER NOT NULL DEFAULT 0,
            user_verified INTEGER NOT NULL DEFAULT 0, friendly_name TEXT, created_at REAL NOT NULL, updated_at REAL NOT NULL,
            last_used_at REAL, PRIMARY KEY (tenant, id), UNIQUE (tenant, credential_id));
        CREATE INDEX webauthn_credentials_user ON webauthn_credentials (tenant, user_id);
        CREATE TABLE webauthn_challenges (
            tenant TEXT NOT NULL, id TEXT NOT NULL, ceremony TEXT NOT NULL, user_id TEXT, user_handle TEXT, scope TEXT NOT NULL,
            challenge TEXT NOT NULL, relying_party TEXT NOT NULL, allowed TEXT, created_at REAL NOT NULL, expires_at REAL NOT NULL,
            PRIMARY KEY (tenant, id));
        CREATE INDEX webauthn_challenges_expires ON webauthn_challenges (expires_at);
        CREATE TABLE authenticator_keys (
            tenant TEXT NOT NULL, credential_id TEXT NOT NULL, authenticator TEXT NOT NULL, rp_id TEXT NOT NULL,
            user_handle TEXT NOT NULL, user_name TEXT,
            algorithm INTEGER NOT NULL, private_key TEXT NOT NULL, sign_count INTEGER NOT NULL DEFAULT 0,
            backup_eligible INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL, PRIMARY KEY (tenant, credential_id));
        CREATE TABLE oauth_clients (
            tenant TEXT NOT NULL, id TEXT NOT NULL, secret_hash TEXT, registration_type TEXT NOT NULL, client_type TEXT NOT NULL,
            token_endpoint_auth_method TEXT NOT NULL, redirect_uris TEXT NOT NULL DEFAULT '[]', grant_types TEXT NOT NULL DEFAULT '[]',
            name TEXT, uri TEXT, logo_uri TEXT, created_at REAL NOT NULL, updated_at REAL NOT NULL, deleted_at REAL,
            PRIMARY KEY (tenant, id));
        CREATE TABLE oauth_authorizations (
            tenant TEXT NOT NULL, id TEXT NOT NULL, client_id TEXT NOT NULL, user_id TEXT, redirect_uri TEXT NOT NULL,
            scope TEXT NOT NULL, state TEXT, resource TEXT, code_challenge TEXT NOT NULL, code_challenge_method TEXT NOT NULL,
            nonce TEXT, status TEXT NOT NULL, created_at REAL NOT NULL, expires_at REAL NOT NULL, approved_at REAL,
            PRIMARY KEY (tenant, id));
        CREATE INDEX oauth_authorizations_expires ON oauth_authorizations (expires_at);
        CREATE TABLE oauth_consents (
            tenant TEXT NOT NULL, user_id TEXT NOT NULL, client_id TEXT NOT NULL, scopes TEXT NOT NULL,
            granted_at REAL NOT NULL, revoked_at REAL, PRIMARY KEY (tenant, user_id, client_id));
        CREATE TABLE sso_providers (
            tenant TEXT NOT NULL, id TEXT NOT NULL, resource_id TEXT, disabled INTEGER, entity_id TEXT NOT NULL,
            metadata_xml TEXT NOT NULL, metadata_url TEXT, name_id_format TEXT, attribute_mapping TEXT NOT NULL DEFAULT '{}',
            domains TEXT NOT NULL DEFAULT '[]', created_at REAL NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (tenant, id),
            UNIQUE (tenant, entity_id));
        CREATE TABLE saml_requests (
            tenant TEXT NOT NULL, id TEXT NOT NULL, provider_id TEXT NOT NULL, request_id TEXT NOT NULL, data TEXT NOT NULL DEFAULT '{}',
            created_at REAL NOT NULL, expires_at REAL NOT NULL, PRIMARY KEY (tenant, id));
        CREATE INDEX saml_requests_expires ON saml_requests (expires_at);
        CREATE INDEX saml_requests_id ON saml_requests (id);
        CREATE TABLE saml_assertions (
            tenant TEXT NOT NULL, id TEXT NOT NULL, issuer TEXT NOT NULL, expires_at REAL NOT NULL, PRIMARY KEY (tenant, issuer, id));
        CREATE INDEX saml_assertions_expires ON saml_assertions (expires_at);
        CREATE TABLE transient_state (kind TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kind, key));
        CREATE TABLE pool_identities (
            tenant TEXT NOT NULL, id TEXT PRIMARY KEY, pool_id TEXT NOT NULL, disabled INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL, updated_at REAL NOT NULL);
        CREATE INDEX pool_identities_pool ON pool_identities (tenant, pool_id, created_at);
        CREATE TABLE pool_identity_logins (
            tenant TEXT NOT NULL, pool_id TEXT NOT NULL, provider TEXT NOT NULL, subject TEXT NOT NULL, identity_id TEXT NOT NULL,
            PRIMARY KEY (tenant, pool_id, provider, subject));
        CREATE INDEX pool_identity_logins_identity ON pool_identity_logins (identity_id);
        """

    /// Makes a new, empty store's tables (`current`), at `version`.
    static func create(_ connection: borrowing Connection) throws {
        try connection.execute("BEGIN; \(current) PRAGMA user_version = \(version); COMMIT;")
    }
}
