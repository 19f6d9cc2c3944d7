import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization

@testable import TodoServer

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
final class RecordingMailModule: MailModule, @unchecked Sendable {
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
