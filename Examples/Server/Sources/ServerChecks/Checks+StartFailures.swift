import Foundation
import NIOCore
import NIOPosix

extension Checks {
    /// Start-up failures: with its port taken, and with a database in a folder that does not exist,
    /// the server must exit nonzero with 1 to 3 lines on standard error, none of them a trap or a
    /// backtrace, and the first saying what to change.
    func startFailures(executable: String) {
        say("starting the server with its port taken")
        harness.step("the start with the port taken", limit: 60) {
            // SO_REUSEADDR: bound past the TIME_WAITs the last server left.
            let holder = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .bind(host: "127.0.0.1", port: port).wait()
            let environment = ["PORT": String(port), "TODO_DATABASE": harness.work + "/other.sqlite"]
            let failure = try failedStart(executable, environment, errors: "port-taken.err", within: 50)
            try holder.close().wait()
            try expectFailure(failure, saying: "PORT", "a start with the port taken")
        }
        say("starting the server on a database in a folder that does not exist")
        harness.step("the start on a database it cannot create", limit: 60) {
            let environment = ["PORT": "0", "TODO_DATABASE": harness.work + "/missing/todos.sqlite"]
            let failure = try failedStart(
                executable, environment, errors: "missing-folder.err", within: 50)
            try expectFailure(failure, saying: "TODO_DATABASE", "a start on a database it cannot create")
        }
    }

    /// Starts the server with `environment`, its standard error in the file `errors` of the run's
    /// folder, and waits for it to exit, for at most `seconds`.
    ///
    /// - Returns: Its exit status and standard error.
    private func failedStart(
        _ executable: String, _ environment: [String: String], errors: String, within seconds: Double
    ) throws -> (status: Int32, errors: String) {
        let errors = "\(harness.work)/\(errors)"
        let process = try harness.start(
            [executable], environment: environment, output: "/dev/null", errors: errors)
        guard let status = process.exitStatus(within: seconds) else {
            throw CheckFailure(
                "the server was still running \(Int(seconds)) s after it started, instead of failing")
        }
        harness.finished(process)
        return (status, try String(contentsOfFile: errors, encoding: .utf8))
    }

    private func expectFailure(
        _ failure: (status: Int32, errors: String), saying wanted: String, _ what: String
    ) throws {
        let (status, errors) = failure
        try expect(status != 0, "\(what): the server exited with 0, not an error")
        try expect(status < 128, "\(what): the server died of signal \(status - 128)")
        let lines = errors.utf8.count { $0 == UInt8(ascii: "\n") }
        try expect(
            (1...3).contains(lines), "\(what): \(lines) lines on standard error, not 1 to 3:\n\(errors)")
        try expect(
            errors.firstMatch(of: /fatal error|backtrace|stack dump|0x[0-9a-f]{8}/.ignoresCase()) == nil,
            "\(what): a trap or a backtrace on standard error:\n\(errors)")
        try expect(
            errors.prefix { $0 != "\n" }.contains(wanted),
            "\(what): the first line of standard error does not say \(wanted):\n\(errors)")
        let oneLine = errors.replacingOccurrences(of: "\n", with: " ")
        say("\(what): exit status \(status), standard error: \(oneLine)")
    }
}
