import DirkBenchmarkSuite
import Foundation

/// Builds and runs `DirkBenchmarkAllocations`, the executable that counts allocations, beside
/// this one.
///
/// The allocation counter replaces `malloc` and `free` in whichever process links it, so only
/// that second executable links it and the timed loops of this one allocate through libc alone.
/// `swift run DirkBenchmarks` builds only this executable, and making it depend on the other
/// would link the counter in, so the pass first brings the other up to date with `swift build`,
/// in the same package, build folder and configuration: a no-op that takes about half a second
/// when nothing changed.
enum AllocationPass {
    static let executableName = "DirkBenchmarkAllocations"

    /// Counts the allocations of what `options` selects, in a second process.
    static func run(_ options: Options) -> AllocationPassOutcome {
        guard let ownExecutable = Bundle.main.executableURL?.resolvingSymlinksInPath() else {
            return .unavailable("the path of this executable is unknown, so \(executableName) was not found")
        }
        let counter = ownExecutable.deletingLastPathComponent().appendingPathComponent(executableName)
        if let failure = build(beside: ownExecutable) {
            guard FileManager.default.isExecutableFile(atPath: counter.path) else {
                return .unavailable(
                    "\(executableName) could not be built (\(failure)); build it with "
                        + "`swift build -c release --package-path Benchmarks --product \(executableName)`, "
                        + "with the same --scratch-path as this run")
            }
            printError("DirkBenchmarks: \(failure); counting with the \(executableName) already built")
        }

        let process = Process()
        process.executableURL = counter
        process.arguments = options.allocationPassArguments
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            return .unavailable("\(counter.path) did not start: \(error)")
        }
        // Read before waiting, so that a full pipe cannot block the child.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            return .unavailable("\(executableName) failed (status \(process.terminationStatus))")
        }
        guard let counts = AllocationCounts(decoding: String(decoding: data, as: UTF8.self)) else {
            return .unavailable("\(executableName) printed something other than counts")
        }
        return .counted(counts)
    }

    /// Runs `swift build --product DirkBenchmarkAllocations` for the package and build folder
    /// that `executable`, this process's own, was built in; nil when it succeeded, else why not.
    ///
    /// SwiftPM puts a product at `SCRATCH/TRIPLE/CONFIGURATION/NAME`, and this file's path, fixed
    /// at compile time, is `PACKAGE/Sources/DirkBenchmarks/AllocationPass.swift`.
    private static func build(beside executable: URL) -> String? {
        #if DEBUG
        let configuration = "debug"
        #else
        let configuration = "release"
        #endif
        let configurationFolder = executable.deletingLastPathComponent()
        guard configurationFolder.lastPathComponent == configuration else {
            return "\(executable.path) is not in a SwiftPM build folder"
        }
        let scratch = configurationFolder.deletingLastPathComponent().deletingLastPathComponent()
        let package = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path)
        else {
            return "the package it was built from is gone from \(package.path)"
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swift", "build", "-c", configuration, "--package-path", package.path,
            "--scratch-path", scratch.path, "--product", executableName,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            return "`swift build` did not start: \(error)"
        }
        let log = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            printError(String(decoding: log, as: UTF8.self))
            return "`swift build --product \(executableName)` failed"
        }
        return nil
    }
}
