@testable import ExternalUserAgent
import Foundation
import Synchronization
import Testing

/// Plugin calls reuse finished threads, yet each call still gets a thread of its own at once: a call that never
/// returns delays no other call.
@Suite("Plugin call threads", .timeLimit(.minutes(1)))
struct PluginCallThreadsTests {
    @Test("calls one after another run on one thread, not one new thread each")
    func reuse() async throws {
        let threads = PluginCallThreads()
        let seen = Mutex<Set<String>>([]) // kernel thread ids: unlike pthread_self(), not reused at once
        for _ in 0..<20 {
            let done = DispatchSemaphore(value: 0)
            threads.run {
                let id = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "?"
                seen.withLock { _ = $0.insert(id) }
                done.signal()
            }
            done.wait()
            // The worker offers itself as idle right after its call: give it that moment.
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(seen.withLock { $0.count } <= 2, "20 calls in a row used \(seen.withLock { $0.count }) threads")
    }

    @Test("a call that never returns holds only its own thread: the next call runs at once beside it")
    func hungCallDelaysNothing() {
        let threads = PluginCallThreads()
        let never = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        threads.run {
            entered.signal()
            never.wait()
        }
        #expect(entered.wait(timeout: .now() + 5) == .success)
        let ran = DispatchSemaphore(value: 0)
        threads.run { ran.signal() }
        #expect(ran.wait(timeout: .now() + 2) == .success, "the second call waited behind the hung one")
        never.signal()
    }

    @Test("calls made together run together, each on its own thread")
    func concurrentCalls() {
        let threads = PluginCallThreads()
        let count = 8
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            threads.run {
                arrived.signal()
                release.wait()
            }
        }
        var together = 0
        for _ in 0..<count where arrived.wait(timeout: .now() + 5) == .success { together += 1 }
        #expect(together == count, "only \(together) of \(count) calls were running at the same time")
        for _ in 0..<count { release.signal() }
    }
}
