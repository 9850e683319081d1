#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The listening sockets of one flow: 127.0.0.1 and (when it exists) [::1] on the same port.
/// One-shot: the first valid redirect closes the listeners at once.
final class LoopbackServer: Sendable {
    let options: LoopbackOptions
    let validation: CallbackValidation
    let registry: ConnectionRegistry
    /// The redirect URI this server answers.
    let redirectURI: String
    private let listeners: Mutex<[any Channel]>
    private let completion = Mutex<(@Sendable (String) -> Void)?>(nil)
    private let refusal = Mutex<(@Sendable (Int, String) -> Void)?>(nil)
    private let completed = Mutex(false)

    private init(options: LoopbackOptions, validation: CallbackValidation, redirectURI: String) {
        self.options = options
        self.validation = validation
        self.registry = ConnectionRegistry(capacity: options.maxConnections)
        self.redirectURI = redirectURI
        self.listeners = Mutex([])
    }

    struct StartFailure: Error {
        var message: String
    }

    /// Binds the listeners; `onCallback` gets the callback URL of the first valid redirect, and
    /// `onRefused` the status and fixed reason of each request turned away before it.
    static func start(options: LoopbackOptions, expectedState: String?,
                      onRefused: @escaping @Sendable (Int, String) -> Void = { _, _ in },
                      onCallback: @escaping @Sendable (String) -> Void) async throws -> LoopbackServer {
        let path = options.path ?? LoopbackOptions.randomPath()
        let availability = LoopbackAvailability.probe()
        let wantIPv6 = options.ipv6 != .false && availability.ipv6
        if options.ipv6 == .true && !availability.ipv6 {
            throw StartFailure(message: "ipv6=true, but [::1] cannot be bound on this machine; use ipv6=auto or false")
        }
        guard availability.ipv4 || options.ipv6 == .true else {
            throw StartFailure(message: "127.0.0.1 cannot be bound on this machine (no IPv4 loopback)")
        }
        let candidates: [Int] = options.ports.map { Array($0) } ?? [0, 0, 0]
        var lastError = ""
        for candidate in candidates {
            var bound: [any Channel] = []
            do {
                let primaryHost = options.ipv6 == .true ? "::1" : "127.0.0.1"
                // The server object is needed by the child handlers before the port is known.
                let holder = ServerHolder()
                let primary = try await bind(host: primaryHost, port: candidate, holder: holder)
                bound.append(primary)
                guard let port = primary.localAddress?.port else { throw StartFailure(message: "no local port") }
                if wantIPv6 || options.ipv6 == .true {
                    let secondHost = primaryHost == "::1" ? "127.0.0.1" : "::1"
                    do {
                        bound.append(try await bind(host: secondHost, port: port, holder: holder))
                    } catch let error as IOError where error.errnoCode == EADDRINUSE {
                        // Someone holds this port on the other family: try the next candidate port.
                        throw error
                    } catch {
                        // The other family is not usable here: one loopback family alone is fine.
                    }
                }
                let uriHost = options.ipv6 == .true ? "[::1]" : "127.0.0.1"
                let server = LoopbackServer(
                    options: options,
                    validation: CallbackValidation(path: path, port: port, expectedState: expectedState),
                    redirectURI: "http://\(uriHost):\(port)\(path)")
                server.completion.withLock { $0 = onCallback }
                server.refusal.withLock { $0 = onRefused }
                server.listeners.withLock { $0 = bound }
                holder.server.withLock { $0 = server }
                return server
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                for channel in bound { try? await channel.close() }
                lastError = "port \(candidate) is already in use"
                continue
            } catch let error as StartFailure {
                for channel in bound { try? await channel.close() }
                throw error
            } catch {
                for channel in bound { try? await channel.close() }
                throw StartFailure(message: "could not listen on the loopback interface: \(error)")
            }
        }
        if let range = options.ports {
            let what = range.count == 1 ? "port \(range.lowerBound) is already in use" : "every port from \(range.lowerBound) to \(range.upperBound) is in use"
            throw StartFailure(message: "\(what) on 127.0.0.1; stop the program holding it or choose another port (--port / --port-range)")
        }
        throw StartFailure(message: "could not get a free loopback port: \(lastError)")
    }

    private static func bind(host: String, port: Int, holder: ServerHolder) async throws -> any Channel {
        let socket = try LoopbackSocket.listen(host: host, port: port)
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard let server = holder.server.withLock({ $0 }) else {
                    return channel.close()
                }
                return server.accept(channel)
            }
            .withBoundSocket(socket)
            .get()
    }

    /// Sets up one accepted connection, or refuses it once the server has shut down.
    private func accept(_ channel: any Channel) -> EventLoopFuture<Void> {
        guard let id = registry.admit(channel) else {
            return channel.close()
        }
        let deadline = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(options.requestTimeoutMilliseconds))) {
            channel.close(promise: nil)
        }
        channel.closeFuture.whenComplete { [registry] _ in
            deadline.cancel()
            registry.remove(id)
        }
        return channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(RequestSizeLimiter(limit: LoopbackOptions.maxHeadBytes) { [self] reason in
                refused(status: 431, reason: reason)
            })
            try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
            try sync.addHandler(HTTPResponseEncoder())
            try sync.addHandler(CallbackHandler(server: self, connectionID: id))
        }
    }

    /// Called by the handler with a valid redirect's query: `true` for the first one only, which
    /// closes the listeners at once and hands the callback URL on.
    func complete(query: String, connectionID: Int) -> Bool {
        let first = completed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return false }
        registry.responding(connectionID)
        closeListeners()
        // Every other connection can go now: the flow is over, and stop() then has little left to wait for.
        _ = registry.closeAll()
        let url = query.isEmpty ? redirectURI : redirectURI + "?" + query
        completion.withLock { $0 }?(url)
        return true
    }

    /// Reports a request turned away while the flow still waits (none after the redirect).
    func refused(status: Int, reason: String) {
        guard !completed.withLock({ $0 }) else { return }
        refusal.withLock { $0 }?(status, reason)
    }

    /// Closes the listening sockets (again is harmless).
    private func closeListeners() {
        for channel in listeners.withLock({ $0 }) { channel.close(promise: nil) }
    }

    /// Closes everything; the connection answering the redirect may finish its reply (bounded).
    func shutdown() async {
        let listenersClosing = listeners.withLock { $0.map(\.closeFuture) }
        closeListeners()
        let connections = registry.closeAll()
        // A reply that cannot be written in two seconds (a client that stopped reading) is cut off.
        let registry = self.registry
        let cutOff = Task {
            try await Task.sleep(for: .seconds(2))
            registry.forceCloseAll()
        }
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        try? await EventLoopFuture.andAllComplete(listenersClosing + connections, on: loop).get()
        cutOff.cancel()
    }
}

/// Lets child channel initialisers reach the server object created after the first bind.
private final class ServerHolder: Sendable {
    let server = Mutex<LoopbackServer?>(nil)
}
