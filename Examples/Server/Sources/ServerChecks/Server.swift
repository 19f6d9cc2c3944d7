import Foundation

/// A TodoServer under test, on 127.0.0.1.
struct Server: Sendable {
    let process: ChildProcess
    let port: Int
    /// The file its standard output and error go to.
    let log: String

    var url: String { "http://127.0.0.1:\(port)" }

    /// Waits until the server answers `GET /todos`, for at most 60 s.
    ///
    /// Nothing says that the server listens but an answer, so this asks every 0.1 s.
    ///
    /// - Throws: `CheckFailure` if it exits first, or does not answer in time.
    func waitUntilAnswering() throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            try expect(!process.hasExited, "the server exited before answering")
            if (try? HTTPConnection.send("GET", "/todos", port: port, as: "ci", timeout: 2)) != nil { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw CheckFailure("the server did not answer \(url)/todos within 60 s")
    }

    /// What the server has written to its standard output and error so far.
    func output() throws -> String {
        try String(contentsOfFile: log, encoding: .utf8)
    }

    /// A size in KiB that `/proc/PID/status` gives, such as `VmRSS` (resident now) or `VmHWM` (the
    /// most resident so far).
    func memory(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.id)/status", encoding: .utf8)
        // Such as `VmRSS:\t   41552 kB`.
        for line in status.split(separator: "\n") where line.hasPrefix("\(field):") {
            let fields = line.split(whereSeparator: \.isWhitespace)
            if fields.count > 1, let kib = Int(fields[1]) { return kib }
        }
        throw CheckFailure("/proc/\(process.id)/status has no \(field)")
    }

    /// Sends SIGTERM, which starts the server's graceful shutdown.
    func terminate() {
        process.send(SIGTERM)
    }

    /// Waits for the server to exit after SIGTERM, for at most `seconds`, and checks that it exited
    /// 0 having shut its component down, which closed the database: SQLite removes the write-ahead
    /// log when the last connection closes.
    func expectCleanExit(within seconds: Double, database: String) throws {
        guard let status = process.exitStatus(within: seconds) else {
            throw CheckFailure("the server did not exit within \(Int(seconds)) s of SIGTERM")
        }
        try expect(status == 0, "the server exited with \(status) after SIGTERM, not 0")
        try expect(
            try output().contains("TodoServer stopped and closed its database"),
            "the server did not say it closed its database: app.shutdown() did not run")
        try expect(
            !FileManager.default.fileExists(atPath: database + "-wal"),
            "the database was not closed: \(database)-wal is left")
    }
}
