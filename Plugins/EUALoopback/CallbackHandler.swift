// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentNet

/// What to answer one request: the verdict of ``CallbackValidation`` as a page, a redirect or a refusal.
extension LoopbackServer {
    /// The reply to `outcome` (a whole head, or one too large or broken) on `connection`; completes the
    /// flow when it is the first valid redirect.
    func answer(_ outcome: HTTPRequestHeadParser.Outcome, on connection: Connection) -> [UInt8] {
        switch outcome {
        case .needMore:
            return []
        case .tooLarge:
            refused(status: .requestHeaderFieldsTooLarge, reason: "The request is too large.")
            return Pages.reply(.requestHeaderFieldsTooLarge, html: Pages.refusal("The request is too large."))
        case .invalid(let error):
            let reason = "The request is not valid HTTP: \(error)."
            refused(status: .badRequest, reason: reason)
            return Pages.reply(.badRequest, html: Pages.refusal(reason))
        case .head(let head):
            return answer(head, on: connection)
        }
    }

    private func answer(_ head: HTTPRequestHead, on connection: Connection) -> [UInt8] {
        if let page = handOffReply(to: head) { return page }
        switch validation.check(head) {
        case .refuse(let status, let reason):
            refused(status: status, reason: reason)
            let allow: [(String, String)] = status == .methodNotAllowed ? [("Allow", "GET")] : []
            return Pages.reply(status, html: Pages.refusal(reason), extraHeaders: allow)
        case .callback(let parameters, let query, let isError):
            // The page first: the host may act on the callback at once.
            let reply: [UInt8]
            if isError {
                if let url = options.failureURL {
                    reply = Pages.redirect(to: url)
                } else {
                    reply = Pages.reply(
                        .ok,
                        html: options.failureHTML
                            ?? Pages.oauthError(parameters["error"] ?? "", description: parameters["error_description"])
                    )
                }
            } else if let url = options.successURL {
                reply = Pages.redirect(to: url)
            } else {
                reply = Pages.reply(
                    .ok, html: options.successHTML ?? (options.signOut ? Pages.signedOut() : Pages.success()))
            }
            guard complete(query: query, on: connection) else {
                return Pages.reply(
                    .conflict,
                    html: Pages.refusal(
                        options.signOut
                            ? "This sign-out has already been completed."
                            : "This sign-in has already been completed."))
            }
            return reply
        }
    }
}
