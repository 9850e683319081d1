// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where `eua login` and `eua refresh` take a client secret from: `--client-secret-file PATH` (a file only
/// its owner may read), `--client-secret` (visible to other users in `ps`), or `EUA_CLIENT_SECRET`.
enum ClientSecretSource {
    /// The largest secret file read.
    static let maximumBytes = 4096

    /// The secret from the first source given, `nil` for none. Two flags at once are a usage error.
    static func secret(file: String?, flag: String?, environment: [String: String]) throws -> String? {
        if file != nil, flag != nil {
            throw ValidationError("give --client-secret-file or --client-secret, not both")
        }
        if let file { return try read(file) }
        if let flag {
            guard !flag.isEmpty else {
                throw ValidationError("--client-secret is empty; leave it out for a public client")
            }
            return flag
        }
        return environment["EUA_CLIENT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The secret in `path`: one line (a final line break is dropped), in a regular file of this user that
    /// group and others can neither read nor write. Anything else is refused, saying how to fix it.
    static func read(_ path: String) throws -> String {
        let name = "--client-secret-file \(path)"
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            throw CommandFailure("\(name): it cannot be opened (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw CommandFailure("\(name): it is not a regular file")
        }
        guard info.st_uid == getuid() else {
            throw CommandFailure("\(name): it belongs to another user; a client secret file must be yours")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw CommandFailure(
                "\(name): group or others may read or change it (mode "
                    + "\(String(info.st_mode & 0o777, radix: 8))); it was not used — run 'chmod 600 \(path)'")
        }
        guard Int(info.st_size) <= maximumBytes else {
            throw CommandFailure("\(name): it is larger than \(maximumBytes) bytes; it should hold the secret only")
        }
        var bytes = [UInt8](repeating: 0, count: maximumBytes + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else {
                throw CommandFailure("\(name): it cannot be read (\(String(cString: strerror(errno))))")
            }
            if got == 0 { break }
            count += got
        }
        var secret = Array(bytes[..<min(count, maximumBytes)])
        if secret.last == UInt8(ascii: "\n") { secret.removeLast() }
        if secret.last == UInt8(ascii: "\r") { secret.removeLast() }
        guard !secret.isEmpty else { throw CommandFailure("\(name): it is empty") }
        if secret.contains(UInt8(ascii: "\n")) {
            throw CommandFailure("\(name): it holds more than one line; it should hold the secret only")
        }
        if secret.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw CommandFailure("\(name): it holds a control character; it should hold the secret only")
        }
        guard let text = String(validating: secret, as: UTF8.self) else {
            throw CommandFailure("\(name): it is not UTF-8 text; it should hold the secret only")
        }
        return text
    }
}
