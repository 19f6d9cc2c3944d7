import Foundation
import Hummingbird
import ServiceLifecycle

// The application owns its component: created here from the environment, held by the server while
// it runs, and shut down by `withShutdown`, which closes the database, once the server has stopped,
// or failed (whose error it then rethrows).
let configuration = ServerConfiguration(environment: Environment())
do {
    try await AppComponent(configuration: configuration).withShutdown { app in
        let server = buildApplication(app: app)
        // On SIGTERM or SIGINT the group shuts the server down gracefully: it stops accepting
        // connections and answers the requests under way. Those still running after the deadline
        // are cancelled, and then `run()` returns all the same.
        var services = ServiceGroupConfiguration(
            services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: server.logger)
        services.maximumGracefulShutdownDuration = app.configuration.shutdownDeadline
        // A cancelled request ends at once. Code that ignored cancellation would keep the process
        // for ever: after this long the group stops it with a fatal error instead.
        services.maximumCancellationDuration = .seconds(5)
        printNow("TodoServer keeps its todos in \(app.configuration.database)")
        try await ServiceGroup(configuration: services).run()
        // No request is under way any more, so none can find the database closed.
    }
} catch {
    // One line that says what to change, instead of a trap and its backtrace.
    printError("TodoServer: \(explain(error, configuration: configuration))")
    exit(EXIT_FAILURE)
}
printNow("TodoServer stopped and closed its database")
