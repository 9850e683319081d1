// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import CExternalUserAgentNet
import ExternalUserAgentPluginKit
import ExternalUserAgentRules
import ExternalUserAgentNet

/// One flow's hand-off listener at work: a `poll()` loop on a thread of its own over the socket and the
/// stop signal. Hand-offs are served one at a time, each within the hand-off deadline; the first valid
/// redirect ends the loop.
enum HandOffServer {
    /// The whole life of one flow's listener: listens, says `listening`, serves until the redirect is taken
    /// or `stop` is raised, removes the socket, and says `finished` (or `failed`).
    static func run(options: SchemeOptions, expectedState: String?, stop: StopSignal, events: PluginEvents) {
        let socket: HandOffSocket
        do {
            socket = try HandOffSocket.listen(
                scheme: options.scheme,
                runtimeDirectory: getenv("XDG_RUNTIME_DIR").map { String(cString: $0) })
        } catch {
            events.failed(.receiverFailed, "scheme receiver: \(error.message)")
            return
        }
        guard !stop.isRaised else {
            socket.close()
            events.finished()
            return
        }
        PluginHost.log(.debug, "scheme receiver waiting for \(options.redirectURI) hand-offs at \(socket.path)")
        events.listening(redirectURI: options.redirectURI)
        let check = SchemeHandOffCheck(
            scheme: options.scheme, path: options.path, expectedState: expectedState,
            ownUID: getuid(), signOut: options.signOut)
        var failure: SocketError?
        var redirect: String?
        while !stop.isRaised, redirect == nil {
            var entries = [
                pollfd(fd: stop.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&entries, 2, -1) < 0 {
                guard errno == EINTR else {
                    failure = SocketError("poll")
                    break
                }
                continue
            }
            guard entries[0].revents == 0, entries[1].revents != 0 else { continue }
            let connection = eua_net_accept(socket.fd)
            guard connection >= 0 else { continue }
            redirect = serve(
                connection, check: check, timeout: .milliseconds(options.handOffTimeoutMilliseconds),
                events: events)
            _ = close(connection)
        }
        // The socket goes first: once the host has the callback it may end the process at any moment.
        socket.close()
        if let failure {
            events.failed(.receiverFailed, "scheme receiver: \(failure)")
            return
        }
        if let redirect {
            events.callback(redirect)
            PluginHost.log(.debug, "scheme receiver: redirect accepted; socket removed")
        }
        events.finished()
    }

    /// Serves one hand-off; the redirect URL when it was the redirect (the handler has been told `ok`).
    private static func serve(_ fd: Int32, check: SchemeHandOffCheck, timeout: Duration, events: PluginEvents)
        -> String?
    {
        let deadline = Deadline(after: timeout)
        guard let peer = PeerCredentials(of: fd) else {
            PluginHost.log(.warning, "scheme receiver: a hand-off without peer credentials was dropped")
            return nil
        }
        if case .refuse(let status, let reason)? = check.checkPeer(uid: peer.uid) {
            PluginHost.log(.warning, "scheme receiver: refused a hand-off from process \(peer.pid): \(reason)")
            events.refused(status: status, reason: reason)
            reply(fd, PrivateUseScheme.refusedPrefix + reason, deadline: deadline)
            return nil
        }
        guard let line = readLine(fd, deadline: deadline) else {
            reply(
                fd,
                PrivateUseScheme.refusedPrefix + "the URL is longer than \(PrivateUseScheme.maximumURLBytes) bytes "
                    + "or did not come within \(timeout)", deadline: deadline)
            events.refused(status: 408, reason: "a hand-off was too long or too slow")
            return nil
        }
        guard !line.isEmpty else {
            // A connection that sends nothing: another flow checking whether this scheme is taken.
            PluginHost.log(.debug, "scheme receiver: an empty connection (another flow probing the socket) was closed")
            return nil
        }
        switch check.check(line) {
        case .refuse(let status, let reason):
            PluginHost.log(.info, "scheme receiver: refused a hand-off: \(reason); still waiting")
            events.refused(status: status, reason: reason)
            reply(fd, PrivateUseScheme.refusedPrefix + reason, deadline: deadline)
            return nil
        case .callback(let url):
            reply(fd, PrivateUseScheme.acceptedReply, deadline: deadline)
            return url
        }
    }

    /// The bytes before the first line feed (or before the end), `nil` past the size limit or the deadline.
    private static func readLine(_ fd: Int32, deadline: Deadline) -> [UInt8]? {
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, deadline.pollTimeout)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = read(fd, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return nil
            }
            if count == 0 { return line }
            if let end = buffer[..<count].firstIndex(of: UInt8(ascii: "\n")) {
                line += buffer[..<end]
                return line.count <= PrivateUseScheme.maximumURLBytes ? line : nil
            }
            line += buffer[..<count]
            if line.count > PrivateUseScheme.maximumURLBytes { return nil }
        }
    }

    /// Writes `text` and a line feed, within the deadline; a handler that has gone is not an error.
    private static func reply(_ fd: Int32, _ text: String, deadline: Deadline) {
        var bytes = Array((text + "\n").utf8)[...]
        while !bytes.isEmpty, !deadline.hasPassed {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
            } else if written < 0, errno == EAGAIN || errno == EINTR {
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, deadline.pollTimeout)
            } else {
                return
            }
        }
    }
}
