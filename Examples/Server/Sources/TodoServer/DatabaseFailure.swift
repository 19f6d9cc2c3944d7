import Hummingbird
import SQLiteNIO

/// A database error as the client sees it: a status, and a JSON body that names the kind of
/// failure and says what happened, without SQLite's message, statement or file.
///
/// ```json
/// {"error": {"kind": "read-only", "message": "The database is read-only: nothing was changed."}}
/// ```
///
/// `FailureMiddleware` turns each `SQLiteError` into one, and logs the error itself.
struct DatabaseFailure: HTTPResponseError {
    /// What went wrong, as the body's `kind` names it.
    enum Kind: String, Encodable {
        /// Another connection held the database for longer than the busy timeout: 503, with
        /// `Retry-After`, since the same request may succeed in a moment.
        case busy
        /// The database, its folder or its file system cannot be written: 500.
        case readOnly = "read-only"
        /// The disk, or the database's size limit, is full: 500.
        case full
        /// Any other failure of the database: 500.
        case failed
    }

    /// What went wrong.
    let kind: Kind

    /// The kind of `error`, from SQLite's result code.
    init(_ error: SQLiteError) {
        switch error.reason {
        case .busy, .busyTimeout, .busyInRecovery, .busyInSnapshot, .locked, .lockedBySharedCache,
            .lockedVirtualTable:
            kind = .busy
        case .readOnly, .readonlyCantLock, .readonlyDirectory, .readonlyInRecovery, .readonlyInRollback,
            .readonlyBackingMoved:
            kind = .readOnly
        case .full:
            kind = .full
        default:
            kind = .failed
        }
    }

    var status: HTTPResponse.Status { kind == .busy ? .serviceUnavailable : .internalServerError }

    /// What the body's `message` says.
    var message: String {
        switch kind {
        case .busy: "The database is busy: nothing was changed. Try again in a moment."
        case .readOnly: "The database is read-only: nothing was changed."
        case .full: "The database is full: nothing was changed."
        case .failed: "The database failed: nothing was changed."
        }
    }

    private struct Body: Encodable {
        struct Details: Encodable {
            let kind: Kind
            let message: String
        }

        let error: Details
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(
            Body(error: .init(kind: kind, message: message)), from: request, context: context)
        response.status = status
        if kind == .busy { response.headers[.retryAfter] = "1" }
        return response
    }
}
