#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ExternalUserAgent

/// Where an ``AuthState`` is saved: a private JSON file, written atomically.
///
/// Writes go to a temporary file (mode 0600) in the same folder, which is flushed and renamed over
/// the old one, so a reader sees the old state or the new, never half of one. The folder is made
/// with mode 0700 when missing. Reading refuses a file that is corrupt, not an ExternalUserAgent
/// state, not owned by this user, or readable by others (`stateFileInvalid`).
public struct AuthStateFile: Sendable, Hashable {
    /// The format marker written in every file.
    public static let format = "eua-auth-state"
    public static let version = 1

    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// `$XDG_STATE_HOME/eua/<name>` (default `~/.local/state/eua/auth-state.json`).
    public static func standard(name: String = "auth-state.json",
                                environment: [String: String] = ProcessInfo.processInfo.environment) -> AuthStateFile {
        let base: String
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = state
        } else {
            base = (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/state"
        }
        return AuthStateFile(path: base + "/eua/" + name)
    }

    struct Contents: Codable {
        var format = AuthStateFile.format
        var version = AuthStateFile.version
        var configuration: ServiceConfiguration
        var client: ClientCredentials
        var scope: String?
        var tokenResponse: TokenResponse?
        var idTokenClaims: IDTokenClaims?
        var authorizationError: OAuthErrorResponse?

        init(configuration: ServiceConfiguration, client: ClientCredentials, scope: String?,
             tokenResponse: TokenResponse?, idTokenClaims: IDTokenClaims?, authorizationError: OAuthErrorResponse?) {
            self.configuration = configuration
            self.client = client
            self.scope = scope
            self.tokenResponse = tokenResponse
            self.idTokenClaims = idTokenClaims
            self.authorizationError = authorizationError
        }

        enum CodingKeys: String, CodingKey {
            case format, version, configuration, client, scope
            case tokenResponse = "token_response"
            case idTokenClaims = "id_token_claims"
            case authorizationError = "authorization_error"
        }
    }

    private struct Marker: Decodable {
        var format: String?
        var version: Int?
    }

    func save(_ contents: Contents) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let data = try encoder.encode(contents)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw invalid("its folder could not be made: \(error)", underlying: error)
            }
        }
        let temporary = path + ".tmp-\(getpid())-\(SecureRandom.string(length: 8))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw invalid("a temporary file could not be made beside it: \(Self.errnoText())") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = write(fd, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 { if errno == EINTR { continue }; return false }
                written += count
            }
            return fsync(fd) == 0
        }
        let failure = ok ? nil : Self.errnoText()
        close(fd)
        guard ok else {
            unlink(temporary)
            throw invalid("it could not be written: \(failure ?? "unknown error")")
        }
        guard rename(temporary, path) == 0 else {
            let text = Self.errnoText()
            unlink(temporary)
            throw invalid("the new state could not replace it: \(text)")
        }
    }

    func load() throws -> Contents {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw invalid("it cannot be read (\(Self.errnoText())); sign in first with 'eua login'")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw invalid("it is not a regular file") }
        guard info.st_uid == getuid() else { throw invalid("it belongs to another user; it was not used") }
        guard info.st_mode & 0o077 == 0 else {
            throw invalid("others may read or change it (mode \(String(info.st_mode & 0o777, radix: 8))); "
                + "it holds tokens, so it was not used — run 'chmod 600 \(path)' if it is yours")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw invalid("it cannot be read") }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let marker = try? decoder.decode(Marker.self, from: data) else {
            throw invalid("it is not JSON; it may be corrupt — delete it and sign in again")
        }
        guard marker.format == Self.format else {
            throw invalid("it is not an ExternalUserAgent authorization state (no \"format\": \"\(Self.format)\")")
        }
        guard marker.version == Self.version else {
            throw invalid("it has format version \(marker.version.map(String.init) ?? "none"); this program reads version \(Self.version)")
        }
        do {
            return try decoder.decode(Contents.self, from: data)
        } catch {
            throw invalid("it is incomplete or corrupt — delete it and sign in again")
        }
    }

    private func invalid(_ reason: String, underlying: (any Error & Sendable)? = nil) -> ExternalUserAgentError {
        ExternalUserAgentError(.stateFileInvalid, "authorization state file \(path): \(reason)", underlying: underlying)
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
