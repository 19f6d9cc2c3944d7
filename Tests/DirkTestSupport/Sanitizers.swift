#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this process runs under ThreadSanitizer (`swift test --sanitize=thread`), whose runtime
/// the process then carries: its entry point is found among the process's symbols.
public let isUnderThreadSanitizer: Bool = {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    guard let process = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(process) }
    return dlsym(process, "__tsan_init") != nil
    #else
    return false
    #endif
}()

/// How many rounds a stress test makes: `rounds`, or a sixth of them under ThreadSanitizer.
///
/// ThreadSanitizer slows every memory access several times over and reports a race the first time
/// it happens, so a stress test needs fewer rounds to show what it shows, and fewer rounds keep its
/// watchdog a bound on deadlocks rather than on the sanitizer's speed.
public func stressRounds(_ rounds: Int) -> Int {
    isUnderThreadSanitizer ? max(1, rounds / 6) : rounds
}
