import Foundation

/// Writes `message` and a newline to standard error.
package func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

extension Options {
    /// The options of this process's command line; prints the usage and exits on `--help` or on
    /// a mistake.
    package static func parseCommandLine(program: String) -> Options {
        do {
            return try parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            guard let message = error.message else {
                print(usage(program: program))
                exit(0)
            }
            printError("\(program): \(message)\n\n\(usage(program: program))")
            exit(2)
        }
    }
}
