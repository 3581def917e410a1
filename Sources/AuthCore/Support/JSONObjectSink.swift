/// Where a JSON object's members go, so one function describes a shape (a user, a session) and both a `JSON` value and
/// the bytes of an answer come from it.
///
/// A shape adds its members in the order of their keys (`String`'s `<`, which is byte order for the ASCII keys the
/// vendors use): `JSONObjectWriter` writes them as they come, with no dictionary to build, hash or sort; a sign-in's
/// answer spent a tenth of its instructions on those (callgrind, `scripts/bench --instructions`). The writer checks the
/// order in debug builds, and its bytes are then `JSON.serializedBytes()` of what `JSONObjectBuilder` builds.
public protocol JSONObjectSink {
    /// A member whose value is already JSON (free-form metadata, a number, a string).
    mutating func member(_ key: String, _ value: JSON)
    /// A member that is an object of its own shape, which `body` adds in key order.
    mutating func object(_ key: String, _ body: (inout Self) -> Void)
    /// A member that is an array of objects, each of `items` described by `body`.
    mutating func objects<Items: Sequence>(_ key: String, _ items: Items, _ body: (inout Self, Items.Element) -> Void)
}

extension JSONObjectSink {
    /// A member present only when `value` is, as GoTrue's `omitempty` leaves unset fields out.
    public mutating func member(_ key: String, ifPresent value: JSON?) {
        if let value { member(key, value) }
    }
}

/// Builds the members as a dictionary, for a shape used as a `JSON` value (a hook's payload, an admin answer).
public struct JSONObjectBuilder: JSONObjectSink {
    public private(set) var members: [String: JSON] = [:]

    public init() {}

    /// What `shape` adds, as an object.
    public static func object(_ shape: (inout JSONObjectBuilder) -> Void) -> JSON { .object(members(shape)) }

    /// What `shape` adds, as an object's members (claims a hook may change).
    public static func members(_ shape: (inout JSONObjectBuilder) -> Void) -> [String: JSON] {
        var builder = JSONObjectBuilder()
        shape(&builder)
        return builder.members
    }

    public mutating func member(_ key: String, _ value: JSON) { members[key] = value }

    public mutating func object(_ key: String, _ body: (inout JSONObjectBuilder) -> Void) {
        members[key] = Self.object(body)
    }

    public mutating func objects<Items: Sequence>(_ key: String, _ items: Items, _ body: (inout JSONObjectBuilder, Items.Element) -> Void) {
        members[key] = .array(items.map { item in Self.object { body(&$0, item) } })
    }
}

/// Writes the members as compact JSON text as they are added: the same bytes `JSON.serializedBytes()` makes of the
/// builder's object, without the object.
public struct JSONObjectWriter: JSONObjectSink {
    @usableFromInline var bytes: [UInt8] = []
    /// Whether the object being written has no member yet (no comma before the next).
    @usableFromInline var empty = true
    #if DEBUG
    /// The object's last key, to catch a shape that adds out of order (the text would still be JSON, but not the
    /// sorted text every other answer is).
    @usableFromInline var lastKey: String?
    #endif

    /// An object's writer; `capacity` is room for the answer at once rather than doubling up to it.
    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// The object's text, closed.
    public consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// What `shape` adds, as the text of an object.
    public static func bytes(capacity: Int = 1024, _ shape: (inout JSONObjectWriter) -> Void) -> [UInt8] {
        var writer = JSONObjectWriter(capacity: capacity)
        shape(&writer)
        return writer.finish()
    }

    public mutating func member(_ key: String, _ value: JSON) {
        write(key)
        JSONCodec.write(value, into: &bytes)
    }

    public mutating func object(_ key: String, _ body: (inout JSONObjectWriter) -> Void) {
        write(key)
        nested(body)
    }

    /// Inlinable, so a shape in another module iterates its own array specialised rather than through `Sequence`'s
    /// witnesses.
    @inlinable
    public mutating func objects<Items: Sequence>(_ key: String, _ items: Items, _ body: (inout JSONObjectWriter, Items.Element) -> Void) {
        write(key)
        bytes.append(UInt8(ascii: "["))
        var first = true
        for item in items {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            nested { body(&$0, item) }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// An object inside this one: its members start without a comma, and this object's state comes back after it.
    @usableFromInline
    mutating func nested(_ body: (inout JSONObjectWriter) -> Void) {
        let outerEmpty = empty
        #if DEBUG
        let outerKey = lastKey
        lastKey = nil
        defer { lastKey = outerKey }
        #endif
        empty = true
        bytes.append(UInt8(ascii: "{"))
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        empty = outerEmpty
    }

    @usableFromInline
    mutating func write(_ key: String) {
        #if DEBUG
        if let lastKey { precondition(lastKey < key, "JSON member \"\(key)\" added after \"\(lastKey)\": a shape adds its keys in order") }
        lastKey = key
        #endif
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        JSONCodec.string(key, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }
}
