#if canImport(FoundationEssentials)
import FoundationEssentials
#endif
import Foundation

/// Runs blocking work (libsecret's calls, which wait on the keyring) on a thread of its own, off Swift's cooperative
/// pool and off the main loop, and awaits its result.
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws(ServiceError) -> T) async throws(ServiceError) -> T {
        let result: Result<T, ServiceError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do throws(ServiceError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.start()
        }
        return try result.get()
    }
}
