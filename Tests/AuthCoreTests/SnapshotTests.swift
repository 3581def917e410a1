import CSQLite
import CSystemCrypto
import Crypto
import Foundation
import Synchronization
import Testing
@testable import AuthCore

@Suite struct SnapshotTests {
    /// Everything observable about the state, for before/after comparisons.
    func state(_ emulator: Emulator) throws -> [String] {
        try emulator.db.withConnection { c in
            try ["tenants", "users", "identities", "credentials", "sessions", "refresh_tokens", "codes", "messages"].flatMap { table in
                try c.query("SELECT * FROM \(table) ORDER BY 1, 2").map { row in
                    "\(table): " + row.names.sorted { $0.key < $1.key }.map { "\($0.key)=\(row.values[$0.value])" }.joined(separator: " ")
                }
            }
        }
    }

    @Test func fileSnapshotRoundTrips() throws {
        let emulator = try makeEmulator()
        try emulator.createUser(in: "proj", NewUser(email: "carol@example.com", password: "pw"))
        let path = temporaryPath("state.sqlite")
        try emulator.saveSnapshot(to: path)
        let saved = try state(emulator)
        try emulator.createUser(in: "proj", NewUser(email: "dave@example.com"))
        try emulator.deleteUser(in: "proj", id: "u-alice")
        #expect(try state(emulator) != saved)
        try emulator.loadSnapshot(from: path)
        #expect(try state(emulator) == saved)

        let elsewhere = try makeEmulator(seed: Seed())
        try elsewhere.loadSnapshot(from: path)
        #expect(try state(elsewhere) == saved)
    }

    @Test func theStoreIsOneMemdbImageAndASavedFileIsThatImage() throws {
        let emulator = try makeEmulator()
        // On memdb (not `:memory:`, whose commits slow down as the state grows): its bytes are a database file.
        let path = temporaryPath("image.sqlite")
        try emulator.saveSnapshot(to: path)
        // Read after the save, which writes the lockouts and rate windows into the state first.
        let image = try emulator.db.withConnection { c in try c.withImage { Array($0) } }
        #expect(image?.starts(with: Array("SQLite format 3\u{0}".utf8)) == true)
        // The image, then its checksum trailer (SHA-256, length, magic word).
        let file = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(file.dropLast(SnapshotTrailer.size)) == image)
        #expect(Array(file.suffix(8)) == SnapshotTrailer.magic)
        let journal = try Database(path: path, readOnly: true).withConnection { try $0.first("PRAGMA journal_mode")?.string("journal_mode") }
        #expect(journal == "delete")
    }


    /// The image is digested by a second child while the first writes it, so the checksum needs no second pass over
    /// the file: the digest that comes back is the SHA-256 of every byte written, across the writer's 8 MiB chunks.
    @Test func theWritersTwinDigestsTheImageItWrites() throws {
        try #require(fauxth_sha256_available() != 0, "the system's libcrypto, which the digest uses, is on every machine we test on")
        var image = [UInt8](repeating: 0, count: (9 << 20) + 123)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in image.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            image[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        let path = temporaryPath("image.bin")
        let writing = try image.withUnsafeBytes { try ImageWrite.start($0, to: path) }
        let digest = try #require(try writing.finish())
        #expect(digest.length == image.count)
        #expect(digest.sha256 == Array(SHA256.hash(data: image)))
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == image)
    }

    @Test func aSaveHoldsTheStateAtItsCutWhileRequestsGoOnDuringTheWrite() throws {
        let emulator = try makeEmulator()
        let path = temporaryPath("cut.sqlite")
        let atCut = try state(emulator)
        // While the image is being written (by a forked child), the store is free: a sign-up and a deletion go
        // through at once, and neither is in the file, which is the state at the moment of the cut.
        try emulator.db.save(to: path, whileWriting: {
            try emulator.createUser(in: "proj", NewUser(email: "during@example.com"))
            try emulator.deleteUser(in: "proj", id: "u-alice")
        })
        let live = try state(emulator)
        #expect(live != atCut)
        try emulator.loadSnapshot(from: path)
        #expect(try state(emulator) == atCut)
    }
    @Test func aFileBackedDatabaseSavesThroughTheBackupAPI() throws {
        let source = temporaryPath("source.sqlite"), target = temporaryPath("target.sqlite")
        let file = try Database(path: source)
        #expect(try file.withConnection { c in try c.withImage { _ in true } } == nil)
        try file.withConnection { try $0.execute("CREATE TABLE t (x); INSERT INTO t VALUES (42)") }
        try file.save(to: target)
        #expect(try Database(path: target, readOnly: true).withConnection { try $0.first("SELECT x FROM t")?.int("x") } == 42)
    }

    @Test func aFileLeftInWALModeLoadsIntoMemory() throws {
        let path = temporaryPath("wal.sqlite")
        do {
            let file = try Database(path: path)
            try file.withConnection { try $0.execute("PRAGMA journal_mode=WAL; CREATE TABLE t (x); INSERT INTO t VALUES (7)") }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path))[18] == 2)
        let memory = try Database()
        _ = try memory.withConnection { try $0.loadImage(ofFile: path) }
        try memory.withConnection { try $0.execute("INSERT INTO t VALUES (8)") }
        #expect(try memory.withConnection { try $0.query("SELECT x FROM t ORDER BY x").compactMap { $0.int("x") } } == [7, 8])
    }

    @Test func namedSnapshotsRestoreInMemory() throws {
        let emulator = try makeEmulator()
        try emulator.takeSnapshot(named: "clean")
        try emulator.createUser(in: "proj", NewUser(email: "temp@example.com"))
        try emulator.restoreSnapshot(named: "clean")
        #expect(try emulator.user(in: "proj", .email("temp@example.com")) == nil)
        #expect(emulator.snapshotNames() == ["clean"])
        #expect(throws: SnapshotError.unknownName("missing")) { try emulator.restoreSnapshot(named: "missing") }
    }

    @Test func aRestoredStoreIsACopyOnMemdbThatGrowsSavesAndLeavesItsSourceAlone() throws {
        let emulator = try makeEmulator()
        try emulator.takeSnapshot(named: "clean")
        let clean = try state(emulator)
        let imageSize = { try emulator.db.withConnection { c in try c.withImage { $0.count } } }
        for replace in [{ try emulator.restoreSnapshot(named: "clean") }, { try emulator.reset() }] {
            try replace()
            let restored = try #require(try imageSize())
            // Writable and growable past the size it was restored at, as a store must be.
            for index in 0..<300 {
                try emulator.createUser(in: "proj", NewUser(email: "grow\(index)@example.com", userMetadata: ["pad": .string(String(repeating: "x", count: 400))]))
            }
            #expect(try #require(try imageSize()) > restored)
            #expect(try emulator.db.withConnection { try $0.first("PRAGMA journal_mode")?.string("journal_mode") } == "memory")
            // Saved through its image, and loaded back whole.
            let path = temporaryPath("restored.sqlite")
            try emulator.saveSnapshot(to: path)
            let grown = try state(emulator)
            try emulator.restoreSnapshot(named: "clean")
            #expect(try state(emulator) == clean)
            try emulator.loadSnapshot(from: path)
            #expect(try state(emulator) == grown)
        }
        // The snapshot itself is untouched by what was written after it was restored, whole or for one tenant.
        try emulator.restoreSnapshot(named: "clean", tenant: "proj")
        #expect(try emulator.user(in: "proj", .email("grow0@example.com")) == nil)
        try emulator.restoreSnapshot(named: "clean")
        #expect(try state(emulator) == clean)
    }

    @Test func aListingThatReadsJSONWorksAfterEveryRestoreAndReset() throws {
        // A listing reads the page's identities through `json_each`. Opened in the store's own connection, a
        // restored image left SQLite's `json_each` on the schema it replaced, and such a listing crashed the process.
        let emulator = try makeEmulator()
        _ = try emulator.usersByID(in: "proj", after: nil, limit: 50)
        try emulator.takeSnapshot(named: "clean")
        for round in 0..<40 {
            if round.isMultiple(of: 2) { try emulator.restoreSnapshot(named: "clean") } else { try emulator.reset() }
            try emulator.createUser(in: "proj", NewUser(email: "round\(round)@example.com"))
            let page = try emulator.usersByID(in: "proj", after: nil, limit: 50)
            #expect(page.contains { $0.email == "round\(round)@example.com" })
        }
    }

    @Test func aRestoreIntoAFileBackedDatabaseGoesThroughTheBackupAPI() throws {
        let memory = try Database()
        try memory.withConnection { try $0.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)") }
        let file = try Database(path: temporaryPath("restore-target.sqlite"))
        try file.replaceContents(withCopyOf: memory)
        // Still the file it was: a copy opened on memdb instead would have left the file empty.
        #expect(try file.withConnection { c in try c.withImage { _ in true } } == nil)
        #expect(try file.withConnection { try $0.first("SELECT x FROM t")?.int("x") } == 1)
    }

    @Test func aTenantRestoredAfterAResetKeepsItsTrailAndEventNumbersNeverGoBack() throws {
        let emulator = try makeEmulator()
        try emulator.createUser(in: "proj", NewUser(email: "kept@example.com"))
        try emulator.takeSnapshot(named: "one")
        try emulator.createUser(in: "proj", NewUser(email: "later@example.com"))
        let published = emulator.lastEventSequence
        try emulator.reset()
        // The reset's own event comes after everything published before it, not after the seed's last event.
        let reset = try #require(try emulator.events(type: "emulator.reset").first)
        #expect(reset.sequence == published + 1)
        try emulator.createUser(in: "other", NewUser(email: "o@example.com"))
        // The snapshot's events of the tenant come back numbered after the current ones (their own numbers are taken).
        try emulator.restoreSnapshot(named: "one", tenant: "proj")
        #expect(try emulator.user(in: "proj", .email("kept@example.com")) != nil)
        #expect(try emulator.user(in: "proj", .email("later@example.com")) == nil)
        let trail = try emulator.events(filter: ListFilter(tenant: "proj"))
        #expect(trail.contains { $0.type == .userCreated })
        let all = try emulator.events()
        #expect(Set(all.map(\.sequence)).count == all.count)
        #expect(all.map(\.sequence) == all.map(\.sequence).sorted(by: >))
        // A whole restore does not number backwards either.
        let before = emulator.lastEventSequence
        try emulator.restoreSnapshot(named: "one")
        #expect(try #require(try emulator.events(type: "snapshot.restored").first).sequence == before + 1)
    }

    @Test func resetReturnsToTheSeedForEverythingOrOneTenant() throws {
        let emulator = try makeEmulator()
        try emulator.createUser(in: "proj", NewUser(email: "p@example.com"))
        try emulator.createUser(in: "other", NewUser(email: "o@example.com"))
        try emulator.reset(tenant: "other")
        #expect(try emulator.user(in: "other", .email("o@example.com")) == nil)
        #expect(try emulator.user(in: "proj", .email("p@example.com")) != nil)
        try emulator.reset()
        #expect(try emulator.user(in: "proj", .email("p@example.com")) == nil)
        #expect(try emulator.user(in: "proj", id: "u-alice") != nil)
    }

    @Test func aFailedWriteLeavesThePreviousSnapshotIntact() throws {
        let emulator = try makeEmulator()
        let path = temporaryPath("keep.sqlite")
        try emulator.saveSnapshot(to: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try emulator.createUser(in: "proj", NewUser(email: "new@example.com"))
        struct Interrupted: Error {}
        var temporary = ""
        #expect(throws: Interrupted.self) {
            try emulator.db.save(to: path) { written in
                temporary = written
                throw Interrupted()
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!temporary.isEmpty && !FileManager.default.fileExists(atPath: temporary))
    }

    @Test func savesToOneFileTakeTurnsSoTheLaterCopyIsRenamedLast() throws {
        let emulator = try makeEmulator()
        let path = temporaryPath("turns.sqlite")
        let secondDone = DispatchSemaphore(value: 0)
        let second = Mutex<Result<Void, any Error>?>(nil)
        try emulator.db.save(to: path) { _ in
            // A second save (an autosave, say) begins as this one is about to rename: it waits for its turn, rather
            // than share the temporary file or rename its newer copy before this older one.
            try emulator.createUser(in: "proj", NewUser(email: "later@example.com"))
            DispatchQueue.global().async {
                second.withLock { $0 = Result { try emulator.saveSnapshot(to: path) } }
                secondDone.signal()
            }
            #expect(secondDone.wait(timeout: .now() + 0.2) == .timedOut)
        }
        secondDone.wait()
        try second.withLock { try $0?.get() }
        let fresh = try makeEmulator(seed: Seed())
        try fresh.loadSnapshot(from: path)
        #expect(try fresh.user(in: "proj", .email("later@example.com")) != nil)
    }

    @Test func aLeftoverTemporaryFileFromAKilledWriteIsIgnored() throws {
        let emulator = try makeEmulator()
        let path = temporaryPath("state.sqlite")
        try emulator.saveSnapshot(to: path)
        // What a kill -9 mid-write leaves behind: a half-written temporary beside the real file.
        let leftover = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(".state.sqlite.\(getpid()).tmp")
        try Data("half a database".utf8).write(to: leftover)
        let fresh = try makeEmulator(seed: Seed())
        try fresh.loadSnapshot(from: path)
        #expect(try fresh.user(in: "proj", id: "u-alice") != nil)
        try emulator.saveSnapshot(to: path)
        try fresh.loadSnapshot(from: path)
    }

    @Test func aSaveRemovesTheTemporariesOfProcessesThatAreGone() throws {
        let emulator = try makeEmulator()
        let path = temporaryPath("state.sqlite")
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        // A pid nobody has (pid_max is at most 2^22), and pid 1, which is always running.
        let gone = directory.appendingPathComponent(".state.sqlite.99999999.tmp")
        let goneJournal = directory.appendingPathComponent(".state.sqlite.99999999.tmp-journal")
        let running = directory.appendingPathComponent(".state.sqlite.1.tmp")
        let unrelated = directory.appendingPathComponent(".other.sqlite.99999999.tmp")
        for file in [gone, goneJournal, running, unrelated] { try Data("x".utf8).write(to: file) }
        try emulator.saveSnapshot(to: path)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == [".other.sqlite.99999999.tmp", ".state.sqlite.1.tmp", "state.sqlite"])
    }

    @Test func corruptOrForeignFilesAreRefusedAndLeftUntouched() throws {
        let emulator = try makeEmulator()
        let garbage = temporaryPath("garbage.sqlite")
        try Data("this is not sqlite".utf8).write(to: URL(fileURLWithPath: garbage))
        #expect { try emulator.loadSnapshot(from: garbage) } throws: { error in
            if case SnapshotError.unreadable = error { true } else { false }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: garbage)) == Data("this is not sqlite".utf8))

        let good = temporaryPath("good.sqlite")
        try emulator.saveSnapshot(to: good)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let truncated = temporaryPath("truncated.sqlite")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        #expect(throws: (any Error).self) { try emulator.loadSnapshot(from: truncated) }
        #expect(try emulator.user(in: "proj", id: "u-alice") != nil)
        #expect(throws: SnapshotError.notFound("/nonexistent/x.sqlite")) { try emulator.loadSnapshot(from: "/nonexistent/x.sqlite") }
    }

    @Test func aSnapshotCutShortInsideItsLastPageOrADirectoryIsRefused() throws {
        let emulator = try makeEmulator()
        let good = temporaryPath("whole.sqlite")
        try emulator.saveSnapshot(to: good)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let cut = temporaryPath("cut.sqlite")
        // SQLite reads the missing byte as zero and its quick_check passes; the size against the header does not.
        try bytes.dropLast().write(to: URL(fileURLWithPath: cut))
        #expect { try emulator.loadSnapshot(from: cut) } throws: { error in
            if case SnapshotError.unreadable(cut, let why) = error { why.contains("cut short") } else { false }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: cut)) == bytes.dropLast())
        try emulator.loadSnapshot(from: good)
        let folder = URL(fileURLWithPath: good).deletingLastPathComponent().path
        #expect(throws: SnapshotError.unreadable(folder, "it is a directory")) { try emulator.loadSnapshot(from: folder) }
    }

    @Test func aSnapshotFromANewerSchemaIsRefused() throws {
        let emulator = try makeEmulator()
        let path = temporaryPath("future.sqlite")
        try emulator.saveSnapshot(to: path)
        // A newer Fauxth's file carries a good checksum: the schema is what refuses it.
        let newer = try makeEmulator()
        try newer.db.withConnection { try $0.execute("PRAGMA user_version = \(Schema.version + 1)") }
        try newer.saveSnapshot(to: path)
        #expect(throws: SnapshotError.newerSchema(path, found: Schema.version + 1, supported: Schema.version)) {
            try emulator.loadSnapshot(from: path)
        }
    }

    /// Fault rules go into a snapshot unless it is taken without them; restoring one with them brings them
    /// back, one without them leaves the rules in force alone.
    @Test func faultRulesTravelWithASnapshotUnlessLeftOut() throws {
        let emulator = try makeEmulator()
        let rule = try emulator.faults.parse(["id": "down", "match": ["operation": "supabase:hook.send_email"],
                                              "effect": ["type": "error", "error": "timeout_error"]])
        emulator.faults.add([rule])
        try emulator.takeSnapshot(named: "with")
        let path = temporaryPath("faults.sqlite")
        try emulator.saveSnapshot(to: path)
        _ = emulator.faults.remove("down")
        try emulator.takeSnapshot(named: "without", faults: false)
        try emulator.restoreSnapshot(named: "with")
        #expect(emulator.faults.rules().map(\.rule.id) == ["down"])
        try emulator.restoreSnapshot(named: "without")
        #expect(emulator.faults.rules().map(\.rule.id) == ["down"])
        emulator.faults.removeAll()
        try emulator.loadSnapshot(from: path)
        #expect(emulator.faults.rules().map(\.rule) == [rule])
    }

    /// A bit flipped inside a record leaves a file SQLite finds sound; its checksum does not match.
    @Test func aFlippedBitInsideARecordIsRefusedAndTheFileLeftAlone() throws {
        let emulator = try makeEmulator()
        let path = temporaryPath("flipped.sqlite")
        try emulator.saveSnapshot(to: path)
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let email = Array("alice@example.com".utf8)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: email) })
        bytes[at] ^= 0x02 // alice → clice
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try emulator.createUser(in: "proj", NewUser(email: "carol@example.com"))
        #expect { try emulator.loadSnapshot(from: path) } throws: { error in
            if case SnapshotError.checksumMismatch(path, let why) = error { why.contains("does not match") } else { false }
        }
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
        #expect(try emulator.user(in: "proj", .email("carol@example.com")) != nil)
        // The same damage without the trailer is a file saved before checksums: SQLite finds it sound, so it loads.
        let old = temporaryPath("old.sqlite")
        try Data(bytes.dropLast(SnapshotTrailer.size)).write(to: URL(fileURLWithPath: old))
        try emulator.loadSnapshot(from: old)
        #expect(try emulator.user(in: "proj", .email("carol@example.com")) == nil)
    }

    @Test func aFileSavedBeforeChecksumsLoadsAndABrokenTrailerIsRefused() throws {
        let emulator = try makeEmulator()
        let path = temporaryPath("v1.sqlite")
        try emulator.saveSnapshot(to: path)
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let old = temporaryPath("before-checksums.sqlite")
        try Data(bytes.dropLast(SnapshotTrailer.size)).write(to: URL(fileURLWithPath: old))
        try emulator.loadSnapshot(from: old)
        #expect(try emulator.user(in: "proj", id: "u-alice") != nil)
        // A trailer whose length is not the image's, and one whose hash was damaged.
        var wrongLength = bytes
        wrongLength[bytes.count - 9] ^= 0x01
        var wrongHash = bytes
        wrongHash[bytes.count - SnapshotTrailer.size] ^= 0x80
        for (name, content) in [("length.sqlite", wrongLength), ("hash.sqlite", wrongHash)] {
            let damaged = temporaryPath(name)
            try Data(content).write(to: URL(fileURLWithPath: damaged))
            #expect { try emulator.loadSnapshot(from: damaged) } throws: { error in
                if case SnapshotError.checksumMismatch(damaged, _) = error { true } else { false }
            }
        }
    }
}

@Suite struct DeterminismTests {
    /// Two runs with the same seed that make the same calls produce the same ids and codes.
    func run(seed: UInt64) throws -> [String] {
        let emulator = try makeEmulator(generatorSeed: seed)
        let user = try emulator.createUser(in: "proj", NewUser(email: "d@example.com", password: "pw"))
        let code = try emulator.issueCode(in: "proj", CodeRequest(userId: user.id, purpose: .otp, channel: .sms, target: "+15555550100", lifetime: 60))
        let session = try emulator.startSession(for: user, method: "password") { $0.lowerAlphanumeric(12) }
        return [user.id, code.code, code.id, session.session.id, session.refreshToken]
    }

    @Test func sameSeedSameIdsCodesAndTokens() throws {
        #expect(try run(seed: 99) == run(seed: 99))
        #expect(try run(seed: 99) != run(seed: 100))
    }
}

@Suite struct MigrationTests {
    @Test func aSnapshotFromAnOlderSchemaIsMigratedOnLoad() throws {
        let path = temporaryPath("v1.sqlite")
        let old = try Database(path: path)
        try old.withConnection { c in
            try c.execute("BEGIN; \(Schema.migrations[0]) PRAGMA user_version = 1; COMMIT;")
            try c.run("INSERT INTO tenants (id, dialect, name, settings, created_at) VALUES ('legacy', 'supabase', 'Legacy', '{}', 0)")
        }
        let emulator = try makeEmulator(seed: Seed())
        try emulator.loadSnapshot(from: path)
        #expect(try emulator.tenants().map(\.id) == ["legacy"])
        #expect(emulator.db.withConnectionVersion() == Schema.version)
        // The migrated tables work: a PKCE flow (schema 2) can be stored.
        let user = try emulator.createUser(in: "legacy", NewUser(email: "l@example.com"))
        try emulator.startFlow(in: "legacy", userId: user.id, challenge: PKCEChallenge(challenge: String(repeating: "a", count: 43), method: .plain),
                               authenticationMethod: "email/signup")
    }

    /// A new store is made from `Schema.current` in one step, a snapshot of any older version through the migrations:
    /// both must end with the same tables, columns in the same order, indexes, keys and event numbering. Statements are
    /// compared with their spacing and quoting evened out (a renamed table's statement is quoted by SQLite).
    @Test func aNewStoreHasTheSchemaTheMigrationsLeave() throws {
        func shape(_ database: Database) throws -> [String] {
            try database.withConnection { c in
                let objects = try c.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").map { row in
                    let sql = (row.string("sql") ?? "").replacingOccurrences(of: "\"", with: "")
                        .split(whereSeparator: \.isWhitespace).joined(separator: " ")
                    return "\(row.string("type") ?? "") \(row.string("name") ?? "") on \(row.string("tbl_name") ?? ""): \(sql)"
                }
                let numbering = try c.query("SELECT name, seq FROM sqlite_sequence ORDER BY name").map { "sequence \($0.string("name") ?? "") \($0.int("seq") ?? -1)" }
                return objects + numbering + ["version \(c.userVersion)"]
            }
        }
        let created = try Database(), migrated = try Database()
        try created.withConnection { try Schema.create($0) }
        try migrated.withConnection { try Schema.migrate($0, source: "test") }
        let expected = try shape(migrated)
        #expect(expected.count > Schema.tenantTables.count)
        #expect(try shape(created) == expected)
    }
}

/// A snapshot file as a build at schema `version` wrote it: the migrations up to it, then the rows `fill` adds.
func snapshotFile(atSchema version: Int, _ fill: (borrowing Connection) throws -> Void) throws -> String {
    let path = temporaryPath("v\(version).sqlite")
    try Database(path: path).withConnection { c in
        for step in 0..<version { try c.execute("BEGIN; \(Schema.migrations[step]) PRAGMA user_version = \(step + 1); COMMIT;") }
        try fill(c)
    }
    return path
}

@Suite struct WriteIndexMigrationTests {
    /// A snapshot at schema 19 loads without the two indexes every sign-in wrote for nothing: its events keep their
    /// numbers and the next one follows the last number handed out, even one trimmed away; its refresh tokens still
    /// refresh, and are still found by hash alone.
    @Test func aSnapshotAtSchema19KeepsItsNumberingAndItsTokens() throws {
        let tokenHash = Emulator.tokenHash("oldrefreshtk")
        let path = try snapshotFile(atSchema: 19) { c in
            try c.run("INSERT INTO tenants (id, dialect, name, settings, created_at) VALUES ('old', 'firebase', 'Old', '{}', 0)")
            try c.run("INSERT INTO users (tenant, id, email, created_at, updated_at) VALUES ('old', 'u-1', 'o@example.com', 0, 0)")
            try c.run("INSERT INTO sessions (tenant, id, user_id, aal, created_at) VALUES ('old', 's-1', 'u-1', 'aal1', 1767225600)")
            try c.run("INSERT INTO refresh_tokens (tenant, token_hash, session_id, created_at) VALUES ('old', ?, 's-1', 1767225600)",
                      [.text(tokenHash)])
            for n in 1...3 { try c.run("INSERT INTO events (id, type, detail, created_at) VALUES (?, 'user.created', '{}', 0)", [.text("e-\(n)")]) }
            // The newest event trimmed away: its number was handed out all the same.
            try c.run("DELETE FROM events WHERE seq = 3")
        }
        let emulator = try AddressUniquenessTests.emulator(unique: UniqueAddresses())
        try emulator.loadSnapshot(from: path)
        #expect(emulator.db.withConnectionVersion() == Schema.version)
        let (eventIndexes, tokenIndexes, numbers) = try emulator.db.withConnection { c in
            (try c.query("PRAGMA index_list(events)").compactMap { $0.string("name") },
             try c.query("PRAGMA index_list(refresh_tokens)").compactMap { $0.string("name") }.sorted(),
             try c.query("SELECT seq FROM events ORDER BY seq").compactMap { $0.int("seq") })
        }
        #expect(eventIndexes.isEmpty)
        #expect(tokenIndexes == ["refresh_tokens_revoked", "refresh_tokens_session", "sqlite_autoindex_refresh_tokens_1"])
        #expect(numbers.prefix(2) == [1, 2])
        #expect(numbers.dropFirst(2).allSatisfy { $0 > 3 }, "\(numbers)")
        #expect(try emulator.tenantOfRefreshToken("oldrefreshtk") == "old")
        #expect(try emulator.continueSession(in: "old", token: "oldrefreshtk", maxAge: nil).user.id == "u-1")
    }
}

@Suite struct IdentityIndexMigrationTests {
    /// A snapshot at schema 20 loads without the identities' (tenant, provider, email) index, which no read needed: a
    /// tenant's accounts at a provider are still listed, oldest first, through the UNIQUE (tenant, provider, subject)
    /// index, and a provider account is still found by its subject. Its credentials move to a table kept in key order
    /// (`WITHOUT ROWID`), every secret with them.
    @Test func aSnapshotAtSchema20ListsAProvidersAccountsWithoutTheEmailIndexAndKeepsItsCredentials() throws {
        let path = try snapshotFile(atSchema: 20) { c in
            try c.run("INSERT INTO tenants (id, dialect, name, settings, created_at) VALUES ('old', 'supabase', 'Old', '{}', 0)")
            for (n, provider) in ["github", "google", "github"].enumerated() {
                try c.run("INSERT INTO users (tenant, id, email, created_at, updated_at) VALUES ('old', ?, ?, 0, 0)",
                          [.text("u-\(n)"), .text("u\(n)@example.com")])
                try c.run("""
                    INSERT INTO identities (tenant, id, user_id, provider, subject, email, created_at, updated_at)
                    VALUES ('old', ?, ?, ?, ?, ?, ?, ?)
                    """, [.text("i-\(n)"), .text("u-\(n)"), .text(provider), .text("sub-\(n)"), .text("u\(n)@example.com"),
                          .double(Double(10 - n)), .double(0)])
                try c.run("INSERT INTO credentials (tenant, user_id, kind, secret, updated_at) VALUES ('old', ?, 'password', ?, ?)",
                          [.text("u-\(n)"), .text("hash-\(n)"), .double(Double(n))])
            }
        }
        let emulator = try AddressUniquenessTests.emulator(unique: UniqueAddresses())
        try emulator.loadSnapshot(from: path)
        #expect(emulator.db.withConnectionVersion() == Schema.version)
        let (indexes, plan) = try emulator.db.withConnection { c in
            (try c.query("PRAGMA index_list(identities)").compactMap { $0.string("name") }.sorted(),
             try c.query("EXPLAIN QUERY PLAN SELECT * FROM identities WHERE tenant = ? AND provider = ? ORDER BY created_at, rowid LIMIT ?",
                         [.text("old"), .text("github"), .int(5)]).compactMap { $0.string("detail") }.joined(separator: "; "))
        }
        #expect(indexes == ["identities_user", "sqlite_autoindex_identities_1", "sqlite_autoindex_identities_2"])
        #expect(plan.contains("INDEX sqlite_autoindex_identities_2 (tenant=? AND provider=?)"), "\(plan)")
        #expect(try emulator.identities(in: "old", provider: "github").map(\.id) == ["i-2", "i-0"])
        #expect(try emulator.user(in: "old", provider: "google", subject: "sub-1")?.id == "u-1")
        let (credentialsTable, secrets) = try emulator.db.withConnection { c in
            (try c.first("SELECT sql FROM sqlite_master WHERE name = 'credentials'")?.string("sql") ?? "",
             try (0..<3).map { try Credentials.secret(c, tenant: "old", userId: "u-\($0)", kind: "password") })
        }
        #expect(credentialsTable.hasSuffix("WITHOUT ROWID"), "\(credentialsTable)")
        #expect(secrets == ["hash-0", "hash-1", "hash-2"])
    }
}

@Suite struct AddressIndexMigrationTests {
    /// A snapshot saved at schema 10, when emails and phones were unique in every tenant, loads: its users
    /// stay, and a tenant whose rule frees addresses can then give one to a second user.
    @Test func aSnapshotAtSchema10LoadsAndItsAddressesFollowTheTenantsRule() throws {
        let path = try snapshotFile(atSchema: 10) { c in
            try c.run("INSERT INTO tenants (id, dialect, name, settings, created_at) VALUES ('us-east-1_Old', 'cognito', 'Old', '{}', 0)")
            try c.run("""
                INSERT INTO users (tenant, id, email, phone, username, created_at, updated_at)
                VALUES ('us-east-1_Old', 'u-1', 'family@example.com', '+15555550199', 'ann', 0, 0)
                """)
        }
        #expect(Schema.version == 25)
        let emulator = try AddressUniquenessTests.emulator(unique: UniqueAddresses())
        try emulator.loadSnapshot(from: path)
        #expect(emulator.db.withConnectionVersion() == Schema.version)
        #expect(try emulator.user(in: "us-east-1_Old", .email("family@example.com"))?.username == "ann")
        let ben = try emulator.createUser(in: "us-east-1_Old", NewUser(email: "family@example.com", phone: "+15555550199", username: "ben"))
        #expect(try emulator.users(in: "us-east-1_Old", having: .phone("+15555550199")).map(\.id) == ["u-1", ben.id])
        // A username is still one user's.
        #expect(throws: AuthError.invalidInput(field: "username", reason: "is taken")) {
            try emulator.createUser(in: "us-east-1_Old", NewUser(username: "ann"))
        }
        let indexes = try emulator.db.withConnection { c in
            try c.query("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN ('users_email', 'users_phone')")
                .map { ($0.string("name") ?? "", $0.string("sql") ?? "") }
        }
        #expect(indexes.count == 2)
        #expect(indexes.allSatisfy { !$0.1.uppercased().contains("UNIQUE") }, "\(indexes)")
    }
}

@Suite struct PKCETests {
    @Test func s256ChallengeMatchesTheRFC7636Example() {
        // RFC 7636 Appendix B.
        let challenge = PKCEChallenge(challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", method: .s256)
        #expect(challenge.isAnswered(by: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
        #expect(!challenge.isAnswered(by: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXl"))
    }

    @Test func anAuthCodeIsSingleUseAndExpires() throws {
        let emulator = try makeEmulator()
        let challenge = PKCEChallenge(challenge: "verifier-verifier-verifier-verifier-verifier", method: .plain)
        try emulator.startFlow(in: "proj", userId: "u-alice", challenge: challenge, authenticationMethod: "magiclink")
        let code = try #require(try emulator.issueAuthCode(in: "proj", userId: "u-alice", authenticationMethod: "magiclink"))
        #expect(throws: AuthError.badCodeVerifier) { try emulator.exchangeAuthCode(in: "proj", code: code, verifier: "wrong", lifetime: 300) }
        let flow = try emulator.exchangeAuthCode(in: "proj", code: code, verifier: challenge.challenge, lifetime: 300)
        #expect(flow.userId == "u-alice" && flow.method == "magiclink")
        #expect(throws: AuthError.flowStateNotFound) { try emulator.exchangeAuthCode(in: "proj", code: code, verifier: challenge.challenge, lifetime: 300) }

        try emulator.startFlow(in: "proj", userId: "u-bob", challenge: challenge, authenticationMethod: "recovery")
        let late = try #require(try emulator.issueAuthCode(in: "proj", userId: "u-bob", authenticationMethod: "recovery"))
        emulator.clock.advance(by: 301)
        #expect(throws: AuthError.flowStateExpired) { try emulator.exchangeAuthCode(in: "proj", code: late, verifier: challenge.challenge, lifetime: 300) }

        // A code is the flow of the link's own kind, and only a magic link's flow runs from its code: a reset's runs
        // from the request, so a link clicked late gives an expired code (GoTrue's FindFlowStateByUserID, IsExpired).
        try emulator.startFlow(in: "proj", userId: "u-carol", challenge: challenge, authenticationMethod: "email/signup")
        emulator.clock.advance(by: 10)
        try emulator.startFlow(in: "proj", userId: "u-carol", challenge: PKCEChallenge(challenge: "another", method: .plain), authenticationMethod: "recovery")
        emulator.clock.advance(by: 301)
        let signup = try #require(try emulator.issueAuthCode(in: "proj", userId: "u-carol", authenticationMethod: "email/signup"))
        #expect(throws: AuthError.flowStateExpired) { try emulator.exchangeAuthCode(in: "proj", code: signup, verifier: challenge.challenge, lifetime: 300) }
        try emulator.startFlow(in: "proj", userId: "u-carol", challenge: challenge, authenticationMethod: "magiclink")
        emulator.clock.advance(by: 301)
        let magic = try #require(try emulator.issueAuthCode(in: "proj", userId: "u-carol", authenticationMethod: "magiclink"))
        #expect(try emulator.exchangeAuthCode(in: "proj", code: magic, verifier: challenge.challenge, lifetime: 300).method == "magiclink")
    }
}

extension Database {
    func withConnectionVersion() -> Int { (try? withConnection { $0.userVersion }) ?? -1 }
}
