import Foundation
import Testing

@testable import TodoServer

@Suite struct DatabaseTests {
    @Test("a new file gets the schema; opened again, it keeps its todos and migrates nothing")
    func schemaAndRestart() async throws {
        let file = TemporaryDatabaseFile()
        defer { file.remove() }
        let path = file.path
        let configuration = ServerConfiguration(environment: ["TODO_DATABASE": path])
        let added = try await AppComponent(configuration: configuration).withShutdown { first in
            try await first.storage.todos().add(title: "milk", for: User(name: "ada"), limit: 10)
        }
        #expect(FileManager.default.fileExists(atPath: path))

        try await AppComponent(configuration: configuration).withShutdown { second in
            #expect(try await second.storage.todos().todos(of: User(name: "ada")) == [try #require(added)])
            let version = try await second.storage.database().query("PRAGMA user_version")
            #expect(version.first?.columns.first?.data.integer == Database.migrations.count)
        }
    }

    @Test("withShutdown closes the database when its body returns")
    func shutdownCloses() async throws {
        let database = try await AppComponent(configuration: .inMemory()).withShutdown { app in
            let database = try await app.storage.database()
            #expect(!database.isClosed)
            return database
        }
        #expect(database.isClosed)
    }

    @Test("withShutdown closes the database when its body throws, and rethrows the body's error")
    func shutdownClosesAfterAnError() async throws {
        struct Failure: Error {}
        let app = AppComponent(configuration: .inMemory())
        let database = try await app.storage.database()
        await #expect(throws: Failure.self) {
            try await app.withShutdown { _ in throw Failure() }
        }
        #expect(database.isClosed)
    }

    @Test("adds that race for a user's last places keep to the limit: one statement counts and inserts")
    func limitUnderConcurrency() async throws {
        try await AppComponent(configuration: .inMemory()).withShutdown { app in
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

    @Test("a database that cannot open fails each call that opens it, and leaves nothing to close")
    func cannotOpen() async throws {
        let configuration = ServerConfiguration.inMemory(["TODO_DATABASE": "/nonexistent/dir/todos.sqlite"])
        try await AppComponent(configuration: configuration).withShutdown { app in
            await #expect(throws: (any Error).self) { try await app.storage.todos() }
            // A factory that threw cached nothing: the next call tries again.
            await #expect(throws: (any Error).self) { try await app.storage.database() }
        }
    }
}
