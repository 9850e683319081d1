import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A self-signed certificate made for one test run, for `localhost` and `127.0.0.1`: the server's
/// TLS context, and a PEM file holding only it, for a client that trusts nothing else (`OAuthHTTP.caFile`).
struct TestCertificate {
    let server: NIOSSLContext
    /// A temporary PEM file with the certificate: the only CA a client given it trusts.
    let caFile: String

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
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let nioCertificate = try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
        let nioKey = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
        server = try NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: [.certificate(nioCertificate)], privateKey: .privateKey(nioKey)))
        caFile = FileManager.default.temporaryDirectory.appendingPathComponent("eua-test-ca-\(UUID().uuidString).pem").path
        try certificate.serializeAsPEM().pemString.write(toFile: caFile, atomically: true, encoding: .utf8)
    }
}
