// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser

/// `--agent-option key=value` pairs.
package enum AgentOptions {
    package static func parse(_ pairs: [String]) throws -> [String: String] {
        var options: [String: String] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ValidationError("--agent-option '\(pair)' must look like key=value")
            }
            options[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return options
    }
}
