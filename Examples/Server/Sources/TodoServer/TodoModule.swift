import Dirk

/// The todo routes' handlers, and the services they share, for one request.
///
/// The repository needs the application's store, which an async `single` opens, so it and the
/// handlers built from it are async `transient`s.
final class TodoModule: Module<RequestComponent> {
    /// The request's user's todos, kept in the application's store.
    func repository() async throws -> TodoRepository {
        try await transient { c in
            TodoRepository(
                user: c.user, store: try await c.app.storage.todos(),
                limit: c.app.configuration.todoLimit, trail: c.audit.trail())
        }
    }

    /// Mails the request's user through the application's mailer.
    func notifier() -> Notifier {
        transient { c in Notifier(user: c.user, mailer: c.app.mail.mailer(), trail: c.audit.trail()) }
    }

    /// `GET /todos`.
    func list() async throws -> ListTodos {
        try await transient { c in ListTodos(todos: try await c.todos.repository()) }
    }

    /// `GET /todos/:id`.
    func show() async throws -> ShowTodo {
        try await transient { c in ShowTodo(todos: try await c.todos.repository()) }
    }

    /// `POST /todos`: its repository and notifier note their changes in its trail.
    func create() async throws -> CreateTodo {
        try await transient { c in
            CreateTodo(
                todos: try await c.todos.repository(), notifier: c.todos.notifier(),
                trail: c.audit.trail())
        }
    }

    /// `PATCH /todos/:id`.
    func update() async throws -> UpdateTodo {
        try await transient { c in UpdateTodo(todos: try await c.todos.repository(), trail: c.audit.trail()) }
    }

    /// `DELETE /todos/:id`.
    func delete() async throws -> DeleteTodo {
        try await transient { c in DeleteTodo(todos: try await c.todos.repository(), trail: c.audit.trail()) }
    }
}

/// The audit trail of one request's handler, and the audit route's handler.
final class AuditModule: Module<RequestComponent> {
    /// One trail per resolution: a handler and every service it is built with share it, so their
    /// changes are committed together; the next handler built gets a new one. Inside the async
    /// `transient`s above it follows their resolution across `await`s.
    func trail() -> AuditTrail {
        scoped { c in
            AuditTrail(requestID: c.requestID, user: c.user, log: c.app.storage.auditLog())
        }
    }

    /// `GET /audit`.
    func list() -> ListAudit { transient { c in ListAudit(user: c.user, log: c.app.storage.auditLog()) } }
}
