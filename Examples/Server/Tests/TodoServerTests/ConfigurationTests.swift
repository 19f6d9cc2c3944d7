import Testing

@testable import TodoServer

@Suite struct ConfigurationTests {
    @Test("the settings come from HOST, PORT and TODO_LIMIT")
    func fromEnvironment() {
        let configuration = ServerConfiguration(
            environment: ["HOST": "0.0.0.0", "PORT": "9000", "TODO_LIMIT": "3"])
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9000)
        #expect(configuration.todoLimit == 3)
    }

    @Test("a variable that is unset or not a number gets its default: 127.0.0.1, 8080, 100")
    func defaults() {
        let configuration = ServerConfiguration(environment: ["PORT": "eighty", "TODO_LIMIT": ""])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.todoLimit == 100)
    }

    @Test("a component built without a configuration has the defaults, whatever the environment")
    func componentDefaults() {
        #expect(AppComponent().configuration.port == 8080)
    }
}
