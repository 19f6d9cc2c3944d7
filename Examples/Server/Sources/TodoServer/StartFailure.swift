import Dirk
import Foundation
import NIOCore
import SQLiteNIO

/// Says in one line why the server could not start, or stopped, and what to change: what `main`
/// prints before it exits with a nonzero status.
///
/// - A port in use, or an address the server cannot listen on, names the address and `PORT`.
/// - A database that cannot open names its file and `TODO_DATABASE`.
/// - Anything else is described as it is, on one line.
func explain(_ error: any Error, configuration: ServerConfiguration) -> String {
    let address = "\(configuration.host):\(configuration.port)"
    let line: String
    switch error {
    case let error as IOError where error.errnoCode == EADDRINUSE:
        line = "cannot listen on \(address): the port is in use. Set PORT to a free port."
    case let error as IOError:
        line = "cannot listen on \(address): \(error). Set HOST and PORT to an address of this machine."
    case let error as SQLiteError:
        line =
            "cannot open the database \(configuration.database): \(error.message) (\(error.reason)). "
            + "Set TODO_DATABASE to a file in a folder the server can write."
    case let error as ShutdownError:
        line = "stopped, but could not close everything: \(error)"
    default:
        line = "stopped: \(error)"
    }
    return line.split(whereSeparator: \.isNewline).joined(separator: " ")
}
