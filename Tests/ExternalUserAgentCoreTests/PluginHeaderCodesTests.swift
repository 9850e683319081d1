// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CExternalUserAgentPlugin
import ExternalUserAgentCore
import ExternalUserAgentPluginKit
import Testing

/// The header's typed error codes and log levels, the Swift plugin kit's and the host's are one list.
@Suite("eua_plugin.h codes and levels")
struct PluginHeaderCodesTests {
    @Test("each of the kit's codes is the header's number with the header's wire name, and the host takes it")
    func errorCodes() {
        for code in PluginError.Code.allCases {
            let name = eua_error_code_name(code.number).map { String(cString: $0) }
            #expect(name == code.rawValue, "\(code): the header names \(code.number.rawValue) '\(name ?? "nil")'")
            #expect(
                ExternalUserAgentError.Code(name: code.rawValue)?.name == code.rawValue,
                "the host does not take '\(code.rawValue)' from a plugin")
        }
        #expect(Set(PluginError.Code.allCases.map(\.number.rawValue)).count == PluginError.Code.allCases.count)
        #expect(eua_error_code_name(eua_error_code(rawValue: 999)) == nil)
    }

    @Test("the kit's log levels are the header's numbers")
    func logLevels() {
        let pairs: [(PluginHost.Level, eua_log_level)] = [
            (.trace, EUA_LOG_TRACE), (.debug, EUA_LOG_DEBUG), (.info, EUA_LOG_INFO), (.notice, EUA_LOG_NOTICE),
            (.warning, EUA_LOG_WARNING), (.error, EUA_LOG_ERROR),
        ]
        for (level, header) in pairs { #expect(level.rawValue == Int32(header.rawValue), "\(level)") }
    }
}
