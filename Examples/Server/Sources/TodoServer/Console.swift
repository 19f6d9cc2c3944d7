import Foundation

/// Writes a line to standard output at once.
///
/// `print` buffers its output when it goes to a file or a pipe, so a server's log would show the
/// line late, or never if the server is killed.
func printNow(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes a line to standard error at once.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
