/// What a run checks and where: from its arguments and the environment.
///
/// Usage: `ServerChecks REPOSITORY LOGS COMMAND...`, where `REPOSITORY` is the repository's root
/// (for the guide and the example's sources), `LOGS` a folder for the servers' output, kept after
/// the run, and `COMMAND` what starts the server the first time, as an operator would:
/// `swift run --package-path … TodoServer`. Later starts run the executable that command ran.
struct Settings: Sendable {
    let repository: String
    let logs: String
    let startCommand: [String]
    /// The burst: `REQUESTS` requests from `CLIENTS` clients; 2,000 from 32 by default.
    let requests: Int
    let clients: Int
    /// The soak: `SOAK_WARMUP` requests, then `SOAK_REQUESTS` more, from `SOAK_CLIENTS` clients;
    /// 4,000, then 20,000 from 8 by default.
    let soakWarmup: Int
    let soakRequests: Int
    let soakClients: Int
    /// The graceful shutdown deadline of every server the run starts, in seconds: 3 instead of the
    /// default 10, so that the stalled-client case takes seconds, not tens of seconds. The deadline
    /// is the same code whatever its value.
    let shutdownDeadline = 3

    init(arguments: [String], environment: [String: String]) throws {
        guard arguments.count >= 4 else {
            throw CheckFailure("usage: ServerChecks REPOSITORY LOGS COMMAND... (see Settings.swift)")
        }
        repository = arguments[1]
        logs = arguments[2]
        startCommand = Array(arguments[3...])
        func count(_ name: String, _ byDefault: Int, atLeast least: Int) throws -> Int {
            guard let text = environment[name] else { return byDefault }
            guard let value = Int(text), value >= least else {
                throw CheckFailure("\(name) must be a whole number of at least \(least), not '\(text)'")
            }
            return value
        }
        requests = try count("REQUESTS", 2_000, atLeast: 0)
        clients = try count("CLIENTS", 32, atLeast: 1)
        soakWarmup = try count("SOAK_WARMUP", 4_000, atLeast: 0)
        soakRequests = try count("SOAK_REQUESTS", 20_000, atLeast: 10)
        soakClients = try count("SOAK_CLIENTS", 8, atLeast: 1)
    }
}
