import Hummingbird
import NIOCore
import NIOPosix
import Testing

@testable import TodoServer

@Suite struct ShutdownTests {
    @Test(
        "a request stalled in its body at shutdown is cancelled at the deadline; its component goes, the database closes"
    )
    func stalledRequest() async throws {
        let app = AppComponent(configuration: .inMemory(["SHUTDOWN_DEADLINE": "0.2"]))
        let opened = WeakReferences<RequestComponent>()
        // The server's port, then 0 once the route has begun to wait for the body.
        let (events, event) = AsyncStream.makeStream(of: Int.self)
        let database = try await app.withShutdown { app in
            // A route of its own behind the same middleware as the real ones, to see the component.
            let router = buildRouter(app: app)
            router.post("stall") { request, context in
                opened.append(try context.scope)
                event.yield(0)
                _ = try await request.body.collect(upTo: 1024)
                return "finished"
            }
            let server = Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { event.yield($0.localAddress?.port ?? 0) })
            let services = makeServiceGroup(
                running: server, configuration: app.configuration, logger: server.logger)
            try await withTimeLimit(seconds: 60) {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await services.run() }
                    var iterator = events.makeAsyncIterator()
                    let port = try #require(await iterator.next())
                    let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                        .connect(host: "127.0.0.1", port: port).get()
                    let head =
                        "POST /stall HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: ada\r\nContent-Length: 10\r\n\r\n"
                    try await client.writeAndFlush(ByteBuffer(string: head + "half")).get()
                    _ = await iterator.next()
                    // Only the deadline ends the stalled request, and so the group's run.
                    await services.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                    try? await client.close()
                }
            }
            return try await app.storage.database()
        }
        #expect(opened.count == 1)
        #expect(opened.alive == 0, "the cancelled request's component outlived it")
        #expect(database.isClosed)
    }
}

/// Runs `body`, and fails the test instead of waiting for ever if it has not returned after
/// `seconds`.
func withTimeLimit(seconds: Int, _ body: @escaping @Sendable () async throws -> Void) async throws {
    struct TimeLimitExceeded: Error {}
    try await withThrowingTaskGroup(of: Bool.self) { tasks in
        tasks.addTask {
            try await body()
            return true
        }
        tasks.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return false
        }
        let finished = try await tasks.next() ?? false
        tasks.cancelAll()
        if !finished { throw TimeLimitExceeded() }
    }
}
