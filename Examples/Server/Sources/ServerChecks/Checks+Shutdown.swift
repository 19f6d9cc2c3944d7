import Foundation

extension Checks {
    /// SIGTERM while a request is under way, its body half sent: the server stops accepting
    /// connections, answers that request, then closes its connection; it shuts its component down,
    /// which closes the database, and exits 0. A request that reached the database after the
    /// component closed would stop the program instead.
    func sigtermWithRequestUnderWay(_ server: Server, ledger: inout Ledger) {
        harness.step("the peak RSS", limit: 5) {
            let peak = try server.memory("VmHWM")
            say("the server's peak RSS (VmHWM) before SIGTERM: \(peak / 1_024) MiB (\(peak) kB)")
        }
        say("sending SIGTERM while a request is under way")
        harness.step("the graceful shutdown", limit: 120) {
            let title = "answered during shutdown"
            let body = Array(#"{"title": "\#(title)"}"#.utf8)
            var connection = try HTTPConnection(port: port)
            defer { connection.close() }
            try connection.begin(
                "POST", "/todos", as: "shutdown", contentLength: body.count, body: body[..<(body.count / 2)])
            // The server reads the head and starts the route, which waits for the body.
            Thread.sleep(forTimeInterval: 0.5)
            server.terminate()

            let deadline = ContinuousClock.now + .seconds(20)
            while true {
                do {
                    try HTTPConnection(port: port, timeout: 1).close()
                } catch let error where isRefused(error) {
                    break
                }
                try expect(
                    ContinuousClock.now < deadline, "the server still accepts connections 20 s after SIGTERM")
                Thread.sleep(forTimeInterval: 0.05)
            }
            say("the server refuses new connections")

            try connection.write(body[(body.count / 2)...])
            let answer = try connection.readResponse()
            try expect(
                answer.status == 201,
                "the request under way answered \(answer.status): \(answer.body.prefix(200))")
            let todo = try answer.decode(Todo.self)
            try expect(connection.closed(within: 30), "the server kept the connection open after answering")
            say("the request under way was answered: \(answer.status) \(answer.body)")
            ledger.created[todo.id] = .init(user: "shutdown", title: title)
        }
        harness.step("the exit after SIGTERM", limit: 70) {
            try server.expectCleanExit(within: 60, database: database)
            harness.finished(server.process)
        }
        say("the server exited 0 after SIGTERM and closed its database")
    }

    /// A client that stalls during SIGTERM: it sends a request's head and half its body, then
    /// nothing, beside an idle keep-alive connection. The server must exit within its graceful
    /// shutdown deadline plus 5 s, with status 0, having shut its component down, with the database
    /// closed and intact.
    func stalledClientAtSigterm(executable: String, ledger: Ledger) {
        let deadline = settings.shutdownDeadline
        let limit = Double(deadline + 5)
        say("starting the server again, for a client that stalls during SIGTERM (deadline \(deadline) s)")
        let server = harness.step("starting the server", limit: 90) {
            try startServer([executable], log: "server-stalled.log", environment: ["TODO_DATABASE": database])
        }
        harness.step("the stalled client", limit: 120) {
            let body = Array(#"{"title": "never finished"}"#.utf8)
            var stalled = try HTTPConnection(port: port, timeout: 60)
            defer { stalled.close() }
            try stalled.begin(
                "POST", "/todos", as: "stalled", contentLength: body.count, body: body[..<(body.count / 2)])
            let idle = try HTTPConnection(port: port, timeout: 60)
            defer { idle.close() }
            // The server reads the head and starts the route, which waits for the body.
            Thread.sleep(forTimeInterval: 0.5)
            server.terminate()
            let sent = ContinuousClock.now
            _ = server.process.exitStatus(within: limit + 10)
            let took = ContinuousClock.now - sent
            say(
                "the server exited \(took.seconds(decimals: 2)) s after SIGTERM, with a client stalled "
                    + "(deadline \(deadline) s, limit \(Int(limit)) s)")
            try expect(
                took <= .seconds(limit),
                "the server took \(took.seconds(decimals: 2)) s to exit, more than \(Int(limit)) s")
            if stalled.hasSomethingToRead(), let answer = try? stalled.readResponse() {
                say("the stalled client got \(answer.statusLine) before the connection closed")
            }
        }
        harness.step("the exit after SIGTERM", limit: 20) {
            try server.expectCleanExit(within: 15, database: database)
            harness.finished(server.process)
            try expect(
                try server.output().contains("Shutdown deadline passed"),
                "the server did not log that the deadline cancelled the stalled request")
        }
        checkDatabase(holds: ledger)
        say(
            "the server exited 0 within the deadline plus 5 s despite the stalled client, "
                + "and closed its database")
    }
}
