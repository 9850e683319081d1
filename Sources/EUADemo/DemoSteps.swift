// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUACommandSupport
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Synchronization
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What `eua demo` says of each step of ``SignInFlow``, in plain words, into its ``DemoReport``.
final class DemoSteps: Sendable {
    private struct Seen {
        var redirectURI: URL?
        var tokenEndpoint: URL?
    }

    private let report: DemoReport
    private let demo: LocalSignInDemo
    private let seen = Mutex(Seen())

    init(report: DemoReport, demo: LocalSignInDemo) {
        self.report = report
        self.demo = demo
    }

    /// The server step: where it listens and how it behaves.
    func serverStarted(_ server: LocalAuthorizationServer) {
        let options = server.options
        let page =
            options.authorizationPage == .loginForm
            ? "shows a login form" : "approves at once as \(options.subject)"
        let faults =
            options.misbehaviors.isEmpty
            ? "" : "; misbehaving on purpose: " + options.misbehaviors.map(\.rawValue).sorted().joined(separator: ", ")
        report.passed(
            .server,
            "local authorization server listening on \(server.issuer) (in this process, "
                + "\(options.signingAlgorithm.rawValue) key made just now; /authorize \(page)\(faults))")
    }

    /// The hooks that report the flow's steps.
    var hooks: SignInFlow.Hooks {
        SignInFlow.Hooks(
            discovered: { [self] service in discovered(service) },
            progress: { [self] progress in self.progress(progress) })
    }

    private func discovered(_ service: ServiceConfiguration) {
        seen.withLock { $0.tokenEndpoint = service.tokenEndpoint }
        let features = [
            service.codeChallengeMethodsSupported?.contains("S256") == true ? "PKCE S256" : nil,
            service.authorizationResponseIssParameterSupported ? "iss in responses (RFC 9207)" : nil,
        ].compactMap { $0 }
        report.passed(
            .discovery,
            "discovered \(service.issuer)/.well-known/openid-configuration: authorization, token "
                + "and JWKS endpoints" + (features.isEmpty ? "" : "; " + features.joined(separator: ", ")))
    }

    private func progress(_ progress: SignIn.Progress) {
        let (headless, showsForm) = (demo.isHeadless, demo.serverOptions.authorizationPage == .loginForm)
        switch progress {
        case .receiverStarted(let redirectURI):
            seen.withLock { $0.redirectURI = redirectURI }
            report.passed(.receiver, "receiver 'loopback' listening on \(redirectURI.absoluteString)")
        case .presented(let agent):
            let how =
                headless
                ? "acting as a browser with no person at it (follow mode)"
                    + (showsForm ? ", filling in the server's login form as \(demo.serverOptions.subject)" : "")
                : (showsForm ? "; sign in on the server's login form there" : "")
            report.passed(
                .agent,
                "agent '\(agent.id)' (\(agent.kind.rawValue)\(headless ? ", test agent allowed for this demo" : "")) "
                    + "presented the authorization URL, \(how)")
        case .authorizationResponseAccepted(let response):
            let iss = response.issuer == nil ? "no iss sent" : "iss ok"
            let redirect = seen.withLock { $0.redirectURI }?.absoluteString ?? "the receiver"
            report.passed(.redirect, "redirect received at \(redirect): state ok, \(iss)")
        case .tokensReceived(let tokens):
            let parts = [
                "access token (\(tokens.tokenType)\(tokens.expiresIn.map { ", \($0) s" } ?? ""))",
                tokens.refreshToken == nil ? nil : "refresh token", tokens.idToken == nil ? nil : "ID token",
            ]
            let endpoint = seen.withLock { $0.tokenEndpoint }?.absoluteString ?? "the token endpoint"
            report.passed(
                .tokens,
                "tokens exchanged at \(endpoint) for the code and the PKCE verifier: "
                    + parts.compactMap { $0 }.joined(separator: ", "))
        case .idTokenValidated(let claims, let algorithm, let keyID):
            report.passed(
                .idToken,
                "ID token signature ok (\(algorithm)\(keyID.map { ", key \($0)" } ?? "") from the JWKS), "
                    + "subject \(claims.subject); iss, aud, exp, iat and nonce ok")
        case .authorizationRequestPushed:
            break  // not a step of the demo's report
        case .callbackRefused(let reason):
            Output.standardError(
                "eua demo: a request to the redirect URI was turned away, and the sign-in waits on: \(reason)\n")
        case .saved(let file):
            let mode = Self.mode(of: file.path)
            let modeText = mode.map { String($0, radix: 8) } ?? "unknown"
            let where_ =
                demo.stateFileIsTemporary ? "a new temporary folder; --state-file to choose" : "from --state-file"
            if mode == 0o600 {
                report.passed(.state, "state saved to \(file.path), mode 0600 (\(where_))")
            } else {
                report.failedAtNextStep("state saved to \(file.path) with mode \(modeText), not 0600")
            }
        }
    }

    /// The sign-out step: what was revoked, whether the session ended and the browser came back, the state removed.
    func signedOut(_ outcome: SignOut.Outcome, server: LocalAuthorizationServer, stateFile: String) {
        var problems = outcome.revocationFailures.map {
            "the \($0.kind.words) was not revoked: \($0.error.commandLineMessage)"
        }
        let session: String
        switch outcome.endSession {
        case .completed(let back):
            session =
                "session ended at \(server.issuer)/end_session (client_id, no ID token in the URL) "
                + "and the browser came back to \(back.absoluteString)"
        case .failed(let error):
            session = ""
            problems.append("the session was not ended: \(error.commandLineReport)")
        case .sent: session = "end-session request sent"
        case .notSupported, .notRequested: session = "no end-session request"
        }
        if !outcome.stateRemoved { problems.append("the state file \(stateFile) was not removed") }
        guard problems.isEmpty else {
            report.failedAtNextStep(problems.joined(separator: "; "))
            return
        }
        let revoked = outcome.revoked.map(\.words).joined(separator: " and ")
        report.passed(
            .signOut,
            "signed out: \(revoked) revoked at \(server.issuer)/revoke (RFC 7009); \(session); "
                + "state file removed")
    }

    /// The permission bits of `path`, or `nil` when it cannot be read.
    private static func mode(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o777)
    }
}
