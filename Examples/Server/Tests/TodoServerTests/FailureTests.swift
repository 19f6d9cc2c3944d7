import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
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
