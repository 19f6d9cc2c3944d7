/// The object that every `cachedread` cell holds and hands out.
///
/// The cells are in this module of their own, which knows nothing of Dirk, and their `read()`
/// is never inlined: every read is then a call the caller cannot see into, so the optimizer
/// cannot hoist the read of the `let` in `LetCell` out of a loop, and all three reads are called
/// alike.
public final class CachedObject: Sendable {
    public init() {}
}
