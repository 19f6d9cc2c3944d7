import CDirk

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The object that each thread keeps for itself, made on first need and released when the thread
/// exits: a thread's resolution context.
///
/// **Why it is safe.** The thread-local pointer (`dirk_thread_context`) owns one reference to the
/// object, which only the thread's exit releases, through the thread-specific key's destructor;
/// the thread is running whoever reads the pointer, so the object outlives every such read. Only
/// one type of object is ever kept (`Object` is the same at every call site).
@usableFromInline enum ThreadContext<Object: AnyObject> {
    /// The calling thread's object, made by `make` if the thread has none yet.
    @inlinable static func current(_ make: () -> Object) -> Object { withCurrent(make) { $0 } }

    /// Runs `body` with the calling thread's object, made by `make` if the thread has none yet, lent
    /// without a reference count of its own.
    @inlinable static func withCurrent<Result>(
        _ make: () -> Object, _ body: (Object) throws -> Result
    ) rethrows -> Result {
        let object =
            dirk_get_thread_context().map { Unmanaged<Object>.fromOpaque($0) }
            ?? Unmanaged.passUnretained(keep(make()))
        return try object._withUnsafeGuaranteedRef(body)
    }

    /// Makes `object` the calling thread's, owned by its thread-local pointer until the thread exits.
    @usableFromInline static func keep(_ object: Object) -> Object {
        let owned = Unmanaged.passRetained(object).toOpaque()
        precondition(pthread_setspecific(threadExitKey, owned) == 0, "Dirk: pthread_setspecific failed")
        dirk_set_thread_context(owned)
        return object
    }
}

/// The thread-specific key whose destructor releases a thread's object when the thread exits. Made
/// once per process and never changed.
private let threadExitKey: pthread_key_t = {
    var key = pthread_key_t()
    let created = pthread_key_create(&key) { pointer in
        // Cleared first: a destructor that runs later on this thread and resolves again makes a new
        // object, which this key releases in turn.
        dirk_set_thread_context(nil)
        // The parameter is optional on some platforms and not on others; this compiles on both.
        let owned: UnsafeMutableRawPointer? = pointer
        if let owned { Unmanaged<AnyObject>.fromOpaque(owned).release() }
    }
    precondition(created == 0, "Dirk: could not create a thread-specific key (\(created))")
    return key
}()
