import Synchronization

/// Every change made through the server, oldest first.
///
/// Thread-safe: one `Mutex` guards the entries, so concurrent requests may append to it.
final class AuditLog: Sendable {
    private let entries = Mutex<[AuditEntry]>([])

    /// Appends entries together, so that no other request's entries come between them.
    func append(_ newEntries: [AuditEntry]) {
        entries.withLock { $0.append(contentsOf: newEntries) }
    }

    /// The entries of the user's requests, oldest first.
    func entries(of user: User) -> [AuditEntry] {
        entries.withLock { $0.filter { $0.user == user.name } }
    }
}

/// The changes one handler makes, kept until the handler succeeds and then written to the audit
/// log together; a handler that fails writes nothing.
///
/// `Sendable`, as every `scoped` instance is: the child tasks of one resolution share it.
final class AuditTrail: Sendable {
    /// The request whose changes this trail records.
    let requestID: String
    /// The user that request acts for.
    let user: User
    private let log: AuditLog
    private let actions = Mutex<[String]>([])

    /// Creates an empty trail for one request, to be committed to `log`.
    init(requestID: String, user: User, log: AuditLog) {
        self.requestID = requestID
        self.user = user
        self.log = log
    }

    /// Notes one change; nothing reaches the log before `commit()`.
    func record(_ action: String) {
        actions.withLock { $0.append(action) }
    }

    /// Writes the changes noted so far to the log, stamped with the request's id and user.
    func commit() {
        let noted = actions.withLock { actions in
            defer { actions.removeAll() }
            return actions
        }
        log.append(noted.map { AuditEntry(requestID: requestID, user: user.name, action: $0) })
    }
}
