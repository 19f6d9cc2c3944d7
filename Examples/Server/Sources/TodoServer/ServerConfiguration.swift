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
    /// nothing in a clone. `:memory:` keeps the todos in memory until the server stops.
    let database: String

    /// Reads the settings from `environment`; a variable that is unset, empty or not a number gets
    /// its default.
    init(environment: Environment) {
        host = environment.get("HOST") ?? "127.0.0.1"
        port = environment.get("PORT", as: Int.self) ?? 8080
        todoLimit = environment.get("TODO_LIMIT", as: Int.self) ?? 100
        let database = environment.get("TODO_DATABASE") ?? ""
        self.database = database.isEmpty ? Self.defaultDatabase : database
    }

    /// The database when `TODO_DATABASE` names none: `dirk-todo-server.sqlite` in the temporary
    /// directory (`TMPDIR`, by default `/tmp`).
    static var defaultDatabase: String { NSTemporaryDirectory() + "dirk-todo-server.sqlite" }

    /// Every setting at its default, whatever the process's environment says.
    static var defaults: ServerConfiguration { ServerConfiguration(environment: [:]) }
}
