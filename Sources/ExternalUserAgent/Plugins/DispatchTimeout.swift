import Dispatch

extension DispatchTime {
    /// The moment `duration` from now, for Dispatch waits: a negative duration is now, a huge one as late as
    /// Dispatch can wait.
    static func after(_ duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = max(.zero, duration).components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .distantFuture }
        return .now() + .nanoseconds(Int(clamping: whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue))
    }
}
