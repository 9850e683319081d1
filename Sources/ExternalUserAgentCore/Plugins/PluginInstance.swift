// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CExternalUserAgentPlugin
import ExternalUserAgentABI
import ExternalUserAgentSystem
import Logging
import Synchronization

/// One agent or receiver instance inside a plugin, with the ABI's rules enforced on the host side:
/// events are decoded and checked (``PluginInput``), only the first terminal event counts, later ones are
/// logged as bugs — and no call into the plugin can hang the host.
///
/// Every call (`start`, `cancel`, `destroy`) runs on a thread of its own (``BlockingCall``), one at a time as
/// the ABI promises: while one has not returned, later ones are not made. `start` must return within its
/// deadline, `stop(grace:)` waits a bounded time for the terminal event; an instance that misses either is
/// given up: never called again and never freed, since the plugin may still be using it.
final class PluginInstance: Sendable {
    private let table: PluginTable
    private let handle: Handle
    let label: String
    private let inbox: EventInbox
    private let gate: CallGate

    init(table: PluginTable, handle: UnsafeMutableRawPointer, label: String, logger: Logger) {
        self.table = table
        self.handle = Handle(pointer: handle)
        self.label = label
        self.inbox = EventInbox(label: label, logger: logger)
        self.gate = CallGate(label: label, logger: logger)
    }

    /// Starts the instance; `onEvent` gets each event up to and including the terminal one.
    /// Throws `pluginProtocolViolation` when `start` does not return within `returnTimeout`.
    func start(
        requestJSON: String, returnTimeout: Duration,
        onEvent: @escaping @Sendable (PluginABI.Event) -> Void
    ) async throws(ExternalUserAgentError) {
        inbox.setHandler(onEvent)
        // The inbox is retained for the instance's life, so a late event never reaches freed memory.
        let context = PluginContext(pointer: Unmanaged.passUnretained(inbox).toOpaque())
        let table = self.table
        let handle = self.handle
        guard
            let returned = gate.call(
                "start", marksStarted: true,
                {
                    requestJSON.withCString { request in
                        table.pointer.pointee.start(
                            handle.pointer, request,
                            { context, json in
                                guard let context else { return }
                                Unmanaged<EventInbox>.fromOpaque(context).takeUnretainedValue().receive(json)
                            }, context.pointer)
                    }
                })
        else {
            throw ExternalUserAgentError(.pluginProtocolViolation, "\(label): could not be started")
        }
        guard await returned.wait(timeout: returnTimeout) else {
            throw ExternalUserAgentError(
                .pluginProtocolViolation,
                "\(label): start() did not return within \(returnTimeout) (the plugin ABI says it returns at once); "
                    + "the instance was given up. Report this to the plugin's author, or remove the plugin")
        }
    }

    /// Asks the plugin to stop (on a thread of its own); its terminal event should follow.
    func cancel() {
        let table = self.table
        let handle = self.handle
        _ = gate.call("cancel", marksStarted: false) { table.pointer.pointee.cancel(handle.pointer) }
    }

    /// Waits up to `timeout` for the terminal event; `false` if it never came.
    func waitForTerminal(timeout: Duration) async -> Bool {
        await inbox.terminal.wait(timeout: timeout)
    }

    /// Cancels, waits up to `grace` for the terminal event and for `cancel` to return, then frees the instance
    /// when the plugin is done with it. `false` when it was given up instead (logged, naming the plugin).
    @discardableResult
    func stop(grace: Duration) async -> Bool {
        let deadline = ContinuousClock.now + grace
        cancel()
        let finished = await waitForTerminal(timeout: grace)
        if let pending = gate.pending {
            _ = await pending.wait(timeout: max(.zero, deadline - .now))
        }
        destroy()
        return finished && gate.isDestroyed
    }

    /// Frees the instance if the plugin is done with it. An instance that started and never sent its
    /// terminal event, or that is still inside a call, is left alone (and logged): freeing it could
    /// crash a plugin still running.
    func destroy() {
        let table = self.table
        let handle = self.handle
        gate.destroy(terminal: inbox.terminal.isSignaled) { table.pointer.pointee.destroy(handle.pointer) }
    }

    deinit {
        destroy()
    }

    private struct Handle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    /// The inbox's address, handed to the plugin as the event context.
    private struct PluginContext: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }
}

/// Makes the calls into one instance one at a time and remembers how far it got. A class of its own so
/// that a call's thread, which may outlive the instance, never touches freed memory.
final class CallGate: Sendable {
    private struct State {
        var pending: (name: String, returned: Latch)?
        var started = false
        var destroyed = false
        var givenUp = false
    }

    private let state = Mutex(State())
    private let label: String
    private let logger: Logger

    init(label: String, logger: Logger) {
        self.label = label
        self.logger = logger
    }

    /// The latch of the call still inside the plugin, if one is.
    var pending: Latch? {
        state.withLock { state in
            guard let pending = state.pending, !pending.returned.isSignaled else { return nil }
            return pending.returned
        }
    }

    var isDestroyed: Bool { state.withLock { $0.destroyed } }

    /// Makes the call `name` on a thread of its own unless another call has not returned yet (then it is
    /// skipped and logged) or the instance is freed; returns the latch set when it returns.
    func call(_ name: String, marksStarted: Bool, _ work: @escaping @Sendable () -> Void) -> Latch? {
        let blocked = state.withLock { state -> String? in
            if state.destroyed { return "the instance was already freed" }
            if let pending = state.pending, !pending.returned.isSignaled {
                return "its \(pending.name)() has not returned"
            }
            if marksStarted { state.started = true }
            state.pending = (name, Latch())
            return nil
        }
        if let blocked {
            logger.warning("plugin instance: \(name)() not called because \(blocked)", metadata: ["plugin": "\(label)"])
            return nil
        }
        let returned = state.withLock { $0.pending!.returned }
        do {
            _ = try BlockingCall.start {
                work()
                returned.signal()
            }
        } catch {
            // Not called: nothing is inside the plugin, as before this call.
            state.withLock { state in
                state.pending = nil
                if marksStarted { state.started = false }
            }
            logger.warning("plugin instance: \(name)() not called: \(error)", metadata: ["plugin": "\(label)"])
            return nil
        }
        return returned
    }

    /// Frees the instance with `free` (on a thread of its own) when nothing is in the plugin and the work
    /// ended (`terminal`) or never started; otherwise logs once that it was left running.
    func destroy(terminal: Bool, _ free: @escaping @Sendable () -> Void) {
        enum Decision {
            case free
            case leave(String)
            case nothing
        }
        let decision = state.withLock { state -> Decision in
            if state.destroyed { return .nothing }
            if let pending = state.pending, !pending.returned.isSignaled {
                if state.givenUp { return .nothing }
                state.givenUp = true
                return .leave("its \(pending.name)() never returned")
            }
            if state.started && !terminal {
                if state.givenUp { return .nothing }
                state.givenUp = true
                return .leave("it never sent its terminal event")
            }
            state.destroyed = true
            return .free
        }
        switch decision {
        case .free:
            do {
                _ = try BlockingCall.start(free)
            } catch {
                logger.warning(
                    "plugin instance not freed: destroy() not called: \(error)", metadata: ["plugin": "\(label)"])
            }
        case .leave(let why):
            logger.warning(
                "plugin instance given up: \(why); it was left running rather than freed",
                metadata: ["plugin": "\(label)"])
        case .nothing: break
        }
    }
}

/// Receives the C callbacks of one instance.
final class EventInbox: Sendable {
    let label: String
    let logger: Logger
    let terminal = Latch()
    private let handler = Mutex<(@Sendable (PluginABI.Event) -> Void)?>(nil)

    init(label: String, logger: Logger) {
        self.label = label
        self.logger = logger
    }

    func setHandler(_ handler: @escaping @Sendable (PluginABI.Event) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// One event as the plugin sent it (borrowed C string); checked by ``PluginInput/event(_:)``.
    func receive(_ json: UnsafePointer<CChar>?) {
        guard let text = PluginInput.string(json, limit: PluginInput.maximumEventBytes) else {
            let what = json == nil ? "a NULL event" : "an event longer than \(PluginInput.maximumEventBytes) bytes"
            logger.error("plugin sent \(what); it was ignored (a plugin bug)", metadata: ["plugin": "\(label)"])
            return
        }
        let event: PluginABI.Event
        switch PluginInput.event(text) {
        case .failure(let problem):
            logger.error("plugin sent \(problem); it was ignored (a plugin bug)", metadata: ["plugin": "\(label)"])
            return
        case .success(let decoded):
            event = decoded
        }
        if terminal.isSignaled {
            logger.warning(
                "plugin sent an event after its terminal event; it was ignored (a plugin bug)",
                metadata: ["plugin": "\(label)", "event": "\(Self.name(of: event))"])
            return
        }
        if event.isTerminal, !terminal.signal() {
            logger.warning(
                "plugin sent a second terminal event; it was ignored (a plugin bug)",
                metadata: ["plugin": "\(label)", "event": "\(Self.name(of: event))"])
            return
        }
        handler.withLock { $0 }?(event)
    }

    /// The event's name only: URLs can carry codes, and codes never reach a log.
    static func name(of event: PluginABI.Event) -> String {
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
