import CDirk
import Dispatch

/// Whether the calling code runs on the main actor, told without stopping the program, on every
/// system Dirk supports. (`MainActor.assumeIsolated` stops the program when the answer is no, and
/// the standard library's question that does not needs the newest systems.)
///
/// The main actor runs either on the main thread (where a program's top-level code and an Apple
/// app's event handling run) or as work of the main dispatch queue, which, on Linux, a thread other
/// than the main thread may drain. So the answer is yes on the main thread, and yes in work of the
/// main queue, which carries a value of its own.
enum MainActorCheck {
    /// The key under which the main queue carries `true`.
    ///
    /// `@unchecked Sendable`: the key is a token that nothing mutates after it is made, and Dispatch
    /// marks it `Sendable` only from Swift 6.1 on.
    private struct MainQueueKey: @unchecked Sendable { let key = DispatchSpecificKey<Bool>() }

    private static let mainQueue: MainQueueKey = {
        let token = MainQueueKey()
        DispatchQueue.main.setSpecific(key: token.key, value: true)
        return token
    }()

    static var isOnMainActor: Bool {
        dirk_is_main_thread() || DispatchQueue.getSpecific(key: mainQueue.key) == true
    }
}
