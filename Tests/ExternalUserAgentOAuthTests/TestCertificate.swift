// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Crypto
import EUATestSupport
import Foundation
import SwiftASN1
import X509

/// A self-signed certificate made for one test run, for `localhost` and `127.0.0.1`, as PEM files: the
/// certificate (also the only CA a client given ``caFile`` trusts) and its private key, for ``ScriptedHTTPServer``.
struct TestCertificate {
    /// The certificate, PEM: the server's, and the only CA a client given it trusts (`OAuthHTTP.caFile`).
    let certificateFile: String
    /// The server's private key, PEM.
    let keyFile: String
    private let folder: TemporaryFolder

    var caFile: String { certificateFile }

    init() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("eua test server") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 3600, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([
                    .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                ])
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        folder = try TemporaryFolder("eua-test-certificate")
        certificateFile = folder.path + "/certificate.pem"
        keyFile = folder.path + "/key.pem"
        try certificate.serializeAsPEM().pemString.write(toFile: certificateFile, atomically: true, encoding: .utf8)
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
    }
}
