// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore

/// The `claims` authorization request parameter (OpenID Connect Core §5.5): which claims to return in the
/// ID token and from the UserInfo endpoint, and which are essential.
///
/// ```swift
/// let claims = try ClaimsRequest(json: #"{"id_token": {"email_verified": {"essential": true}}}"#)
/// var flow = SignInFlow(…, additionalParameters: [claims.parameter], …)
/// ```
public struct ClaimsRequest: Sendable, Hashable {
    /// The request as sent: members `userinfo` and `id_token`, each an object of claim name → `null` or an
    /// object with `essential`, `value` or `values`.
    public let json: JSONValue

    /// Reads `json`; throws `invalidOptions` naming the member that breaks §5.5's shape.
    public init(json text: String) throws {
        func refuse(_ problem: String) -> ExternalUserAgentError {
            ExternalUserAgentError(
                .invalidOptions,
                "the claims request \(problem) (OpenID Connect Core §5.5: "
                    + #"{"userinfo": {"email": null}, "id_token": {"auth_time": {"essential": true}}})"#)
        }
        guard case .object(let members)? = JSONValue.read(Data(text.utf8)) else {
            throw refuse("is not a JSON object")
        }
        guard !members.isEmpty else { throw refuse("is empty") }
        for (target, value) in members {
            guard target == "userinfo" || target == "id_token" else {
                throw refuse(
                    "has member '\(UntrustedText.printable(target))'; only 'userinfo' and 'id_token' are defined")
            }
            guard case .object(let claims) = value else { throw refuse("has '\(target)' that is not an object") }
            for (name, request) in claims {
                switch request {
                case .null:
                    continue
                case .object(let fields):
                    if let essential = fields["essential"], case .bool = essential {
                    } else if fields["essential"] != nil {
                        throw refuse(
                            "has '\(target).\(UntrustedText.printable(name)).essential' that is not true or false")
                    }
                    if let values = fields["values"], case .array = values {
                    } else if fields["values"] != nil {
                        throw refuse("has '\(target).\(UntrustedText.printable(name)).values' that is not an array")
                    }
                default:
                    throw refuse("has '\(target).\(UntrustedText.printable(name))' that is neither null nor an object")
                }
            }
        }
        json = .object(members)
    }

    /// The authorization parameter: `claims` and the JSON text.
    public var parameter: (name: String, value: String) { ("claims", json.jsonText) }
}
