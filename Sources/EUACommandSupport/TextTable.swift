// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import ExternalUserAgentCore

/// Left-aligned columns, padded to the widest cell, two spaces apart. Cells are escaped for the terminal
/// (``TerminalText``) before they are measured, so a cell from a plugin neither breaks a row nor the columns.
package enum TextTable {
    package static func render(header: [String], rows: [[String]]) -> [String] {
        let all = ([header] + rows).map { $0.map { TerminalText.escaped($0) } }
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column] : row[column].padding(to: widths[column])
            }.joined(separator: "  ")
        }
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
