/// A table while a TOML document is read, and the rules on what may still add to it.
///
/// TOML defines a table once: by its `[header]`, by dotted keys (`a.b = 1` defines `a`), or as an
/// inline table (`a = {…}`, complete as written, so kept as a finished value). A table only named on
/// the way to another (`a` in `[a.b]`) is implicit: it may still get a header or dotted keys, once.
/// Headers may open sub-tables of any table but an inline one; dotted keys only reach tables they
/// defined themselves (or implicit ones).
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

    private enum Slot {
        case value(TOMLValue, line: Int)
        case table(TOMLTableBuilder)
        case tableArray([TOMLTableBuilder])
    }

    private var definition: Definition
    /// The line where the table was defined, or first named while implicit.
    private var line: Int
    private var keys: [String] = []
    private var slots: [String: Slot] = [:]

    init(_ definition: Definition, line: Int) {
        self.definition = definition
        self.line = line
    }

    /// Defines the table of a `[header]` with `path` under this one, and returns it.
    func openTable(_ path: [TOMLKeyPart], line: Int) throws(Conflict) -> TOMLTableBuilder {
        let parent = try parentForHeader(path, line: line)
        let last = path[path.count - 1]
        let name = TOMLKeyPart.display(path)
        switch parent.slots[last.name] {
        case nil:
            return parent.add(last.name, TOMLTableBuilder(.header, line: line))
        case .table(let table):
            switch table.definition {
            case .implicit:
                table.definition = .header
                table.line = line
                return table
            case .header:
                throw Conflict(offset: last.offset,
                               message: "expected each table once, found [\(name)] again (defined on line \(table.line))")
            case .dotted:
                throw Conflict(offset: last.offset, message: "expected a new table, found [\(name)], "
                               + "which dotted keys defined on line \(table.line)")
            }
        case .tableArray(let tables):
            throw Conflict(offset: last.offset, message: "expected [[\(name)]] to add to the array of tables "
                           + "defined on line \(tables[0].line), found [\(name)]")
        case .value(let value, let line):
            throw Conflict(offset: last.offset, message: Self.notATable(name, value, line))
        }
    }

    /// Adds a table to the array of tables of a `[[header]]` with `path` under this one, and returns it.
    func appendTable(_ path: [TOMLKeyPart], line: Int) throws(Conflict) -> TOMLTableBuilder {
        let parent = try parentForHeader(path, line: line)
        let last = path[path.count - 1]
        let name = TOMLKeyPart.display(path)
        let table = TOMLTableBuilder(.header, line: line)
        switch parent.slots[last.name] {
        case nil:
            parent.keys.append(last.name)
            parent.slots[last.name] = .tableArray([table])
        case .tableArray(let tables):
            parent.slots[last.name] = .tableArray(tables + [table])
        case .table(let existing):
            throw Conflict(offset: last.offset, message: "expected a new array of tables, found [[\(name)]], "
                           + "which is a table defined on line \(existing.line)")
        case .value(let value, let line):
            throw Conflict(offset: last.offset, message: "expected a new array of tables, found [[\(name)]], "
                           + "which is \(value.typeName) defined on line \(line)")
        }
        return table
    }

    /// Defines `path = value`, written on `line`, in this table: dotted keys define the tables on the way.
    func define(_ path: [TOMLKeyPart], _ value: TOMLValue, line: Int) throws(Conflict) {
        var table = self
        for (depth, part) in path.dropLast().enumerated() {
            let name = TOMLKeyPart.display(path[...depth])
            switch table.slots[part.name] {
            case nil:
                table = table.add(part.name, TOMLTableBuilder(.dotted, line: line))
            case .table(let child):
                switch child.definition {
                case .implicit:
                    child.definition = .dotted
                    child.line = line
                case .dotted:
                    break
                case .header:
                    throw Conflict(offset: part.offset, message: "expected the keys of [\(name)] under its header "
                                   + "on line \(child.line), found dotted key '\(TOMLKeyPart.display(path))'")
                }
                table = child
            case .tableArray(let tables):
                throw Conflict(offset: part.offset, message: "expected a key that is not an array of tables, found "
                               + "'\(name)' (defined by [[\(name)]] on line \(tables[0].line))")
            case .value(let value, let line):
                throw Conflict(offset: part.offset, message: Self.notATable(name, value, line))
            }
        }
        let last = path[path.count - 1]
        if let existing = table.slots[last.name] {
            let earlier = switch existing {
            case .value(_, let line): line
            case .table(let child): child.line
            case .tableArray(let tables): tables[0].line
            }
            throw Conflict(offset: last.offset, message: "expected each key once, found "
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
            case .tableArray(let tables)?:
                table.append(key, .array(tables.map { .table($0.build()) }), line: tables[0].line)
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
        for (depth, part) in path.dropLast().enumerated() {
            switch table.slots[part.name] {
            case nil:
                table = table.add(part.name, TOMLTableBuilder(.implicit, line: line))
            case .table(let child):
                table = child
            case .tableArray(let tables):
                table = tables[tables.count - 1]
            case .value(let value, let line):
                throw Conflict(offset: part.offset,
                               message: Self.notATable(TOMLKeyPart.display(path[...depth]), value, line))
            }
        }
        return table
    }

    private func add(_ name: String, _ table: TOMLTableBuilder) -> TOMLTableBuilder {
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
