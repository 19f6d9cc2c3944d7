import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import SQLiteNIO
import Testing

@testable import TodoServer

@Suite struct FailureTests {
    @Test("on a read-only database, writes get a JSON 500 that names the kind, and reads go on")
    func readOnlyDatabase() async throws {
        let file = TemporaryDatabaseFile()
        defer { file.remove() }
        let path = file.path
        let writable = ServerConfiguration(environment: ["TODO_DATABASE": path])
        let todo = try await AppComponent(configuration: writable).withShutdown { app in
            try await app.storage.todos().add(title: "milk", for: User(name: "ada"), limit: 10)
        }

        let readOnly = ServerConfiguration(environment: ["TODO_DATABASE": "file:\(path)?mode=ro"])
        try await testRoutes(of: AppComponent(configuration: readOnly)) { client in
            let refused = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "bread"}"#)
            #expect(refused.status == .internalServerError)
            let body = try refused.json(ErrorBody.self)
            #expect(body.error.kind == "read-only")
            #expect(!body.error.message.contains("SQL"))
            #expect(try await client.send(.delete, "/todos/1", as: "ada").status == .internalServerError)

            let listed = try await client.send(.get, "/todos", as: "ada")
            #expect(listed.status == .ok)
            #expect(try listed.json([Todo].self) == [try #require(todo)])
        }
    }

    @Test(
        "while another connection holds the database's write lock past the busy timeout, a write gets a JSON 503 with Retry-After, and goes through once the lock is let go"
    )
    func busyDatabase() async throws {
        let file = TemporaryDatabaseFile()
        defer { file.remove() }
        let app = AppComponent(configuration: ServerConfiguration(environment: ["TODO_DATABASE": file.path]))
        // Another process's connection, say a backup, holding the write lock.
        let other = try await Database.open(path: file.path)
        try await testRoutes(of: app) { client in
            _ = try await other.query("BEGIN IMMEDIATE")
            let refused = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
            _ = try await other.query("ROLLBACK")
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers[.retryAfter] == "1")
            let body = try refused.json(ErrorBody.self)
            #expect(body.error.kind == "busy")
            #expect(!body.error.message.contains("SQL"))

            let retried = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
            #expect(retried.status == .created)
        }
        try await other.close()
    }

    @Test("on a full database, a write gets a JSON 500 that names the kind, and reads go on")
    func fullDatabase() async throws {
        let app = AppComponent(configuration: .inMemory())
        try await testRoutes(of: app) { client in
            // A database that may not grow past the pages it has: a full disk, as SQLite sees it.
            let database = try await app.storage.database()
            let pages = try await database.query("PRAGMA page_count").first?.columns.first?.data.integer
            _ = try await database.query("PRAGMA max_page_count = \(try #require(pages))")
            let title = String(repeating: "x", count: Limits.titleCharacters)
            var refused: TestResponse?
            // Each user may keep `todoLimit` todos: one todo per user fills the pages sooner or later.
            for user in 0..<1_000 where refused == nil {
                let response = try await client.send(
                    .post, "/todos", as: "user\(user)", json: #"{"title": "\#(title)"}"#)
                if response.status != .created { refused = response }
            }
            let full = try #require(refused, "1,000 todos fit in the database's pages")
            #expect(full.status == .internalServerError)
            let body = try full.json(ErrorBody.self)
            #expect(body.error.kind == "full")
            #expect(!body.error.message.contains("SQL"))
            #expect(try await client.send(.get, "/todos", as: "user0").status == .ok)
        }
    }

    @Test("a port in use is explained in one line that names the address and PORT")
    func portInUse() {
        let configuration = ServerConfiguration(environment: ["PORT": "8080"])
        let line = explain(IOError(errnoCode: EADDRINUSE, reason: "bind"), configuration: configuration)
        #expect(line.contains("127.0.0.1:8080"))
        #expect(line.contains("PORT"))
        #expect(!line.contains("\n"))
    }

    @Test("a database that cannot open is explained in one line that names the file and TODO_DATABASE")
    func databaseCannotOpen() async throws {
        let configuration = ServerConfiguration(environment: [
            "TODO_DATABASE": "/nonexistent/dir/todos.sqlite"
        ])
        var line = ""
        do {
            try await AppComponent(configuration: configuration).withShutdown { app in
                _ = try await app.storage.todos()
            }
            Issue.record("the database opened")
        } catch {
            line = explain(error, configuration: configuration)
        }
        #expect(line.contains("/nonexistent/dir/todos.sqlite"))
        #expect(line.contains("TODO_DATABASE"))
        #expect(!line.contains("\n"))
    }
}
