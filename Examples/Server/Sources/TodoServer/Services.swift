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

    /// Adds a todo and notes it.
    ///
    /// - Returns: The new todo, or `nil` if the user has reached the limit.
    func add(title: String) async throws -> Todo? {
        guard let todo = try await store.add(title: title, for: user, limit: limit) else { return nil }
        trail.record("added todo \(todo.id)")
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

    /// Mails the user and notes it.
    func notify(_ subject: String) async {
        await mailer.send(Mail(to: user.name, subject: subject))
        trail.record("mailed “\(subject)”")
    }
}
