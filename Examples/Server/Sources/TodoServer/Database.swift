import SQLiteNIO

/// Opens the server's SQLite database and brings its schema up to date.
enum Database {
    /// The schema, one version after another, oldest first: each version is the statements that
    /// lead to it from the one before. The database's `user_version` counts the versions it has;
    /// change the schema by appending a version, never by editing one.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE todos (
                id INTEGER PRIMARY KEY AUTOINCREMENT, user TEXT NOT NULL, title TEXT NOT NULL)
            """,
            "CREATE INDEX todos_by_user ON todos (user, id)",
        ]
    ]

    /// How long a statement waits for another connection (another process on the same file, a
    /// backup) to release the database before it fails as busy: 5 seconds. It replaces
    /// SQLiteNIO's own busy handler, which waits without a limit.
    static let busyTimeout: Duration = .seconds(5)

    /// Opens the database at `path`, creating the file if it is missing, and applies the versions
    /// of the schema that it lacks. `:memory:` opens a new database in memory; a `file:` URI
    /// passes SQLite's options, such as `?mode=ro`.
    ///
    /// The connection is the caller's to close, with `close()`.
    ///
    /// - Throws: SQLite's error when the file cannot be opened or a migration fails; the
    ///   connection is then closed, and a migration that failed has changed nothing.
    static func open(path: String) async throws -> SQLiteConnection {
        let connection = try await SQLiteConnection.open(
            storage: path == ":memory:" ? .memory : .file(path: path))
        do {
            _ = try await connection.query("PRAGMA busy_timeout = \(busyTimeout.components.seconds * 1_000)")
            // Write-ahead logging: readers do not wait for a writer, and a commit costs one write.
            // With `synchronous = NORMAL`, a committed write survives the server's crash, though
            // not the machine's.
            _ = try await connection.query("PRAGMA journal_mode = WAL")
            _ = try await connection.query("PRAGMA synchronous = NORMAL")
            try await migrate(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        return connection
    }

    /// Applies the versions of the schema that `connection`'s database lacks, in one transaction.
    ///
    /// Call it before the connection is shared: the transaction's statements must not interleave
    /// with other tasks' statements.
    private static func migrate(_ connection: SQLiteConnection) async throws {
        let rows = try await connection.query("PRAGMA user_version")
        let applied = rows.first?.columns.first?.data.integer ?? 0
        guard applied < migrations.count else { return }
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            for statement in migrations[applied...].joined() {
                _ = try await connection.query(statement)
            }
            _ = try await connection.query("PRAGMA user_version = \(migrations.count)")
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }
}
