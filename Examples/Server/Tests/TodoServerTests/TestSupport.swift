import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization

@testable import TodoServer

extension ServerConfiguration {
    /// The defaults, with a new database in memory, and any variables of `environment`: what each
    /// test runs on, so that tests share no data and run in parallel.
    static func inMemory(_ environment: [String: String] = [:]) -> ServerConfiguration {
        ServerConfiguration(
            environment: Environment(values: ["TODO_DATABASE": ":memory:"].merging(environment) { $1 }))
    }
}

/// Sends requests to the routes of `app` through Hummingbird's router test client, then shuts `app`
/// down, which closes its database, whether `test` threw or not: a test that fails still closes
/// what it opened. By default `app` is a new component on a database of its own in memory.
///
/// - Throws: What `test` threw, or else `ShutdownError` when a close action threw.
func testRoutes(
    of app: AppComponent = AppComponent(configuration: .inMemory()),
    _ test: @Sendable (any TestClientProtocol) async throws -> Void
) async throws {
    try await app.withShutdown { app in
        try await buildApplication(app: app).test(.router, test)
    }
}

/// A database file of a test's own in the temporary folder, for a test that opens it more than once.
struct TemporaryDatabaseFile {
    let path = NSTemporaryDirectory() + "dirk-todo-\(UUID()).sqlite"

    /// Removes the file, and the write-ahead log and shared memory that SQLite keeps beside it.
    func remove() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// A JSON error body, `{"error": {"kind": "…", "message": "…"}}`; only database errors name a kind.
struct ErrorBody: Decodable {
    struct Details: Decodable {
        let kind: String?
        let message: String
    }

    let error: Details
}

/// Weak references to the objects a test saw, to check later that they are gone.
final class WeakReferences<Object: AnyObject & Sendable>: Sendable {
    private struct Reference {
        weak var object: Object?
    }

    private let references = Mutex<[Reference]>([])

    /// Keeps a weak reference to `object`.
    func append(_ object: Object) {
        references.withLock { $0.append(Reference(object: object)) }
    }

    /// How many objects were appended.
    var count: Int { references.withLock { $0.count } }

    /// How many of them are still alive.
    var alive: Int { references.withLock { $0.count { $0.object != nil } } }
}

/// A mailer that keeps what it is asked to send, for a test to read.
final class RecordingMailer: Mailer {
    private let outbox = Mutex<[Mail]>([])

    /// Every mail sent so far, oldest first.
    var sent: [Mail] { outbox.withLock { $0 } }

    func send(_ mail: Mail) async {
        outbox.withLock { $0.append(mail) }
    }
}

/// A mailer that holds every mail until `expected` of them are being sent at once: how a test shows
/// that requests ran concurrently. `open()` lets every mail through, for a test that gives up
/// waiting.
final class GatheringMailer: Mailer {
    private struct State {
        var sent: [Mail] = []
        var waiting: [CheckedContinuation<Void, Never>] = []
        var mostAtOnce = 0
        var isOpen = false

        /// Opens the gate; returns the mails' senders to resume.
        mutating func open() -> [CheckedContinuation<Void, Never>] {
            isOpen = true
            defer { waiting = [] }
            return waiting
        }
    }

    let expected: Int
    private let state = Mutex(State())

    init(expected: Int) {
        self.expected = expected
    }

    /// Every mail sent so far, in the order they arrived.
    var sent: [Mail] { state.withLock { $0.sent } }

    /// The most mails held at once.
    var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }

    func send(_ mail: Mail) async {
        await withCheckedContinuation { continuation in
            let released: [CheckedContinuation<Void, Never>] = state.withLock { state in
                state.sent.append(mail)
                guard !state.isOpen else { return [continuation] }
                state.waiting.append(continuation)
                state.mostAtOnce = max(state.mostAtOnce, state.waiting.count)
                return state.waiting.count == expected ? state.open() : []
            }
            for waiting in released { waiting.resume() }
        }
    }

    /// Lets every mail through, now and from now on.
    func open() {
        for waiting in state.withLock({ $0.open() }) { waiting.resume() }
    }
}

/// The mail module with its mailer replaced by a `RecordingMailer`.
final class RecordingMailModule: MailModule {
    override func mailer() -> any Mailer { single { RecordingMailer() } }
}

extension TestClientProtocol {
    /// Sends a request on behalf of `user` (with no `X-User` header when `nil`), with an optional
    /// JSON body.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, as user: String?, json: String? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let user { headers[.user] = user }
        if json != nil { headers[.contentType] = "application/json" }
        return try await execute(
            uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }
}

extension TestResponse {
    /// The body, decoded from JSON.
    func json<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(String(buffer: body).utf8))
    }
}
