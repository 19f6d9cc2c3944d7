/// Whether an object is an instance of a class given as a value, which a cast cannot tell: a
/// metatype held in a variable of a base class's metatype (`let type: AppComponent.Type =
/// FakeApp.self`) names its class only at run time.
///
/// The tables of modules and parents depend on it: they store an object under a type only if the
/// object is an instance of that type, so that a lookup by that type may cast without a check.
enum ClassHierarchy {
    /// Whether `object` is an instance of `type` or of one of its subclasses.
    static func isInstance(_ object: AnyObject, of type: Any.Type) -> Bool {
        var current: AnyClass? = Swift.type(of: object)
        while let candidate = current {
            if ObjectIdentifier(candidate) == ObjectIdentifier(type) { return true }
            current = _getSuperclass(candidate)
        }
        return false
    }
}
