import Foundation

extension Emulator {
    /// Calls a hook: through the fault rules first (a rule on `dialect:hook.<point>` decides what the hook
    /// "does"), else over the transport; records a `hook.called` event with the request and the answer
    /// (secret headers hidden), the time it took and the outcome. Never throws: every failure is an outcome
    /// the dialect turns into its vendor's error.
    public func callHook(_ request: HookRequest, origin: RequestOrigin = RequestOrigin(), userId: String? = nil) async -> HookOutcome {
        await performHook(request, origin: origin, userId: userId, replayOf: nil).outcome
    }

    /// Sends a recorded call again, freshly signed, as a new `hook.called` event; nil when the event is
    /// not a call still kept (the last `hooks.replayable`).
    public func replayHook(event id: String) async -> (outcome: HookOutcome, event: Event?)? {
        guard let request = hooks.request(for: id) else { return nil }
        return await performHook(request, origin: RequestOrigin(), userId: nil, replayOf: id)
    }

    private func performHook(_ request: HookRequest, origin: RequestOrigin, userId: String?,
                             replayOf: String?) async -> (outcome: HookOutcome, event: Event?) {
        let started = ContinuousClock.now
        // The signature's time is the wall clock's, not the emulator's: the hook checks it against its own
        // clock (Standard Webhooks refuse five minutes' skew), and a test that moves Fauxth's clock must not
        // make every hook refuse its calls.
        let sent = request.headers + (request.sign?(request.body, clock.wallTime) ?? [])
        var fault: FaultEngine.Firing?
        let outcome: HookOutcome
        if faults.isArmed, let firing = faults.decide(faultTarget(request)) {
            fault = firing
            record(.faultFired, tenant: request.tenant, origin: origin, detail: [
                "rule": .string(firing.rule.id), "firing": .string(firing.id), "operation": .string(request.operation),
                "effect": .string(firing.rule.effect.type), "identifier": JSON(request.identifier),
            ])
            outcome = await faulted(request, firing.rule.effect, headers: sent)
        } else {
            outcome = await send(request, headers: sent)
        }
        let elapsed = ContinuousClock.now - started
        var detail: [String: JSON] = [
            "dialect": .string(request.dialect.rawValue), "point": .string(request.point), "uri": .string(request.url),
            "request": ["headers": .object(Dictionary(sent.map { ($0.name.lowercased(), JSON.string(request.secretHeaders.contains($0.name.lowercased()) ? "[redacted]" : $0.value)) },
                                                     uniquingKeysWith: { $1 })),
                        "body": Self.shown(request.body)],
            "outcome": .string(outcome.name),
            "duration_ms": .int(Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)),
        ]
        switch outcome {
        case .answered(let status, let contentType, let body):
            detail["response"] = ["status": .int(status), "content_type": JSON(contentType), "body": Self.shown(body)]
        case .timedOut:
            detail["timeout_ms"] = .int(Int(request.timeout.components.seconds * 1000))
        case .unreachable(let reason):
            detail["error"] = .string(reason)
        }
        if let fault { detail["fault"] = .string(fault.rule.id) }
        if let replayOf { detail["replay_of"] = .string(replayOf) }
        let event = record(.hookCalled, tenant: request.tenant, userId: userId, origin: origin, detail: detail)
        if let event { hooks.remember(request, as: event.id) }
        return (outcome, event)
    }

    private func send(_ request: HookRequest, headers: [(name: String, value: String)]) async -> HookOutcome {
        guard let transport = hooks.transport else { return .unreachable("no outbound HTTP client in this emulator") }
        return await transport.send(url: request.url, headers: headers, body: request.body, timeout: request.timeout)
    }

    /// What a fault rule makes of a hook call: its own answer, no answer (at once for `timeout_error`,
    /// after the vendor's timeout for a hang), a broken connection, or the real answer late or cut short.
    private func faulted(_ request: HookRequest, _ effect: FaultRule.Effect, headers: [(name: String, value: String)]) async -> HookOutcome {
        switch effect {
        case .response(let status, let fields, let body):
            let type = fields.first { $0.key.lowercased() == "content-type" }?.value
            return .answered(status: status, contentType: type, body: Array(body.utf8))
        case .error(let kind, let message, _):
            switch kind {
            case .meaning(.timeoutError): return .timedOut
            case .meaning(.networkError): return .unreachable("connection refused (fault rule)")
            case .meaning(.unavailable): return Self.errorAnswer(503, message ?? "Service Unavailable")
            case .meaning(.rateLimited), .meaning(.quotaExceeded): return Self.errorAnswer(429, message ?? "Too Many Requests")
            case .meaning(.serverError): return Self.errorAnswer(500, message ?? "Internal Server Error")
            case .vendorCode(let code): return Self.errorAnswer(500, message ?? code)
            }
        case .hang(let milliseconds):
            try? await Task.sleep(for: min(.milliseconds(milliseconds), request.timeout))
            return .timedOut
        case .delay(let milliseconds):
            if .milliseconds(milliseconds) >= request.timeout {
                try? await Task.sleep(for: request.timeout)
                return .timedOut
            }
            try? await Task.sleep(for: .milliseconds(milliseconds))
            var later = request
            later.timeout = request.timeout - .milliseconds(milliseconds)
            return await send(later, headers: headers)
        case .slow:
            return await send(request, headers: headers)
        case .reset: return .unreachable("connection reset (fault rule)")
        case .close: return .unreachable("connection closed without an answer (fault rule)")
        case .truncate(let bytes):
            guard case .answered(let status, let type, let body) = await send(request, headers: headers) else { return .unreachable("connection closed mid-answer (fault rule)") }
            return .answered(status: status, contentType: type, body: Array(body.prefix(bytes)))
        }
    }

    private static func errorAnswer(_ status: Int, _ message: String) -> HookOutcome {
        .answered(status: status, contentType: "application/json", body: Array(JSON.object(["error": ["message": .string(message)]]).serialized().utf8))
    }

    private func faultTarget(_ request: HookRequest) -> FaultTarget {
        let path = URLComponents(string: request.url)?.path ?? request.url
        return FaultTarget(dialect: request.dialect, operation: request.operation, tenant: request.tenant, identifier: request.identifier,
                           method: "POST", path: path.isEmpty ? "/" : path,
                           headers: Dictionary(request.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $1 }))
    }

    /// A body as events show it: its JSON, else its text (the first 64 KiB).
    private static func shown(_ body: [UInt8]) -> JSON {
        if let json = try? JSON.parse(body) { return json }
        return .string(String(decoding: body.prefix(65536), as: UTF8.self))
    }
}
