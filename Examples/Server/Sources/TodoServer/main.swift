import Hummingbird
import ServiceLifecycle

// The application owns its component: created here from the environment, held by the server while
// it runs, and shut down by `withShutdown`, which closes the database, once the server has stopped,
// or failed (whose error it then rethrows).
let configuration = ServerConfiguration(environment: Environment())
try await AppComponent(configuration: configuration).withShutdown { app in
    let server = buildApplication(app: app)
    // On SIGTERM or SIGINT the group shuts the server down gracefully: it stops accepting
    // connections, answers the requests under way, and then `run()` returns.
    let services = ServiceGroup(
        configuration: .init(
            services: [server], gracefulShutdownSignals: [.sigterm, .sigint],
            logger: server.logger))
    printNow("TodoServer keeps its todos in \(app.configuration.database)")
    try await services.run()
    // No request is under way any more, so none can find the database closed.
}
printNow("TodoServer stopped and closed its database")
