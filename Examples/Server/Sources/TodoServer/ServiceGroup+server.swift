import Logging
import ServiceLifecycle

/// The service group that runs `server` until SIGTERM or SIGINT, and then shuts it down within
/// the configuration's `shutdownDeadline`.
///
/// On either signal the server stops accepting connections and answers the requests under way.
/// Those still running after the deadline, such as one whose client stalled in the middle of its
/// body, are cancelled, which ends them at once: Hummingbird closes their connections' input. Then
/// `run()` returns all the same, and whoever called it can close what the server used. The log
/// says, at the default level, when the shutdown begins and when the deadline cuts it short.
func makeServiceGroup(
    running server: some Service, configuration: ServerConfiguration, logger: Logger
) -> ServiceGroup {
    let deadline = configuration.shutdownDeadline
    let logged = ShutdownLog(server: server, deadline: deadline, logger: logger)
    var services = ServiceGroupConfiguration(
        services: [logged], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    services.maximumGracefulShutdownDuration = deadline
    // A cancelled request ends at once. Code that ignored cancellation would keep the process for
    // ever: after this long the group stops it with a fatal error instead.
    services.maximumCancellationDuration = .seconds(5)
    return ServiceGroup(configuration: services)
}

/// Runs the server, and logs the two moments of its shutdown an operator needs to see: when it
/// begins, and when the deadline passes with requests still under way.
private struct ShutdownLog<Server: Service>: Service {
    /// The service it runs.
    let server: Server
    /// How long the requests under way have, once the shutdown has begun.
    let deadline: Duration
    /// Where it logs.
    let logger: Logger

    func run() async throws {
        let (logger, deadline) = (logger, deadline)
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await server.run()
            } onGracefulShutdown: {
                logger.info("Shutting down: the requests under way have \(deadline) to finish")
            }
        } onCancel: {
            logger.warning("Shutdown deadline passed: cancelling the requests still under way")
        }
    }
}
