import Foundation

extension Checks {
    /// A read-only database: the file made read-only, and opened through SQLite's `mode=ro`, which
    /// holds even for root, to whom file permissions do not apply. Each write gets a JSON 500 whose
    /// kind is "read-only", with one line in the server's log at the default level, and reads go
    /// on. The same server runs with IDLE_TIMEOUT=2: a client that stalls in the middle of a
    /// request's body must find its connection closed within 2 + 5 s, with no shutdown under way.
    func readOnlyDatabase(executable: String) {
        say("starting the server on the database made read-only")
        let permissions =
            (try? FileManager.default.attributesOfItem(atPath: database)[.posixPermissions] as? Int) ?? 0o644
        let server = harness.step("starting the server on the read-only database", limit: 90) {
            try FileManager.default.setAttributes(
                [.posixPermissions: permissions & ~0o222], ofItemAtPath: database)
            let environment = ["TODO_DATABASE": "file:\(database)?mode=ro", "IDLE_TIMEOUT": "2"]
            return try startServer([executable], log: "server-read-only.log", environment: environment)
        }
        harness.step("the read-only database", limit: 60) {
            var connection = try HTTPConnection(port: port)
            defer { connection.close() }
            let read = try connection.send("GET", "/todos", as: "load-0")
            try expect(
                read.status == 200,
                "a read of the read-only database answered \(read.status): \(read.body.prefix(200))")
            let todos = try read.decode([Todo].self)
            var writes: [(method: String, path: String, json: String?)] = [
                ("POST", "/todos", titleJSON("not saved"))
            ]
            if let first = todos.first {
                writes += [
                    ("PATCH", "/todos/\(first.id)", titleJSON("not saved")),
                    ("DELETE", "/todos/\(first.id)", nil),
                ]
            }
            for (method, path, json) in writes {
                let answer = try connection.send(method, path, as: "load-0", json: json)
                let kind = try? answer.decode(ErrorBody.self).error.kind
                try expect(
                    answer.status == 500 && kind == "read-only",
                    "\(method) \(path) answered \(answer.status) \(answer.body.prefix(200)), "
                        + "not 500 with the kind read-only")
                say("\(method) \(path) answered \(answer.status) \(answer.body)")
            }
            let again = try connection.send("GET", "/todos", as: "load-0")
            try expect(
                again.status == 200 && (try? again.decode([Todo].self)) == todos,
                "reads did not go on after the failed writes: \(again.status) \(again.body.prefix(200))")
            let lines = try server.output().split(separator: "\n").filter { $0.contains("database error") }
            try expect(
                lines.count == writes.count,
                "\(lines.count) log lines for \(writes.count) database errors: \(lines)")
            say("reads go on, and each failed write logged one line, such as: \(lines[0])")
        }
        say(
            "a client that stalls in the middle of a request, with IDLE_TIMEOUT=2, "
                + "while no shutdown is under way")
        harness.step("the stalled client with IDLE_TIMEOUT=2", limit: 60) {
            let idleTimeout = 2.0
            var stalled = try HTTPConnection(port: port, timeout: idleTimeout + 10)
            defer { stalled.close() }
            try stalled.begin("POST", "/todos", as: "stalled", contentLength: 100, body: #"{"title""#.utf8)
            let started = ContinuousClock.now
            // Whatever the server answers, until it closes the connection.
            let closed = stalled.closed(within: idleTimeout + 10)
            let took = ContinuousClock.now - started
            try expect(closed, "the connection was still open \(Int(idleTimeout) + 10) s later")
            say(
                "the server closed the stalled connection after \(took.seconds(decimals: 1)) s "
                    + "(IDLE_TIMEOUT=\(Int(idleTimeout)))")
            try expect(took <= .seconds(idleTimeout + 5), "that is more than IDLE_TIMEOUT + 5 s")
        }
        harness.step("the exit after SIGTERM", limit: 20) {
            server.terminate()
            guard let status = server.process.exitStatus(within: 15) else {
                throw CheckFailure("the server on the read-only database did not exit within 15 s of SIGTERM")
            }
            harness.finished(server.process)
            try expect(
                status == 0, "the server on the read-only database exited with \(status) after SIGTERM")
            try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: database)
        }
        say(
            "on the read-only database, writes got a JSON 500 naming the kind, each logged once, "
                + "and reads went on")
    }
}
