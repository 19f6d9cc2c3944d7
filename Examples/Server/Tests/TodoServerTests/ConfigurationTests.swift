import Foundation
import Testing

@testable import TodoServer

@Suite struct ConfigurationTests {
    @Test(
        "the settings come from HOST, PORT, TODO_LIMIT, TODO_DATABASE, SHUTDOWN_DEADLINE, IDLE_TIMEOUT and AUDIT_ENTRIES"
    )
    func fromEnvironment() {
        let configuration = ServerConfiguration(
            environment: [
                "HOST": "0.0.0.0", "PORT": "9000", "TODO_LIMIT": "3",
                "TODO_DATABASE": "/var/lib/todos.sqlite", "SHUTDOWN_DEADLINE": "2.5", "IDLE_TIMEOUT": "60",
                "AUDIT_ENTRIES": "50",
            ])
        #expect(configuration.shutdownDeadline == .milliseconds(2_500))
        #expect(configuration.idleTimeout == .seconds(60))
        #expect(configuration.auditEntries == 50)
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9000)
        #expect(configuration.todoLimit == 3)
        #expect(configuration.database == "/var/lib/todos.sqlite")
    }

    @Test("a variable that is unset, empty, not a number or out of range gets its default")
    func defaults() {
        let configuration = ServerConfiguration(
            environment: [
                "PORT": "eighty", "TODO_LIMIT": "", "TODO_DATABASE": "", "SHUTDOWN_DEADLINE": "1e300",
                "IDLE_TIMEOUT": "-1", "AUDIT_ENTRIES": "none",
            ])
        #expect(configuration.shutdownDeadline == .seconds(10))
        #expect(configuration.idleTimeout == .seconds(30))
        #expect(configuration.auditEntries == 1_000)
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.todoLimit == 100)
        #expect(configuration.database == ServerConfiguration.defaultDatabase)
    }

    @Test("by default the database is a file in the temporary directory, outside the clone")
    func defaultDatabase() {
        #expect(ServerConfiguration.defaultDatabase == NSTemporaryDirectory() + "dirk-todo-server.sqlite")
    }

    @Test("a component built without a configuration has the defaults, whatever the environment")
    func componentDefaults() async throws {
        try await AppComponent().withShutdown { app in
            #expect(app.configuration.port == 8080)
        }
    }
}
