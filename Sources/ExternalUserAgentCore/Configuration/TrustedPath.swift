// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentSystem

/// Whether a file may set policy: whether only root and the user could have written it, or could replace it.
///
/// The rule, as OpenSSH and sudo apply it to their files, checked on the path as the kernel resolves it:
/// - the file, every folder from `/` down to it, and every symbolic link on the way are owned by root or
///   by the user;
/// - neither the file nor a folder is writable by its group or by everyone; a folder with the sticky bit
///   (like `/tmp`) is the exception, since in it only an entry's owner may rename or remove the entry;
/// - a symbolic link is followed and its target checked the same way, so a link to a file anyone may
///   write, or into a folder anyone may write, is refused.
enum TrustedPath {
    /// How many symbolic links a path may pass through, as Linux allows (`ELOOP`).
    static let maximumLinks = 40

    /// Why `path` is not trusted, or `nil` when it is; `user` is the user (besides root) whose files are trusted.
    static func problem(_ path: String, user: uid_t) -> String? {
        var pending = components(of: path, from: path.hasPrefix("/") ? "" : SmallFiles.currentFolder() ?? "/")
        var resolved: [String] = []
        var links = 0
        var info = stat()
        guard lstat("/", &info) == 0 else { return "cannot read the file status of / (\(errorText()))" }
        if let problem = check("/", info, user: user) { return problem }
        while let name = pending.popLast() {
            if name == "." || name.isEmpty { continue }
            if name == ".." {
                _ = resolved.popLast()
                continue
            }
            let candidate = "/" + (resolved + [name]).joined(separator: "/")
            guard lstat(candidate, &info) == 0 else {
                return "cannot read the file status of \(candidate) (\(errorText()))"
            }
            guard info.st_mode & S_IFMT == S_IFLNK else {
                if let problem = check(candidate, info, user: user) { return problem }
                resolved.append(name)
                continue
            }
            links += 1
            guard links <= maximumLinks else {
                return "\(path) passes through more than \(maximumLinks) symbolic links"
            }
            guard info.st_uid == 0 || info.st_uid == user else {
                return "the symbolic link \(candidate) is owned by user \(info.st_uid), not by root or you, "
                    + "so that user could point it elsewhere; run 'chown -h root \(candidate)'"
            }
            guard let target = SmallFiles.linkTarget(candidate) else {
                return "cannot read the symbolic link \(candidate) (\(errorText()))"
            }
            if target.hasPrefix("/") { resolved = [] }
            pending += components(of: target, from: "")
        }
        return nil
    }

    /// Why the file or folder `path`, with status `info`, could be changed by someone else, or `nil`.
    private static func check(_ path: String, _ info: stat, user: uid_t) -> String? {
        let isFolder = info.st_mode & S_IFMT == S_IFDIR
        let what = isFolder ? "its folder \(path)" : path
        guard info.st_uid == 0 || info.st_uid == user else {
            return "\(what) is owned by user \(info.st_uid), not by root or you, so that user could change "
                + (isFolder ? "what it holds" : "it") + "; run 'chown root \(path)'"
        }
        let writers = info.st_mode & (S_IWGRP | S_IWOTH)
        guard writers != 0, !(isFolder && info.st_mode & S_ISVTX != 0) else { return nil }
        let who = writers & S_IWOTH != 0 ? "everyone" : "its group"
        return "\(what) is writable by \(who), so anyone "
            + (who == "everyone" ? "" : "in that group ") + "could "
            + (isFolder ? "replace the file" : "change it") + "; run 'chmod go-w \(path)'"
    }

    /// The parts of `path` after those of `base`, last first (so that `popLast` gives the next one).
    private static func components(of path: String, from base: String) -> [String] {
        (base + "/" + path).split(separator: "/", omittingEmptySubsequences: true).map(String.init).reversed()
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
