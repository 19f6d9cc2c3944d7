import Foundation
import Testing

@testable import TodoServer

@Suite struct DatabaseTests {
    @Test("a new file gets the schema; opened again, it keeps its todos and migrates nothing")
    func schemaAndRestart() async throws {
        let path = NSTemporaryDirectory() + "dirk-todo-\(UUID()).sqlite"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let configuration = ServerConfiguration(environment: ["TODO_DATABASE": path])
        let first = AppComponent(configuration: configuration)
        let added = try await withShutdown(of: first) {
            try await first.storage.todos().add(title: "milk", for: User(name: "ada"), limit: 10)
        }
        #expect(FileManager.default.fileExists(atPath: path))

        let second = AppComponent(configuration: configuration)
        try await withShutdown(of: second) {
            #expect(try await second.storage.todos().todos(of: User(name: "ada")) == [try #require(added)])
            let version = try await second.storage.database().query("PRAGMA user_version")
            #expect(version.first?.columns.first?.data.integer == Database.migrations.count)
        }
    }

    @Test("the component's shutdown closes the database")
    func shutdownCloses() async throws {
        let app = AppComponent(configuration: .inMemory())
        let database = try await app.storage.database()
        #expect(!database.isClosed)
        try await app.shutdown()
        #expect(database.isClosed)
    }

    @Test("adds that race for a user's last places keep to the limit: one statement counts and inserts")
    func limitUnderConcurrency() async throws {
        let app = AppComponent(configuration: .inMemory())
        try await withShutdown(of: app) {
            let store = try await app.storage.todos()
            let ada = User(name: "ada")
            let added = try await withThrowingTaskGroup(of: Todo?.self) { group in
                for index in 0..<20 {
                    group.addTask { try await store.add(title: "todo \(index)", for: ada, limit: 5) }
                }
                return try await group.reduce(into: 0) { count, todo in count += todo == nil ? 0 : 1 }
            }
            #expect(added == 5)
            #expect(try await store.todos(of: ada).count == 5)
        }
    }

    @Test("a database that cannot open fails the call that opens it, and leaves nothing to close")
    func cannotOpen() async throws {
        let app = AppComponent(configuration: .inMemory(["TODO_DATABASE": "/nonexistent/dir/todos.sqlite"]))
        await #expect(throws: (any Error).self) { try await app.storage.todos() }
        try await app.shutdown()
    }
}
