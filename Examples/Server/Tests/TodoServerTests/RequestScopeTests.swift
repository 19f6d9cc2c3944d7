import Hummingbird
import HummingbirdTesting
import Testing

@testable import TodoServer

@Suite struct RequestScopeTests {
    @Test("a handler is built from the request's id and user and the application's store and mailer")
    func bothScopes() async throws {
        let app = AppComponent(configuration: .inMemory())
            .module(MailModule.self) { RecordingMailModule($0) }
        try await app.withShutdown { app in
            let request = RequestComponent(requestID: "r1", user: User(name: "ada")).parent(app)
            let create = try await request.todos.create()
            #expect(create.todos.user == User(name: "ada"))
            #expect(create.trail.requestID == "r1")
            #expect(try await create.todos.store === app.storage.todos())
            #expect(create.todos.limit == app.configuration.todoLimit)
            #expect(create.notifier.mailer is RecordingMailer)
        }
    }

    @Test("a handler's repository and notifier share its audit trail; the next handler gets a new one")
    func oneTrailPerResolution() async throws {
        try await AppComponent(configuration: .inMemory()).withShutdown { app in
            let request = RequestComponent(requestID: "r1", user: User(name: "ada")).parent(app)
            let create = try await request.todos.create()
            #expect(create.todos.trail === create.trail)
            #expect(create.notifier.trail === create.trail)
            #expect(try await request.todos.create().trail !== create.trail)
        }
    }

    @Test("nothing of a request outlives it: its component, modules and trail go with the handler")
    func nothingOutlivesTheRequest() async throws {
        try await AppComponent(configuration: .inMemory()).withShutdown { app in
            weak var request: RequestComponent?
            weak var module: TodoModule?
            weak var trail: AuditTrail?
            do {
                let scope = RequestComponent(requestID: "r1", user: User(name: "ada")).parent(app)
                let handler = try await scope.todos.create()
                (request, module, trail) = (scope, scope.todos, handler.trail)
                _ = try await handler.handle(NewTodo(title: "milk"))
            }
            #expect(request == nil)
            #expect(module == nil)
            #expect(trail == nil)
            // What the request stored belongs to the application, and stays.
            #expect(
                try await app.storage.todos().todos(of: User(name: "ada")) == [Todo(id: 1, title: "milk")])
        }
    }

    @Test("the middleware opens each request's component, which goes before the response is written")
    func middlewareScopeEndsWithTheResponse() async throws {
        try await AppComponent(configuration: .inMemory()).withShutdown { app in
            // A route of its own behind the same middleware as the real ones, to see the component.
            let router = buildRouter(app: app)
            let opened = WeakReferences<RequestComponent>()
            router.get("scope") { _, context in
                let scope = try context.scope
                #expect(scope.requestID == context.id)
                opened.append(scope)
                return scope.user.name
            }
            // Over a real connection: the client has the response once the server has written it.
            try await Application(router: router).test(.live) { client in
                for (index, user) in ["ada", "bob", "ada"].enumerated() {
                    let response = try await client.send(.get, "/scope", as: user)
                    #expect(String(buffer: response.body) == user)
                    #expect(opened.count == index + 1)
                    #expect(opened.alive == 0, "the request's component outlived its response")
                }
                let refused = try await client.send(.get, "/scope", as: nil)
                #expect(refused.status == .unauthorized)
                #expect(opened.count == 3, "a request without a user got a scope")
            }
        }
    }
}
