import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A self-signed certificate made for one test run, for `localhost` and `127.0.0.1`: the server's
/// TLS context, and a client context that trusts only it.
struct TestCertificate {
    let server: NIOSSLContext
    let trustingClient: NIOSSLContext

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
        var client = TLSConfiguration.makeClientConfiguration()
        client.trustRoots = .certificates([nioCertificate])
        trustingClient = try NIOSSLContext(configuration: client)
    }
}
