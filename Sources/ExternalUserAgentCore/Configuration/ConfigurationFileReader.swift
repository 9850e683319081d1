// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem
#if canImport(Glibc)
import Glibc
#endif

/// Reads one configuration file from disk: whether it is there, whether it may be trusted, and its bytes.
///
/// System and managed files must pass ``TrustedPath``. A refused system or user file is skipped with a
/// warning; a managed file that exists but is refused throws, because skipping it would drop the policy
/// it sets (fail closed). A file over ``maximumSize`` throws whatever its layer.
enum ConfigurationFileReader {
    /// The largest configuration file read, 1 MiB: real ones are a few hundred bytes, and the limit keeps a
    /// mistaken or hostile file from costing memory and time.
    static let maximumSize = 1 << 20

    /// Reads `path` as a file of `layer`; `user` is the user (besides root) whose files are trusted.
    static func read(
        _ path: String, layer: ConfigurationLayer,
        user: uid_t
    ) throws(ExternalUserAgentError) -> (ConfigurationFileStatus.Status, [UInt8]?) {
        let (status, bytes) = try readChecked(path, trusting: layer == .system || layer == .managed ? user : nil)
        if layer == .managed, case .refused(let why) = status {
            throw ExternalUserAgentError(
                .configurationInvalid,
                "managed configuration file \(path) is refused: \(why). It sets policy no other layer may change, "
                    + "so nothing runs without it: make it and every folder above it owned by root and writable "
                    + "by no one else (or remove it if no policy is meant)")
        }
        return (status, bytes)
    }

    /// The status and, when loaded, the bytes of `path`; `user` is set when the path must be trusted.
    private static func readChecked(
        _ path: String,
        trusting user: uid_t?
    ) throws(ExternalUserAgentError) -> (ConfigurationFileStatus.Status, [UInt8]?) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return (.notFound, nil) }
            return (.refused("cannot read its file status (\(errorText()))"), nil)
        }
        if info.st_mode & S_IFMT != S_IFREG { return (.refused("not a regular file"), nil) }
        if let user, let problem = TrustedPath.problem(path, user: user) { return (.refused(problem), nil) }
        // O_NONBLOCK: a FIFO put in the file's place after the checks above must not block the open.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return (.refused("cannot open it (\(errorText()))"), nil) }
        defer { close(descriptor) }
        var opened = stat()
        guard fstat(descriptor, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG,
            opened.st_dev == info.st_dev, opened.st_ino == info.st_ino
        else {
            return (.refused("it changed while it was checked; run the command again"), nil)
        }
        guard opened.st_size <= maximumSize else { throw tooLarge(path, size: "it has \(opened.st_size) bytes") }
        do throws(SmallFiles.Failure) {
            return (.loaded, try SmallFiles.readAll(descriptor, size: Int(opened.st_size), limit: maximumSize))
        } catch {
            if error.isTooLarge { throw tooLarge(path, size: "it grew past that while it was read") }
            return (.refused("cannot read it (\(String(cString: strerror(error.errorNumber ?? EIO))))"), nil)
        }
    }

    private static func tooLarge(_ path: String, size: String) -> ExternalUserAgentError {
        ExternalUserAgentError(
            .configurationInvalid,
            "\(path): the file is larger than the 1 MiB (\(maximumSize) bytes) a configuration file may have "
                + "(\(size)); check that the path names the configuration file, and keep only the settings in it")
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
