// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Dispatch

/// Runs blocking work (a child process, a polling loop) on a Dispatch thread and awaits it, so a test
/// never holds one of Swift's few cooperative threads (two on a two-core machine) while it waits.
public func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}
