// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUACommandSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The steps of `eua demo`, filled in as the sign-in goes, printed in order in plain words
/// (as each is done) or as one JSON object at the end.
final class DemoReport: Sendable {
    enum Step: String, CaseIterable, Sendable {
        case server, discovery, receiver, agent, redirect, tokens
        case idToken = "id_token"
        case state
        case signOut = "sign_out"
    }

    enum Status: String, Encodable, Sendable {
        case passed, failed
        case notRun = "not_run"
    }

    struct Entry: Encodable, Sendable {
        var step: String
        var status: Status
        var detail: String
    }

    private struct Table {
        var entries: [Step: (Status, String)] = [:]
        var printed = 0
    }

    private let table = Mutex(Table())
    private let streaming: Bool

    /// `streaming`: print each step in plain words as soon as it and those before it are done.
    init(streaming: Bool) {
        self.streaming = streaming
    }

    func passed(_ step: Step, _ detail: String) {
        record(step, .passed, detail)
    }

    /// Marks the first step not yet done as failed with `detail`, and the rest as not run.
    func failedAtNextStep(_ detail: String) {
        let next = table.withLock { table in Step.allCases.first { table.entries[$0] == nil } }
        guard let next else { return }
        record(next, .failed, detail)
        for step in Step.allCases where table.withLock({ $0.entries[step] == nil }) {
            record(step, .notRun, "not run: an earlier step failed")
        }
    }

    var entries: [Entry] {
        table.withLock { table in
            Step.allCases.map { step in
                let (status, detail) = table.entries[step] ?? (.notRun, "not run")
                return Entry(step: step.rawValue, status: status, detail: detail)
            }
        }
    }

    /// The detail of the first step that failed.
    var firstFailure: String? { entries.first { $0.status == .failed }?.detail }

    var allPassed: Bool { entries.allSatisfy { $0.status == .passed } }

    private func record(_ step: Step, _ status: Status, _ detail: String) {
        let lines = table.withLock { table -> [String] in
            guard table.entries[step] == nil else { return [] }
            table.entries[step] = (status, detail)
            guard streaming else { return [] }
            var lines: [String] = []
            while table.printed < Step.allCases.count, let entry = table.entries[Step.allCases[table.printed]] {
                table.printed += 1
                let (status, detail) = entry
                let mark =
                    switch status {
                    case .passed: "ok    "
                    case .failed: "FAILED"
                    case .notRun: "-     "
                    }
                lines.append("\(table.printed). \(mark) \(detail)")
            }
            return lines
        }
        Output.lines(lines)
        if !lines.isEmpty { Output.flush() }
    }
}
