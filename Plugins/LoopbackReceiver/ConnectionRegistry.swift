import NIOCore
import Synchronization

/// The live connections of one listener, so a flood cannot crowd out the real redirect:
/// at capacity, the oldest connection that has not yet sent a request head is dropped.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let channel: any Channel
        var hasHead = false
        var responding = false
    }

    private struct State {
        var next = 0
        var entries: [Int: Entry] = [:]
        var closed = false
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Registers `channel`; returns its id, or `nil` when the registry is closed (refuse it).
    func admit(_ channel: any Channel) -> Int? {
        let (id, evicted) = state.withLock { state -> (Int?, (any Channel)?) in
            guard !state.closed else { return (nil, nil) }
            var evicted: (any Channel)?
            if state.entries.count >= capacity {
                let victim = state.entries.filter { !$0.value.hasHead }.min { $0.key < $1.key }
                    ?? state.entries.filter { !$0.value.responding }.min { $0.key < $1.key }
                if let victim {
                    evicted = victim.value.channel
                    state.entries.removeValue(forKey: victim.key)
                }
            }
            defer { state.next += 1 }
            state.entries[state.next] = Entry(channel: channel)
            return (state.next, evicted)
        }
        evicted?.close(promise: nil)
        return id
    }

    func headArrived(_ id: Int) {
        state.withLock { $0.entries[id]?.hasHead = true }
    }

    /// Marks the connection carrying the accepted redirect: shutdown lets its reply finish.
    func responding(_ id: Int) {
        state.withLock { $0.entries[id]?.responding = true }
    }

    func remove(_ id: Int) {
        state.withLock { _ = $0.entries.removeValue(forKey: id) }
    }

    /// Refuses new connections, closes all but the one answering the redirect, and returns every
    /// remaining connection's close future.
    func closeAll() -> [EventLoopFuture<Void>] {
        let entries = state.withLock { state -> [Entry] in
            state.closed = true
            return Array(state.entries.values)
        }
        for entry in entries where !entry.responding {
            entry.channel.close(promise: nil)
        }
        return entries.map(\.channel.closeFuture)
    }

    /// Closes every connection still open, the responding one included.
    func forceCloseAll() {
        let channels = state.withLock { $0.entries.values.map(\.channel) }
        for channel in channels { channel.close(promise: nil) }
    }
}
