// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "DirkServerExample",
    // The example's own stores use `Mutex` (the `Synchronization` module), which needs macOS 15;
    // Dirk and Hummingbird 2 need less.
    platforms: [.macOS(.v15)],
    dependencies: [
        // `name:` lets the product below say `package: "Dirk"` whatever the clone's folder is
        // called: a path dependency's identity is otherwise its directory's name.
        .package(name: "Dirk", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // SQLite, built from the amalgamation it bundles: nothing to install.
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        // `ServiceGroup`, which runs the server and shuts it down gracefully on SIGTERM and SIGINT.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `Logger`, for the service group; Hummingbird depends on it too.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `HTTPField.Name`, for the `X-User` header; Hummingbird depends on it too.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // `Channel`, whose address says which port the server got; Hummingbird depends on it too.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
    ],
    targets: [
        .executableTarget(
            name: "TodoServer",
            dependencies: [
                .product(name: "Dirk", package: "Dirk"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // What .ci/test-server-example checks of the built server, run as an operator would run it:
        // a child process on a free port, driven over HTTP, its memory read from /proc, its
        // database read back once it has stopped.
        .executableTarget(
            name: "ServerChecks",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ]
        ),
        .testTarget(
            name: "TodoServerTests",
            dependencies: [
                "TodoServer",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // `ClientBootstrap`, for a client that stalls in the middle of a request.
                .product(name: "NIOPosix", package: "swift-nio"),
                // A second connection to a test's database, which holds its write lock.
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ]
        ),
    ]
)
