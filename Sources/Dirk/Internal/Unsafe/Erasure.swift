/// How a provider's values travel through the pipeline that every provider shares, which is
/// compiled once for all types: as objects. A class instance is itself; any other value (a
/// struct, an enum, an existential) lives in a `Holder`.
///
/// **Why it is safe.** A cell's key includes the provider's declared return type, and only that
/// provider's calls read or write the cell, so an object read from a cell was made by
/// `object(of:)` from a value of that same type: `value(of:as:)` turns it back with the cast that
/// undoes what `object(of:)` did. In debug builds, `unsafeDowncast` checks the cast.
@usableFromInline enum Erasure {
    /// `value` as an object: itself when it is a class instance, else in a `Holder`.
    @inlinable @inline(__always) static func object<T>(of value: T) -> AnyObject {
        // A class instance is one strong reference, as an `AnyObject` is. Not `value as AnyObject`:
        // for an unconstrained `T` that compiles to the run time's bridging conversion, which
        // specialization keeps, and which costs a dynamic cast on every call.
        if T.self is AnyClass { return unsafeBitCast(value, to: AnyObject.self) }
        return Holder(value)
    }

    /// The value that `object(of:)` made `object` from.
    @inlinable @inline(__always) static func value<T>(of object: AnyObject, as type: T.Type) -> T {
        if T.self is AnyClass { return unsafeBitCast(object, to: T.self) }
        return unsafeDowncast(object, to: Holder<T>.self).value
    }

    /// The instance of a `weak` provider that `object` is: the pipeline holds the instance itself,
    /// which a class-bound existential holds too.
    @inlinable @inline(__always)
    static func instance<T: AnyObject>(of object: AnyObject, as type: T.Type) -> T {
        // A class, or `AnyObject`, is the reference alone. A class-bound existential, such as
        // `any Greeter`, is the reference and its witness tables, which the cast must find.
        if MemoryLayout<T>.size == MemoryLayout<AnyObject>.size { return unsafeDowncast(object, to: T.self) }
        return object as! T
    }

    /// `module` as `M`, which it is: the component's directory holds under a module type only an
    /// instance of it, which registration and creation check.
    @inlinable @inline(__always) static func module<M: AnyObject>(_ module: AnyObject, as type: M.Type) -> M {
        unsafeDowncast(module, to: M.self)
    }

    /// `component` as the module's component type, which it is: a module of `C` is made only for
    /// a `C` (`Module.init(_:)` takes one), and the pipeline hands factories only that component.
    @inlinable @inline(__always)
    static func component<C: AnyObject>(_ component: AnyObject, as type: C.Type) -> C {
        unsafeDowncast(component, to: C.self)
    }
}

/// Owns one cached value that is not a class instance, so that caches hold every value as an
/// object.
@usableFromInline final class Holder<Value> {
    @usableFromInline let value: Value

    @inlinable init(_ value: Value) { self.value = value }
}

/// A value that is not `Sendable`, carried out of its caller's isolation into a call that the caller
/// awaits, or back, where no two sides can use it at once or it is shared already:
/// - a value of an async provider's caller, handed to the one nonisolated call that builds the
///   provider's instance, or that call's result, handed back: the caller awaits that call, and uses
///   the value neither while the call runs nor after. (Swift 6.0 cannot tell so: it refuses a value
///   that is not `Sendable` returned by a nonisolated async call into an isolated one, such as an
///   async `transient`'s instance.)
/// - a module, carried there or into the closure of `AnyModule.fresh(isolation:_:)`, which may send
///   it to a nonisolated provider: every caller of its component shares a module already, and a
///   module keeps no mutable state of its own, only its component's storage, which the storage's
///   lock guards, and `let`s of `Sendable` values.
/// - a key of a `single(key:)` provider, carried to the factory of an override: every agent that
///   asks for the key shares it already, since its component's table keeps it and every thread that
///   asks hashes and compares it.
@usableFromInline struct Handed<Value>: @unchecked Sendable {
    @usableFromInline let value: Value

    @inlinable init(_ value: Value) { self.value = value }
}
