import Dirk
import SQLiteNIO

/// The application's scope: created once at start-up, owned by the application, whose
/// request-scope middleware holds it, for as long as the server runs, and shut down when the server
/// has stopped.
final class AppComponent: Component, @unchecked Sendable {
    /// Read once, before any provider runs; providers read it through their component.
    let configuration: ServerConfiguration

    /// Creates the application's component; by default every setting has its default.
    init(configuration: ServerConfiguration = .defaults) {
        self.configuration = configuration
        super.init()
    }

    /// What the server keeps.
    var storage: StorageModule { module() }
    /// How the server reaches users.
    var mail: MailModule { module() }
}

/// The server's state, shared by every request.
final class StorageModule: Module<AppComponent> {
    /// The application's one connection to its database: opened, with its schema brought up to
    /// date, on the first call, which the server makes before it accepts a request; closed when the
    /// component shuts down, which `main`'s `withShutdown` does once the server has stopped.
    func database() async throws -> SQLiteConnection {
        try await single { c in
            try await Database.open(path: c.configuration.database)
        } close: {
            try await $0.close()
        }
    }

    /// One store for the whole application, in its database.
    func todos() async throws -> TodoStore {
        try await single { c in TodoStore(database: try await c.storage.database()) }
    }

    /// One audit log for the whole application, which keeps the newest `AUDIT_ENTRIES` entries.
    func auditLog() -> AuditLog {
        single { c in AuditLog(capacity: c.configuration.auditEntries) }
    }
}

/// The mail service. Not final: tests replace it with a module whose mailer records what it sends.
class MailModule: Module<AppComponent> {
    /// One mailer for the whole application. Built as `any Mailer`, the type it returns, so that a
    /// test can override it with a mailer of its own.
    func mailer() -> any Mailer { single { ConsoleMailer() as any Mailer } }
}
