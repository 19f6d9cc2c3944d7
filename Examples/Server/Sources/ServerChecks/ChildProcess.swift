import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process this run started: in a process group of its own, so that stopping it stops whatever
/// it started too, with every signal at its default and none blocked, whatever this process does
/// with its own.
///
/// Foundation's `Process` would pass the child the signals this process ignores (SIGPIPE, and
/// SIGINT and SIGTERM, which `Harness` handles) and the calling thread's signal mask; hence
/// `posix_spawn`, with attributes that say what the child gets.
final class ChildProcess: Sendable {
    /// The process's id, which is also its process group's.
    let id: pid_t
    /// Left once, by the thread that reaps the process, when it has exited.
    private let exited = DispatchGroup()
    /// The exit status, once `exited` has been left.
    private let status = Mutex<Int32?>(nil)

    /// Starts `command`, found on `PATH`, with `environment` as its whole environment.
    ///
    /// Its standard input is /dev/null; its standard output goes to the file `output`, created
    /// or emptied, and its standard error to the file `errors`, or beside its output when `nil`.
    init(_ command: [String], environment: [String: String], output: String, errors: String?) throws {
        #if canImport(Glibc)
        var attributes = posix_spawnattr_t()
        var actions = posix_spawn_file_actions_t()
        #else
        var attributes: posix_spawnattr_t?
        var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        var noSignal = sigset_t()
        sigemptyset(&noSignal)
        posix_spawnattr_setsigmask(&attributes, &noSignal)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let errors {
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }

        // C strings that live until `posix_spawnp` has copied them into the child.
        let arguments = command.map { strdup($0) } + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for string in arguments + variables { free(string) } }
        var id = pid_t()
        let result = posix_spawnp(&id, command[0], &actions, &attributes, arguments, variables)
        guard result == 0 else {
            throw CheckFailure("cannot start \(command[0]): \(String(cString: strerror(result)))")
        }
        self.id = id
        exited.enter()
        Thread.detachNewThread { [self] in reap() }
    }

    /// Waits for the process to exit, records its status, and leaves `exited`.
    private func reap() {
        var raw: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(id, &raw, 0) } while result == -1 && errno == EINTR
        // As a shell reports it: the code the process exited with, or 128 + the signal that ended it.
        let signal = raw & 0x7f
        status.withLock { $0 = result != id ? -1 : signal == 0 ? (raw >> 8) & 0xff : 128 + signal }
        exited.leave()
    }

    /// Whether the process has exited.
    var hasExited: Bool { exited.wait(timeout: .now()) == .success }

    /// The exit status once the process has exited, waiting for at most `seconds`; `nil` if it is
    /// still running then.
    func exitStatus(within seconds: Double) -> Int32? {
        exited.wait(timeout: .now() + seconds) == .success ? status.withLock { $0 } : nil
    }

    /// Sends `signal` to the process alone.
    func send(_ signal: Int32) {
        kill(id, signal)
    }

    /// Stops the process and its group: SIGTERM, for a graceful shutdown; SIGKILL to whatever is
    /// left after 10 s. Returns at once if the process has exited.
    func stop() {
        guard !hasExited else { return }
        kill(-id, SIGTERM)
        _ = exitStatus(within: 10)
        kill(-id, SIGKILL)
        _ = exitStatus(within: 10)
    }
}
