// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The libraries an ELF shared object names as needed (`DT_NEEDED`), read from its file: what the dynamic loader will
/// look for when it is opened. Only 64-bit little-endian ELF (the platforms this package builds for); every offset and
/// size read from the file is checked against the file before it is used.
enum ELFNeededLibraries {
    /// The needed library names of the file at `path`, in its order; `nil` when the file cannot be read or is not
    /// such an ELF file, or its dynamic section is malformed.
    static func read(_ path: String) -> [String]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let fileSize = UInt64(status.st_size)
        func bytes(_ count: UInt64, at offset: UInt64) -> [UInt8]? {
            guard count > 0, count <= 4 << 20, offset <= fileSize, count <= fileSize - offset else { return nil }
            var buffer = [UInt8](repeating: 0, count: Int(count))
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, Int(count), off_t(offset)) }
            return got == Int(count) ? buffer : nil
        }
        // The ELF header: magic, 64-bit, little-endian; where the program headers are.
        guard let header = bytes(64, at: 0), header[0] == 0x7f, header[1] == 0x45, header[2] == 0x4c,
            header[3] == 0x46, header[4] == 2, header[5] == 1
        else { return nil }
        let headerOffset = word(header, 0x20)
        let entrySize = UInt64(half(header, 0x36))
        let count = UInt64(half(header, 0x38))
        guard entrySize >= 56, count > 0, count <= 512, let table = bytes(entrySize * count, at: headerOffset) else {
            return nil
        }
        // The loaded segments (to turn the string table's address into a file offset) and the dynamic section.
        var segments: [(address: UInt64, offset: UInt64, size: UInt64)] = []
        var dynamic: (offset: UInt64, size: UInt64)?
        for index in 0..<Int(count) {
            let base = index * Int(entrySize)
            switch word32(table, base) {
            case 1: segments.append((word(table, base + 16), word(table, base + 8), word(table, base + 32)))
            case 2: dynamic = (word(table, base + 8), word(table, base + 32))
            default: break
            }
        }
        guard let dynamic, dynamic.size % 16 == 0, let entries = bytes(dynamic.size, at: dynamic.offset) else {
            return nil
        }
        var needed: [UInt64] = []
        var stringTable: (address: UInt64?, size: UInt64?) = (nil, nil)
        for entry in stride(from: 0, to: entries.count, by: 16) {
            let tag = word(entries, entry)
            let value = word(entries, entry + 8)
            if tag == 0 { break }  // DT_NULL
            if tag == 1 { needed.append(value) }  // DT_NEEDED: an offset in the string table
            if tag == 5 { stringTable.address = value }  // DT_STRTAB
            if tag == 10 { stringTable.size = value }  // DT_STRSZ
        }
        if needed.isEmpty { return [] }
        guard let address = stringTable.address, let size = stringTable.size,
            let segment = segments.first(where: { address >= $0.address && address - $0.address < $0.size }),
            let strings = bytes(size, at: segment.offset + (address - segment.address))
        else { return nil }
        var names: [String] = []
        for start in needed {
            guard start < size, let end = strings[Int(start)...].firstIndex(of: 0) else { return nil }
            names.append(String(decoding: strings[Int(start)..<end], as: UTF8.self))
        }
        return names
    }

    private static func half(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }

    private static func word32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }

    private static func word(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
    }
}
