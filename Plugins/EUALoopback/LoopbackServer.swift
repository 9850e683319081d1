// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import CExternalUserAgentNet
import ExternalUserAgentPluginKit
import ExternalUserAgentNet

/// One flow's loopback listener at work: a `poll()` loop on a thread of its own over the listening
/// sockets, the accepted connections and the stop signal. No other thread touches its state.
///
/// One-shot: the first valid redirect closes the listeners at once; its reply is still written out.
final class LoopbackServer {
    let options: LoopbackOptions
    let validation: CallbackValidation
    private var listeners: LoopbackListeners
    private var registry: ConnectionRegistry
    private let stop: StopSignal
    private let events: PluginEvents
    /// The first valid redirect has been answered.
    private var completed = false
    /// Set once stopping (cancelled or completed): the connection still replying must be done by then.
    private var cutOff: ContinuousClock.Instant?
    /// After running out of descriptors, accepting waits until then.
    private var acceptPausedUntil: ContinuousClock.Instant?
    /// The form served once before the redirect (`hand_off`), until it has been.
    private var handOff: PluginABI.HandOff?

    /// How long the reply to a request may take to be written and read, and how long stopping waits for it.
    static let replyTime = Duration.seconds(2)

    private init(
        options: LoopbackOptions, listeners: LoopbackListeners, expectedState: String?,
        handOff: PluginABI.HandOff?, stop: StopSignal, events: PluginEvents
    ) {
        self.handOff = handOff
        self.options = options
        self.listeners = listeners
        self.validation = CallbackValidation(
            path: listeners.path, port: listeners.port, expectedState: expectedState,
            signOut: options.signOut)
        self.registry = ConnectionRegistry(capacity: options.maxConnections)
        self.stop = stop
        self.events = events
    }

    /// The whole life of one flow's listener, on the calling thread: binds, says `listening`, serves until
    /// the redirect is answered or `stop` is raised, closes everything, and says `finished` (or `failed`).
    static func run(
        options: LoopbackOptions, expectedState: String?, handOff: PluginABI.HandOff? = nil, stop: StopSignal,
        events: PluginEvents
    ) {
        var listeners: LoopbackListeners
        do {
            listeners = try LoopbackListeners.bind(options: options)
        } catch {
            events.failed(.receiverFailed, "loopback receiver: \(error.message)")
            return
        }
        guard !stop.isRaised else {
            listeners.close()
            events.finished()
            return
        }
        PluginHost.log(.debug, "loopback receiver listening at \(listeners.redirectURI)")
        events.listening(redirectURI: listeners.redirectURI)
        let server = LoopbackServer(
            options: options, listeners: listeners, expectedState: expectedState,
            handOff: handOff, stop: stop, events: events)
        if let failure = server.serve() {
            events.failed(.receiverFailed, "loopback receiver: \(failure)")
        } else {
            events.finished()
        }
    }

    /// The `poll()` loop; returns when everything is closed (`nil`), or the error that ended it.
    private func serve() -> SocketError? {
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var entries: [pollfd] = []
        var ids: [Int] = []
        defer {
            listeners.close()
            registry.removeAll()
        }
        while !isDone {
            entries.removeAll(keepingCapacity: true)
            ids.removeAll(keepingCapacity: true)
            if let pause = acceptPausedUntil, pause <= .now { acceptPausedUntil = nil }
            let watchesStop = cutOff == nil
            if watchesStop { entries.append(pollfd(fd: stop.descriptor, events: Int16(POLLIN), revents: 0)) }
            let listening = acceptPausedUntil == nil ? listeners.descriptors : []
            for fd in listening { entries.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            for (id, connection) in registry.connections {
                entries.append(pollfd(fd: connection.fd, events: connection.pollEvents, revents: 0))
                ids.append(id)
            }
            if poll(&entries, nfds_t(entries.count), pollTimeout()) < 0 {
                guard errno == EINTR else { return SocketError("poll") }
                continue
            }
            var index = 0
            if watchesStop {
                if entries[0].revents != 0 || stop.isRaised { beginStopping() }
                index = 1
            }
            let readyListeners = listening.indices.filter { entries[index + $0].revents != 0 }.map { listening[$0] }
            index += listening.count
            for (offset, id) in ids.enumerated() where entries[index + offset].revents != 0 {
                service(id, using: &scratch)
            }
            if cutOff == nil {
                for fd in readyListeners { accept(on: fd) }
            }
            expire()
        }
        return nil
    }

    /// Stopping, and every reply still open is written out: what a client sends after it is not waited for
    /// (on loopback the reply is already in its receive queue, which a reset does not empty).
    private var isDone: Bool {
        cutOff != nil && registry.connections.values.allSatisfy { $0.phase == .lingering }
    }

    /// Milliseconds until the nearest deadline (a connection's, the cut-off, the end of an accept pause).
    private func pollTimeout() -> Int32 {
        var nearest = registry.connections.values.map(\.deadline).min()
        for instant in [cutOff, acceptPausedUntil].compactMap({ $0 }) where nearest.map({ instant < $0 }) ?? true {
            nearest = instant
        }
        return nearest.map(Deadline.pollTimeout(until:)) ?? -1
    }

    /// Accepts what is waiting on `listener` (a bounded batch; the rest comes with the next round).
    private func accept(on listener: Int32) {
        for _ in 0..<64 {
            let fd = eua_net_accept(listener)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors or memory: let connections finish before taking more.
                    PluginHost.log(.warning, "loopback receiver: \(SocketError("accept")); pausing for 100 ms")
                    acceptPausedUntil = .now + .milliseconds(100)
                    return
                default:
                    return
                }
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let deadline = ContinuousClock.now + .milliseconds(options.requestTimeoutMilliseconds)
            _ = registry.admit(Connection(id: registry.makeID(), fd: fd, deadline: deadline))
        }
    }

    /// Reads from or writes to connection `id`, as its phase asks.
    private func service(_ id: Int, using scratch: inout [UInt8]) {
        guard let connection = registry.connections[id] else { return }
        if connection.phase == .writing {
            if !connection.write() { registry.remove(id) }
            return
        }
        switch connection.read(using: &scratch) {
        case .waiting:
            return
        case .close:
            registry.remove(id)
        case .answer(let outcome):
            let reply = answer(outcome, on: connection)
            guard registry.connections[id] != nil else { return }
            connection.startReply(reply, deadline: .now + Self.replyTime)
            if !connection.write() { registry.remove(id) }
        }
    }

    /// Closes connections whose time is up; once the cut-off has passed, all of them.
    private func expire() {
        let now = ContinuousClock.now
        if let cutOff, cutOff <= now {
            registry.removeAll()
            return
        }
        for connection in registry.connections.values where connection.deadline <= now {
            registry.remove(connection.id)
        }
    }

    /// Stops taking connections and closes all but the one replying to the redirect, which gets until the cut-off.
    private func beginStopping() {
        guard cutOff == nil else { return }
        cutOff = .now + Self.replyTime
        listeners.close()
        registry.removeAllButResponding()
    }

    /// Called with a valid redirect's query: `true` for the first one only, which closes the listeners
    /// (and every other connection) at once and hands the callback URL on.
    func complete(query: String, on connection: Connection) -> Bool {
        guard !completed else { return false }
        completed = true
        connection.isResponding = true
        beginStopping()
        let url = query.isEmpty ? listeners.redirectURI : listeners.redirectURI + "?" + query
        events.callback(url)
        PluginHost.log(.debug, "loopback receiver: redirect accepted; listeners closed")
        return true
    }

    /// The hand-off page when `head` asks for it (GET at its path, to a loopback host): served once, then gone.
    func handOffReply(to head: HTTPRequestHead) -> [UInt8]? {
        guard let form = handOff, head.method == "GET", head.target == form.path,
            validation.isLoopbackHost(head.hostValues)
        else { return nil }
        handOff = nil
        PluginHost.log(.debug, "loopback receiver: served the one-time hand-off page")
        return HandOffPage.reply(form, redirectURI: listeners.redirectURI)
    }

    /// Reports a request turned away while the flow still waits (none after the redirect).
    func refused(status: HTTPStatus, reason: String) {
        guard !completed else { return }
        events.refused(status: status.code, reason: reason)
    }
}
