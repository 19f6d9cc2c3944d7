import Foundation
import Hummingbird

// The application owns its component: created here from the environment, held by the server while
// it runs, and shut down by `withShutdown`, which closes the database, once the server has stopped,
// or failed (whose error it then rethrows).
let configuration = ServerConfiguration(environment: Environment())
do {
    try await AppComponent(configuration: configuration).withShutdown { app in
        let server = buildApplication(app: app)
        printNow("TodoServer keeps its todos in \(app.configuration.database)")
        // On SIGTERM or SIGINT the server stops accepting connections and answers the requests
        // under way, for at most SHUTDOWN_DEADLINE; then those left are cancelled, and `run()`
        // returns all the same.
        let services = makeServiceGroup(
            running: server, configuration: app.configuration, logger: server.logger)
        try await services.run()
        // No request is under way any more, so none can find the database closed.
    }
} catch {
    // One line that says what to change, instead of a trap and its backtrace.
    printError("TodoServer: \(explain(error, configuration: configuration))")
    exit(EXIT_FAILURE)
}
printNow("TodoServer stopped and closed its database")
