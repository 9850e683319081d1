// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT/SIGTERM into a clean cancel (receiver closed, browser ended) instead of dying mid-flow.
package struct InterruptHandler {
    private let sources: [any DispatchSourceSignal]

    package static func install(_ onInterrupt: @escaping @Sendable () -> Void) -> InterruptHandler {
        let sources = [SIGINT, SIGTERM].map { signalNumber -> any DispatchSourceSignal in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler(handler: onInterrupt)
            source.resume()
            return source
        }
        return InterruptHandler(sources: sources)
    }

    package func remove() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
