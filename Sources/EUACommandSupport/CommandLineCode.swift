// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

extension CodeConfiguration {
    /// The code layer of an `eua` command: its values name the flags that set them, so a reason reads
    /// "the preference order [firefox] from --agent on the command line", not "from code".
    package static var commandLine: CodeConfiguration {
        var code = CodeConfiguration()
        code.sources = [
            "preference": "--agent", "agent-options": "--agent-option", "allow-test-agents": "--allow-test-agents",
        ]
        return code
    }
}
