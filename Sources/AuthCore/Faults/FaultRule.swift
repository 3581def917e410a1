import Foundation

/// What a request is, in auth terms, for fault rules to match: the dialect's canonical operation name
/// (`supabase:token.password`, `firebase:accounts.signInWithPassword`, `cognito:InitiateAuth`…), and
/// the tenant, identifier and client the request names.
public struct FaultTarget: Sendable, Equatable {
    public var dialect: Dialect
    public var operation: String
    public var tenant: String?
    public var identifier: String?
    public var clientId: String?
    public var method: String
    public var path: String
    public var headers: [String: String]

    public init(dialect: Dialect, operation: String, tenant: String? = nil, identifier: String? = nil, clientId: String? = nil,
                method: String, path: String, headers: [String: String] = [:]) {
        self.dialect = dialect; self.operation = operation; self.tenant = tenant; self.identifier = identifier
        self.clientId = clientId; self.method = method; self.path = path; self.headers = headers
    }
}

/// One fault rule: which requests it matches, what it does to them, and when.
public struct FaultRule: Sendable, Equatable {
    public var id: String
    public var description: String?
    public var enabled: Bool
    public var match: Match
    public var effect: Effect
    public var schedule: Schedule

    /// Requests in auth terms; every field given must match. Operations and paths are globs.
    public struct Match: Sendable, Equatable {
        public var dialect: Dialect?
        public var operations: [String]
        public var tenant: String?
        public var identifier: String?
        public var clientId: String?
        public var method: String?
        public var path: String?
        public var header: (name: String, value: String?)?

        public static func == (a: Match, b: Match) -> Bool {
            a.dialect == b.dialect && a.operations == b.operations && a.tenant == b.tenant && a.identifier == b.identifier
                && a.clientId == b.clientId && a.method == b.method && a.path == b.path
                && a.header?.name == b.header?.name && a.header?.value == b.header?.value
        }

        public func matches(_ target: FaultTarget) -> Bool {
            if let dialect, dialect != target.dialect { return false }
            if !operations.isEmpty, !operations.contains(where: { Glob.matches($0, target.operation, separators: ":") }) { return false }
            if let tenant, tenant != target.tenant { return false }
            // `*` matches anything in an identifier (`*@example.com`, `+1555*`).
            if let identifier, !Glob.matches(identifier.lowercased(), target.identifier?.lowercased() ?? "", separators: "") { return false }
            if let clientId, clientId != target.clientId { return false }
            if let method, method.uppercased() != target.method.uppercased() { return false }
            if let path, !Glob.matches(path, target.path, separators: "/") { return false }
            if let header {
                guard let value = target.headers[header.name.lowercased()] else { return false }
                if let wanted = header.value, wanted != value { return false }
            }
            return true
        }
    }

    /// What a firing does.
    public enum Effect: Sendable, Equatable {
        /// The dialect's own error for a meaning (`rate_limited`, `server_error`, `unavailable`,
        /// `timeout_error`, `quota_exceeded`, `network_error`) or a vendor error code by name.
        case error(FaultErrorKind, message: String?, retryAfter: Int?)
        /// A raw answer.
        case response(status: Int, headers: [String: String], body: String)
        /// The real answer, after a pause of real time.
        case delay(milliseconds: Int)
        /// No answer until the client gives up, at most `milliseconds`; then the connection is closed.
        case hang(milliseconds: Int)
        /// The connection reset (TCP RST) with no answer.
        case reset
        /// The connection closed with no answer.
        case close
        /// The real answer's headers and its first `bytes` bytes, then the connection closed.
        case truncate(bytes: Int)
        /// The real answer, `bytes` at a time, `milliseconds` apart.
        case slow(bytes: Int, milliseconds: Int)

        public var type: String {
            switch self {
            case .error: "error"
            case .response: "response"
            case .delay: "delay"
            case .hang: "hang"
            case .reset: "reset"
            case .close: "close"
            case .truncate: "truncate"
            case .slow: "slow"
            }
        }
    }

    /// When a matching request is due.
    public struct Schedule: Sendable, Equatable {
        /// Fire this many times, then retire.
        public var times: Int?
        /// Let this many matching requests through first.
        public var after: Int
        /// Fire with this probability, drawn from the rule's own stream.
        public var probability: Double?
        public var seed: UInt64?
        /// Only within this span of emulator time.
        public var from: Date?
        public var until: Date?
        /// Let `limit` matching requests through per `window` seconds, firing on the rest.
        public var quota: (limit: Int, window: Int)?
        /// Seconds of emulator time the rule lives, from when it was added.
        public var ttl: Int?

        public init() { after = 0 }

        public static func == (a: Schedule, b: Schedule) -> Bool {
            a.times == b.times && a.after == b.after && a.probability == b.probability && a.seed == b.seed && a.from == b.from
                && a.until == b.until && a.quota?.limit == b.quota?.limit && a.quota?.window == b.quota?.window && a.ttl == b.ttl
        }
    }

    /// A hang or delay longer than this is refused: a client that never gives up must not pin the server.
    public static let longestWait = 300_000
}

// MARK: JSON

extension FaultRule {
    /// Reads a rule as the control API and `--faults` files give it; `id` is made when absent. Every key must
    /// be one the rule's reader knows (a misspelt `match` key would otherwise leave a rule that matches
    /// everything), and operations and error names must be ones `vocabulary` has.
    public init(json: JSON, vocabulary: FaultVocabulary = FaultVocabulary(), newID: () -> String) throws {
        guard let o = json.objectValue else { throw AuthError.invalidInput(field: "rule", reason: "must be an object") }
        // `state` is what GET /faults adds to each rule: a listing can be posted back, or saved as a file, as is.
        try Self.checkKeys(o, known: ["id", "description", "enabled", "match", "effect", "schedule", "state"], in: nil)
        id = o["id"]?.stringValue ?? newID()
        guard id.range(of: "^[A-Za-z0-9_.:-]{1,100}$", options: .regularExpression) != nil else {
            throw AuthError.invalidInput(field: "id", reason: "must be 1 to 100 of A-Z a-z 0-9 _ . : -")
        }
        description = o["description"]?.stringValue
        enabled = o["enabled"]?.boolValue ?? true
        match = try Self.match(o["match"] ?? [:], vocabulary: vocabulary)
        schedule = try Self.schedule(o["schedule"] ?? [:])
        if let effect = o["effect"] { self.effect = try Self.effect(effect, vocabulary: vocabulary, dialects: FaultVocabulary.dialects(of: match)) }
        else if schedule.quota != nil { self.effect = .error(.meaning(.rateLimited), message: nil, retryAfter: nil) }
        else { throw AuthError.invalidInput(field: "effect", reason: "is required (unless the schedule is a quota)") }
    }

    /// Refuses a key `known` does not list, naming it with its place (`match.operaton`) and the nearest known key.
    static func checkKeys(_ object: [String: JSON], known: [String], in place: String?, of what: String? = nil) throws {
        for key in object.keys.sorted() where !known.contains(key) {
            let field = place.map { "\($0).\(key)" } ?? key
            let hint = Suggestion.nearest(to: key, in: known).map { " (did you mean \($0)?)" }
                ?? " (its fields: \(known.filter { $0 != "state" }.joined(separator: ", ")))"
            throw AuthError.invalidInput(field: field, reason: "is not a field of \(what ?? place.map { "a rule's \($0)" } ?? "a rule")\(hint)")
        }
    }

    static func match(_ json: JSON, vocabulary: FaultVocabulary) throws -> Match {
        guard let o = json.objectValue else { throw AuthError.invalidInput(field: "match", reason: "must be an object") }
        try checkKeys(o, known: ["dialect", "operation", "tenant", "identifier", "client_id", "method", "path", "header"], in: "match")
        var m = Match(operations: [])
        if let d = o["dialect"]?.stringValue {
            guard let dialect = Dialect(rawValue: d) else {
                throw AuthError.invalidInput(field: "match.dialect", reason: "must be supabase, firebase or cognito" + Suggestion.hint(for: d, in: Dialect.allCases.map(\.rawValue)))
            }
            m.dialect = dialect
        }
        switch o["operation"] {
        case .string(let op)?: m.operations = [op]
        case .array(let ops)? where ops.allSatisfy({ $0.stringValue != nil }): m.operations = ops.compactMap(\.stringValue)
        case nil, .null?: break
        default: throw AuthError.invalidInput(field: "match.operation", reason: "must be a string or an array of strings")
        }
        for operation in m.operations { try vocabulary.check(operation: operation, field: "match.operation") }
        m.tenant = o["tenant"]?.stringValue
        m.identifier = o["identifier"]?.stringValue
        m.clientId = o["client_id"]?.stringValue
        m.method = o["method"]?.stringValue
        m.path = o["path"]?.stringValue
        if let header = o["header"]?.objectValue {
            try checkKeys(header, known: ["name", "value"], in: "match.header")
            guard let name = header["name"]?.stringValue, !name.isEmpty else { throw AuthError.invalidInput(field: "match.header.name", reason: "is required") }
            m.header = (name.lowercased(), header["value"]?.stringValue)
        }
        return m
    }

    /// Each effect type's own fields, besides `type`.
    static let effectFields: [String: [String]] = [
        "error": ["error", "message", "retry_after"], "response": ["status", "headers", "body"], "delay": ["ms"], "hang": ["max_ms"],
        "reset": [], "close": [], "truncate": ["bytes"], "slow": ["bytes", "interval_ms"],
    ]

    static func effect(_ json: JSON, vocabulary: FaultVocabulary, dialects: [Dialect]) throws -> Effect {
        guard let o = json.objectValue, let type = o["type"]?.stringValue else {
            throw AuthError.invalidInput(field: "effect.type", reason: "is required: error, response, delay, hang, reset, close, truncate or slow")
        }
        if let fields = effectFields[type] {
            try checkKeys(o, known: ["type"] + fields, in: "effect", of: "a \(type) effect")
        }
        func int(_ key: String, default value: Int? = nil, range: ClosedRange<Int>) throws -> Int {
            guard let n = o[key]?.intValue ?? value else { throw AuthError.invalidInput(field: "effect.\(key)", reason: "is required") }
            guard range.contains(n) else { throw AuthError.invalidInput(field: "effect.\(key)", reason: "must be within \(range.lowerBound)...\(range.upperBound)") }
            return n
        }
        switch type {
        case "error":
            guard let name = o["error"]?.stringValue, !name.isEmpty else { throw AuthError.invalidInput(field: "effect.error", reason: "is required") }
            return .error(try vocabulary.errorKind(name, dialects: dialects), message: o["message"]?.stringValue,
                          retryAfter: try o["retry_after"].map { _ in try int("retry_after", range: 0...86_400) })
        case "response":
            let headers = (o["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
            let body: String = switch o["body"] {
            case .string(let text)?: text
            case nil, .null?: ""
            case let other?: other.serialized()
            }
            return .response(status: try int("status", range: 100...599), headers: headers, body: body)
        case "delay": return .delay(milliseconds: try int("ms", range: 0...longestWait))
        case "hang": return .hang(milliseconds: try int("max_ms", default: 30_000, range: 0...longestWait))
        case "reset": return .reset
        case "close": return .close
        case "truncate": return .truncate(bytes: try int("bytes", default: 0, range: 0...1 << 20))
        case "slow": return .slow(bytes: try int("bytes", default: 16, range: 1...1 << 20), milliseconds: try int("interval_ms", default: 100, range: 0...10_000))
        default:
            throw AuthError.invalidInput(field: "effect.type", reason: "must be error, response, delay, hang, reset, close, truncate or slow"
                                         + Suggestion.hint(for: type, in: effectFields.keys))
        }
    }

    static func schedule(_ json: JSON) throws -> Schedule {
        guard let o = json.objectValue else { throw AuthError.invalidInput(field: "schedule", reason: "must be an object") }
        try checkKeys(o, known: ["times", "after", "probability", "seed", "from", "until", "quota", "ttl"], in: "schedule")
        var s = Schedule()
        func count(_ key: String) throws -> Int? {
            guard let value = o[key], value != .null else { return nil }
            guard let n = value.intValue, n >= 0 else { throw AuthError.invalidInput(field: "schedule.\(key)", reason: "must be a whole number ≥ 0") }
            return n
        }
        s.times = try count("times")
        s.after = try count("after") ?? 0
        s.ttl = try count("ttl")
        if let p = o["probability"], p != .null {
            guard let value = p.doubleValue, (0...1).contains(value) else { throw AuthError.invalidInput(field: "schedule.probability", reason: "must be within 0...1") }
            s.probability = value
        }
        if let seed = try count("seed") { s.seed = UInt64(seed) }
        for (key, path) in [("from", \Schedule.from), ("until", \Schedule.until)] as [(String, WritableKeyPath<Schedule, Date?>)] {
            guard let text = o[key]?.stringValue else { continue }
            guard let date = RFC3339.date(from: text) else { throw AuthError.invalidInput(field: "schedule.\(key)", reason: "must be an RFC 3339 time") }
            s[keyPath: path] = date
        }
        if let quota = o["quota"]?.objectValue {
            try checkKeys(quota, known: ["limit", "window"], in: "schedule.quota")
            guard let limit = quota["limit"]?.intValue, limit >= 0, let window = quota["window"]?.intValue, window > 0 else {
                throw AuthError.invalidInput(field: "schedule.quota", reason: "needs a limit ≥ 0 and a window > 0 (seconds)")
            }
            s.quota = (limit, window)
        }
        return s
    }

    public var json: JSON {
        var m: [String: JSON] = [:]
        m["dialect"] = match.dialect.map { .string($0.rawValue) }
        if !match.operations.isEmpty { m["operation"] = match.operations.count == 1 ? .string(match.operations[0]) : .array(match.operations.map(JSON.string)) }
        m["tenant"] = match.tenant.map(JSON.string)
        m["identifier"] = match.identifier.map(JSON.string)
        m["client_id"] = match.clientId.map(JSON.string)
        m["method"] = match.method.map(JSON.string)
        m["path"] = match.path.map(JSON.string)
        if let header = match.header { m["header"] = ["name": .string(header.name), "value": JSON(header.value)] }
        var e: [String: JSON] = ["type": .string(effect.type)]
        switch effect {
        case .error(let kind, let message, let retryAfter):
            e["error"] = .string(kind.name); e["message"] = message.map(JSON.string); e["retry_after"] = retryAfter.map(JSON.int)
        case .response(let status, let headers, let body):
            e["status"] = .int(status); e["headers"] = .object(headers.mapValues(JSON.string)); e["body"] = .string(body)
        case .delay(let ms): e["ms"] = .int(ms)
        case .hang(let ms): e["max_ms"] = .int(ms)
        case .truncate(let bytes): e["bytes"] = .int(bytes)
        case .slow(let bytes, let ms): e["bytes"] = .int(bytes); e["interval_ms"] = .int(ms)
        case .reset, .close: break
        }
        var s: [String: JSON] = [:]
        s["times"] = schedule.times.map(JSON.int)
        if schedule.after > 0 { s["after"] = .int(schedule.after) }
        s["probability"] = schedule.probability.map(JSON.double)
        s["seed"] = schedule.seed.map { .int(Int(truncatingIfNeeded: $0)) }
        s["from"] = schedule.from.map { .string(RFC3339.string(from: $0, fractionalDigits: 3)) }
        s["until"] = schedule.until.map { .string(RFC3339.string(from: $0, fractionalDigits: 3)) }
        if let quota = schedule.quota { s["quota"] = ["limit": .int(quota.limit), "window": .int(quota.window)] }
        s["ttl"] = schedule.ttl.map(JSON.int)
        return ["id": .string(id), "description": JSON(description), "enabled": .bool(enabled), "match": .object(m), "effect": .object(e),
                "schedule": .object(s)]
    }
}
