import Hummingbird

// One handler per route that needs a user. A module builds each with everything it needs, and the
// route calls `handle` once.

/// `GET /todos`: the user's todos.
struct ListTodos {
    /// The user's todos.
    let todos: TodoRepository

    /// Returns the user's todos, oldest first.
    func handle() async throws -> [Todo] {
        try await todos.all()
    }
}

/// `GET /todos/:id`: one of the user's todos.
struct ShowTodo {
    /// The user's todos.
    let todos: TodoRepository

    /// Returns the todo.
    ///
    /// - Throws: `HTTPError(.notFound)` if the user has no todo with this id.
    func handle(id: Int) async throws -> Todo {
        guard let todo = try await todos.find(id: id) else { throw noTodo(id) }
        return todo
    }
}

/// `POST /todos`: adds a todo, mails the user, and audits both.
struct CreateTodo {
    /// The user's todos.
    let todos: TodoRepository
    /// Mails the user.
    let notifier: Notifier
    /// The trail that `todos` and `notifier` note their changes in.
    let trail: AuditTrail

    /// Adds the todo and returns it, once it is in the database.
    ///
    /// - Throws: `HTTPError(.badRequest)` for a blank title or one longer than
    ///   `Limits.titleCharacters`, `HTTPError(.unprocessableContent)` when the user has reached the
    ///   limit.
    func handle(_ new: NewTodo) async throws -> Todo {
        try checkTitle(new.title)
        guard let todo = try await todos.add(title: new.title) else {
            throw HTTPError(.unprocessableContent, message: "Remove a todo before adding more.")
        }
        await notifier.notify(added: todo)
        trail.commit()
        return todo
    }
}

/// `PATCH /todos/:id`: changes what the patch names of one of the user's todos, and audits it.
struct UpdateTodo {
    /// The user's todos.
    let todos: TodoRepository
    /// The trail that `todos` notes its change in.
    let trail: AuditTrail

    /// Applies the patch and returns the todo as it is now; an empty patch changes nothing.
    ///
    /// - Throws: `HTTPError(.notFound)` if the user has no todo with this id, and
    ///   `HTTPError(.badRequest)` for a title that `POST /todos` would refuse.
    func handle(id: Int, _ patch: TodoPatch) async throws -> Todo {
        guard let title = patch.title else {
            return try await ShowTodo(todos: todos).handle(id: id)
        }
        try checkTitle(title)
        guard let todo = try await todos.rename(id: id, to: title) else { throw noTodo(id) }
        trail.commit()
        return todo
    }
}

/// `DELETE /todos/:id`: removes one of the user's todos and audits it.
struct DeleteTodo {
    /// The user's todos.
    let todos: TodoRepository
    /// The trail that `todos` notes its change in.
    let trail: AuditTrail

    /// Removes the todo.
    ///
    /// - Throws: `HTTPError(.notFound)` if the user has no todo with this id.
    func handle(id: Int) async throws -> HTTPResponse.Status {
        guard try await todos.remove(id: id) else { throw noTodo(id) }
        trail.commit()
        return .noContent
    }
}

/// `GET /audit`: what the user's requests changed.
struct ListAudit {
    /// The user whose entries to list.
    let user: User
    /// The application's audit log.
    let log: AuditLog

    /// Returns the entries of the user's requests that the log still keeps, oldest first.
    func handle() -> [AuditEntry] {
        log.entries(of: user)
    }
}

/// Checks a title that a request would store.
///
/// - Throws: `HTTPError(.badRequest)` for a blank title or one longer than `Limits.titleCharacters`.
private func checkTitle(_ title: String) throws(HTTPError) {
    guard !title.allSatisfy(\.isWhitespace) else {
        throw HTTPError(.badRequest, message: "A todo needs a title.")
    }
    guard title.count <= Limits.titleCharacters else {
        throw HTTPError(.badRequest, message: "A title has at most \(Limits.titleCharacters) characters.")
    }
}

/// The answer when the user has no todo `id`: 404, whether it is missing or another user's.
private func noTodo(_ id: Int) -> HTTPError {
    HTTPError(.notFound, message: "You have no todo \(id).")
}
