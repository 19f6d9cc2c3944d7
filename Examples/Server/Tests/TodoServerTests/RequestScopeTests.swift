import Testing

@testable import TodoServer

@Suite struct RequestScopeTests {
    @Test("a handler is built from the request's id and user and the application's store and mailer")
    func bothScopes() {
        let app = AppComponent().module(MailModule.self) { RecordingMailModule($0) }
        let request = RequestComponent(requestID: "r1", user: User(name: "ada")).parent { app }
        let create = request.todos.create()
        #expect(create.todos.user == User(name: "ada"))
        #expect(create.trail.requestID == "r1")
        #expect(create.todos.store === app.storage.todos())
        #expect(create.todos.limit == app.configuration.todoLimit)
        #expect(create.notifier.mailer is RecordingMailer)
    }

    @Test("a handler's repository and notifier share its audit trail; the next handler gets a new one")
    func oneTrailPerResolution() {
        let app = AppComponent()
        let request = RequestComponent(requestID: "r1", user: User(name: "ada")).parent { app }
        let create = request.todos.create()
        #expect(create.todos.trail === create.trail)
        #expect(create.notifier.trail === create.trail)
        #expect(request.todos.create().trail !== create.trail)
    }

    @Test("nothing of a request outlives it: its component, modules and trail go when the handler returns")
    func nothingOutlivesTheRequest() async throws {
        let app = AppComponent()
        weak var request: RequestComponent?
        weak var module: TodoModule?
        weak var trail: AuditTrail?
        do {
            let scope = RequestComponent(requestID: "r1", user: User(name: "ada")).parent { app }
            let handler = scope.todos.create()
            (request, module, trail) = (scope, scope.todos, handler.trail)
            _ = try await handler.handle(NewTodo(title: "milk"))
        }
        #expect(request == nil)
        #expect(module == nil)
        #expect(trail == nil)
        // What the request stored belongs to the application, and stays.
        #expect(app.storage.todos().todos(of: User(name: "ada")) == [Todo(id: 1, title: "milk")])
    }
}
