import AuthCore
import Foundation

extension FirebaseDialect {
    /// Blocking functions for the control API (`/_emu/v1/tenants/{project}/hooks/{event}`): each event is
    /// `{"uri": functionUri, "forwardInboundCredentials": {…}}`, kept in the project config's
    /// `blockingFunctions`, where the v2 config API and the seed's `config` put them. An Identity Platform
    /// tenant shows its project's and cannot have its own.
    public var hookSchema: HookSchema {
        let emulator = emulator
        return HookSchema(points: BlockingFunctions.Event.allCases.map(\.rawValue), read: { tenant in
            let project = FirebaseScope.projectId(of: tenant.id)
            let owner = project == tenant.id ? tenant : ((try? emulator.tenant(project)) ?? nil)
            let stored = owner?.settings["config"]?["blockingFunctions"] ?? [:]
            var hooks: [String: JSON] = [:]
            for event in BlockingFunctions.Event.allCases {
                guard let uri = stored["triggers"]?[event.rawValue]?["functionUri"]?.stringValue else { continue }
                var hook: [String: JSON] = ["uri": .string(uri)]
                hook["forwardInboundCredentials"] = stored["forwardInboundCredentials"]
                hooks[event.rawValue] = .object(hook)
            }
            return hooks
        }, write: { tenant, point, hook in
            guard !tenant.id.contains(":") else {
                let project = FirebaseScope.projectId(of: tenant.id)
                throw AuthError.invalidInput(field: "tenant", reason: "is an Identity Platform tenant, which uses its project's blocking functions; set them on \(project)")
            }
            var settings = tenant.settings
            var config = settings["config"]?.objectValue ?? [:]
            var blocking = config["blockingFunctions"]?.objectValue ?? [:]
            var triggers = blocking["triggers"]?.objectValue ?? [:]
            if let hook {
                guard let uri = hook["uri"]?.stringValue, RedirectURL.isWeb(uri) else {
                    throw AuthError.invalidInput(field: "uri", reason: "must be an absolute http(s) URI with a host")
                }
                triggers[point] = ["functionUri": .string(uri)]
                if let forward = hook["forwardInboundCredentials"], forward != .null {
                    guard case .object = forward else { throw AuthError.invalidInput(field: "forwardInboundCredentials", reason: "must be an object") }
                    blocking["forwardInboundCredentials"] = forward
                }
            } else {
                triggers.removeValue(forKey: point)
            }
            blocking["triggers"] = .object(triggers)
            config["blockingFunctions"] = .object(blocking)
            settings["config"] = .object(config)
            return settings
        })
    }
}
