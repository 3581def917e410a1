import AuthCore
import Foundation
import Hummingbird

extension ControlAPI {
    /// `/deeplinks`: redirects to app schemes the emulator captured.
    func addDeepLinkRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get { request, _ in
            let control = ControlRequest(request: request)
            let links = try emulator.deepLinks(scheme: control.query("scheme"), filter: try control.listFilter())
            return ControlJSON.response(["deeplinks": .array(links.map(ControlJSON.deepLink))])
        }
        group.get("wait") { request, _ in
            let control = ControlRequest(request: request)
            var limited = try control.listFilter()
            limited.limit = 1
            let filter = limited
            let scheme = control.query("scheme")?.lowercased()
            let found = try await waitFor(timeout: try control.timeout(), current: { try emulator.deepLinks(scheme: scheme, filter: filter).first }) { item in
                guard case .deepLink(let d) = item, scheme == nil || d.scheme == scheme, filter.tenant == nil || d.tenant == filter.tenant else { return nil }
                return d
            }
            guard let found else { throw ControlError(.requestTimeout, "timeout", "no matching deep link arrived in time") }
            return ControlJSON.response(ControlJSON.deepLink(found))
        }
        group.get(":id") { _, context in
            let id = try context.parameters.decoded("id")
            guard let link = try emulator.deepLink(id: id) else { throw ControlError.notFound("no deep link \(id)") }
            return ControlJSON.response(ControlJSON.deepLink(link))
        }
        // Only the opener the server was started with runs: a request naming a command would let anyone who can
        // reach the control API run programs on the developer's machine.
        group.post(":id/open") { _, context in
            let id = try context.parameters.decoded("id")
            guard let link = try emulator.deepLink(id: id) else { throw ControlError.notFound("no deep link \(id)") }
            guard let opener = deepLinkOpener else {
                throw ControlError(.conflict, "no_opener", "start fauxth with --open-deeplinks simctl, adb or a command to open links from here")
            }
            let outcome = await opener.open(link, emulator: emulator)
            var body: [String: JSON] = ["opener": .string(opener.name), "command": .array(outcome.command.map(JSON.string)),
                                        "succeeded": .bool(outcome.succeeded)]
            if let status = outcome.status { body["status"] = .int(Int(status)) }
            if let error = outcome.error { body["error"] = .string(error) }
            return ControlJSON.response(.object(body))
        }
    }
}
