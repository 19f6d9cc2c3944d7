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
