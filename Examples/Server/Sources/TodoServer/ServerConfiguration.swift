import Foundation
import Hummingbird

/// The server's settings, read once at start-up from the environment, with a default for each.
struct ServerConfiguration: Sendable {
    /// The address to listen on: `HOST`, by default `127.0.0.1`.
    let host: String
    /// The port to listen on: `PORT`, by default 8080; 0 lets the system choose a free one.
    let port: Int
    /// How many todos each user may keep: `TODO_LIMIT`, by default 100.
    let todoLimit: Int
    /// The SQLite file that keeps the todos, created on the first start: `TODO_DATABASE`, by default
    /// `defaultDatabase`, in the temporary directory, so that the server needs no set-up and leaves
    /// nothing in a clone. `:memory:` keeps the todos in memory until the server stops; a `file:`
    /// URI passes SQLite's options, such as `file:/var/lib/todos.sqlite?mode=ro`.
    let database: String
    /// How long the requests under way may take to finish once SIGTERM or SIGINT has come:
    /// `SHUTDOWN_DEADLINE`, in seconds, by default 10. Those still running then are cancelled, and
    /// the database closes all the same.
    let shutdownDeadline: Duration
    /// How long a connection may go without the client sending anything before the server closes
    /// it, whether between requests (an idle keep-alive connection) or in the middle of one (a
    /// client that stalled while sending its body): `IDLE_TIMEOUT`, in seconds, by default 30.
    let idleTimeout: Duration
    /// How many entries the audit log keeps, the newest: `AUDIT_ENTRIES`, by default 1,000.
    let auditEntries: Int

    /// Reads the settings from `environment`; a variable that is unset, empty, not a number, or
    /// out of range (a count not above 0, a time not above 0 or above a day) gets its default.
    init(environment: Environment) {
        host = environment.get("HOST") ?? "127.0.0.1"
        port = environment.get("PORT", as: Int.self) ?? 8080
        todoLimit = environment.get("TODO_LIMIT", as: Int.self) ?? 100
        let database = environment.get("TODO_DATABASE") ?? ""
        self.database = database.isEmpty ? Self.defaultDatabase : database
        shutdownDeadline = Self.seconds(environment, "SHUTDOWN_DEADLINE") ?? .seconds(10)
        idleTimeout = Self.seconds(environment, "IDLE_TIMEOUT") ?? .seconds(30)
        auditEntries = environment.get("AUDIT_ENTRIES", as: Int.self).flatMap { $0 > 0 ? $0 : nil } ?? 1_000
    }

    /// The database when `TODO_DATABASE` names none: `dirk-todo-server.sqlite` in the temporary
    /// directory (`TMPDIR`, by default `/tmp`).
    static var defaultDatabase: String { NSTemporaryDirectory() + "dirk-todo-server.sqlite" }

    /// Every setting at its default, whatever the process's environment says.
    static var defaults: ServerConfiguration { ServerConfiguration(environment: [:]) }

    /// The number of seconds, such as `2.5`, that the variable `name` holds, if it holds one above
    /// 0 and at most a day.
    private static func seconds(_ environment: Environment, _ name: String) -> Duration? {
        guard let seconds = environment.get(name, as: Double.self), seconds > 0, seconds <= 86_400 else {
            return nil
        }
        return .milliseconds(Int64(seconds * 1_000))
    }
}
