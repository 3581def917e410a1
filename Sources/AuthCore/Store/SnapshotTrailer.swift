import Crypto
import Foundation

/// The checksum a snapshot file carries: 48 bytes after the SQLite image, the image's SHA-256, its length
/// and a magic word. A trailer, rather than a sidecar file or a table inside the image: it is written into
/// the same temporary file that is renamed into place, so the file and its checksum can never disagree
/// after a crash, and it covers every byte of the image (a table inside it could not cover itself, and
/// would have to be dumped row by row to be checked).
///
/// SQLite reads the image's own page count from its header and ignores what follows, so the file still
/// opens with `sqlite3`. A file without the magic word is one saved before checksums (or by another
/// tool): it loads as before, as long as it is a whole number of pages.
enum SnapshotTrailer {
    static let magic = Array("FXSHA256".utf8)
    static let size = 48

    /// Appends the trailer of the image that is `path`'s whole content, read back in chunks.
    static func append(to path: String) throws {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw SnapshotError.writeFailed(path, String(cString: strerror(errno))) }
        defer { close(fd) }
        var hasher = SHA256()
        var length = 0
        var chunk = [UInt8](repeating: 0, count: 8 << 20)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw SnapshotError.writeFailed(path, String(cString: strerror(errno))) }
            if got == 0 { break }
            chunk.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
            length += got
        }
        try write(Array(hasher.finalize()), length: length, to: fd, path: path)
    }

    /// Appends the trailer of an image of `length` bytes, `path`'s whole content, whose SHA-256 is `digest` (made
    /// while the image was written: `ImageWrite`).
    static func append(_ digest: [UInt8], length: Int, to path: String) throws {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw SnapshotError.writeFailed(path, String(cString: strerror(errno))) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, Int(status.st_size) == length, digest.count == 32 else {
            throw SnapshotError.writeFailed(path, "the image written is not the image digested")
        }
        try write(digest, length: length, to: fd, path: path)
    }

    private static func write(_ digest: [UInt8], length: Int, to fd: Int32, path: String) throws {
        let trailer = digest + bigEndian(UInt64(length)) + magic
        let written = trailer.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(length)) }
        guard written == trailer.count else { throw SnapshotError.writeFailed(path, String(cString: strerror(errno))) }
    }

    /// The length of the image in a file's `count` bytes, its checksum verified; refuses a file whose
    /// trailer does not match, or whose size no SQLite image (with or without a trailer) could have.
    static func imageLength(_ bytes: UnsafePointer<UInt8>, count: Int, path: String) throws -> Int {
        if count >= size, Array(UnsafeBufferPointer(start: bytes + count - magic.count, count: magic.count)) == magic {
            let trailer = UnsafeBufferPointer(start: bytes + count - size, count: size)
            let length = trailer[32..<40].reduce(0) { $0 << 8 | Int($1) }
            guard length == count - size else {
                throw SnapshotError.checksumMismatch(path, "its checksum trailer names \(length) bytes of data, and the file holds \(count - size)")
            }
            let digest = SHA256.hash(data: UnsafeRawBufferPointer(start: bytes, count: length))
            guard constantTimeEquals(Array(digest), Array(trailer[0..<32])) else {
                throw SnapshotError.checksumMismatch(path, "its content does not match the checksum it was saved with: it was changed or damaged since")
            }
            return length
        }
        // No trailer: a whole number of pages, or something was cut off or added.
        if count >= 18 {
            let field = Int(bytes[16]) << 8 | Int(bytes[17])
            let page = field == 1 ? 65_536 : field
            if page >= 512, count % page != 0 {
                throw SnapshotError.unreadable(path, "its size is not a whole number of pages: it was cut short or has bytes added")
            }
        }
        return count
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
}
