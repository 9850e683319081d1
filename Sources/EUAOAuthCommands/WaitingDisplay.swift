// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import ExternalUserAgentCore
import EUACommandSupport
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What `eua login` shows on stderr while it waits for the person: on a terminal, a spinner and a
/// countdown to the timeout, redrawn in place; otherwise plain lines (one at the start, then one every
/// `plainEvery`), so a log or a pipe gets no control characters.
final class WaitingDisplay: Sendable {
    enum Style: Sendable { case spinner, plain }

    private struct State {
        var timer: TimerBox?
        var frame = 0
        var lastPlain: ContinuousClock.Instant?
        var drawn = false
        var started = false
    }

    /// Dispatch timers are thread-safe, but not marked Sendable.
    struct TimerBox: @unchecked Sendable { let timer: any DispatchSourceTimer }

    private static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    let style: Style
    private let label: String
    private let deadline: ContinuousClock.Instant
    private let plainEvery: Duration
    private let state = Mutex(State())

    /// `style` nil: a spinner when stderr is a terminal, plain lines otherwise.
    init(label: String, timeout: Duration, style: Style? = nil, plainEvery: Duration = .seconds(30)) {
        self.label = label
        self.deadline = .now + timeout
        self.plainEvery = plainEvery
        self.style = style ?? (isatty(2) == 1 ? .spinner : .plain)
    }

    /// Starts the display; once only (a second call does nothing).
    func start() {
        guard
            state.withLock({ state in
                defer { state.started = true }
                return !state.started
            })
        else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now(), repeating: style == .spinner ? .milliseconds(100) : .seconds(1))
        timer.setEventHandler { [self] in tick() }
        let box = TimerBox(timer: timer)
        state.withLock { $0.timer = box }
        timer.resume()
    }

    /// Prints `text` above the spinner (or as plain lines); it may quote a server, so all but its line
    /// breaks is escaped (``TerminalText``).
    func note(_ text: String) {
        state.withLock { state in
            if style == .spinner && state.drawn { Output.standardError("\r\u{1B}[2K") }
            state.drawn = false
            Output.standardError(TerminalText.escaped(text, keepingLineBreaks: true))
        }
    }

    /// Stops and clears the spinner line; a display stopped before it started never starts.
    func stop() {
        state.withLock { state in
            state.started = true
            state.timer?.timer.cancel()
            state.timer = nil
            if style == .spinner && state.drawn { Output.standardError("\r\u{1B}[2K") }
            state.drawn = false
        }
    }

    private var remaining: String {
        let left = max(0, (deadline - .now).components.seconds)
        return left >= 60 ? "\(left / 60)m \(left % 60 < 10 ? "0" : "")\(left % 60)s" : "\(left)s"
    }

    private func tick() {
        state.withLock { state in
            guard state.timer != nil else { return }
            switch style {
            case .spinner:
                let frame = Self.frames[state.frame % Self.frames.count]
                state.frame += 1
                Output.standardError("\r\u{1B}[2K\(frame) \(label) — \(remaining) left (Ctrl-C to cancel)")
                state.drawn = true
            case .plain:
                let now = ContinuousClock.now
                if let last = state.lastPlain, now - last < plainEvery { return }
                state.lastPlain = now
                Output.standardError("eua login: \(label); \(remaining) left until the timeout\n")
            }
        }
    }
}
