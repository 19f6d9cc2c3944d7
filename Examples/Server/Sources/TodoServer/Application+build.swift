import Hummingbird

/// Builds the server around `app`.
///
/// The routes hold `app`, so the application owns the component for as long as it runs. `main`
/// passes the component it configured from the environment; a test passes one it built with fakes.
func buildApplication(app: AppComponent) -> some ApplicationProtocol {
    let host = app.configuration.host
    let port = app.configuration.port
    return Application(
        router: buildRouter(app: app),
        configuration: .init(address: .hostname(host, port: port), serverName: "TodoServer"),
        onServerRunning: { _ in
            printNow("TodoServer listening on http://\(host):\(port)")
            printNow("Try: curl -H 'X-User: ada' http://\(host):\(port)/todos")
        })
}

/// The server's routes.
///
/// A route that acts for a user opens a request scope, builds its handler from it, and returns;
/// the scope and everything built for it go with the route's local constants.
///
/// - `GET /todos`: the user's todos, as a JSON array.
/// - `POST /todos` with `{"title": "…"}`: adds a todo, answers 201 with it, and mails the user.
/// - `DELETE /todos/:id`: removes one of the user's todos, 204; 404 if it is not theirs.
/// - `GET /audit`: what the user's requests changed, each entry with its request's id.
///
/// Each answers 401 without an `X-User` header.
func buildRouter(app: AppComponent) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("todos") { request, context in
        let scope = try app.openRequest(request, context: context)
        return scope.todos.list().handle()
    }
    router.post("todos") { request, context in
        let scope = try app.openRequest(request, context: context)
        let new = try await request.decode(as: NewTodo.self, context: context)
        let todo = try await scope.todos.create().handle(new)
        return EditedResponse(status: .created, response: todo)
    }
    router.delete("todos/:id") { request, context in
        let scope = try app.openRequest(request, context: context)
        let id = try context.parameters.require("id", as: Int.self)
        return try scope.todos.delete().handle(id: id)
    }
    router.get("audit") { request, context in
        let scope = try app.openRequest(request, context: context)
        return scope.audit.list().handle()
    }
    return router
}
