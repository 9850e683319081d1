// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif

/// Whether IPv4 and IPv6 loopback can be bound here, found by binding port 0 once (no subprocess).
struct LoopbackAvailability {
    var ipv4: Bool
    var ipv6: Bool

    var reasons: [String] {
        var reasons: [String] = []
        if !ipv4 { reasons.append("127.0.0.1 cannot be bound (no IPv4 loopback)") }
        if !ipv6 { reasons.append("[::1] cannot be bound (no IPv6 loopback); IPv4 only") }
        return reasons
    }

    static func probe() -> LoopbackAvailability {
        LoopbackAvailability(ipv4: canBind(family: AF_INET), ipv6: canBind(family: AF_INET6))
    }

    static func canBind(family: Int32) -> Bool {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if family == AF_INET6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
                }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
