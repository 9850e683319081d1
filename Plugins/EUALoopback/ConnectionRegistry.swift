// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The live connections of one listener, so a flood cannot crowd out the real redirect: at capacity,
/// the oldest connection that has not yet sent a request head is dropped (else the oldest that is not
/// answering the redirect). Owned by the serve loop's thread.
struct ConnectionRegistry {
    private(set) var connections: [Int: Connection] = [:]
    private var next = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The id the next connection gets (ids grow in accept order).
    mutating func makeID() -> Int {
        defer { next += 1 }
        return next
    }

    /// Registers `connection`; returns the one dropped to make room (the caller closes it by releasing it).
    mutating func admit(_ connection: Connection) -> Connection? {
        var evicted: Connection?
        if connections.count >= capacity {
            let victim =
                connections.values.filter { !$0.hasHead }.min { $0.id < $1.id }
                ?? connections.values.filter { !$0.isResponding }.min { $0.id < $1.id }
            if let victim { evicted = connections.removeValue(forKey: victim.id) }
        }
        connections[connection.id] = connection
        return evicted
    }

    /// Drops `id`; releasing the connection closes its socket.
    @discardableResult
    mutating func remove(_ id: Int) -> Connection? {
        connections.removeValue(forKey: id)
    }

    /// Drops every connection but the one answering the redirect.
    mutating func removeAllButResponding() {
        connections = connections.filter { $0.value.isResponding }
    }

    mutating func removeAll() {
        connections = [:]
    }
}
