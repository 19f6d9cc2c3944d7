import Hummingbird
import HummingbirdTesting
import Testing

@testable import TodoServer

@Suite struct RouteTests {
    @Test(
        "every route answers 401 without an X-User header",
        arguments: [
            (HTTPRequest.Method.get, "/todos"), (.post, "/todos"), (.get, "/todos/1"), (.patch, "/todos/1"),
            (.delete, "/todos/1"), (.get, "/audit"),
        ])
    func unauthorized(method: HTTPRequest.Method, uri: String) async throws {
        try await testRoutes { client in
            let response = try await client.send(method, uri, as: nil, json: #"{"title": "milk"}"#)
            #expect(response.status == .unauthorized)
        }
    }

    @Test("POST /todos answers 201 with the new todo, which GET /todos then lists, as JSON")
    func createThenList() async throws {
        try await testRoutes { client in
            let created = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
            #expect(created.status == .created)
            #expect(try created.json(Todo.self) == Todo(id: 1, title: "milk"))

            let listed = try await client.send(.get, "/todos", as: "ada")
            #expect(listed.status == .ok)
            #expect(try listed.json([Todo].self) == [Todo(id: 1, title: "milk")])
        }
    }

    @Test("each user sees only their own todos")
    func usersAreSeparate() async throws {
        try await testRoutes { client in
            _ = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
            _ = try await client.send(.post, "/todos", as: "bob", json: #"{"title": "bread"}"#)
            let ada = try await client.send(.get, "/todos", as: "ada").json([Todo].self)
            let bob = try await client.send(.get, "/todos", as: "bob").json([Todo].self)
            #expect(ada.map(\.title) == ["milk"])
            #expect(bob.map(\.title) == ["bread"])
        }
    }

    @Test("DELETE /todos/:id removes the user's todo with 204, and answers 404 for another user's")
    func delete() async throws {
        try await testRoutes { client in
            let todo = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
                .json(Todo.self)
            #expect(try await client.send(.delete, "/todos/\(todo.id)", as: "bob").status == .notFound)
            #expect(try await client.send(.delete, "/todos/\(todo.id)", as: "ada").status == .noContent)
            #expect(try await client.send(.get, "/todos", as: "ada").json([Todo].self) == [])
        }
    }

    @Test("GET /todos/:id answers the user's todo, and 404 for another user's or a missing one")
    func show() async throws {
        try await testRoutes { client in
            let todo = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
                .json(Todo.self)
            let shown = try await client.send(.get, "/todos/\(todo.id)", as: "ada")
            #expect(shown.status == .ok)
            #expect(try shown.json(Todo.self) == todo)
            #expect(try await client.send(.get, "/todos/\(todo.id)", as: "bob").status == .notFound)
            #expect(try await client.send(.get, "/todos/\(todo.id + 1)", as: "ada").status == .notFound)
        }
    }

    @Test("PATCH /todos/:id renames the user's todo, answers with it, and audits it; 404 for another user's")
    func update() async throws {
        try await testRoutes { client in
            let todo = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
                .json(Todo.self)
            let stolen = try await client.send(
                .patch, "/todos/\(todo.id)", as: "bob", json: #"{"title": "mine"}"#)
            #expect(stolen.status == .notFound)

            let renamed = try await client.send(
                .patch, "/todos/\(todo.id)", as: "ada", json: #"{"title": "oat milk"}"#)
            #expect(renamed.status == .ok)
            #expect(try renamed.json(Todo.self) == Todo(id: todo.id, title: "oat milk"))
            #expect(
                try await client.send(.get, "/todos/\(todo.id)", as: "ada").json(Todo.self).title
                    == "oat milk")
            let entries = try await client.send(.get, "/audit", as: "ada").json([AuditEntry].self)
            #expect(entries.last?.action == "renamed todo \(todo.id)")
        }
    }

    @Test("PATCH /todos/:id with an empty patch changes nothing, and refuses a blank title with 400")
    func updateNothingOrBlank() async throws {
        try await testRoutes { client in
            let todo = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
                .json(Todo.self)
            let unchanged = try await client.send(.patch, "/todos/\(todo.id)", as: "ada", json: "{}")
            #expect(unchanged.status == .ok)
            #expect(try unchanged.json(Todo.self) == todo)
            let blank = try await client.send(
                .patch, "/todos/\(todo.id)", as: "ada", json: #"{"title": " "}"#)
            #expect(blank.status == .badRequest)
            #expect(try await client.send(.get, "/todos/\(todo.id)", as: "ada").json(Todo.self) == todo)
        }
    }

    @Test("POST /todos refuses a blank title with 400")
    func blankTitle() async throws {
        try await testRoutes { client in
            let response = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "  "}"#)
            #expect(response.status == .badRequest)
        }
    }

    @Test("POST /todos answers 422 once the user has TODO_LIMIT todos")
    func limit() async throws {
        let app = AppComponent(configuration: .inMemory(["TODO_LIMIT": "1"]))
        try await testRoutes(of: app) { client in
            let first = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
            let second = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "bread"}"#)
            let other = try await client.send(.post, "/todos", as: "bob", json: #"{"title": "bread"}"#)
            #expect(first.status == .created)
            #expect(second.status == .unprocessableContent)
            #expect(other.status == .created)
        }
    }

    @Test("GET /audit lists what the user's requests changed, each entry with its request's id")
    func audit() async throws {
        try await testRoutes { client in
            _ = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
            _ = try await client.send(.post, "/todos", as: "ada", json: #"{"title": " "}"#)  // refused
            _ = try await client.send(.delete, "/todos/1", as: "ada")
            _ = try await client.send(.post, "/todos", as: "bob", json: #"{"title": "bread"}"#)

            let entries = try await client.send(.get, "/audit", as: "ada").json([AuditEntry].self)
            #expect(entries.map(\.action) == ["added todo 1", "mailed about todo 1", "removed todo 1"])
            #expect(entries.allSatisfy { $0.user == "ada" })
            #expect(entries[0].requestID == entries[1].requestID)
            #expect(entries[1].requestID != entries[2].requestID)
        }
    }

    @Test("concurrent requests each get their own scope and trail")
    func concurrentRequests() async throws {
        let count = 50
        // Each request's mail is held until all of them are being sent: every request scope is
        // alive at once. If they were not, the mailer gives up after a minute, and the count of
        // mails held at once below fails the test.
        let app = AppComponent(configuration: .inMemory()).overriding {
            $0.mail.mailer()
        } with: {
            GatheringMailer(expected: count) as any Mailer
        }
        let mailer = try #require(app.mail.mailer() as? GatheringMailer)
        let patience = Task {
            try await Task.sleep(for: .seconds(60))
            mailer.open()
        }
        defer { patience.cancel() }
        try await testRoutes(of: app) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask {
                        let response = try await client.send(
                            .post, "/todos", as: "ada", json: #"{"title": "todo \#(index)"}"#)
                        #expect(response.status == .created)
                    }
                }
                try await group.waitForAll()
            }
            let todos = try await client.send(.get, "/todos", as: "ada").json([Todo].self)
            #expect(Set(todos.map(\.id)).count == count)

            let entries = try await client.send(.get, "/audit", as: "ada").json([AuditEntry].self)
            let byRequest = Dictionary(grouping: entries, by: \.requestID)
            #expect(byRequest.count == count)
            #expect(byRequest.values.allSatisfy { $0.map(\.action).count == 2 })
        }
        #expect(mailer.mostAtOnce == count, "the requests did not all run at once")
        #expect(mailer.sent.count == count)
    }
}
