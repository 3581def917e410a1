import AuthCore
import Foundation
import Hummingbird
import Synchronization

extension ControlAPI {
    /// Downloads so far, to name their temporary files apart.
    static let downloads = Atomic<Int>(0)

    /// `/snapshots`: named in-memory snapshots (fast per-test resets) and SQLite snapshot files.
    func addSnapshotRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get { _, _ in
            ControlJSON.response(["snapshots": .array(emulator.snapshotNames().map { ["name": .string($0)] })])
        }
        group.post { request, _ in
            let body = try await ControlRequest(request: request).body()
            let name = try body.string("name", required: true) ?? ""
            guard !name.isEmpty, name.count <= 128, !["save", "load"].contains(name) else {
                throw ControlError.badRequest("name: 1-128 characters, not 'save' or 'load'")
            }
            try emulator.takeSnapshot(named: name, faults: try body.change("faults") ?? true)
            return ControlJSON.response(["name": .string(name)], status: .created)
        }
        group.get("download") { _, _ in
            // The whole state as a SQLite file, written through the same atomic save as --snapshot.
            // Named by process and a counter: no randomness outside the emulator's generator, whose stream a
            // download must not move.
            let name = "fauxth-download-\(ProcessInfo.processInfo.processIdentifier)-\(Self.downloads.add(1, ordering: .relaxed).newValue).sqlite"
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let data = try await Blocking.run {
                try emulator.saveSnapshot(to: path)
                return try Data(contentsOf: URL(fileURLWithPath: path))
            }
            return Response(status: .ok, headers: [.contentType: "application/vnd.sqlite3", .cacheControl: "no-store",
                                                   .contentDisposition: "attachment; filename=\"fauxth-snapshot.sqlite\""],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        group.post(":name/restore") { request, context in
            let name = try context.parameters.decoded("name")
            // `?tenant=` puts back that tenant alone: a parallel worker's own starting point, the others untouched.
            let tenant = ControlRequest(request: request).query("tenant")
            if let tenant { _ = try emulator.requireTenant(tenant) }
            try emulator.restoreSnapshot(named: name, tenant: tenant)
            await settled()
            return ControlJSON.response(["restored": .string(name), "tenant": tenant.map(JSON.string) ?? .null])
        }
        group.post("save") { request, _ in
            let body = try await ControlRequest(request: request).body()
            let path = try body.string("path", required: true) ?? ""
            let faults = try body.change("faults") ?? true
            try await Blocking.run { try emulator.saveSnapshot(to: path, faults: faults) }
            return ControlJSON.response(["saved": .string(path)])
        }
        group.post("load") { request, _ in
            let path = try await ControlRequest(request: request).body().string("path", required: true) ?? ""
            try await Blocking.run { try emulator.loadSnapshot(from: path, checkingTenants: checkTenant) }
            await settled()
            return ControlJSON.response(["loaded": .string(path)])
        }
    }
}
