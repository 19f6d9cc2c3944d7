import Synchronization

/// The newest changes made through the server: at most `capacity` entries, each of them small.
///
/// The log keeps what an audit needs (the request, the user, what changed, by id) and never a
/// payload such as a title, so its memory is bounded by `capacity` whatever clients send. Once it
/// is full, each new entry replaces the oldest.
///
/// Thread-safe: one `Mutex` guards the entries, so concurrent requests may append to it.
final class AuditLog: Sendable {
    /// The entries, in a ring: once it is full, `next` is the oldest, which the next entry replaces.
    private struct Ring {
        var entries: [AuditEntry] = []
        var next = 0
    }

    /// How many entries the log keeps: the newest.
    let capacity: Int
    private let ring = Mutex(Ring())

    /// An empty log that keeps the newest `capacity` entries (at least one).
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Appends entries together, so that no other request's entries come between them.
    func append(_ newEntries: [AuditEntry]) {
        ring.withLock { ring in
            for entry in newEntries {
                if ring.entries.count < capacity {
                    ring.entries.append(entry)
                } else {
                    ring.entries[ring.next] = entry
                    ring.next = (ring.next + 1) % capacity
                }
            }
        }
    }

    /// The entries of the user's requests that the log still keeps, oldest first.
    func entries(of user: User) -> [AuditEntry] {
        ring.withLock { ring in
            (ring.entries[ring.next...] + ring.entries[..<ring.next]).filter { $0.user == user.name }
        }
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

    /// Notes one change, in a few words that name what changed by its id; nothing reaches the log
    /// before `commit()`.
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
