// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit
import ExternalUserAgentSystem
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One flow with the manual agent: prints the instructions on stderr (stdout may carry a program's
/// output), then, in paste mode, reads lines from standard input until a valid final URL arrives,
/// standard input ends, or the flow is cancelled.
final class ManualAgent: PluginComponent {
    private let options: ManualOptions
    private let cancelled = Mutex(false)
    private let events = Mutex<PluginEvents?>(nil)
    /// Whether a reader of pasted URLs runs (it sends `finished` itself when it stops).
    private let reading = Mutex(false)

    init(options: ManualOptions) {
        self.options = options
    }

    func start(_ request: PluginStartRequest, events: PluginEvents) {
        self.events.withLock { $0 = events }
        let parsed: PluginABI.AgentRequest
        do {
            parsed = try request.agentRequest()
        } catch {
            events.failed(.presentationFailed, "manual agent: the host's request is not valid JSON: \(error)")
            return
        }
        let redirectURI = parsed.redirectURI ?? ""
        let pasteAsked: Bool =
            switch options.paste {
            case .true: true
            case .false: false
            case .auto: Self.standardInputIsOpen()
            }
        // A sign-out with no post-logout redirect URI has nothing to come back with: there is nothing to paste.
        let comesBack = !parsed.isSignOut || parsed.url.contains("post_logout_redirect_uri=")
        let paste = pasteAsked && comesBack
        let situation = Instructions.situation(
            environment: ProcessEnvironment.current(), options: options,
            redirectURI: redirectURI, paste: paste, signOut: parsed.isSignOut)
        Self.writeError(Instructions.text(url: parsed.url, situation: situation))
        events.presented()
        guard paste else { return }
        reading.withLock { $0 = true }
        PluginThread.detach { [self] in
            self.readPastedURLs(
                redirectURI: redirectURI, authorizationURL: parsed.url, signOut: parsed.isSignOut,
                events: events)
        }
    }

    func cancel() {
        cancelled.withLock { $0 = true }
        // The reader notices within 200 ms and finishes; without one there is nothing running.
        // (Deciding by the paste option and stdin again, as before, could disagree with what start() chose.)
        if !reading.withLock({ $0 }) {
            events.withLock { $0 }?.finished()
        }
    }

    private func readPastedURLs(redirectURI: String, authorizationURL: String, signOut: Bool, events: PluginEvents) {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while !cancelled.withLock({ $0 }) {
            var poller = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let count = read(0, &byte, 1)
            if count <= 0 {
                // Standard input ended: the loopback redirect may still come; nothing more to read here.
                PluginHost.log(.debug, "manual agent: standard input ended; waiting for the redirect only")
                while !cancelled.withLock({ $0 }) { usleep(200_000) }
                break
            }
            guard byte == UInt8(ascii: "\n") else {
                if line.count < 16 * 1024 { line.append(byte) }
                continue
            }
            let pasted = String(String(decoding: line, as: UTF8.self).filter { !$0.isWhitespace })
            line.removeAll()
            if pasted.isEmpty { continue }
            if let problem = PastedURLCheck.problem(
                pasted: pasted, redirectURI: redirectURI, authorizationURL: authorizationURL,
                signOut: signOut)
            {
                Self.writeError("Not accepted: \(problem).\nPaste the address again, then press Enter:\n")
                continue
            }
            Self.writeError(signOut ? "Thank you: the sign-out continues.\n" : "Thank you: the sign-in continues.\n")
            events.redirect(pasted)
            break
        }
        events.finished()
    }

    static func standardInputIsOpen() -> Bool {
        fcntl(0, F_GETFD) != -1
    }

    static func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { return }
            offset += written
        }
    }
}
