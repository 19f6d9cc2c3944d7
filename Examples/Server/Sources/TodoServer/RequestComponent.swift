import Dirk
import Hummingbird

/// The scope of one request: opened by `RequestScopeMiddleware` before the route runs, and
/// released with the request's context when the route returns.
///
/// The request's id and user are stored constants, set before any provider runs, so no provider
/// can find them missing. Its parent, the application's component, lives on.
final class RequestComponent: Component, @unchecked Sendable {
    /// Hummingbird's id of the request, as in its logs.
    let requestID: String
    /// The user the request acts for.
    let user: User

    /// Creates the scope of one request; give it its parent with `.parent(app)`.
    init(requestID: String, user: User) {
        self.requestID = requestID
        self.user = user
        super.init()
    }

    /// The application's component.
    var app: AppComponent { parent() }
    /// The todo routes' handlers.
    var todos: TodoModule { module() }
    /// The audit trail and the audit route's handler.
    var audit: AuditModule { module() }
}

extension AppComponent {
    /// Opens the scope of one request: a new request component under this one, with the
    /// request's id and the user named by its `X-User` header.
    ///
    /// Hold the result for as long as the request uses it: a module does not keep its component
    /// alive. `RequestScopeMiddleware` keeps it in the request's context.
    ///
    /// - Throws: `HTTPError(.unauthorized)` when the request names no user, and
    ///   `HTTPError(.badRequest)` when the name is longer than `Limits.userCharacters`.
    func openRequest(_ request: Request, context: some RequestContext) throws -> RequestComponent {
        guard let name = request.headers[.user], !name.isEmpty else {
            throw HTTPError(.unauthorized, message: "Name the user in the X-User header.")
        }
        guard name.count <= Limits.userCharacters else {
            throw HTTPError(
                .badRequest, message: "A user's name has at most \(Limits.userCharacters) characters.")
        }
        return RequestComponent(requestID: context.id, user: User(name: name)).parent(self)
    }
}
