import SQLiteNIO

/// Every user's todos, in the application's SQLite database.
///
/// Thread-safe: each method runs one SQL statement, which SQLite runs whole before another
/// statement of the connection, so concurrent requests may call it.
final class TodoStore: Sendable {
    private let database: SQLiteConnection

    /// A store in `database`, whose schema `Database.open(path:)` has brought up to date.
    init(database: SQLiteConnection) {
        self.database = database
    }

    /// The user's todos, oldest first.
    func todos(of user: User) async throws -> [Todo] {
        try await database.query(
            "SELECT id, title FROM todos WHERE user = ?1 ORDER BY id", [.text(user.name)]
        ).map(Todo.init(row:))
    }

    /// One of the user's todos, or `nil` if the user has no todo with this id.
    func todo(id: Int, of user: User) async throws -> Todo? {
        try await database.query(
            "SELECT id, title FROM todos WHERE id = ?1 AND user = ?2", [.integer(id), .text(user.name)]
        ).first.map(Todo.init(row:))
    }

    /// Adds a todo to the user's list.
    ///
    /// One statement counts the user's todos and inserts the new one, so that no other request's
    /// todo comes between the count and the insert.
    ///
    /// - Returns: The new todo, or `nil` if the user already has `limit` todos.
    func add(title: String, for user: User, limit: Int) async throws -> Todo? {
        let rows = try await database.query(
            """
            INSERT INTO todos (user, title)
            SELECT ?1, ?2 WHERE (SELECT count(*) FROM todos WHERE user = ?1) < ?3
            RETURNING id, title
            """,
            [.text(user.name), .text(title), .integer(limit)])
        return try rows.first.map(Todo.init(row:))
    }

    /// Changes the title of one of the user's todos.
    ///
    /// - Returns: The todo as it is now, or `nil` if the user has no todo with this id.
    func rename(id: Int, of user: User, to title: String) async throws -> Todo? {
        try await database.query(
            "UPDATE todos SET title = ?3 WHERE id = ?1 AND user = ?2 RETURNING id, title",
            [.integer(id), .text(user.name), .text(title)]
        ).first.map(Todo.init(row:))
    }

    /// Removes one of the user's todos.
    ///
    /// - Returns: `false` if the user has no todo with this id.
    func remove(id: Int, of user: User) async throws -> Bool {
        let rows = try await database.query(
            "DELETE FROM todos WHERE id = ?1 AND user = ?2 RETURNING id", [.integer(id), .text(user.name)])
        return !rows.isEmpty
    }
}

/// A row of the database that is not what its schema promises.
struct UnexpectedRow: Error, CustomStringConvertible {
    /// The row, as SQLite returned it.
    let row: SQLiteRow

    var description: String { "The database returned an unexpected row: \(row)" }
}

extension Todo {
    /// Reads a todo from a row with the columns `id` and `title`.
    ///
    /// - Throws: `UnexpectedRow` when either is missing or of another type.
    init(row: SQLiteRow) throws {
        guard let id = row.column("id")?.integer, let title = row.column("title")?.string else {
            throw UnexpectedRow(row: row)
        }
        self.init(id: id, title: title)
    }
}
