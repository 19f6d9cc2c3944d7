// The request's services: each joins what the request knows (its user, its audit trail) with what
// the application shares (the store, the mailer). None of them knows Dirk; the modules build them.

/// The todos of the user a request acts for.
struct TodoRepository {
    /// The user whose todos these are.
    let user: User
    /// The application's store, in its database.
    let store: TodoStore
    /// How many todos the user may keep.
    let limit: Int
    /// Where changes are noted.
    let trail: AuditTrail

    /// The user's todos, oldest first.
    func all() async throws -> [Todo] {
        try await store.todos(of: user)
    }

    /// One of the user's todos, or `nil` if the user has no todo with this id.
    func find(id: Int) async throws -> Todo? {
        try await store.todo(id: id, of: user)
    }

    /// Adds a todo and notes it.
    ///
    /// - Returns: The new todo, or `nil` if the user has reached the limit.
    func add(title: String) async throws -> Todo? {
        guard let todo = try await store.add(title: title, for: user, limit: limit) else { return nil }
        trail.record("added todo \(todo.id)")
        return todo
    }

    /// Changes the title of one of the user's todos and notes it.
    ///
    /// - Returns: The todo as it is now, or `nil` if the user has no todo with this id.
    func rename(id: Int, to title: String) async throws -> Todo? {
        guard let todo = try await store.rename(id: id, of: user, to: title) else { return nil }
        trail.record("renamed todo \(id)")
        return todo
    }

    /// Removes one of the user's todos and notes it.
    ///
    /// - Returns: `false` if the user has no todo with this id.
    func remove(id: Int) async throws -> Bool {
        guard try await store.remove(id: id, of: user) else { return false }
        trail.record("removed todo \(id)")
        return true
    }
}

/// Tells the user a request acts for what it did.
struct Notifier {
    /// The user to tell.
    let user: User
    /// The application's mailer.
    let mailer: any Mailer
    /// Where sent mails are noted.
    let trail: AuditTrail

    /// Mails the user about a new todo, and notes it by the todo's id: the audit log keeps no
    /// titles.
    func notify(added todo: Todo) async {
        await mailer.send(Mail(to: user.name, subject: "New todo: \(todo.title)"))
        trail.record("mailed about todo \(todo.id)")
    }
}
