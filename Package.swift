// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Dirk",
    // Synchronization's `Atomic`, which Dirk's lock-free reads rely on, needs these.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Dirk", targets: ["Dirk"])
    ],
    dependencies: [],
    targets: [
        .target(name: "Dirk", dependencies: ["DirkThreadLocal"]),
        // A thread-local pointer, which Swift cannot declare; see its header.
        .target(name: "DirkThreadLocal"),
        .executableTarget(name: "DirkExample", dependencies: ["Dirk"]),
        .target(name: "DirkTestSupport", path: "Tests/DirkTestSupport"),
        .testTarget(name: "DirkTests", dependencies: ["Dirk", "DirkTestSupport"]),
        .testTarget(
            name: "DirkReliabilityTests", dependencies: ["Dirk", "DirkTestSupport"],
            exclude: ["Generated/generate-graph-module.py"]),
    ]
)
