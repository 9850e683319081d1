// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import ExternalUserAgentABI
import Synchronization

/// The local server's DPoP (RFC 9449) at the token endpoint, off until enabled: it verifies each `DPoP` proof
/// (``verify(_:method:url:accessToken:nonce:now:seen:)``), asks for its nonce once when ``Settings/requiresNonce``,
/// checks the key against the authorization request's `dpop_jkt` and a refresh token's binding, and issues
/// `token_type` `DPoP` access tokens bound to the key's thumbprint (``boundKey(ofAccessToken:)``, its `cnf.jkt`).
public final class LocalDPoP: Sendable {
    /// How the server treats proofs.
    public struct Settings: Sendable {
        /// Advertise `dpop_signing_alg_values_supported` and honour proofs.
        public var enabled = false
        /// Refuse a proof without the server's current nonce with `use_dpop_nonce` and a `DPoP-Nonce` header.
        public var requiresNonce = false
        /// Misbehave: answer `token_type` `Bearer` even to a proven request.
        public var issuesBearer = false
    }

    /// A proof the token endpoint looked at.
    public struct Record: Sendable {
        /// The proof's `htm`, `htu`, `nonce` as sent, when the proof could be read.
        public var htm: String?
        /// The proof's `htu`.
        public var htu: String?
        /// The proof's `nonce`.
        public var nonce: String?
        /// The thumbprint (RFC 7638) of the proof's key, when it was valid.
        public var thumbprint: String?
        /// Why it was refused (`use_dpop_nonce`, or the verifier's reason); `nil` when accepted.
        public var refusal: String?
    }

    /// A proof checked and accepted.
    public struct Verified: Sendable, Equatable {
        /// The RFC 7638 thumbprint of the proof's public key.
        public var thumbprint: String
        /// The proof's `nonce`, when it had one.
        public var nonce: String?
    }

    fileprivate struct State {
        var settings = Settings()
        var records: [Record] = []
        var seen: Set<String> = []
        var nonce = LocalAuthorizationServer.randomString(16)
        var bound: [String: String] = [:]
    }

    fileprivate let state = Mutex(State())

    init() {}

    /// The settings in force.
    public var settings: Settings { state.withLock { $0.settings } }
    /// Changes the settings.
    public func update(_ change: (inout Settings) -> Void) { state.withLock { change(&$0.settings) } }
    /// Every proof the token endpoint looked at, in order.
    public var records: [Record] { state.withLock { $0.records } }
    /// The thumbprint an access token is bound to (its `cnf.jkt`); `nil` for a Bearer or unknown token.
    public func boundKey(ofAccessToken token: String) -> String? { state.withLock { $0.bound[token] } }

    func bind(accessToken: String, to thumbprint: String) { state.withLock { $0.bound[accessToken] = thumbprint } }

    /// How long before or after now a proof's `iat` may be.
    public static let allowedAge: TimeInterval = 60

    /// Checks `proof` for a `method` request to `url` (RFC 9449 §4.3): `typ` `dpop+jwt`, `alg` `ES256`, a public
    /// P-256 `jwk` (no `d`), the signature, `htm`, `htu` (without query and fragment), `iat` within
    /// ``allowedAge``, a `jti` not in `seen` (added), `nonce` equal to `nonce` when given, and `ath` when
    /// `accessToken` is given. The reason on failure is fixed text naming the check.
    public static func verify(
        _ proof: String, method: String, url: String, accessToken: String? = nil, nonce: String? = nil,
        now: Date = Date(), seen: inout Set<String>
    ) -> Result<Verified, LocalDPoPRefusal> {
        func refuse(_ reason: String) -> Result<Verified, LocalDPoPRefusal> {
            .failure(LocalDPoPRefusal(reason: reason))
        }
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = ClientJWT.decode(parts[0]),
            let payloadData = ClientJWT.decode(parts[1]),
            let signature = ClientJWT.decode(parts[2]),
            case .object(let header)? = try? JSONDecoder().decode(JSONValue.self, from: headerData),
            case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: payloadData)
        else {
            return refuse("the proof is not a JWT with JSON header and claims")
        }
        guard header["typ"]?.stringValue == "dpop+jwt" else { return refuse("typ is not dpop+jwt") }
        guard header["alg"]?.stringValue == "ES256" else { return refuse("alg is not ES256") }
        guard case .object(let jwk)? = header["jwk"], jwk["kty"]?.stringValue == "EC",
            jwk["crv"]?.stringValue == "P-256",
            let x = jwk["x"]?.stringValue, let y = jwk["y"]?.stringValue,
            let xData = ClientJWT.decode(Substring(x)), let yData = ClientJWT.decode(Substring(y)),
            xData.count == 32, yData.count == 32
        else {
            return refuse("jwk is not a P-256 public key")
        }
        guard jwk["d"] == nil else { return refuse("jwk holds a private key") }
        guard let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + xData + yData),
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: Data((parts[0] + "." + parts[1]).utf8))
        else {
            return refuse("the signature does not verify with jwk")
        }
        guard claims["htm"]?.stringValue == method else { return refuse("htm is not the request's method") }
        guard claims["htu"]?.stringValue == url else { return refuse("htu is not the request's URL") }
        guard case .number(let iat)? = claims["iat"], abs(iat - now.timeIntervalSince1970) <= allowedAge else {
            return refuse("iat is missing or not within \(Int(allowedAge)) s of now")
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty else { return refuse("jti is missing") }
        guard seen.insert(jti).inserted else { return refuse("jti was used before (a replayed proof)") }
        if let nonce, claims["nonce"]?.stringValue != nonce { return refuse("nonce is not the server's") }
        if let accessToken {
            let hash = SigningKey.base64URL(Data(SHA256.hash(data: Data(accessToken.utf8))))
            guard claims["ath"]?.stringValue == hash else { return refuse("ath is not the access token's hash") }
        }
        let members = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(x)\",\"y\":\"\(y)\"}"
        return .success(
            Verified(
                thumbprint: SigningKey.base64URL(Data(SHA256.hash(data: Data(members.utf8)))),
                nonce: claims["nonce"]?.stringValue))
    }

    /// What the token endpoint makes of a request's `DPoP` header.
    enum Check {
        /// No proof, or DPoP is off.
        case absent
        /// A valid proof, by the key with this thumbprint.
        case accepted(String)
        /// The error response to send (`invalid_dpop_proof`, `use_dpop_nonce` with a fresh nonce).
        case refused(LocalHTTPServer.Response)
    }

    /// The token endpoint's check of `request`'s `DPoP` header.
    func check(_ request: LocalHTTPServer.Request, url: String) -> Check {
        guard settings.enabled, let proof = request.header("DPoP") else { return .absent }
        return state.withLock { state in
            let nonce = state.settings.requiresNonce ? state.nonce : nil
            var record = Record()
            defer { state.records.append(record) }
            if let payload = proof.split(separator: ".", omittingEmptySubsequences: false).dropFirst().first,
                let data = ClientJWT.decode(payload),
                case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: data)
            {
                (record.htm, record.htu, record.nonce) = (
                    claims["htm"]?.stringValue, claims["htu"]?.stringValue,
                    claims["nonce"]?.stringValue
                )
            }
            switch Self.verify(proof, method: request.method, url: url, nonce: nonce, seen: &state.seen) {
            case .success(let verified):
                record.thumbprint = verified.thumbprint
                if nonce != nil { state.nonce = LocalAuthorizationServer.randomString(16) }
                return .accepted(verified.thumbprint)
            case .failure(let refusal) where refusal.reason == "nonce is not the server's":
                record.refusal = "use_dpop_nonce"
                var response = LocalHTTPServer.Response.json(
                    [
                        "error": "use_dpop_nonce",
                        "error_description": "Authorization server requires nonce in DPoP proof",
                    ],
                    status: 400)
                response.headers.append(("DPoP-Nonce", state.nonce))
                return .refused(response)
            case .failure(let refusal):
                record.refusal = refusal.reason
                return .refused(
                    .json(["error": "invalid_dpop_proof", "error_description": refusal.reason], status: 400))
            }
        }
    }
}

extension LocalDPoP {
    /// A resource request's check (RFC 9449 §7): a token bound to a key must come as `Authorization: DPoP` with a
    /// valid proof (`ath` included) by that key; an unbound one must not claim DPoP. The refusal, or `nil`.
    func checkResource(_ request: LocalHTTPServer.Request, accessToken: String, scheme: String, url: String) -> String?
    {
        let bound = boundKey(ofAccessToken: accessToken)
        guard let bound else {
            return scheme == "dpop" ? "this access token is not DPoP-bound; send it as Bearer" : nil
        }
        guard scheme == "dpop", let proof = request.header("DPoP") else {
            return "this access token is DPoP-bound: send it as 'Authorization: DPoP' with a proof"
        }
        return state.withLock { state in
            var record = Record(htm: request.method, htu: url)
            defer { state.records.append(record) }
            switch Self.verify(proof, method: request.method, url: url, accessToken: accessToken, seen: &state.seen) {
            case .success(let verified) where verified.thumbprint == bound:
                record.thumbprint = verified.thumbprint
                return nil
            case .success(let verified):
                record.thumbprint = verified.thumbprint
                record.refusal = "the proof's key is not the token's (cnf.jkt)"
            case .failure(let refusal):
                record.refusal = refusal.reason
            }
            return record.refusal
        }
    }
}

/// Why a DPoP proof was refused: fixed text naming the check.
public struct LocalDPoPRefusal: Error, Sendable, Equatable {
    /// `htm is not the request's method`, `jti was used before (a replayed proof)`…
    public var reason: String
}
