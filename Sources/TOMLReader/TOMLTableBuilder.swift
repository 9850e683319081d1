// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A table while a TOML document is read, and the rules on what may still add to it.
///
/// TOML defines a table once: by its `[header]`, by dotted keys (`a.b = 1` defines `a`), or as an
/// inline table (`a = {…}`, complete as written, so kept as a finished value). A table only named on
/// the way to another (`a` in `[a.b]`) is implicit: it may still get a header or dotted keys, once.
/// Headers may open sub-tables of any table but an inline one; dotted keys only reach tables they
/// defined themselves (or implicit ones). Nothing is built deeper than ``TOMLDocument/maximumDepth``.
final class TOMLTableBuilder {
    enum Definition {
        case implicit, header, dotted
    }

    /// Why a key cannot be defined where it was written.
    struct Conflict: Error {
        /// The byte offset of the key part at fault.
        var offset: Int
        var message: String
    }

    /// The tables of one `[[header]]`, in a class so that adding one does not copy the others.
    private final class TableArray {
        var tables: [TOMLTableBuilder]
        init(_ table: TOMLTableBuilder) { tables = [table] }
    }

    private enum Slot {
        case value(TOMLValue, line: Int)
        case table(TOMLTableBuilder)
        case tableArray(TableArray)
    }

    private var definition: Definition
    /// The line where the table was defined, or first named while implicit.
    private var line: Int
    /// How deep the table is in the document: 0 for the document itself; its values are one deeper.
    let depth: Int
    private var keys: [String] = []
    private var slots: [String: Slot] = [:]

    init(_ definition: Definition, line: Int, depth: Int) {
        self.definition = definition
        self.line = line
        self.depth = depth
    }

    /// The message for something nested deeper than ``TOMLDocument/maximumDepth``: `what` is `key 'a.b'` or
    /// `an array element`.
    static func tooDeep(_ what: String) -> String {
        "expected values nested at most \(TOMLDocument.maximumDepth) deep (each key part, table and array counts), "
            + "found \(what) \(TOMLDocument.maximumDepth + 1) deep"
    }

    /// Defines the table of a `[header]` with `path` under this one, and returns it.
    func openTable(_ path: [TOMLKeyPart], line: Int) throws(Conflict) -> TOMLTableBuilder {
        let parent = try parentForHeader(path, line: line)
        let last = path[path.count - 1]
        switch parent.slots[last.name] {
        case nil:
            return try parent.add(path, path.count - 1, TOMLTableBuilder(.header, line: line, depth: parent.depth + 1))
        case .table(let table):
            switch table.definition {
            case .implicit:
                table.definition = .header
                table.line = line
                return table
            case .header:
                throw Conflict(
                    offset: last.offset,
                    message: "expected each table once, found "
                        + "[\(TOMLKeyPart.display(path))] again (defined on line \(table.line))")
            case .dotted:
                throw Conflict(
                    offset: last.offset,
                    message: "expected a new table, found [\(TOMLKeyPart.display(path))], "
                        + "which dotted keys defined on line \(table.line)")
            }
        case .tableArray(let array):
            let name = TOMLKeyPart.display(path)
            throw Conflict(
                offset: last.offset,
                message: "expected [[\(name)]] to add to the array of tables "
                    + "defined on line \(array.tables[0].line), found [\(name)]")
        case .value(let value, let line):
            throw Conflict(offset: last.offset, message: Self.notATable(TOMLKeyPart.display(path), value, line))
        }
    }

    /// Adds a table to the array of tables of a `[[header]]` with `path` under this one, and returns it.
    func appendTable(_ path: [TOMLKeyPart], line: Int) throws(Conflict) -> TOMLTableBuilder {
        let parent = try parentForHeader(path, line: line)
        let last = path[path.count - 1]
        guard parent.depth + 2 <= TOMLDocument.maximumDepth else {
            throw Conflict(offset: last.offset, message: Self.tooDeep("a table of [[\(TOMLKeyPart.display(path))]]"))
        }
        let table = TOMLTableBuilder(.header, line: line, depth: parent.depth + 2)
        switch parent.slots[last.name] {
        case nil:
            parent.keys.append(last.name)
            parent.slots[last.name] = .tableArray(TableArray(table))
        case .tableArray(let array):
            array.tables.append(table)
        case .table(let existing):
            throw Conflict(
                offset: last.offset,
                message: "expected a new array of tables, found "
                    + "[[\(TOMLKeyPart.display(path))]], which is a table defined on line \(existing.line)")
        case .value(let value, let line):
            throw Conflict(
                offset: last.offset,
                message: "expected a new array of tables, found "
                    + "[[\(TOMLKeyPart.display(path))]], which is \(value.typeName) defined on line \(line)")
        }
        return table
    }

    /// Defines `path = value`, written on `line`, in this table: dotted keys define the tables on the way.
    /// The caller has checked that the value is no deeper than ``TOMLDocument/maximumDepth``.
    func define(_ path: [TOMLKeyPart], _ value: TOMLValue, line: Int) throws(Conflict) {
        var table = self
        for (index, part) in path.dropLast().enumerated() {
            switch table.slots[part.name] {
            case nil:
                table = try table.add(path, index, TOMLTableBuilder(.dotted, line: line, depth: table.depth + 1))
            case .table(let child):
                switch child.definition {
                case .implicit:
                    child.definition = .dotted
                    child.line = line
                case .dotted:
                    break
                case .header:
                    throw Conflict(
                        offset: part.offset,
                        message: "expected the keys of [\(TOMLKeyPart.display(path[...index]))] "
                            + "under its header on line \(child.line), found dotted key '\(TOMLKeyPart.display(path))'")
                }
                table = child
            case .tableArray(let array):
                let name = TOMLKeyPart.display(path[...index])
                throw Conflict(
                    offset: part.offset,
                    message: "expected a key that is not an array of tables, found "
                        + "'\(name)' (defined by [[\(name)]] on line \(array.tables[0].line))")
            case .value(let value, let line):
                throw Conflict(
                    offset: part.offset, message: Self.notATable(TOMLKeyPart.display(path[...index]), value, line))
            }
        }
        let last = path[path.count - 1]
        if let existing = table.slots[last.name] {
            let earlier =
                switch existing {
                case .value(_, let line): line
                case .table(let child): child.line
                case .tableArray(let array): array.tables[0].line
                }
            throw Conflict(
                offset: last.offset,
                message: "expected each key once, found "
                    + "'\(TOMLKeyPart.display(path))' again (defined on line \(earlier))")
        }
        table.keys.append(last.name)
        table.slots[last.name] = .value(value, line: line)
    }

    /// The finished table.
    func build() -> TOMLTable {
        var table = TOMLTable(line: line)
        for key in keys {
            switch slots[key] {
            case .value(let value, let line)?:
                table.append(key, value, line: line)
            case .table(let child)?:
                table.append(key, .table(child.build()), line: child.line)
            case .tableArray(let array)?:
                table.append(key, .array(array.tables.map { .table($0.build()) }), line: array.tables[0].line)
            case nil:
                break
            }
        }
        return table
    }

    /// The table a header's last key goes into: tables on the way are created (implicit) or entered;
    /// an array of tables is entered at its last table.
    private func parentForHeader(_ path: [TOMLKeyPart], line: Int) throws(Conflict) -> TOMLTableBuilder {
        var table = self
        for (index, part) in path.dropLast().enumerated() {
            switch table.slots[part.name] {
            case nil:
                table = try table.add(path, index, TOMLTableBuilder(.implicit, line: line, depth: table.depth + 1))
            case .table(let child):
                table = child
            case .tableArray(let array):
                table = array.tables[array.tables.count - 1]
            case .value(let value, let line):
                throw Conflict(
                    offset: part.offset,
                    message: Self.notATable(TOMLKeyPart.display(path[...index]), value, line))
            }
        }
        return table
    }

    /// Adds `table` under the name of `path[index]`, unless it would be too deep.
    private func add(_ path: [TOMLKeyPart], _ index: Int, _ table: TOMLTableBuilder) throws(Conflict)
        -> TOMLTableBuilder
    {
        guard table.depth <= TOMLDocument.maximumDepth else {
            throw Conflict(
                offset: path[index].offset, message: Self.tooDeep("key '\(TOMLKeyPart.display(path[...index]))'"))
        }
        let name = path[index].name
        keys.append(name)
        slots[name] = .table(table)
        return table
    }

    private static func notATable(_ name: String, _ value: TOMLValue, _ line: Int) -> String {
        if case .table = value {
            return "expected a table that can take more keys, found '\(name)', an inline table (line \(line)), "
                + "which is complete as written"
        }
        return "expected a table, found '\(name)', which is \(value.typeName) (line \(line))"
    }
}
