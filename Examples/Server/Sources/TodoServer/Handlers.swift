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
    /// - Throws: `HTTPError(.badRequest)` for a blank title, `HTTPError(.unprocessableContent)`
    ///   when the user has reached the limit.
    func handle(_ new: NewTodo) async throws -> Todo {
        guard !new.title.allSatisfy(\.isWhitespace) else {
            throw HTTPError(.badRequest, message: "A todo needs a title.")
        }
        guard let todo = try await todos.add(title: new.title) else {
            throw HTTPError(.unprocessableContent, message: "Remove a todo before adding more.")
        }
        await notifier.notify("New todo: \(todo.title)")
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
        guard try await todos.remove(id: id) else {
            throw HTTPError(.notFound, message: "You have no todo \(id).")
        }
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

    /// Returns the entries of the user's requests, oldest first.
    func handle() -> [AuditEntry] {
        log.entries(of: user)
    }
}
