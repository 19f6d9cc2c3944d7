import SQLiteNIO

extension Checks {
    /// Reads the database file, once its server has stopped, through a read-only connection: it
    /// passes SQLite's integrity check, holds every todo the server acknowledged (201, then 200 for a
    /// PATCH) as acknowledged, and none it acknowledged deleting (204).
    func checkDatabase(holds ledger: Ledger) {
        say("checking the database file against every acknowledged write")
        harness.step("the database check", limit: 120) {
            let connection = try SQLiteConnection.open(storage: .file(path: "file:\(database)?mode=ro"))
                .wait()
            defer { _ = try? connection.close().wait() }
            let integrity = try connection.query("PRAGMA integrity_check").wait()
            try expect(
                integrity.first?.columns.first?.data.string == "ok",
                "the database fails SQLite's integrity check: \(integrity)")
            var rows: [Int: Ledger.Entry] = [:]
            for row in try connection.query("SELECT id, user, title FROM todos").wait() {
                guard let id = row.column("id")?.integer, let user = row.column("user")?.string,
                    let title = row.column("title")?.string
                else {
                    throw CheckFailure(
                        "the database holds a todo that is not an id, a user and a title: \(row)")
                }
                rows[id] = .init(user: user, title: title)
            }

            let kept = ledger.created.filter { !ledger.deleted.contains($0.key) }.sorted { $0.key < $1.key }
            let missing = kept.filter { rows[$0.key] != $0.value }.map {
                "\($0.key) \($0.value.user) '\($0.value.title)'"
            }
            let back = ledger.deleted.filter { rows[$0] != nil }.sorted()
            try expect(
                missing.isEmpty && back.isEmpty,
                "\(missing.count) acknowledged todos are missing or different, such as \(missing.prefix(5)); "
                    + "\(back.count) acknowledged deletions are back, such as \(back.prefix(5))")
            say(
                "the database holds all \(kept.count) acknowledged todos (\(ledger.created.count) added, "
                    + "\(ledger.deleted.count) deleted), and \(rows.count) rows in all")
        }
    }
}
