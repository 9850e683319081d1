// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Redirect → resume latency of the loopback receiver plugin: the time from the redirect request being
// written to the receiver's socket to the caller awaiting `session.run` resuming. Idle, and under a
// 64-connection junk flood. Run it with `Benchmarks/receiver-latency` (builds in release first).
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
#if canImport(Glibc)
import Glibc
#endif

let iterations = Int(ProcessInfo.processInfo.environment["EUA_BENCH_ITERATIONS"] ?? "") ?? 300
let floodConnections = 64
let state = "bench-state"

func connectLoopback(_ port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    let ok = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    if ok != 0 {
        close(fd)
        return nil
    }
    return fd
}

func sendAll(_ fd: Int32, _ text: String) {
    _ = text.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
}

/// 64 connections that keep sending junk at the current port (bad requests, binary noise, idle opens),
/// driven by one thread with non-blocking sockets and poll(2), as a flooding client elsewhere would be.
final class Flood: @unchecked Sendable {
    private let lock = NSLock()
    private var port = 0
    private var running = true

    func target(_ port: Int) {
        lock.lock()
        self.port = port
        lock.unlock()
    }
    func stop() {
        lock.lock()
        running = false
        lock.unlock()
    }
    private func current() -> (Int, Bool) {
        lock.lock()
        defer { lock.unlock() }
        return (port, running)
    }

    private struct Slot {
        var fd: Int32 = -1
        var sent = false
    }

    func start() {
        Thread.detachNewThread { [self] in
            var slots = [Slot](repeating: Slot(), count: floodConnections)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let (port, running) = current()
                if !running { break }
                if port == 0 {
                    usleep(1000)
                    continue
                }
                for index in slots.indices where slots[index].fd < 0 {
                    slots[index] = Slot(fd: Self.connectNonBlocking(port), sent: false)
                }
                var polls = slots.map { pollfd(fd: $0.fd, events: Int16(POLLIN | POLLOUT), revents: 0) }
                guard poll(&polls, nfds_t(polls.count), 10) > 0 else { continue }
                for index in slots.indices {
                    let events = Int32(polls[index].revents)
                    let fd = slots[index].fd
                    if fd < 0 { continue }
                    if events & Int32(POLLERR | POLLHUP) != 0 {
                        close(fd)
                        slots[index].fd = -1
                        continue
                    }
                    if events & Int32(POLLOUT) != 0, !slots[index].sent {
                        switch index % 3 {
                        case 0: sendAll(fd, "GET /junk?code=x&state=wrong HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
                        case 1: sendAll(fd, String(repeating: "\u{1}\u{7f}junk", count: 200))
                        default: break  // held open, idle, until the receiver drops it
                        }
                        slots[index].sent = true
                    }
                    if events & Int32(POLLIN) != 0, recv(fd, &buffer, buffer.count, 0) <= 0 {
                        close(fd)
                        slots[index].fd = -1
                    }
                }
            }
            for slot in slots where slot.fd >= 0 { close(slot.fd) }
        }
    }

    private static func connectNonBlocking(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return fd
    }
}

/// An agent that presents nothing and notes when the session dismisses it: the moment the session
/// completed and began its clean-up (dismiss comes before the receiver is stopped).
final class DismissClock: ExternalUserAgent, @unchecked Sendable {
    let descriptor = AgentDescriptor(id: "bench", kind: .testDouble)
    private let lock = NSLock()
    private var dismissedAt: ContinuousClock.Instant?
    func present(_ request: AgentRequest, session: ExternalUserAgentSession) async throws {}
    func dismiss() async { lock.withLock { dismissedAt = .now } }
    var dismissed: ContinuousClock.Instant? {
        lock.lock()
        defer { lock.unlock() }
        return dismissedAt
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

/// Each redirect's latency to `run` returning, and to the session completing; both sorted.
func measure(flood: Flood?, receiver entry: PluginReceiverEntry) async throws -> (
    resumed: [Double], completed: [Double]
) {
    var samples: [Double] = []
    var completionSamples: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<iterations {
        let agent = DismissClock()
        let session = ExternalUserAgentSession(
            agent: agent, receiver: entry.makeReceiver(),
            configuration: .init(expectedState: state, timeout: .seconds(30)))
        let running = Task { try await session.run { $0 } }
        while session.redirectURI == nil { try await Task.sleep(for: .microseconds(200)) }
        let uri = session.redirectURI!
        flood?.target(uri.port!)
        try await Task.sleep(for: .milliseconds(flood == nil ? 1 : 20))
        guard let fd = connectLoopback(uri.port!) else { throw CocoaError(.fileReadUnknown) }
        let request = "GET \(uri.path)?code=c&state=\(state) HTTP/1.1\r\nHost: 127.0.0.1:\(uri.port!)\r\n\r\n"
        let start = clock.now
        sendAll(fd, request)
        _ = try await running.value
        let elapsed = clock.now - start
        close(fd)
        samples.append(milliseconds(elapsed))
        if let dismissed = agent.dismissed { completionSamples.append(milliseconds(dismissed - start)) }
    }
    return (samples.sorted(), completionSamples.sorted())
}

let folder = PluginSearchPath.executableDirectory() ?? "."
let catalog = PluginLoader(searchPath: PluginSearchPath(folders: [folder])).load()
guard let entry = catalog.receiver(id: "loopback") else {
    FileHandle.standardError.write(
        Data("libEUALoopback.so not found next to this program (\(folder)); build it first\n".utf8))
    exit(2)
}
_ = try await measure(flood: nil, receiver: entry)  // warm-up
let (idle, idleCompletion) = try await measure(flood: nil, receiver: entry)
let flood = Flood()
flood.start()
let (flooded, floodCompletion) = try await measure(flood: flood, receiver: entry)
flood.stop()

let rows: [(String, [Double], Double)] = [("idle", idle, 2), ("64-connection junk flood", flooded, 10)]
print("redirect → resume latency, \(iterations) redirects each (ms)")
print("condition                 p50      p99      target p99")
var measures: [String] = []
for (name, samples, target) in rows {
    let p50 = percentile(samples, 0.50)
    let p99 = percentile(samples, 0.99)
    print(
        name.padding(toLength: 24, withPad: " ", startingAt: 0),
        String(format: "%7.3f  %7.3f  ≤ %.0f %@", p50, p99, target, p99 <= target ? "met" : "MISSED"))
    let key = name == "idle" ? "redirect_resume_idle" : "redirect_resume_flood"
    measures.append(
        String(
            format:
                "{\"name\":\"%@_p50\",\"ours\":%.4f,\"unit\":\"ms\"},{\"name\":\"%@_p99\",\"ours\":%.4f,\"target\":%.0f,\"unit\":\"ms\"}",
            key, p50, key, p99, target))
}
print(
    "of which: redirect written → session completed (the agent is dismissed), p50/p99 ms: idle "
        + String(format: "%.3f/%.3f", percentile(idleCompletion, 0.5), percentile(idleCompletion, 0.99))
        + ", flood " + String(format: "%.3f/%.3f", percentile(floodCompletion, 0.5), percentile(floodCompletion, 0.99)))
print("{\"measures\":[\(measures.joined(separator: ","))]}")
