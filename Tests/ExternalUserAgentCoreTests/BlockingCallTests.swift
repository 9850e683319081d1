// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem
import Foundation
import Synchronization
import Testing

/// Blocking calls reuse finished threads, yet each call still gets a thread of its own at once: a call that never
/// returns delays no other call; its waiter is released at the deadline, blocking or suspended.
@Suite("Blocking calls", .timeLimit(.minutes(1)))
struct BlockingCallTests {
    /// The kernel's id of the calling thread: unlike pthread_self(), not reused at once.
    static func threadID() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "?"
    }

    @Test("calls one after another run on one thread, not one new thread each")
    func reuse() async throws {
        let threads = BlockingThreads()
        var seen = Set<String>()
        for _ in 0..<20 {
            let call = try BlockingCall.start(on: threads) { Self.threadID() }
            seen.insert(await call.value())
            // The thread offers itself as idle right after its call: give it that moment.
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(seen.count <= 2, "20 calls in a row used \(seen.count) threads")
    }

    @Test("a call that never returns holds only its own thread: the next call runs at once beside it")
    func hungCallDelaysNothing() async throws {
        let threads = BlockingThreads()
        let never = DispatchSemaphore(value: 0)
        defer { never.signal() }
        let hung = try BlockingCall.start(on: threads) { never.wait() }
        let next = try BlockingCall.start(on: threads) { 42 }
        guard case .returned(let value) = await next.value(timeout: .seconds(5)) else {
            Issue.record("the second call waited behind the hung one")
            return
        }
        #expect(value == 42)
        #expect(!hung.hasReturned)
    }

    @Test("calls made together run together, each on its own thread")
    func concurrentCalls() async throws {
        let threads = BlockingThreads()
        let count = 8
        let arrived = Atomic(0)
        let release = DispatchSemaphore(value: 0)
        var calls: [BlockingCall<Void>] = []
        for _ in 0..<count {
            calls.append(
                try BlockingCall.start(on: threads) {
                    arrived.add(1, ordering: .relaxed)
                    release.wait()
                })
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while arrived.load(ordering: .relaxed) < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(
            arrived.load(ordering: .relaxed) == count,
            "only \(arrived.load(ordering: .relaxed)) of \(count) calls ran at the same time")
        for _ in 0..<count { release.signal() }
        for call in calls { await call.value() }
    }

    @Test("at the deadline the waiter is released, suspended or blocking, and the call runs on to its end")
    func deadline() async throws {
        let finish = DispatchSemaphore(value: 0)
        let call = try BlockingCall.start { () -> String in
            finish.wait()
            return "late"
        }
        let started = ContinuousClock.now
        guard case .timedOut = await call.value(timeout: .milliseconds(200)) else {
            Issue.record("the suspended waiter was not released at the deadline")
            return
        }
        #expect(ContinuousClock.now - started < .seconds(3))
        let blocking = try BlockingCall.start { call.wait(timeout: .milliseconds(300)) }
        #expect(await blocking.value() == nil, "the blocking waiter was not released at the deadline")
        #expect(!call.hasReturned)
        finish.signal()
        #expect(await call.value() == "late")
        #expect(call.wait(timeout: .zero) == "late", "a returned call's value is there for any later waiter")
    }

    @Test("a cancelled waiter is released at once with cancelled")
    func cancellation() async throws {
        let finish = DispatchSemaphore(value: 0)
        defer { finish.signal() }
        let call = try BlockingCall.start { finish.wait() }
        let waiter = Task { await call.value(timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        let started = ContinuousClock.now
        guard case .cancelled = await waiter.value else {
            Issue.record("the cancelled waiter was not released as cancelled")
            return
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("run(_:) passes on what the work returns or throws")
    func runThrows() async throws {
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await BlockingCall<Int>.run { throw Refused() } }
        #expect(try await BlockingCall.run { 7 } == 7)
    }

    @Test("a named call's thread carries its name")
    func naming() async throws {
        let name = try await BlockingCall.start(name: "eua-test-name-long") {
            (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        }.value()
        #expect(name.trimmingCharacters(in: .whitespacesAndNewlines) == "eua-test-name-l")
    }
}
