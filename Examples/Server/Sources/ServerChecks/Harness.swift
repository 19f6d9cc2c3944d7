import Dispatch
import Foundation
import Synchronization

/// A check that did not hold, with what to say.
struct CheckFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Throws `CheckFailure(message)` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw CheckFailure(message()) }
}

/// What every check shares: the output, the time limits, a temporary folder, and the process under
/// test, which is stopped on every exit path: success, failure, a time limit passed, SIGINT or
/// SIGTERM.
final class Harness: Sendable {
    /// The process under test, with the file its output goes to.
    private struct Current {
        var process: ChildProcess?
        var log: String?
    }

    let settings: Settings
    /// A folder of the run's own, removed when the run ends.
    let work: String
    /// The process started last, until its exit has been checked; and its log, which a failure shows.
    private let current = Mutex(Current())
    /// Held by the caller that ends the run, until the process exits: any other waits.
    private let ending = Mutex(())
    /// The sources that turn SIGINT and SIGTERM into the end of the run, kept for as long as it
    /// lasts; behind a lock only to be `Sendable`, as nothing changes them once they are set up.
    private let signalSources: Mutex<[any DispatchSourceSignal]>

    init(settings: Settings) throws {
        self.settings = settings
        work = NSTemporaryDirectory() + "server-checks-\(UUID())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: false)
        // A write to a connection the server closed fails, instead of ending the run.
        signal(SIGPIPE, SIG_IGN)
        // Ignored here, so that Dispatch delivers them. The children get every signal at its
        // default (`ChildProcess`).
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: number, queue: .global()))
        }
        signalSources = Mutex(sources)
        signalSources.withLock { sources in
            for (source, number) in zip(sources, [SIGINT, SIGTERM]) {
                source.setEventHandler { [self] in
                    say("stopped by signal \(number)")
                    end(status: 128 + number, failure: nil)
                }
                source.resume()
            }
        }
    }

    /// Prints a line of the run's output at once.
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data("test-server-example: \(line)\n".utf8))
    }

    /// Ends the run with a failure: says what failed and shows the end of the server's output.
    func fail(_ message: String) -> Never {
        end(status: 1, failure: message)
    }

    /// Ends the run: stops the process under test, removes the temporary folder and exits with
    /// `status`. The first caller does; any other waits until the process exits.
    func end(status: Int32, failure: String?) -> Never {
        ending.withLock { _ in
            if let failure { showFailure(failure) }
            current.withLock { $0.process }?.stop()
            try? FileManager.default.removeItem(atPath: work)
            exit(status)
        }
    }

    private func showFailure(_ message: String) {
        var lines = ["test-server-example: FAILED: \(message)"]
        if let log = current.withLock({ $0.log }) {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let logLines = output.split(separator: "\n").map { "    \($0)" }
            // A trap's message comes before its backtrace, which fills the end of the log.
            lines += logLines.filter { $0.contains("Fatal error") }.prefix(5)
            lines.append("test-server-example: the end of the server's output (\(log)):")
            lines += logLines.suffix(30)
        }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// Runs `body`; ends the run with a failure if it throws, or if it has not returned after
    /// `seconds`.
    func step<T>(_ what: String, limit seconds: Int, _ body: () throws -> T) -> T {
        let watchdog = DispatchWorkItem { [self] in fail("\(what) did not finish within \(seconds) s") }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds), execute: watchdog)
        defer { watchdog.cancel() }
        do {
            return try body()
        } catch let failure as CheckFailure {
            fail(failure.description)
        } catch {
            fail("\(what): \(error)")
        }
    }

    /// Starts `command` as the process under test, with `environment` added to this process's.
    ///
    /// - Parameters:
    ///   - output: The file for its standard output, and its standard error unless `errors` names
    ///     another; a failure shows its end.
    func start(_ command: [String], environment: [String: String], output: String, errors: String? = nil)
        throws -> ChildProcess
    {
        let environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        return try current.withLock { current in
            current.process?.stop()  // none: the checks wait for each process to exit
            let process = try ChildProcess(command, environment: environment, output: output, errors: errors)
            current = Current(process: process, log: errors ?? output)
            return process
        }
    }

    /// Forgets `process`, which has exited and been checked: nothing is left to stop.
    func finished(_ process: ChildProcess) {
        current.withLock { if $0.process === process { $0.process = nil } }
    }
}
