// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The small file work of the host, the commands and the plugins — read a file whole, list a folder, make folders,
/// replace a file, split a path — with plain system calls, so that no start path pays for `FileManager` and `URL`.
package enum SmallFiles {
    /// Why a file was not read: a reason that completes a sentence about the file.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package var reason: String
        /// The file is longer than the limit it was read with.
        package var isTooLarge = false
        /// The `errno` of the system call that failed, when one did.
        package var errorNumber: Int32?
        package var description: String { reason }

        package init(reason: String, isTooLarge: Bool = false, errorNumber: Int32? = nil) {
            self.reason = reason
            self.isTooLarge = isTooLarge
            self.errorNumber = errorNumber
        }
    }

    /// The bytes of the regular file at `path` (symlinks followed), or `nil` when nothing is there; a file
    /// longer than `limit` bytes, a folder or a device is refused. The open does not block on a FIFO.
    package static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw Failure(reason: "it cannot be opened (\(errorText()))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Failure(reason: "its status cannot be read (\(errorText()))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Failure(reason: "it is not a regular file") }
        guard info.st_size <= limit else {
            throw Failure(reason: "it has \(info.st_size) bytes, over the \(limit) allowed", isTooLarge: true)
        }
        return try readAll(descriptor, size: Int(info.st_size), limit: limit)
    }

    /// The rest of the open regular file `descriptor`, whose status said `size` bytes: sized from that, and a file
    /// that grew since is read on, up to one byte over `limit`, then refused.
    package static func readAll(_ descriptor: Int32, size: Int, limit: Int) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard count <= limit else {
                    throw Failure(reason: "it grew past the \(limit) bytes allowed while it was read", isTooLarge: true)
                }
                bytes += repeatElement(0, count: min(max(count, 4096), limit + 1 - count))
            }
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got == 0 { break }
            if got < 0 {
                let number = errno
                if number == EINTR { continue }
                throw Failure(reason: "it cannot be read (\(String(cString: strerror(number))))", errorNumber: number)
            }
            count += got
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// The names in `folder` (without `.` and `..`), sorted; none when it cannot be read.
    package static func names(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// How many replacements this process has begun: a part of each temporary file's name.
    private static let replacements = Atomic(0)

    /// Replaces `path` with `text` atomically: written to a temporary file beside it (`mode`), then renamed over
    /// it; why not, when that failed (the temporary file is then removed). For files without secrets: not flushed
    /// to disk.
    package static func replace(_ path: String, with text: String, mode: mode_t) -> String? {
        // Unique per write, not only per process: two threads of one process may replace the same file at once.
        let temporary = path + ".tmp-\(getpid())-\(replacements.add(1, ordering: .relaxed).oldValue)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return "could not write \(temporary): \(errorText())" }
        var bytes = Array(text.utf8)
        var offset = 0
        var failure: String?
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                failure = "could not write \(temporary): \(errorText())"
                break
            }
            offset += count
        }
        if close(descriptor) != 0, failure == nil { failure = "could not write \(temporary): \(errorText())" }
        if failure == nil, rename(temporary, path) != 0 {
            failure = "could not rename \(temporary) to \(path): \(errorText())"
        }
        if failure != nil { unlink(temporary) }
        return failure
    }

    /// Makes the folder `path` and its missing parents with `mode` (an existing folder is left as it is);
    /// why not, when one could not be made.
    package static func makeFolders(_ path: String, mode: mode_t) -> String? {
        var partial = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            partial += "/" + part
            if mkdir(partial, mode) != 0, errno != EEXIST {
                return "could not make the folder \(partial): \(errorText())"
            }
        }
        return nil
    }

    /// The folder holding `path`: `/` for a path right under the root, `.` for a bare name; trailing slashes
    /// are not part of the last name.
    package static func folder(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// The last name in `path` (trailing slashes ignored); `/` for the root.
    package static func lastName(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return trimmed == "/" ? "/" : String(trimmed[trimmed.index(after: slash)...])
    }

    /// The target of the symbolic link at `path`, as stored; `nil` when it is not one or cannot be read.
    package static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The process's working folder.
    package static func currentFolder() -> String? {
        guard let raw = getcwd(nil, 0) else { return nil }
        defer { free(raw) }
        return String(cString: raw)
    }

    private static func withoutTrailingSlashes(_ path: String) -> Substring {
        var trimmed = path[...]
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return trimmed
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
