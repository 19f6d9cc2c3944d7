import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The checks of the server example, which `ServerChecks` runs in order; each group is in the file
/// of its concern (`Checks+Routes.swift`, `Checks+Load.swift`, …).
///
/// Every server gets the same free port, so that another server on 8080 does not matter, and every
/// request goes to 127.0.0.1.
struct Checks: Sendable {
    let harness: Harness
    let port: Int
    /// The servers' database file, in the run's temporary folder.
    let database: String

    var settings: Settings { harness.settings }

    init(harness: Harness) throws {
        self.harness = harness
        let probe = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).wait()
        port = probe.localAddress?.port ?? 0
        try probe.close().wait()
        database = harness.work + "/todos.sqlite"
    }

    func say(_ line: String) {
        harness.say(line)
    }

    /// Starts `command`, a TodoServer, on `port` with the run's shutdown deadline and `environment`,
    /// its output in the file `log` of the log folder, and waits until it answers.
    func startServer(_ command: [String], log: String, environment: [String: String]) throws -> Server {
        let log = "\(settings.logs)/\(log)"
        var environment = environment
        environment["PORT"] = String(port)
        environment["SHUTDOWN_DEADLINE"] = String(settings.shutdownDeadline)
        let process = try harness.start(command, environment: environment, output: log)
        let server = Server(process: process, port: port, log: log)
        try server.waitUntilAnswering()
        return server
    }
}

/// Runs `body(0)`, `body(1)`, … `body(count - 1)` at once, each on a thread of its own, as clients
/// with blocking connections; returns their results in that order once all have returned.
func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    let results = ThreadResults<T>()
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        Thread.detachNewThread {
            let value = body(index)
            results.values.withLock { $0[index] = value }
            finished.leave()
        }
    }
    finished.wait()
    return results.values.withLock { values in (0..<count).compactMap { values[$0] } }
}

/// What the threads of `onThreads` returned, by index.
private final class ThreadResults<T: Sendable>: Sendable {
    let values = Mutex<[Int: T]>([:])
}

extension Duration {
    /// The duration in seconds.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in seconds, with `decimals` digits after the point.
    func seconds(decimals: Int) -> String {
        String(format: "%.\(decimals)f", inSeconds)
    }
}
