import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// The owner-only account endpoints: `batchCreate` (firebase-admin's `import_users`), `batchDelete`,
/// `batchGet` (`list_users`), `accounts:query` and `createSessionCookie`.
enum Admin {
    static func batchCreate(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let scope = try call.scope()
        let users = try call.body.array("users")
        guard !users.isEmpty else { throw FirebaseError(.missingUserAccount) }
        guard users.count <= 1000 else { throw FirebaseError(.invalidArgument, "A maximum of 1000 users can be imported at once.") }
        let hash = try PasswordImport(call.body)
        try checkInt64s(users)
        try sanityCheck(users, call: call)
        var errors: [JSON] = []
        for (index, item) in users.enumerated() {
            do {
                guard case .object(let fields) = item else { throw FirebaseError(.invalidArgument, "a user must be an object") }
                try AccountImport(call: call, scope: scope, hash: hash).importUser(FirebaseBody(fields: FirebaseBody.normalized(fields)))
            } catch let error as FirebaseError {
                errors.append(["index": .int(index), "message": .string(importMessage(error, user: item, sanityCheck: try call.body.bool("sanityCheck") == true))])
            } catch let error as AuthError {
                errors.append(["index": .int(index), "message": .string(importMessage(FirebaseError(core: error), user: item,
                                                                                     sanityCheck: try call.body.bool("sanityCheck") == true))])
            }
        }
        var answer: [String: JSON] = ["kind": "identitytoolkit#UploadAccountResponse"]
        if !errors.isEmpty { answer["error"] = .array(errors) }
        return .json(.object(answer))
    }

    /// A user's import refusal in the words the emulator gives "consistent with production" (claims), or says of itself:
    /// production imports a duplicate email or phone as another account (checking emails only with `sanityCheck`), which
    /// Fauxth, keeping the project's addresses unique, cannot.
    private static func importMessage(_ error: FirebaseError, user: JSON, sanityCheck: Bool) -> String {
        switch error.code {
        case .invalidClaims: return "Invalid custom claims provided."
        case .claimsTooLarge: return "Custom claims provided are too large."
        case .forbiddenClaim: return "Custom claims provided include a reserved claim."
        case .emailExists where sanityCheck: return "email exists in other account in database"
        case .emailExists: return "((Fauxth does not support importing duplicate email: \(user["email"]?.stringValue ?? "")))"
        case .phoneNumberExists: return "((Fauxth does not support importing duplicate phone number: \(user["phoneNumber"]?.stringValue ?? "")))"
        default: return error.message
        }
    }

    /// The users' int64 fields as Google maps the request's JSON onto its messages, before any user is imported: a value
    /// that is not one refuses the whole request, naming the user (`Invalid value at 'users[0].created_at' (TYPE_INT64),
    /// "1e300"`), where a refusal of the import's own rules is reported for that user beside the others'.
    private static func checkInt64s(_ users: [JSON]) throws {
        for (index, user) in users.enumerated() {
            for (key, field) in [("createdAt", "created_at"), ("lastLoginAt", "last_login_at"), ("validSince", "valid_since")] {
                guard let value = user[key], value != .null else { continue }
                let path = "users[\(index)].\(field)"
                switch value {
                case .string(let text): _ = try FirebaseBody.int64(text, field: path)
                case .int: continue
                case .double(let number) where number.rounded() == number && abs(number) < 9.2e18: continue
                default:
                    throw FirebaseError.badBody("Invalid value at '\(path)' (TYPE_INT64), \(value.serialized())")
                }
            }
        }
    }

    /// Duplicate ids within the request refuse the whole batch; with `sanityCheck`, so do duplicate emails and
    /// duplicate provider accounts (the emulator's `batchCreate`, in its words).
    private static func sanityCheck(_ users: [JSON], call: FirebaseCall) throws {
        let sane = try call.body.bool("sanityCheck") == true
        var ids = Set<String>(), emails = Set<String>(), providerAccounts = Set<String>()
        for user in users {
            if let id = user["localId"]?.stringValue, !ids.insert(id).inserted, try call.body.bool("allowOverwrite") != true {
                throw FirebaseError(.duplicateLocalID, id)
            }
            guard sane else { continue }
            if let email = user["email"]?.stringValue?.lowercased(), !emails.insert(email).inserted {
                throw FirebaseError(.duplicateEmail, email)
            }
            for info in user["providerUserInfo"]?.arrayValue ?? [] {
                let provider = info["providerId"]?.stringValue ?? "", rawId = info["rawId"]?.stringValue ?? ""
                guard providerAccounts.insert("\(provider):\(rawId)").inserted else {
                    throw FirebaseError(.duplicateRawID, "Provider id(\(provider)), Raw id(\(rawId))")
                }
            }
        }
    }

    static func batchDelete(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let scope = try call.scope()
        let ids = try call.body.strings("localIds")
        guard (1...1000).contains(ids.count) else { throw FirebaseError(.localIDListExceedsLimit) }
        let force = try call.body.bool("force") ?? false
        var errors: [JSON] = []
        for (index, id) in ids.enumerated() {
            guard let user = try call.emulator.user(in: scope.coreTenant, id: id) else { continue }
            guard force || user.disabled else {
                errors.append(["index": .int(index), "localId": .string(id), "message": "NOT_DISABLED : Disable the account before batch deletion."])
                continue
            }
            try call.emulator.deleteUser(in: scope.coreTenant, id: id, origin: call.origin)
        }
        return .json(errors.isEmpty ? [:] : ["errors": .array(errors)])
    }

    /// Users by `localId` order, `maxResults` at a time (the emulator's `-1` means all), continuing after
    /// `nextPageToken` (the last `localId` of the previous page).
    static func batchGet(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let query = call.request.uri.queryParameters
        let scope = try call.projects.scope(project: try call.projectId(), tenant: call.route.tenant ?? query.get("tenantId"))
        // The emulator's batchGet: a tenant with authentication off lists nobody.
        if scope.settings.disableAuth { throw FirebaseError(.projectDisabled) }
        let max = Int(query.get("maxResults") ?? "") ?? 20
        guard max == -1 || (1...1000).contains(max) else { throw FirebaseError(.invalidArgument, "maxResults must be between 1 and 1000") }
        let page = try call.emulator.usersByID(in: scope.coreTenant, after: query.get("nextPageToken"), limit: max == -1 ? Int.max : max)
        var answer: [String: JSON] = ["kind": "identitytoolkit#DownloadAccountResponse",
                                      "users": .array(try Lookup.infos(call.emulator, page, scope: scope))]
        if max != -1, page.count == max, let last = page.last { answer["nextPageToken"] = .string(last.id) }
        return .json(.object(answer))
    }

    /// `accounts:query` as Identity Toolkit documents it: the users matching the first `expression` (email in
    /// any case, user id or phone number), `offset` skipped and at most `limit` (1-500, default 500) returned,
    /// or with `returnUserInfo: false` just how many match. The Firebase emulator answers 501 to `expression`,
    /// `limit` and `offset`; a 5xx for a request production takes would only mislead a test.
    static func query(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let scope = try call.scope()
        let limit = try call.body.int("limit") ?? 500
        let offset = try call.body.int("offset") ?? 0
        guard (1...500).contains(limit) else { throw FirebaseError(.invalidArgument, "limit must be between 1 and 500") }
        guard offset >= 0 else { throw FirebaseError(.invalidArgument, "offset must not be negative") }
        var expression = FirebaseBody(fields: [:])
        if let first = try call.body.array("expression").first {
            guard case .object(let fields) = first else {
                throw FirebaseError.badBody("Invalid JSON payload received. /expression/0 should be object, got \(first.typeName)")
            }
            expression = FirebaseBody(fields: fields)
        }
        let email = try expression.string("email"), id = try expression.string("userId"), phone = try expression.string("phoneNumber")
        let wanted = try call.body.bool("returnUserInfo") ?? true
        let count: Int, page: [User]
        if email == nil, id == nil, phone == nil {
            // Every user: counted, and the page read, in SQL.
            count = try call.emulator.userCount(in: scope.coreTenant, search: nil)
            page = wanted ? try call.emulator.users(in: scope.coreTenant, sortedBy: try Self.sort(call.body), descending: try call.body.string("order") == "DESC",
                                                    limit: limit, offset: offset) : []
        } else {
            // An id, an email or a phone number names one user at most: looked up, not scanned for among all.
            let tenant = scope.coreTenant, found: User?
            if let id { found = try call.emulator.user(in: tenant, id: id) }
            else if let email { found = try call.emulator.user(in: tenant, .email(email)) }
            else if let phone { found = try call.emulator.user(in: tenant, .phone(phone)) }
            else { found = nil }
            let users = [found].compactMap { $0 }.filter { user in
                (email.map { user.email?.lowercased() == $0.lowercased() } ?? true) && (id.map { user.id == $0 } ?? true)
                    && (phone.map { user.phone == $0 } ?? true)
            }
            count = users.count
            page = Array(users.dropFirst(offset).prefix(limit))
        }
        var answer: [String: JSON] = ["recordsCount": .string(String(count))]
        if wanted { answer["userInfo"] = .array(try Lookup.infos(call.emulator, page, scope: scope)) }
        return .json(.object(answer))
    }

    /// `sortBy`: by user id unless it says otherwise, as the emulator's queryAccounts sorts (`localId`, then `order`).
    /// Production's other fields but creation are not kept here, and are refused as the emulator refuses them.
    private static func sort(_ body: FirebaseBody) throws -> Emulator.UserSort {
        switch try body.string("sortBy") {
        case nil, "SORT_BY_FIELD_UNSPECIFIED"?, "USER_ID"?: return .id
        case "CREATED_AT"?: return .createdAt
        case let other?:
            var error = FirebaseError(.notImplemented, status: .notImplemented, googleStatus: "NOT_IMPLEMENTED")
            error.rawMessage = "Only sorting by USER_ID or CREATED_AT is implemented, not \(other)."
            throw error
        }
    }

    /// A session cookie: the ID token's claims re-issued by `session.firebase.google.com`, living
    /// `validDuration` seconds (five minutes to two weeks, two weeks by default).
    static func createSessionCookie(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let caller = try call.caller(idToken: try call.body.string("idToken"))
        let duration = try call.body.int("validDuration") ?? 1_209_600
        guard (300...1_209_600).contains(duration) else { throw FirebaseError(.invalidDuration) }
        let now = call.emulator.clock.now
        var claims = caller.claims
        claims["iss"] = .string("https://session.firebase.google.com/\(caller.scope.projectId)")
        claims["iat"] = .int(Int(now.timeIntervalSince1970))
        claims["exp"] = .int(Int(now.timeIntervalSince1970) + duration)
        return .json(["sessionCookie": .string(try FirebaseTokens.sign(claims, scope: caller.scope, emulator: call.emulator))])
    }
}
