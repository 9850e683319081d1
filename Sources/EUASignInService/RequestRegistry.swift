// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Synchronization

/// The sign-ins and sign-outs in flight, each an `org.freedesktop.portal.Request` object at
/// `/org/externaluseragent/SignIn/request/SENDER/TOKEN`: at most ``perCaller`` for one caller and ``total`` in all.
/// A request ends once: by its work (which then owes the `Response`), by `Close`, or by its caller leaving the bus.
final class RequestRegistry: Sendable {
    /// The most requests one caller (one bus connection) may have in flight.
    static let perCaller = 4
    /// The most requests in flight in all.
    static let total = 32

    struct Entry: Sendable {
        var sender: String
        var registration: UInt32 = 0
        var task: Task<Void, Never>?
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The request path of `sender`'s `token` (xdg-desktop-portal's rule: the unique name without ':' and with
    /// '.' as '_').
    static func path(sender: String, token: String) -> String {
        let name = String(sender.drop { $0 == ":" }).replacingDots()
        return "/org/externaluseragent/SignIn/request/\(name)/\(token)"
    }

    /// Reserves `path` for `sender`; refuses (`NotAllowed`) past the bounds and a path in use (`InvalidArgument`).
    func reserve(_ path: String, sender: String) throws(ServiceError) {
        let problem: ServiceError? = entries.withLock { entries in
            if entries[path] != nil {
                return .invalidArgument(
                    "a request with this handle_token is in flight already; give another handle_token")
            }
            if entries.count >= Self.total || entries.values.count(where: { $0.sender == sender }) >= Self.perCaller {
                return .notAllowed(
                    "too many sign-ins in flight (at most \(Self.perCaller) for one app and \(Self.total) "
                        + "in all); wait for one to end, or Close one")
            }
            entries[path] = Entry(sender: sender)
            return nil
        }
        if let problem { throw problem }
    }

    /// Records the object registration of a reserved request; `false` when it ended meanwhile (the caller left):
    /// then the caller unregisters it itself.
    func attach(_ path: String, registration: UInt32) -> Bool {
        entries.withLock { entries in
            guard entries[path] != nil else { return false }
            entries[path]?.registration = registration
            return true
        }
    }

    /// Records the work of a request, so that Close and the caller leaving cancel it; cancels it at once when the
    /// request ended meanwhile.
    func attach(_ path: String, task: Task<Void, Never>) {
        let ended = entries.withLock { entries in
            guard entries[path] != nil else { return true }
            entries[path]?.task = task
            return false
        }
        if ended { task.cancel() }
    }

    /// Ends the request at `path` and returns it, or `nil` when it had ended already (closed, or its caller left).
    func end(_ path: String) -> Entry? {
        entries.withLock { $0.removeValue(forKey: path) }
    }

    /// The sender of the request at `path`, when it is in flight.
    func sender(of path: String) -> String? {
        entries.withLock { $0[path]?.sender }
    }

    /// Ends every request of `sender` (it left the bus) and returns them.
    func endAll(of sender: String) -> [Entry] {
        entries.withLock { entries in
            let ended = entries.filter { $0.value.sender == sender }
            for path in ended.keys { entries[path] = nil }
            return Array(ended.values)
        }
    }

    /// How many requests are in flight.
    var count: Int { entries.withLock { $0.count } }
}

extension String {
    func replacingDots() -> String { String(map { $0 == "." ? "_" : $0 }) }
}
