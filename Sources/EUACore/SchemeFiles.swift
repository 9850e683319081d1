#if canImport(Glibc)
import Glibc
#endif

/// The small file work of `eua scheme`: read, write atomically, remove, make folders, run a helper.
enum SchemeFiles {
    /// The file's text, or `nil` when it cannot be read.
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
            if bytes.count > 1 << 20 { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `text` to `path` through a temporary file and a rename (mode 0644).
    static func write(_ text: String, to path: String) throws(SchemeCommandError) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SchemeCommandError("could not write \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let closed = close(fd)
        guard written == bytes.count, closed == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw SchemeCommandError("could not write \(path): \(reason)")
        }
    }

    /// Makes `path` and its missing parents (mode 0755).
    static func makeFolders(_ path: String) throws(SchemeCommandError) {
        var partial = ""
        for part in path.split(separator: "/") {
            partial += "/" + part
            if mkdir(partial, 0o755) != 0, errno != EEXIST {
                throw SchemeCommandError("could not make the folder \(partial): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The names in `folder`, or none when it cannot be read.
    static func names(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            names.append(name)
        }
        return names.sorted()
    }

    /// The full path of `program` found in `PATH`, if any.
    static func which(_ program: String, path: String?) -> String? {
        (path ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(program)" }.first { access($0, X_OK) == 0 }
    }

    /// Runs `arguments` (the first is a full path) with output discarded, waiting at most `seconds`; `true`
    /// when it exited 0. A helper past its deadline is killed.
    static func run(_ arguments: [String], seconds: Int) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return false }
        let deadline = ContinuousClock.now + .seconds(seconds)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return false
            }
            usleep(10_000)
        }
        return status & 0x7f == 0 && (status >> 8) & 0xff == 0
    }
}
