import Foundation

/// Runs the server example as an operator would and checks what it promises; what
/// .ci/test-server-example runs once the example is built and its tests pass.
///
/// Each check prints what it saw; the first that fails stops the run with a message, and the end
/// of the server's output. The server is stopped on every exit path, and every step has a time
/// limit (`Harness`). Usage: `Settings`.
@main
struct ServerChecks {
    static func main() {
        let settings: Settings
        let harness: Harness
        do {
            settings = try Settings(
                arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment)
            harness = try Harness(settings: settings)
        } catch {
            FileHandle.standardError.write(Data("ServerChecks: \(error)\n".utf8))
            exit(2)
        }
        let checks = harness.step("choosing a free port", limit: 10) {
            try Checks(harness: harness)
        }

        // 1. `swift run` serves on 127.0.0.1, on a database file of its own, and answers requests,
        //    among them a few refused on purpose (401, 400, 404, and 413 for a 10 MB upload).
        let (server, executable) = checks.startWithSwiftRun()
        var ledger = checks.routes(of: server)
        checks.uploadTooLarge(to: server)
        // 2. A burst of concurrent requests, each client reading back exactly its todos.
        checks.burst(on: server, ledger: &ledger)
        // 3. A soak, whose RSS must not grow more than 1 MiB per 10,000 requests after warm-up.
        checks.soak(on: server, ledger: &ledger)
        // 4. SIGTERM while a request is under way: answered, then exit 0 with the database closed.
        checks.sigtermWithRequestUnderWay(server, ledger: &ledger)
        // 5. The database file holds every acknowledged write, and none acknowledged deleted.
        checks.checkDatabase(holds: ledger)
        // 6. A client stalled during SIGTERM: exit 0 within the deadline + 5 s, database intact.
        checks.stalledClientAtSigterm(executable: executable, ledger: ledger)
        // 7. Start-up failures (port taken, database folder missing): at most 3 lines, no trap.
        checks.startFailures(executable: executable)
        // 8. A read-only database: a JSON 500 of kind read-only per write; IDLE_TIMEOUT closes a
        //    stalled connection.
        checks.readOnlyDatabase(executable: executable)
        // 9. The guide's excerpts of the example match its sources, and fit in 100 columns.
        checks.guideExcerpts()

        harness.say(
            "passed: the server served \(settings.requests) concurrent requests and a soak of "
                + "\(settings.soakWarmup + settings.soakRequests) with flat memory, answered the request "
                + "under way at SIGTERM, exited 0 and kept every acknowledged write, exited within its "
                + "deadline despite a stalled client, failed to start in one line, and answered a read-only "
                + "database")
        harness.end(status: 0, failure: nil)
    }
}
