// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Dispatch

/// Runs blocking work (libsecret's calls, which wait on the keyring) off Swift's cooperative pool and off the main
/// loop, one at a time on a serial queue of its own (libsecret answers one call at a time anyway): a flood of calls
/// queues here instead of making threads.
enum Blocking {
    private static let queue = DispatchQueue(label: "org.externaluseragent.SignIn.keyring")

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws(ServiceError) -> T) async throws(ServiceError)
        -> T
    {
        let result: Result<T, ServiceError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(ServiceError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
