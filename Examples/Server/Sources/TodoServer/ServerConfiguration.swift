import Hummingbird

/// The server's settings, read once at start-up from the environment, with a default for each.
struct ServerConfiguration: Sendable {
    /// The address to listen on: `HOST`, by default `127.0.0.1`.
    let host: String
    /// The port to listen on: `PORT`, by default 8080.
    let port: Int
    /// How many todos each user may keep: `TODO_LIMIT`, by default 100.
    let todoLimit: Int

    /// Reads the settings from `environment`; a variable that is unset or not a number gets its
    /// default.
    init(environment: Environment) {
        host = environment.get("HOST") ?? "127.0.0.1"
        port = environment.get("PORT", as: Int.self) ?? 8080
        todoLimit = environment.get("TODO_LIMIT", as: Int.self) ?? 100
    }

    /// Every setting at its default, whatever the process's environment says.
    static var defaults: ServerConfiguration { ServerConfiguration(environment: [:]) }
}
