import Hummingbird

/// Opens each request's scope, once, before its route runs: a `RequestComponent` under the
/// application's, handed to the route in the request's context.
///
/// Nothing but the context holds the request component, so it is released with the context when
/// the route returns, before the response is written; so are the modules and `single`s of the
/// request.
struct RequestScopeMiddleware: RouterMiddleware {
    /// The application's component, the parent of every request's.
    let app: AppComponent

    /// Opens the request's scope and passes it on in the context.
    ///
    /// - Throws: `HTTPError(.unauthorized)` when the request names no user: the route does not run.
    func handle(
        _ request: Request, context: TodoRequestContext,
        next: (Request, TodoRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.openedScope = try app.openRequest(request, context: context)
        return try await next(request, context)
    }
}
