import CSQLite
import CSystemCrypto
import Foundation

extension Connection {
    /// Checks the database `loadImage` just read (`size` bytes from `path`): SQLite's own check, its length
    /// against its header, and a Fauxth schema in it.
    func checkLoadedImage(of size: Int, from path: String) throws {
        guard try first("PRAGMA quick_check")?.string("quick_check") == "ok" else {
            throw SnapshotError.unreadable(path, "integrity check failed")
        }
        // SQLite reads a missing tail as zeros, so a file cut short inside its last page passes the check.
        let pageCount = try first("PRAGMA page_count")?.int(0) ?? 0
        let pageSize = try first("PRAGMA page_size")?.int(0) ?? 0
        guard size == pageCount * pageSize else {
            throw SnapshotError.unreadable(path, "\(size) bytes where its header says \(pageCount * pageSize): cut short or damaged")
        }
        guard userVersion > 0, try first("SELECT name FROM sqlite_master WHERE name = 'tenants'") != nil else {
            throw SnapshotError.unreadable(path, "no Fauxth schema in it")
        }
    }

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

    /// Replaces this connection's database with the SQLite file at `path`, read whole into memory (the
    /// staged copy a snapshot load swaps in): a million users took 2 s through the backup API and takes a
    /// read of the file this way. The database is then on memdb, writable and growable.
    /// Returns the image's length (the file's, less a checksum trailer).
    @discardableResult
    func loadImage(ofFile path: String) throws -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SnapshotError.unreadable(path, String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0, let buffer = sqlite3_malloc64(UInt64(info.st_size)) else {
            throw SnapshotError.unreadable(path, "cannot read it into memory")
        }
        let size = Int(info.st_size)
        let bytes = buffer.assumingMemoryBound(to: UInt8.self)
        var offset = 0
        while offset < size {
            let got = read(fd, bytes + offset, min(size - offset, 8 << 20))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                sqlite3_free(buffer)
                throw SnapshotError.unreadable(path, got == 0 ? "it changed while being read" : String(cString: strerror(errno)))
            }
            offset += got
        }
        // The checksum first: a changed byte anywhere is refused before SQLite reads a page.
        let image: Int
        do { image = try SnapshotTrailer.imageLength(bytes, count: size, path: path) } catch {
            sqlite3_free(buffer)
            throw error
        }
        // A file left in WAL mode (its header's format bytes are 2): memdb has no WAL, so open it as the
        // rollback-journal file `PRAGMA journal_mode=DELETE` would make of it.
        if image > 19, bytes[18] == 2, bytes[19] == 2 { bytes[18] = 1; bytes[19] = 1 }
        do { try openImage(bytes, length: image, capacity: size) } catch { throw SnapshotError.unreadable(path, error.message) }
        return image
    }

    /// Replaces this connection's database with a copy of `source`'s, read from its pages (so a shared memdb
    /// database, a named snapshot, whose buffer `withImage` cannot lend, is copied too); answers false, changing
    /// nothing, when `source` is empty or not SQLite's to copy. Only on a connection that has not yet used
    /// `json_each` (see `Database.replaceContents(withCopyOf:)`).
    func replaceDatabase(withCopyOf source: borrowing Connection) throws(SQLiteError) -> Bool {
        var size: sqlite3_int64 = 0
        guard let bytes = sqlite3_serialize(source.handle, "main", &size, 0) else { return false }
        guard size > 0 else {
            sqlite3_free(bytes)
            return false
        }
        try openImage(bytes, length: Int(size), capacity: Int(size))
        return true
    }

    /// Opens `bytes` (from `sqlite3_malloc`, `length` of them a database image) as this connection's database, on
    /// memdb, writable and growable. SQLite owns the buffer from here, on failure too (FREEONCLOSE).
    private func openImage(_ bytes: UnsafeMutablePointer<UInt8>, length: Int, capacity: Int) throws(SQLiteError) {
        let rc = sqlite3_deserialize(handle, "main", bytes, sqlite3_int64(length), sqlite3_int64(capacity),
                                     UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE))
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: String(cString: sqlite3_errstr(rc))) }
        clearStatementCache()
        try configureMemdb()
    }

    /// Runs `body` on the database's bytes, the image a file of it would hold, without a copy: only a
    /// database on the memdb VFS (the store) has them in one buffer; nil for any other.
    func withImage<T>(_ body: (UnsafeRawBufferPointer) throws -> T) throws -> T? {
        var size: sqlite3_int64 = 0
        guard let bytes = sqlite3_serialize(handle, "main", &size, UInt32(SQLITE_SERIALIZE_NOCOPY)), size > 0 else { return nil }
        return try body(UnsafeRawBufferPointer(start: bytes, count: Int(size)))
    }
}

extension Database {
    /// Copies this database into `other` (a named in-memory snapshot, or the live store on restore).
    public func copy(into other: Database) throws {
        try withConnection { source in
            try other.withConnection { destination in
                try source.copy(into: destination)
                // The backup writes pages, not rows: no statement counts it as a change.
                other.contentsReplaced()
            }
        }
    }

    /// Puts a copy of `source` (the seed, a named snapshot) in place of this database's contents: the live store's
    /// reset and restore. Where both are on memdb, `source`'s image is copied whole and a new connection opens the
    /// copy and takes this one's place, which costs one memcpy of the image; the backup API (`copy(into:)`) writes
    /// the pages one by one through both page caches and this side's rollback journal, the larger part of a
    /// restore's time. Not for a database another connection attaches by its URI (a named snapshot, the seed, which
    /// a tenant's restore attaches): what replaces it is private to its connection.
    public func replaceContents(withCopyOf source: Database) throws {
        guard try withConnection({ $0.isOnMemdb }) else { return try source.copy(into: self) }
        // Opened by a new connection, which then takes the store's place (`exchange`), as a loaded file is. Never by
        // the store's own: SQLite 3.40 (Debian 12's) keeps its eponymous virtual tables (`json_each`, which listings
        // use) pointing at the schema `sqlite3_deserialize` frees, and the next statement that names one crashed.
        // The new connection is this function's alone, so holding its lock inside `source`'s waits on nobody.
        let staged = try Database()
        guard try source.withConnection({ s in try staged.withConnection { try $0.replaceDatabase(withCopyOf: s) } }) else {
            return try source.copy(into: self)
        }
        exchange(with: staged)
    }

    /// Writes this database to `path` atomically: into a temporary file beside it, synced, then renamed
    /// over the target. A failed or killed write leaves the previous file as it was.
    /// - Parameters:
    ///   - beforeRename: runs once the temporary file is complete; tests throw from it to
    ///     check that an interrupted write leaves the previous snapshot alone.
    ///   - whileWriting: runs once the cut is made, while the image is being written, outside the lock;
    ///     tests change the store from it to check that the file holds the state at the cut.
    public func save(to path: String, beforeRename: (String) throws -> Void = { _ in }, whileWriting: () throws -> Void = {}) throws {
        try Self.saving.withLock { _ in try writeSnapshot(to: path, whileWriting: whileWriting, beforeRename: beforeRename) }
    }

    /// One file save at a time in this process. Two saves to one path (an autosave and a control API save)
    /// shared the temporary file, so one of them failed or renamed the other's half-written file; and a save
    /// that copied first but renamed last put an older state over a newer one.
    private static let saving = Locked<Void>(())

    private func writeSnapshot(to path: String, whileWriting: () throws -> Void, beforeRename: (String) throws -> Void) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp").path
        try? FileManager.default.removeItem(atPath: temporary)
        do {
            // The store's image written as it is: a million users took 4.4 s through the backup API (a page at
            // a time through both page caches), and the image is the very file the backup would produce. The
            // cut is made under the lock by forking a child that writes it, and the write is waited for
            // outside: under the lock, a million users stopped every request for the whole write. Anything not
            // on memdb takes the backup.
            let writing: ImageWrite? = try withConnection { c in try c.withImage { try ImageWrite.start($0, to: temporary) } }
            var digest: (sha256: [UInt8], length: Int)?
            if let writing {
                do { try whileWriting() } catch {
                    _ = try? writing.finish()
                    throw error
                }
                digest = try writing.finish()
            } else {
                let file = try Database(path: temporary)
                try copy(into: file)
                try file.withConnection { try $0.execute("PRAGMA journal_mode=DELETE") }
            }
            // The digest the writer's twin made of the image, or else the file read back, outside the store's lock:
            // requests go on while the checksum is made.
            if let digest {
                try SnapshotTrailer.append(digest.sha256, length: digest.length, to: temporary)
            } else {
                try SnapshotTrailer.append(to: temporary)
            }
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

/// The store's image on its way to a file, written by a forked child (`fauxth_write_in_child`) so that the
/// store's lock is held for the fork only: the child's memory is the process's at that instant, a consistent cut
/// whatever requests change afterwards, at the cost of the pages they change being copied while it runs. Where the
/// system's SHA-256 is there, a second child digests the same image meanwhile, for the checksum trailer.
struct ImageWrite {
    private let pid: pid_t
    private let fd: Int32
    private let path: String
    /// The reading end of the pipe the digest comes down, or -1.
    private let digestFD: Int32
    private let length: Int

    /// Starts writing `image` to a new file at `path`. Where fork fails (no memory for the child's page tables,
    /// a process limit), the image is written here and now instead, which is slower under the lock but correct.
    static func start(_ image: UnsafeRawBufferPointer, to path: String) throws -> ImageWrite {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SnapshotError.writeFailed(path, String(cString: strerror(errno))) }
        var pipeFDs: [Int32] = [-1, -1]
        var digesting = false
        if fauxth_sha256_available() != 0, pipe(&pipeFDs) == 0 {
            // Close-on-exec, as every descriptor here: nothing the server runs later inherits it.
            digesting = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC) == 0 && fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC) == 0
            if !digesting { close(pipeFDs[0]); close(pipeFDs[1]) }
        }
        let pid = fauxth_write_in_child(image.baseAddress, image.count, fd, digesting ? fauxth_sha256 : nil, digesting ? pipeFDs[1] : -1)
        if digesting { close(pipeFDs[1]) }
        guard pid > 0 else {
            defer { close(fd) }
            if digesting { close(pipeFDs[0]) }
            try writeAll(image, to: fd, path: path)
            return ImageWrite(pid: 0, fd: -1, path: path, digestFD: -1, length: image.count)
        }
        return ImageWrite(pid: pid, fd: fd, path: path, digestFD: digesting ? pipeFDs[0] : -1, length: image.count)
    }

    /// Waits for the child, outside the store's lock, and says how its write ended: the image's digest and length
    /// when the second child made it, nil when the file must be read back for it.
    func finish() throws -> (sha256: [UInt8], length: Int)? {
        guard pid > 0 else { return nil }
        defer {
            close(fd)
            if digestFD >= 0 { close(digestFD) }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw SnapshotError.writeFailed(path, "lost the writing process: \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED and WEXITSTATUS are macros, which Swift does not import.
        let signal = status & 0x7f, code = (status >> 8) & 0xff
        guard signal == 0 else { throw SnapshotError.writeFailed(path, "the writing process was killed (signal \(signal))") }
        guard code == 0 else { throw SnapshotError.writeFailed(path, String(cString: strerror(code))) }
        return digestFD >= 0 ? readDigest() : nil
    }

    /// The 32 bytes in the pipe, which both children have left (the writer waits for the digester): all of them,
    /// or nil when the digester made none.
    private func readDigest() -> (sha256: [UInt8], length: Int)? {
        var digest = [UInt8](repeating: 0, count: 32)
        var got = 0
        while got < digest.count {
            let count = digest.withUnsafeMutableBytes { read(digestFD, $0.baseAddress! + got, $0.count - got) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            got += count
        }
        return (digest, length)
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            // 8 MiB at a time: one write of a whole 1 GB image took 4 s here, against 0.3 s in chunks.
            let written = write(fd, bytes.baseAddress! + offset, min(bytes.count - offset, 8 << 20))
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw SnapshotError.writeFailed(path, String(cString: strerror(errno))) }
            offset += written
        }
    }
}

/// Why a snapshot could not be written or read.
public enum SnapshotError: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case unreadable(String, String)
    case newerSchema(String, found: Int, supported: Int)
    case writeFailed(String, String)
    case unknownName(String)
    /// The file's checksum trailer does not match its content (or its own length).
    case checksumMismatch(String, String)
    /// A tenant in the file has settings its vendor refuses (`Emulator.loadSnapshot(from:checkingTenants:)`).
    case refusedTenant(String, tenant: String, reason: String)

    public var description: String {
        switch self {
        case .notFound(let path): "snapshot \(path) does not exist"
        case .unreadable(let path, let why): "snapshot \(path) is not a valid Fauxth snapshot (\(why)); it was left untouched"
        case .newerSchema(let path, let found, let supported):
            "snapshot \(path) was written by a newer Fauxth (schema \(found); this build reads up to \(supported)); it was left untouched"
        case .writeFailed(let path, let why): "could not write snapshot \(path): \(why)"
        case .unknownName(let name): "no in-memory snapshot named \(name)"
        case .checksumMismatch(let path, let why): "snapshot \(path) is not a valid Fauxth snapshot (\(why)); it was left untouched"
        case .refusedTenant(let path, let tenant, let why):
            "snapshot \(path) has a tenant its vendor would refuse (\(tenant): \(why)); the state was left as it was"
        }
    }
}
