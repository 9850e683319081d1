// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import ExternalUserAgentCore
import ExternalUserAgentSystem
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `eua receive`: run the loopback redirect receiver alone, for scripts and for checking a setup.
///
/// Contract (other tools script it): the redirect URI is the FIRST stdout line, flushed at once;
/// on the real callback its parameters are one JSON object on the LAST stdout line and the exit is 0;
/// an OAuth error, a timeout or a cancel exit non-zero with a one-line reason on stderr.
package struct ReceiveCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Wait for one OAuth redirect (loopback, or a private-use URI scheme) and print its parameters.",
        discussion: """
            Prints the redirect URI first; then waits. With --redirect-uri com.example.app:/cb it waits on \
            the scheme receiver (register the scheme first: eua scheme register com.example.app). Exit status: \
            0 callback received, 1 OAuth error in the callback, 2 bad usage or the receiver could not start, \
            124 timeout (also when the receiver gives no redirect URI within --timeout), 130 cancelled.
            """
    )

    @Option(help: "The redirect receiver to run (see 'eua agents').")
    var receiver: String = "loopback"

    @Option(
        name: .customLong("redirect-uri"),
        help:
            "The redirect URI to wait on: a private-use scheme one (com.example.app:/cb) runs the scheme receiver; a loopback one (http://127.0.0.1:8400/cb) sets the port and path."
    )
    var redirectURI: String?

    @Option(help: "The state the redirect must carry; other requests get 400 and the wait goes on.")
    var state: String?

    @Option(help: "The redirect path (default: a random one).")
    var path: String?

    @Option(help: "A fixed port.")
    var port: Int?

    @Option(name: .customLong("port-range"), help: "The first free port in a range, like 8400-8410.")
    var portRange: String?

    @Flag(help: "Put [::1] in the redirect URI (IPv6 loopback) instead of 127.0.0.1.")
    var ipv6 = false

    @Option(help: "Give up after this many seconds (the wait for the receiver's redirect URI has the same limit).")
    var timeout: Double = 300

    @Flag(help: "On failure, also print {\"error\":code,\"message\":…} as the last stdout line.")
    var json = false

    package func validate() throws {
        if port != nil && portRange != nil { throw ValidationError("give --port or --port-range, not both") }
        if let redirectURI {
            if path != nil || port != nil || portRange != nil || ipv6 || receiver != "loopback" {
                throw ValidationError(
                    "--redirect-uri names the receiver, path and port; give it without --receiver, "
                        + "--path, --port, --port-range or --ipv6")
            }
            _ = try RedirectURIChoice(redirectURI)
        }
        if !(timeout > 0 && timeout <= OpenCommand.maximumTimeout) {
            throw ValidationError(
                "--timeout must be more than 0 and at most \(Int(OpenCommand.maximumTimeout)) seconds")
        }
    }

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        let choice = try redirectURI.map(RedirectURIChoice.init)
        let receiverID = choice?.receiver ?? receiver
        // Only the plugin that offers the receiver is opened (see PluginIndexFile).
        let catalog = CommandCatalog.loader(environment: environment).load(offering: [receiverID])
        guard let entry = catalog.receiver(id: receiverID) else {
            let which =
                switch receiverID {
                case "loopback": "the loopback receiver plugin (libEUALoopback.so) was"
                case "scheme": "the scheme receiver plugin (libEUAScheme.so) was"
                default: "no receiver '\(receiverID)' was"
                }
            fail(
                code: "receiverFailed", "\(which) found on the plugin search path; run 'eua agents' to see what loaded",
                exit: 2)
        }
        var options: [String: String] = choice?.options ?? [:]
        if let path { options["path"] = path }
        if let port { options["port"] = String(port) }
        if let portRange { options["port-range"] = portRange }
        if ipv6 { options["ipv6"] = "true" }
        let receiver = entry.makeReceiver(options: options)
        let session = ExternalUserAgentSession(
            agent: NothingToPresent(), receiver: receiver,
            configuration: .init(expectedState: state, timeout: .milliseconds(Int64(timeout * 1000))))
        let interrupts = InterruptHandler.install { session.cancel(by: .user, message: "interrupted (Ctrl-C)") }
        defer { interrupts.remove() }

        let outcome = Result {
            try Blocking.run {
                try await session.run { redirectURI in
                    Output.line(redirectURI.absoluteString)
                    Output.flush()
                    return redirectURI
                }
            }
        }
        switch outcome {
        case .success(let url):
            let parameters = Self.parameters(of: url)
            if let error = parameters["error"] {
                let description = parameters["error_description"].map { ": \($0)" } ?? ""
                Output.json(Self.jsonLine(parameters))
                fail(
                    code: "oauthError", "the authorization server answered with error '\(error)'\(description)", exit: 1
                )
            }
            Output.json(Self.jsonLine(parameters))
        case .failure(let error as ExternalUserAgentError):
            let status: Int32 =
                switch error.code {
                case .timedOut: 124
                case .userCanceled, .programCanceled: 130
                default: 2
                }
            fail(code: error.code.description, error.commandLineMessage, exit: status)
        case .failure(let error):
            fail(code: "receiverFailed", "\(error)", exit: 2)
        }
    }

    private func fail(code: String, _ message: String, exit status: Int32) -> Never {
        if json { Output.json(Self.jsonLine(["error": code, "message": message])) }
        Output.errorLine("eua receive: \(message)")
        Output.exit(status)
    }

    static func parameters(of url: URL) -> [String: String] {
        var parameters: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        where parameters[item.name] == nil {
            parameters[item.name] = item.value ?? ""
        }
        return parameters
    }

    static func jsonLine(_ object: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(object), as: UTF8.self)) ?? "{}"
    }
}

/// The agent for `eua receive`: the person (or a script) opens the URL themselves.
struct NothingToPresent: ExternalUserAgent {
    let descriptor = AgentDescriptor(id: "none", kind: .manual, name: "nothing to present")
    func present(_ request: AgentRequest, session: ExternalUserAgentSession) async throws {}
    func dismiss() async {}
}
