import CExternalUserAgentPlugin
import ExternalUserAgentABI
import Logging
import Synchronization

/// One agent or receiver instance inside a plugin, with the ABI's rules enforced on the host side:
/// events are decoded, only the first terminal event counts, and later ones are logged as bugs.
final class PluginInstance: Sendable {
    private let table: PluginTable
    private let handle: Handle
    private let label: String
    private let inbox: EventInbox
    private let lifecycle = Mutex(Lifecycle())

    private struct Lifecycle {
        var started = false
        var destroyed = false
    }

    init(table: PluginTable, handle: UnsafeMutableRawPointer, label: String, logger: Logger) {
        self.table = table
        self.handle = Handle(pointer: handle)
        self.label = label
        self.inbox = EventInbox(label: label, logger: logger)
    }

    /// Starts the instance; `onEvent` gets each event up to and including the terminal one.
    func start(requestJSON: String, onEvent: @escaping @Sendable (PluginWire.Event) -> Void) {
        inbox.setHandler(onEvent)
        lifecycle.withLock { $0.started = true }
        // The inbox is retained for the instance's life, so a late event never reaches freed memory.
        let context = Unmanaged.passUnretained(inbox).toOpaque()
        requestJSON.withCString { request in
            table.pointer.pointee.start(handle.pointer, request, { context, json in
                guard let context else { return }
                let inbox = Unmanaged<EventInbox>.fromOpaque(context).takeUnretainedValue()
                inbox.receive(json.map { String(cString: $0) })
            }, context)
        }
    }

    /// Asks the plugin to stop; its terminal event follows.
    func cancel() {
        table.pointer.pointee.cancel(handle.pointer)
    }

    /// Waits up to `timeout` for the terminal event; `false` if it never came.
    func waitForTerminal(timeout: Duration) async -> Bool {
        await inbox.terminal.wait(timeout: timeout)
    }

    /// Frees the instance if the plugin is done with it. An instance that started and never sent
    /// its terminal event is left alone (and logged): freeing it could crash a plugin still running.
    func destroy() {
        let shouldDestroy = lifecycle.withLock { state -> Bool in
            guard !state.destroyed else { return false }
            if state.started && !inbox.terminal.isSignaled { return false }
            state.destroyed = true
            return true
        }
        if shouldDestroy {
            table.pointer.pointee.destroy(handle.pointer)
        } else if !lifecycle.withLock({ $0.destroyed }) {
            inbox.logger.warning("plugin instance never finished; it was left running rather than freed",
                                 metadata: ["plugin": "\(label)"])
        }
    }

    deinit {
        destroy()
    }

    private struct Handle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }
}

/// Receives the C callbacks of one instance.
final class EventInbox: Sendable {
    let label: String
    let logger: Logger
    let terminal = Latch()
    private let handler = Mutex<(@Sendable (PluginWire.Event) -> Void)?>(nil)

    init(label: String, logger: Logger) {
        self.label = label
        self.logger = logger
    }

    func setHandler(_ handler: @escaping @Sendable (PluginWire.Event) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    func receive(_ json: String?) {
        guard let json, let event = try? PluginWire.decode(PluginWire.Event.self, from: json) else {
            logger.error("plugin sent an event that is not valid event JSON; it was ignored (a plugin bug)",
                         metadata: ["plugin": "\(label)", "event": "\(json?.prefix(200) ?? "NULL")"])
            return
        }
        if terminal.isSignaled {
            logger.warning("plugin sent an event after its terminal event; it was ignored (a plugin bug)",
                           metadata: ["plugin": "\(label)", "event": "\(Self.name(of: event))"])
            return
        }
        if event.isTerminal, !terminal.signal() {
            logger.warning("plugin sent a second terminal event; it was ignored (a plugin bug)",
                           metadata: ["plugin": "\(label)", "event": "\(Self.name(of: event))"])
            return
        }
        handler.withLock { $0 }?(event)
    }

    /// The event's name only: URLs can carry codes, and codes never reach a log.
    static func name(of event: PluginWire.Event) -> String {
        switch event {
        case .presented: "presented"
        case .redirect: "redirect"
        case .listening: "listening"
        case .callback: "callback"
        case .refused: "refused"
        case .finished: "finished"
        case .failed: "failed"
        }
    }
}
