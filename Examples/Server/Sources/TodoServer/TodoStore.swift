import Synchronization

/// Every user's todos, in memory.
///
/// Thread-safe: one `Mutex` guards all of its state, so concurrent requests may call it.
final class TodoStore: Sendable {
    private struct State {
        var nextID = 1
        var todos: [User: [Todo]] = [:]
    }

    private let state = Mutex(State())

    /// The user's todos, oldest first.
    func todos(of user: User) -> [Todo] {
        state.withLock { $0.todos[user] ?? [] }
    }

    /// Adds a todo to the user's list.
    ///
    /// - Returns: The new todo, or `nil` if the user already has `limit` todos.
    func add(title: String, for user: User, limit: Int) -> Todo? {
        state.withLock { state in
            guard state.todos[user, default: []].count < limit else { return nil }
            let todo = Todo(id: state.nextID, title: title)
            state.nextID += 1
            state.todos[user, default: []].append(todo)
            return todo
        }
    }

    /// Removes one of the user's todos.
    ///
    /// - Returns: `false` if the user has no todo with this id.
    func remove(id: Int, of user: User) -> Bool {
        state.withLock { state in
            guard let index = state.todos[user]?.firstIndex(where: { $0.id == id }) else { return false }
            state.todos[user]?.remove(at: index)
            return true
        }
    }
}
