import AuthCore
import Foundation
import Hummingbird

extension ControlAPI {
    /// `/clock`: read, advance, freeze and resume the emulator clock, or return it to real time.
    func addClockRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get { _, _ in ControlJSON.response(ControlJSON.clock(emulator.clock)) }
        group.post("advance") { request, _ in
            let body = try await ControlRequest(request: request).body()
            guard let seconds = body["seconds"].flatMap({ $0.intValue.map(Double.init) ?? (try? doubleValue($0)) }) else {
                throw ControlError.badRequest("seconds: a number is required")
            }
            // Tokens carry the time as whole seconds; a clock moved past year 9999 (or before year 1) would overflow them.
            guard RFC3339.representable.contains(emulator.clock.now.addingTimeInterval(seconds)) else {
                throw ControlError.badRequest("seconds: the clock would leave the years 0001-9999")
            }
            emulator.clock.advance(by: seconds)
            return clockChanged("advance", ["seconds": .double(seconds)])
        }
        group.post("freeze") { request, _ in
            let body = try await ControlRequest(request: request).body()
            var instant: Date?
            if let at = try body.string("at") {
                guard let parsed = RFC3339.date(from: at) else { throw ControlError.badRequest("at: expected an RFC 3339 time") }
                instant = parsed
            }
            emulator.clock.freeze(at: instant)
            return clockChanged("freeze", [:])
        }
        group.post("resume") { _, _ in
            emulator.clock.resume()
            return clockChanged("resume", [:])
        }
        group.post("real") { _, _ in
            emulator.clock.reset()
            return clockChanged("real", [:])
        }
    }

    private func clockChanged(_ action: String, _ detail: [String: JSON]) -> Response {
        var detail = detail
        detail["action"] = .string(action)
        detail["now"] = .string(RFC3339.string(from: emulator.clock.now))
        emulator.record(.clockChanged, detail: detail)
        return ControlJSON.response(ControlJSON.clock(emulator.clock))
    }

    private func doubleValue(_ json: JSON) throws -> Double {
        guard case .double(let d) = json, d.isFinite else { throw ControlError.badRequest("seconds: expected a number") }
        return d
    }
}
