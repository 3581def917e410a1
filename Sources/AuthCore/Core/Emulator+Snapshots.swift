import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

extension Emulator {
    /// Keeps the current state in memory under `name` (replacing an older one of that name).
    /// - Parameter faults: whether the fault rules in force go in (and come back on restore).
    public func takeSnapshot(named name: String, faults: Bool = true) throws {
        let uri = "file:/fauxth-snapshot-\(Emulator.instanceCounter.add(1, ordering: .relaxed).newValue)?vfs=memdb"
        let copy = try Database(path: uri)
        try writeTransientState(faults: faults)
        try db.copy(into: copy)
        namedSnapshots.withLock { $0[name] = (copy, uri) }
        record(.snapshotTaken, detail: ["name": .string(name)])
    }

    /// Restores the in-memory snapshot `name`: everything, or (with `tenant`) that tenant and its rows alone, as
    /// a tenant's reset does with the seed, so parallel workers each go back to their own starting point. A
    /// tenant's restore leaves the clock, the fault rules and the other tenants' lockouts alone.
    public func restoreSnapshot(named name: String, tenant: String? = nil) throws {
        guard let snapshot = namedSnapshots.withLock({ $0[name] }) else { throw SnapshotError.unknownName(name) }
        if let tenant {
            try db.withConnection { c in try Tenants.restore(c, id: tenant, from: snapshot.uri) }
            tenantsChanged()
            try forgetTransientState(in: tenant)
            record(.snapshotRestored, tenant: tenant, detail: ["name": .string(name)])
            return
        }
        try db.replaceContents(withCopyOf: snapshot.database)
        try continueEventNumbering()
        // The lockouts and rate-limit windows the snapshot was taken with, not the ones left behind.
        clearTransientState()
        try readTransientState()
        record(.snapshotRestored, detail: ["name": .string(name)])
    }

    /// The names of the in-memory snapshots, sorted.
    public func snapshotNames() -> [String] {
        namedSnapshots.withLock { $0.keys.sorted() }
    }

    /// Writes the whole state to a SQLite file, atomically.
    public func saveSnapshot(to path: String, faults: Bool = true) throws {
        try writeTransientState(faults: faults)
        try db.save(to: path)
    }

    /// Replaces the state with the snapshot file at `path`. The file is only read; an unreadable,
    /// foreign or newer-schema file is refused and the live state is left as it was. Older schemas are
    /// migrated in memory.
    ///
    /// `checkingTenants`: the vendors' checks of each tenant's settings (the server's, which knows the dialects),
    /// made on the staged copy, so a snapshot with a tenant its vendor refuses (written by an older Fauxth that was
    /// laxer) is refused whole rather than loaded to answer 500 at every request to that tenant. Its `policies` are
    /// checked alike.
    public func loadSnapshot(from path: String, checkingTenants check: ((Tenant) throws -> Void)? = nil) throws {
        do {
            // The staged database becomes the live one; the old state goes with it at the end of this scope.
            let staged = try stage(path)
            if let check {
                for tenant in try staged.withConnection({ try Tenants.all($0) }) {
                    do {
                        _ = try derivePolicies(for: tenant)
                        try check(tenant)
                    } catch {
                        throw SnapshotError.refusedTenant(path, tenant: tenant.id, reason: "\(error)")
                    }
                }
            }
            db.exchange(with: staged)
        }
        try continueEventNumbering()
        clearTransientState()
        try readTransientState()
        releaseFreedMemory()
        record(.snapshotRestored, detail: ["path": .string(path)])
    }

    /// A checked, migrated in-memory copy of the snapshot file at `path`.
    private func stage(_ path: String) throws -> Database {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw SnapshotError.notFound(path) }
        guard !isDirectory.boolValue else { throw SnapshotError.unreadable(path, "it is a directory") }
        let staged = try Database()
        do {
            // The image read whole into the staged copy, its checksum checked on the way; then SQLite's checks
            // on that copy, so the file is read once and never opened for writing.
            try staged.withConnection { c in
                let image = try c.loadImage(ofFile: path)
                try c.checkLoadedImage(of: image, from: path)
                guard c.userVersion <= Schema.version else {
                    throw SnapshotError.newerSchema(path, found: c.userVersion, supported: Schema.version)
                }
            }
        } catch let error as SQLiteError {
            throw SnapshotError.unreadable(path, error.message)
        }
        try staged.withConnection { try Schema.migrate($0, source: path) }
        return staged
    }

    /// Hands the pages of a replaced state back to the system: glibc keeps freed memory otherwise, and a
    /// million-user state replaced leaves its size behind in the resident set.
    func releaseFreedMemory() {
        #if canImport(Glibc)
        // malloc.h is not in Swift's Glibc module, so the symbol is looked up.
        typealias MallocTrim = @convention(c) (Int) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        }
        #endif
    }
}
