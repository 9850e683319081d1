// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation

/// A throwaway CA and a server certificate it signed for 127.0.0.1 and localhost, made with the `openssl`
/// command when the test runs (nothing secret is kept in the repository).
struct TestCA {
    let folder: TemporaryFolder
    var caCertificate: String { folder.path + "/ca.pem" }
    var serverCertificate: String { folder.path + "/server.pem" }
    var serverKey: String { folder.path + "/server.key" }

    init() throws {
        guard let openssl = ProcessRunner.which("openssl") else { throw TestSupportError("openssl is not on PATH") }
        folder = try TemporaryFolder("eua-test-ca")
        let path = folder.path
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: path + "/server.ext", atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path + "/ca.key", "-out", path + "/ca.pem",
                "-days", "1", "-subj", "/CN=eua throwaway test CA",
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", path + "/server.key", "-out", path + "/server.csr",
                "-subj", "/CN=127.0.0.1",
            ],
            [
                "x509", "-req", "-in", path + "/server.csr", "-CA", path + "/ca.pem", "-CAkey", path + "/ca.key",
                "-CAcreateserial", "-out", path + "/server.pem", "-days", "1", "-extfile", path + "/server.ext",
            ],
        ]
        for arguments in steps {
            let result = try ProcessRunner.run(openssl, arguments)
            guard result.status == 0 else {
                throw TestSupportError("openssl \(arguments[0]) failed: \(result.stderr)")
            }
        }
    }
}
