// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Dirk",
    products: [
        .library(name: "Dirk", targets: ["Dirk"])
    ],
    dependencies: [],
    targets: [
        .target(name: "Dirk"),
        .executableTarget(name: "DirkExample", dependencies: ["Dirk"]),
        .testTarget(name: "DirkTests", dependencies: ["Dirk"]),
    ]
)
