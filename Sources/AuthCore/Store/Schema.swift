/// The store's tables. Versioned with `PRAGMA user_version`: a snapshot from an older version is
/// migrated step by step on load; one from a newer version is refused.
enum Schema {
    /// The version this build writes.
    static let version = 25

    /// Statements that take a database from version `index` to `index + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE tenants (
            id TEXT PRIMARY KEY, dialect TEXT NOT NULL, name TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL);
        CREATE TABLE users (
            tenant TEXT NOT NULL, id TEXT NOT NULL, email TEXT, phone TEXT, username TEXT,
            email_verified_at REAL, phone_verified_at REAL, disabled INTEGER NOT NULL DEFAULT 0,
            banned_until REAL, is_anonymous INTEGER NOT NULL DEFAULT 0,
            user_metadata TEXT NOT NULL DEFAULT '{}', app_metadata TEXT NOT NULL DEFAULT '{}',
            verification_sent_at REAL, created_at REAL NOT NULL, updated_at REAL NOT NULL, last_sign_in_at REAL,
            PRIMARY KEY (tenant, id));
        CREATE UNIQUE INDEX users_email ON users (tenant, email COLLATE NOCASE) WHERE email IS NOT NULL;
        CREATE UNIQUE INDEX users_phone ON users (tenant, phone) WHERE phone IS NOT NULL;
        CREATE UNIQUE INDEX users_username ON users (tenant, username) WHERE username IS NOT NULL;
        CREATE TABLE identities (
            tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, provider TEXT NOT NULL,
            subject TEXT NOT NULL, email TEXT, data TEXT NOT NULL DEFAULT '{}',
            created_at REAL NOT NULL, updated_at REAL NOT NULL, last_sign_in_at REAL,
            PRIMARY KEY (tenant, id), UNIQUE (tenant, provider, subject));
        CREATE INDEX identities_user ON identities (tenant, user_id);
        CREATE TABLE credentials (
            tenant TEXT NOT NULL, user_id TEXT NOT NULL, kind TEXT NOT NULL, secret TEXT NOT NULL,
            updated_at REAL NOT NULL, PRIMARY KEY (tenant, user_id, kind));
        CREATE TABLE factors (
            tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, kind TEXT NOT NULL,
            secret TEXT, phone TEXT, status TEXT NOT NULL, friendly_name TEXT,
            created_at REAL NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (tenant, id));
        CREATE TABLE sessions (
            tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, aal TEXT NOT NULL,
            amr TEXT NOT NULL DEFAULT '[]', user_agent TEXT, ip TEXT,
            created_at REAL NOT NULL, refreshed_at REAL, revoked_at REAL, PRIMARY KEY (tenant, id));
        CREATE INDEX sessions_user ON sessions (tenant, user_id);
        CREATE TABLE refresh_tokens (
            tenant TEXT NOT NULL, token_hash TEXT NOT NULL, session_id TEXT NOT NULL, parent_hash TEXT,
            created_at REAL NOT NULL, revoked_at REAL, PRIMARY KEY (tenant, token_hash));
        CREATE TABLE codes (
            tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT, purpose TEXT NOT NULL, channel TEXT NOT NULL,
            target TEXT NOT NULL, value_hash TEXT NOT NULL, link_token TEXT,
            created_at REAL NOT NULL, expires_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, used_at REAL,
            PRIMARY KEY (tenant, id));
        CREATE INDEX codes_link ON codes (tenant, link_token);
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
            seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, tenant TEXT,
            user_id TEXT, ip TEXT, user_agent TEXT, detail TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL);
        """,
        // 2: PKCE flow states (RFC 7636): an auth code waiting for its verifier.
        """
        CREATE TABLE flow_states (
            tenant TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, code_challenge TEXT NOT NULL,
            code_challenge_method TEXT NOT NULL, authentication_method TEXT NOT NULL,
            created_at REAL NOT NULL, auth_code_issued_at REAL, PRIMARY KEY (tenant, id));
        CREATE INDEX flow_states_user ON flow_states (tenant, user_id);
        """,
        // 3: MFA challenges, and when a factor was last challenged.
        """
        ALTER TABLE factors ADD COLUMN last_challenged_at REAL;
        CREATE INDEX factors_user ON factors (tenant, user_id);
        CREATE TABLE challenges (
            tenant TEXT NOT NULL, id TEXT NOT NULL, factor_id TEXT NOT NULL, ip TEXT,
            created_at REAL NOT NULL, verified_at REAL, PRIMARY KEY (tenant, id));
        """,
        // 4: an address change waiting for confirmation.
        """
        ALTER TABLE users ADD COLUMN pending_email TEXT;
        ALTER TABLE users ADD COLUMN pending_phone TEXT;
        """,
        // 5: when the user's tokens were last revoked (Firebase's `validSince`, Cognito's global sign-out),
        // and claims a session carries into every token it mints (Firebase custom-token claims).
        """
        ALTER TABLE users ADD COLUMN tokens_valid_after REAL;
        ALTER TABLE sessions ADD COLUMN claims TEXT NOT NULL DEFAULT '{}';
        CREATE INDEX identities_provider ON identities (tenant, provider, email);
        CREATE INDEX refresh_tokens_hash ON refresh_tokens (token_hash);
        """,
        // 6: OAuth authorization codes (hosted sign-in pages, identity providers), stored hashed.
        """
        CREATE TABLE authorization_codes (
            tenant TEXT NOT NULL, code_hash TEXT NOT NULL, user_id TEXT NOT NULL, client_id TEXT NOT NULL,
            redirect_uri TEXT NOT NULL, scope TEXT NOT NULL, nonce TEXT, code_challenge TEXT, code_challenge_method TEXT,
            session_id TEXT, data TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL, expires_at REAL NOT NULL, used_at REAL,
            PRIMARY KEY (tenant, code_hash));
        CREATE INDEX codes_link_token ON codes (link_token);
        """,
        // 7: the fake identity providers and their accounts (their authorization codes live in
        // authorization_codes under the tenant `idp:<provider>`), and the provider's access token a PKCE
        // flow hands over with the session.
        """
        CREATE TABLE idp_providers (
            id TEXT PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, settings TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL);
        CREATE TABLE idp_accounts (
            provider TEXT NOT NULL, sub TEXT NOT NULL, claims TEXT NOT NULL DEFAULT '{}', consented_clients TEXT NOT NULL DEFAULT '[]',
            created_at REAL NOT NULL, PRIMARY KEY (provider, sub));
        ALTER TABLE flow_states ADD COLUMN provider_token TEXT;
        """,
        // 8: indexes for the lookups every refresh, sign-up and code check makes, which scanned their
        // tables and slowed down as a long test run filled them (scripts/bench).
        """
        CREATE INDEX refresh_tokens_session ON refresh_tokens (tenant, session_id);
        CREATE INDEX sessions_user_created ON sessions (tenant, user_id, created_at);
        CREATE INDEX codes_user ON codes (tenant, user_id, purpose);
        CREATE INDEX codes_target ON codes (tenant, target COLLATE NOCASE);
        """,
        // 9: what the periodic sweep looks for (Emulator+Retention), so it never scans a big table.
        """
        CREATE INDEX codes_expires ON codes (expires_at);
        CREATE INDEX authorization_codes_expires ON authorization_codes (expires_at);
        CREATE INDEX sessions_revoked ON sessions (revoked_at) WHERE revoked_at IS NOT NULL;
        CREATE INDEX refresh_tokens_revoked ON refresh_tokens (revoked_at) WHERE revoked_at IS NOT NULL;
        """,
        // 10: sessions_user is a prefix of sessions_user_created (8), which serves every lookup it did;
        // each sign-in paid for keeping both (scripts/bench).
        """
        DROP INDEX sessions_user;
        """,
        // 11: what the core's shared rules remember: the TOTP time step a factor last accepted (a code is
        // good once, RFC 6238 §5.2), when a user was last invited (GoTrue's `invited_at`), and why a session
        // ended (a family revoked for a reused refresh token answers differently from a logged-out session).
        // And whether an email or phone is one user's is the tenant's rule (`EmulatorOptions.addressUniqueness`:
        // a Cognito pool lets users share one it does not sign in with), checked where users are written; the
        // lookups keep their indexes, no longer unique.
        """
        ALTER TABLE factors ADD COLUMN last_used_step INTEGER;
        ALTER TABLE users ADD COLUMN invited_at REAL;
        ALTER TABLE sessions ADD COLUMN revoked_reason TEXT;
        DROP INDEX users_email;
        DROP INDEX users_phone;
        CREATE INDEX users_email ON users (tenant, email COLLATE NOCASE) WHERE email IS NOT NULL;
        CREATE INDEX users_phone ON users (tenant, phone) WHERE phone IS NOT NULL;
        """,
        // 12: the devices users registered to sign in with (Cognito's remembered devices): a table of their own,
        // not a member of the user's record, as a device is read on every sign-in that names it, listed a page
        // at a time, and outlives sessions; its verifier is a credential, never the device's secret.
        """
        CREATE TABLE devices (
            tenant TEXT NOT NULL, key TEXT NOT NULL, user_id TEXT NOT NULL, group_key TEXT NOT NULL, name TEXT,
            remembered INTEGER NOT NULL, verifier TEXT NOT NULL, last_ip TEXT,
            created_at REAL NOT NULL, updated_at REAL NOT NULL, last_authenticated_at REAL, PRIMARY KEY (tenant, key));
        CREATE INDEX devices_user ON devices (tenant, user_id);
        """,
        // 13: WebAuthn. The credentials a relying party registered (passkeys, and the second-factor ones an
        // MFA factor owns), the challenges it issued (single use, bound to the RP id and origins they were
        // issued for), and the virtual authenticator's own keys, so a snapshot restores both sides of a
        // passkey. Binary values are base64url text; the store has no blobs.
        """
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
        """,
        // 14: an OAuth 2.1 authorization server's clients, the authorization requests waiting for a user's
        // consent, and the consents users gave (GoTrue's `oauth_clients`, `oauth_authorizations`,
        // `oauth_consents`). Client secrets are stored as their SHA-256 only.
        """
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
        CREATE TABLE oauth_consents (
            tenant TEXT NOT NULL, user_id TEXT NOT NULL, client_id TEXT NOT NULL, scopes TEXT NOT NULL,
            granted_at REAL NOT NULL, revoked_at REAL, PRIMARY KEY (tenant, user_id, client_id));
        CREATE INDEX oauth_authorizations_expires ON oauth_authorizations (expires_at);
        """,
        // 15: SAML single sign-on. A project's SAML identity providers (GoTrue's `sso_providers`,
        // `saml_providers` and `sso_domains` as one row: domains are a JSON list, unique per tenant by check),
        // the authentication requests a service provider sent and awaits an answer to (the relay state, single
        // use), and the assertion ids it accepted, kept until the assertion expires so none is accepted twice.
        // `is_sso_user`: GoTrue lets an SSO account share its email with an ordinary one, and never signs in
        // the ordinary way by it.
        """
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
        ALTER TABLE users ADD COLUMN is_sso_user INTEGER NOT NULL DEFAULT 0;
        """,
        // 16: what the sweep keeps of a live session's spent refresh tokens: the hash and its session, so a token
        // presented long after its rotation is still reuse (GoTrue keeps every row until the session goes) and
        // revokes its family, instead of "not found". A row is a few dozen bytes; it goes with its session.
        """
        CREATE TABLE spent_refresh_tokens (
            tenant TEXT NOT NULL, token_hash TEXT NOT NULL, session_id TEXT NOT NULL, PRIMARY KEY (tenant, token_hash)) WITHOUT ROWID;
        CREATE INDEX spent_refresh_tokens_session ON spent_refresh_tokens (tenant, session_id);
        """,
        // 17: what the core keeps beside the tables (lockouts, rate-limit windows, send cooldowns), written in
        // when a snapshot is taken and read back when one is restored, so a restored state does not let a
        // locked-out user straight back in. Rewritten whole at each snapshot; the live table is not read.
        """
        CREATE TABLE transient_state (kind TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kind, key));
        """,
        // 18: users in creation order, as the admin lists page them (GoTrue's newest first, the console's and
        // Firebase's oldest first): a page at any offset walks the index instead of sorting the tenant's users.
        // The rowid, which breaks ties between equal times, is in every index entry, so both orders use it.
        """
        CREATE INDEX users_created ON users (tenant, created_at);
        """,
        // 19: refresh tokens of deleted users are retired at the deletion and swept `--keep-spent` later
        // (Sessions.retireTokens); before, they were kept for ever. Those a snapshot already holds are
        // retired as of their issue, so the first sweep drops the ones older than the window.
        """
        UPDATE refresh_tokens SET revoked_at = created_at WHERE revoked_at IS NULL AND NOT EXISTS (SELECT 1 FROM sessions
            WHERE sessions.tenant = refresh_tokens.tenant AND sessions.id = refresh_tokens.session_id);
        """,
        // 20: two indexes fewer to write on every sign-in and refresh. An event's id was UNIQUE, an index no read
        // used (the histories are read by number; ids come from the generator). A refresh token was keyed by
        // (tenant, hash) and indexed again by hash alone, for requests that name no tenant; the hash is now the key,
        // as a token is one tenant's. Both tables are made again (SQLite drops neither kind of key in place), the
        // events' numbering carried over as a restore does (`History.continueNumbering`).
        """
        CREATE TEMP TABLE events_numbering AS SELECT seq FROM sqlite_sequence WHERE name = 'events';
        CREATE TABLE events_new (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, type TEXT NOT NULL, tenant TEXT,
            user_id TEXT, ip TEXT, user_agent TEXT, detail TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL);
        INSERT INTO events_new SELECT seq, id, type, tenant, user_id, ip, user_agent, detail, created_at FROM events;
        DROP TABLE events;
        ALTER TABLE events_new RENAME TO events;
        INSERT INTO sqlite_sequence (name, seq) SELECT 'events', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'events');
        UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT MAX(seq) FROM temp.events_numbering), 0)) WHERE name = 'events';
        DROP TABLE temp.events_numbering;
        CREATE TABLE refresh_tokens_new (
            tenant TEXT NOT NULL, token_hash TEXT NOT NULL PRIMARY KEY, session_id TEXT NOT NULL, parent_hash TEXT,
            created_at REAL NOT NULL, revoked_at REAL);
        INSERT INTO refresh_tokens_new SELECT tenant, token_hash, session_id, parent_hash, created_at, revoked_at FROM refresh_tokens;
        DROP TABLE refresh_tokens;
        ALTER TABLE refresh_tokens_new RENAME TO refresh_tokens;
        CREATE INDEX refresh_tokens_session ON refresh_tokens (tenant, session_id);
        CREATE INDEX refresh_tokens_revoked ON refresh_tokens (revoked_at) WHERE revoked_at IS NOT NULL;
        """,
        // 21: a user costs a tenth less memory and snapshot. An identity's index on (tenant, provider, email) is gone:
        // no query reads an identity by its email, and the one that reads by provider (`Identities.at`) finds a tenant's
        // accounts at a provider through the UNIQUE (tenant, provider, subject) index as well. Credentials are kept in
        // the order of their key (`WITHOUT ROWID`), where a rowid table held each key twice, in the row and in the
        // key's index. SQLite's update hook does not report such a table, so a change to credentials counts as every
        // table changed (`ChangeTracker`), as a change to `spent_refresh_tokens` does: credentials change with a
        // password, which is rare beside reads. Pages the dropped index and table held stay in a migrated snapshot's
        // file as free pages, which later writes reuse.
        """
        DROP INDEX identities_provider;
        CREATE TABLE credentials_new (
            tenant TEXT NOT NULL, user_id TEXT NOT NULL, kind TEXT NOT NULL, secret TEXT NOT NULL,
            updated_at REAL NOT NULL, PRIMARY KEY (tenant, user_id, kind)) WITHOUT ROWID;
        INSERT INTO credentials_new SELECT tenant, user_id, kind, secret, updated_at FROM credentials;
        DROP TABLE credentials;
        ALTER TABLE credentials_new RENAME TO credentials;
        """,
        // 22: one index fewer to write with every code sent. `codes_link` (tenant, link_token) sat beside
        // `codes_link_token` (link_token), which migration 6 added for the one read that knows no tenant (a link's
        // page finding its project). A link token is random, so the narrower index finds the same row for the reads
        // that do name the tenant, and they check it after.
        """
        DROP INDEX codes_link;
        """,
        // 23: when each kind of message with a code last went to the user, as GoTrue keeps it beside
        // `confirmation_sent_at` (this table's `verification_sent_at`) and shows it in the user.
        """
        ALTER TABLE users ADD COLUMN recovery_sent_at REAL;
        ALTER TABLE users ADD COLUMN email_change_sent_at REAL;
        ALTER TABLE users ADD COLUMN phone_change_sent_at REAL;
        ALTER TABLE users ADD COLUMN reauthentication_sent_at REAL;
        """,
        // 24: Cognito identity pools' identities (the pools themselves are settings of the user pool they name), and
        // the logins linked to each.
        """
        CREATE TABLE pool_identities (
            tenant TEXT NOT NULL, id TEXT PRIMARY KEY, pool_id TEXT NOT NULL, disabled INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL, updated_at REAL NOT NULL);
        CREATE INDEX pool_identities_pool ON pool_identities (tenant, pool_id, created_at);
        CREATE TABLE pool_identity_logins (
            tenant TEXT NOT NULL, pool_id TEXT NOT NULL, provider TEXT NOT NULL, subject TEXT NOT NULL, identity_id TEXT NOT NULL,
            PRIMARY KEY (tenant, pool_id, provider, subject));
        CREATE INDEX pool_identity_logins_identity ON pool_identity_logins (identity_id);
        """,
        // 25: when a user was soft-deleted (GoTrue's `deleted_at`): the row stays, its names obfuscated; and the role its
        // tokens carry where an administrator set one (GoTrue's `role`).
        """
        ALTER TABLE users ADD COLUMN deleted_at REAL;
        ALTER TABLE users ADD COLUMN role TEXT;
        """,
    ]

    /// The tenant tables numbered in arrival order (`seq INTEGER PRIMARY KEY AUTOINCREMENT`).
    static let sequencedTables: Set<String> = ["messages", "deeplinks", "events"]

    /// Tables that hold per-tenant rows (all but `tenants`), for tenant-scoped resets.
    static let tenantTables = ["users", "identities", "credentials", "factors", "sessions", "refresh_tokens",
                               "codes", "messages", "deeplinks", "events", "flow_states", "challenges", "authorization_codes", "devices",
                               "webauthn_credentials", "webauthn_challenges", "authenticator_keys", "oauth_clients", "oauth_authorizations",
                               "oauth_consents", "sso_providers", "saml_requests", "saml_assertions",
                               "spent_refresh_tokens", "pool_identities", "pool_identity_logins"]

    /// Brings `connection` to `version`, or throws when it is already past it.
    static func migrate(_ connection: borrowing Connection, source: String) throws {
        let current = connection.userVersion
        guard current <= version else {
            throw SnapshotError.newerSchema(source, found: current, supported: version)
        }
        for step in current..<version {
            try connection.execute("BEGIN; \(migrations[step]) PRAGMA user_version = \(step + 1); COMMIT;")
        }
    }
}
