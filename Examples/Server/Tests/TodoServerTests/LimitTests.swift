import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import TodoServer

@Suite struct LimitTests {
    @Test(
        "a title longer than Limits.titleCharacters gets 400 with a message, from POST and PATCH",
        arguments: [HTTPRequest.Method.post, .patch])
    func titleTooLong(method: HTTPRequest.Method) async throws {
        try await testRoutes { client in
            let todo = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
                .json(Todo.self)
            let title = String(repeating: "é", count: Limits.titleCharacters + 1)
            let uri = method == .post ? "/todos" : "/todos/\(todo.id)"
            let response = try await client.send(method, uri, as: "ada", json: #"{"title": "\#(title)"}"#)
            #expect(response.status == .badRequest)
            #expect(try response.json(ErrorBody.self).error.message.contains("\(Limits.titleCharacters)"))

            let longest = String(repeating: "é", count: Limits.titleCharacters)
            let accepted = try await client.send(method, uri, as: "ada", json: #"{"title": "\#(longest)"}"#)
            #expect(accepted.status == (method == .post ? .created : .ok))
        }
    }

    @Test("a body larger than Limits.bodyBytes gets 413, a message, and Connection: close")
    func bodyTooLarge() async throws {
        try await testRoutes { client in
            let padding = String(repeating: " ", count: Limits.bodyBytes)
            let response = try await client.send(
                .post, "/todos", as: "ada", json: #"{"title": "milk"\#(padding)}"#)
            #expect(response.status == .contentTooLarge)
            #expect(response.headers[.connection] == "close")
            #expect(try response.json(ErrorBody.self).error.message.contains("\(Limits.bodyBytes)"))
            #expect(try await client.send(.get, "/todos", as: "ada").json([Todo].self) == [])
        }
    }

    @Test("a user's name longer than Limits.userCharacters gets 400")
    func userTooLong() async throws {
        try await testRoutes { client in
            let user = String(repeating: "a", count: Limits.userCharacters + 1)
            let response = try await client.send(.get, "/todos", as: user)
            #expect(response.status == .badRequest)
        }
    }

    @Test("the audit log keeps its newest entries, at most its capacity, oldest first")
    func auditLogIsBounded() {
        let log = AuditLog(capacity: 3)
        let ada = User(name: "ada")
        for index in 1...5 {
            log.append([AuditEntry(requestID: "r\(index)", user: ada.name, action: "added todo \(index)")])
        }
        #expect(log.entries(of: ada).map(\.requestID) == ["r3", "r4", "r5"])
    }

    @Test("the audit log keeps AUDIT_ENTRIES entries, and no title")
    func auditLogKeepsNoTitle() async throws {
        let app = AppComponent(configuration: .inMemory(["AUDIT_ENTRIES": "2"]))
        try await testRoutes(of: app) { client in
            let todo = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "secret plan"}"#)
                .json(Todo.self)
            _ = try await client.send(.delete, "/todos/\(todo.id)", as: "ada")
            let entries = try await client.send(.get, "/audit", as: "ada").json([AuditEntry].self)
            #expect(entries.map(\.action) == ["mailed about todo \(todo.id)", "removed todo \(todo.id)"])
        }
    }
}
