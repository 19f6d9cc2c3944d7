import Foundation
import Testing

@testable import TodoServer

@Suite struct ConfigurationTests {
    @Test("the settings come from HOST, PORT, TODO_LIMIT and TODO_DATABASE")
    func fromEnvironment() {
        let configuration = ServerConfiguration(
            environment: [
                "HOST": "0.0.0.0", "PORT": "9000", "TODO_LIMIT": "3",
                "TODO_DATABASE": "/var/lib/todos.sqlite",
            ])
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9000)
        #expect(configuration.todoLimit == 3)
        #expect(configuration.database == "/var/lib/todos.sqlite")
    }

    @Test("a variable that is unset, empty or not a number gets its default")
    func defaults() {
        let configuration = ServerConfiguration(
            environment: ["PORT": "eighty", "TODO_LIMIT": "", "TODO_DATABASE": ""])
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
