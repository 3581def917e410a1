#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// IP address literals, read as Go's `net.ParseIP` reads them (dotted-quad IPv4 without leading zeros, or IPv6),
/// for the vendors' rules that treat an address differently from a host name.
public enum IPAddress {
    /// Whether `text` is a loopback address (127.0.0.0/8, `::1`, or an IPv4-mapped 127 address); nil when it is no
    /// IP address at all.
    public static func isLoopback(_ text: String) -> Bool? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { $0[0] == 127 }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        return withUnsafeBytes(of: &v6) { bytes in
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            if mapped { return bytes[12] == 127 }
            return bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
        }
    }
}
