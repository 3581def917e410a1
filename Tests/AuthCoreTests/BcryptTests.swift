import AuthCore
import Testing

/// Vectors made with the Python `bcrypt` package (pyca) and OpenWall's crypt_blowfish test suite.
@Suite struct BcryptTests {
    @Test(arguments: [
        ("", "$2b$04$j5n8s8lKqLPuRRwSzQK6lOrmKHCccFSH7XmTHzTe9Xgpsg6Iy3TMS"),
        ("password123", "$2b$04$/38xmF/uz8yh1QOoIh5j1ONZI6kjmNCbT5ke/0Tv.6t43oNI.kVS."),
        ("U*U", "$2b$05$t8b395Xih2LON0YtftIIA.GcGJQ6RcHapsmqh9BOvHim67hLE4wsu"),
        ("U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"),
        ("€ uro", "$2b$04$PUAadLNSBfQf1J4iOL5fwetKVUMcf3tBv1ZCxsBU66fYFQ8Pn4JMy"),
        ("password123", "$2y$04$abcdefghijklmnopqrstuuK7Sjs7rFYArh/ytIZsOeM/z4RV2Fw2i"),
    ])
    func knownHashesMatchTheirPassword(password: String, hash: String) {
        #expect(Bcrypt.verify(password, against: hash))
        #expect(!Bcrypt.verify(password + "x", against: hash))
        #expect(PasswordHasher().verify(password, against: hash))
    }

    @Test func malformedHashesNeverMatch() {
        for bad in ["", "$2b$04$short", "$2x$04$j5n8s8lKqLPuRRwSzQK6lOrmKHCccFSH7XmTHzTe9Xgpsg6Iy3TMS",
                    "$2b$03$j5n8s8lKqLPuRRwSzQK6lOrmKHCccFSH7XmTHzTe9Xgpsg6Iy3TMS", "$2b$04$j5n8s8lKqLPuRRwSzQK6lOrmKHCccFSH7XmTHzTe9Xgpsg6Iy3TM!"] {
            #expect(Bcrypt.Hash(bad) == nil)
            #expect(!Bcrypt.verify("", against: bad))
        }
        #expect(Bcrypt.Hash("$2b$04$j5n8s8lKqLPuRRwSzQK6lOrmKHCccFSH7XmTHzTe9Xgpsg6Iy3TMS")?.cost == 4)
    }
}
