import Hummingbird
import NIOCore
import SQLiteNIO

/// Turns the errors a route meets that Hummingbird would answer with an empty 500, or answer and
/// then keep reading, into answers that say what happened.
///
/// - A database error (`SQLiteError`) becomes a `DatabaseFailure`, whose JSON body names its kind
///   (busy, read-only, full), and one line in the log at `error` level, with SQLite's own message.
/// - A body larger than `Limits.bodyBytes` gets 413 with a JSON message and `Connection: close`,
///   and the server stops reading: otherwise it would read the rest of the body before the next
///   request, and a client that waits for the answer before sending more would hang.
struct FailureMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: TodoRequestContext,
        next: (Request, TodoRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as SQLiteError {
            let failure = DatabaseFailure(error)
            context.logger.error(
                "database error: \(failure.kind.rawValue)",
                metadata: ["sqlite": "\(error)", "request": "\(request.method) \(request.uri.path)"])
            throw failure
        } catch is NIOTooManyBytesError {
            // Hummingbird writes the answer, then finds the input closed and closes the connection.
            context.channel.close(mode: .input, promise: nil)
            throw HTTPError(
                .contentTooLarge, headers: [.connection: "close"],
                message: "A request's body has at most \(Limits.bodyBytes) bytes.")
        }
    }
}
