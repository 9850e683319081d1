// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentABI

extension LocalAuthorizationServer {
    /// `GET /.well-known/webfinger` (RFC 7033, OpenID Connect Discovery §2): for the subject's account on this
    /// host (`acct:alice@127.0.0.1:PORT`), a JSON Resource Descriptor linking this server as its issuer; 404 for
    /// any other resource.
    func webFinger(_ query: [String: String]) -> LocalHTTPServer.Response {
        guard let resource = query["resource"], resource == "acct:\(options.subject)@127.0.0.1:\(port)" else {
            return .json(["error": "unknown resource"], status: 404)
        }
        var response = LocalHTTPServer.Response.json(
            JSONValue.object([
                "subject": .string(resource),
                "links": .array([
                    .object(["rel": .string("http://openid.net/specs/connect/1.0/issuer"), "href": .string(issuer)])
                ]),
            ]))
        response.headers = [("Content-Type", "application/jrd+json")]
        return response
    }
}
