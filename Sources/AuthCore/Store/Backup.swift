import CSQLite
import Foundation

extension Connection {
    /// Copies this whole database into `destination` with SQLite's online backup API. `finish` runs on
    /// every path, so a failed copy never leaves the backup handle open.
    func copy(into destination: borrowing Connection) throws(SQLiteError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw SQLiteError(code: sqlite3_errcode(destination.handle), message: String(cString: sqlite3_errmsg(destination.handle)))
        }
        let step = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE else { throw SQLiteError(code: step, message: String(cString: sqlite3_errstr(step))) }
        guard finish == SQLITE_OK else { throw SQLiteError(code: finish, message: String(cString: sqlite3_errstr(finish))) }
        destination.clearStatementCache()
    }
}

extension Database {
    /// Copies this database into `other` (a named in-memory snapshot, or the live store on restore).
    public func copy(into other: Database) throws {
        try withConnection { source in
            try other.withConnection { destination in try source.copy(into: destination) }
        }
    }

    /// Writes this database to `path` atomically: into a temporary file beside it, synced, then renamed
    /// over the target. A failed or killed write leaves the previous file as it was.
    /// - Parameter beforeRename: runs once the temporary file is complete; tests throw from it to
    ///   check that an interrupted write leaves the previous snapshot alone.
    public func save(to path: String, beforeRename: (String) throws -> Void = { _ in }) throws {
        try Self.saving.withLock { _ in try write(to: path, beforeRename: beforeRename) }
    }

    /// One file save at a time in this process. Two saves to one path (an autosave and a control API save)
    /// shared the temporary file, so one of them failed or renamed the other's half-written file; and a save
    /// that copied first but renamed last put an older state over a newer one.
    private static let saving = Locked<Void>(())

    private func write(to path: String, beforeRename: (String) throws -> Void) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp").path
        try? FileManager.default.removeItem(atPath: temporary)
        do {
            let file = try Database(path: temporary)
            try copy(into: file)
            try file.withConnection { try $0.execute("PRAGMA journal_mode=DELETE") }
            try Self.sync(path: temporary)
            try beforeRename(temporary)
            guard rename(temporary, path) == 0 else { throw SnapshotError.writeFailed(path, String(cString: strerror(errno))) }
            try? Self.sync(path: directory.path)
            Self.removeAbandonedTemporaries(of: url.lastPathComponent, in: directory.path)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }

    /// Removes the temporary files (and their journals) that saves of `name` by processes no longer
    /// running left behind: a process killed mid-save never cleans up, and each would keep a snapshot's
    /// size on disk.
    static func removeAbandonedTemporaries(of name: String, in directory: String) {
        let prefix = ".\(name)."
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count)
            guard let dot = rest.firstIndex(of: "."), let pid = Int32(rest[..<dot]), pid > 0, pid != getpid(),
                  [".tmp", ".tmp-journal"].contains(String(rest[dot...])),
                  kill(pid, 0) == -1, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: directory + "/" + entry)
        }
    }

    private static func sync(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw SnapshotError.writeFailed(path, String(cString: strerror(errno))) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SnapshotError.writeFailed(path, String(cString: strerror(errno))) }
    }
}

/// Why a snapshot could not be written or read.
public enum SnapshotError: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case unreadable(String, String)
    case newerSchema(String, found: Int, supported: Int)
    case writeFailed(String, String)
    case unknownName(String)

    public var description: String {
        switch self {
        case .notFound(let path): "snapshot \(path) does not exist"
        case .unreadable(let path, let why): "snapshot \(path) is not a valid Fauxth snapshot (\(why)); it was left untouched"
        case .newerSchema(let path, let found, let supported):
            "snapshot \(path) was written by a newer Fauxth (schema \(found); this build reads up to \(supported)); it was left untouched"
        case .writeFailed(let path, let why): "could not write snapshot \(path): \(why)"
        case .unknownName(let name): "no in-memory snapshot named \(name)"
        }
    }
}
