// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The app ids that systemd unit names carry, as desktops name the scopes and services of the apps they start
/// (the systemd "desktop environment integration" naming: `app-<launcher>-<AppID>-<RANDOM>.scope`,
/// `app-<launcher>-<AppID>@<RANDOM>.service`, `app-<AppID>.service`), and the snap names of snapd's scopes.
enum SystemdScope {
    /// The app id in the last path component of a cgroup path, or `nil` when it names no app.
    static func appID(unit: String) -> String? {
        guard unit.hasPrefix("app-") else { return nil }
        var name = Substring(unit.dropFirst(4))
        if name.hasSuffix(".scope") {
            name = name.dropLast(6)
            // A scope ends with "-<RANDOM>": drop it.
            guard let dash = name.lastIndex(of: "-") else { return nil }
            name = name[..<dash]
        } else if name.hasSuffix(".service") {
            name = name.dropLast(8)
            if let at = name.lastIndex(of: "@") { name = name[..<at] }
        } else {
            return nil
        }
        // "<launcher>-<AppID>": the launcher's name has no dash; an app id without one is the whole rest.
        if let dash = name.firstIndex(of: "-") { name = name[name.index(after: dash)...] }
        let id = unescape(String(name))
        return isAppID(id) ? id : nil
    }

    /// The snap instance name of a unit `snap.<name>.<app>…` (the scopes and services snapd makes), or `nil`.
    static func snapName(unit: String) -> String? {
        guard unit.hasPrefix("snap.") else { return nil }
        let parts = unit.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, SnapPortalInfo.isInstanceName(parts[1]) else { return nil }
        return String(parts[1])
    }

    /// systemd's unit name escaping: `\xNN` back to its byte.
    static func unescape(_ text: String) -> String {
        var bytes: [UInt8] = []
        var rest = Substring(text)
        while let first = rest.first {
            if rest.hasPrefix("\\x"), rest.count >= 4, let byte = UInt8(rest.dropFirst(2).prefix(2), radix: 16) {
                bytes.append(byte)
                rest = rest.dropFirst(4)
            } else {
                bytes.append(contentsOf: first.utf8)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An app id as desktop entries name them: 1–255 characters of letters, digits, `.`, `_`, `-`.
    static func isAppID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 255
            && id.utf8.allSatisfy {
                $0.isASCIILetterOrDigit || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
    }

    /// A snap name: lower-case letters, digits and dashes, at most 40.
    static func isSnapName(_ name: Substring) -> Bool {
        !name.isEmpty && name.utf8.count <= 40
            && name.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-")
            }
    }
}

extension UInt8 {
    var isASCIILetterOrDigit: Bool {
        (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z"))
            || (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9"))
    }
}
