import Hummingbird
import NIOCore

/// Builds the server around `app`.
///
/// The request-scope middleware holds `app`, so the application owns the component for as long as
/// it runs. Before the server accepts a connection it opens the database and brings its schema up
/// to date: a database that cannot open stops the start-up instead of failing requests. `main`
/// passes the component it configured from the environment, and shuts it down once the server has
/// stopped; a test passes one it built with fakes.
///
/// A connection on which the client sends nothing for `IDLE_TIMEOUT` is closed: an idle keep-alive
/// connection, and a client that stalled in the middle of a request, which would otherwise hold its
/// request, and the server's shutdown, for as long as it liked.
func buildApplication(app: AppComponent) -> some ApplicationProtocol {
    let host = app.configuration.host
    var application = Application(
        router: buildRouter(app: app),
        server: .http1(configuration: .init(idleTimeout: TimeAmount(app.configuration.idleTimeout))),
        configuration: .init(
            address: .hostname(host, port: app.configuration.port), serverName: "TodoServer"),
        onServerRunning: { channel in
            // The port the server has, which PORT=0 leaves to the system.
            let url = "http://\(host):\(channel.localAddress?.port ?? 0)"
            printNow("TodoServer listening on \(url)")
            printNow("Try: curl -H 'X-User: ada' \(url)/todos")
        })
    application.beforeServerStarts { _ = try await app.storage.todos() }
    return application
}

/// The server's routes, behind `FailureMiddleware` and `RequestScopeMiddleware`.
///
/// The failure middleware turns database errors and bodies too large into answers that say what
/// happened. The request-scope middleware opens each request's scope and hands it to the route in
/// the context; the route builds its handler from it, and returns. The scope and everything built
/// for it go with the context.
///
/// - `GET /todos`: the user's todos, as a JSON array.
/// - `POST /todos` with `{"title": "…"}`: adds a todo, answers 201 with it once it is stored, and
///   mails the user.
/// - `GET /todos/:id`: one of the user's todos; 404 if it is not theirs.
/// - `PATCH /todos/:id` with `{"title": "…"}`: changes the todo's title and answers with the todo;
///   404 if it is not theirs.
/// - `DELETE /todos/:id`: removes one of the user's todos, 204; 404 if it is not theirs.
/// - `GET /audit`: what the user's requests changed, each entry with its request's id, among the
///   newest `AUDIT_ENTRIES` entries of all users.
///
/// Each answers 401 without an `X-User` header, 400 with a blank title or one longer than
/// `Limits.titleCharacters`, and 413 with a body larger than `Limits.bodyBytes`.
func buildRouter(app: AppComponent) -> Router<TodoRequestContext> {
    let router = Router(context: TodoRequestContext.self)
    router.add(middleware: FailureMiddleware())
    router.add(middleware: RequestScopeMiddleware(app: app))
    router.get("todos") { _, context in
        try await context.scope.todos.list().handle()
    }
    router.post("todos") { request, context in
        let new = try await request.decode(as: NewTodo.self, context: context)
        let todo = try await context.scope.todos.create().handle(new)
        return EditedResponse(status: .created, response: todo)
    }
    router.get("todos/:id") { _, context in
        let id = try context.parameters.require("id", as: Int.self)
        return try await context.scope.todos.show().handle(id: id)
    }
    router.patch("todos/:id") { request, context in
        let id = try context.parameters.require("id", as: Int.self)
        let patch = try await request.decode(as: TodoPatch.self, context: context)
        return try await context.scope.todos.update().handle(id: id, patch)
    }
    router.delete("todos/:id") { _, context in
        let id = try context.parameters.require("id", as: Int.self)
        return try await context.scope.todos.delete().handle(id: id)
    }
    router.get("audit") { _, context in
        try context.scope.audit.list().handle()
    }
    return router
}
