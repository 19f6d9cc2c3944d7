/// One provider call on a thread's resolution stack: which provider of which module, or which
/// module a component is creating.
///
/// A frame is a few words pushed by value, so a `transient` call allocates and looks up nothing.
/// Its owner is unretained: whoever pushes a frame keeps the owner alive until it pops it.
@usableFromInline
struct Frame {
    /// The module whose provider runs, or the component that creates a module.
    @usableFromInline let owner: Unmanaged<AnyObject>
    /// The module type that names the frame: the owner's, or the one being created.
    @usableFromInline let subject: Any.Type
    @usableFromInline let site: CallSite
    /// The provider's declared return type, or the module type being created.
    @usableFromInline let type: ObjectIdentifier
    /// Which of `bucketCount` buckets the frame's provider falls in: frames of one provider always
    /// share a bucket.
    @usableFromInline let bucket: UInt8
    /// Whether the frame creates a module rather than runs a provider; such frames are the same
    /// whichever call site asked for the module.
    @usableFromInline let isCreation: Bool

    /// How many buckets frames fall in.
    @usableFromInline static let bucketCount = 64

    /// The frame of `module`'s provider at `site`, which returns `type`.
    @inlinable
    init(provider module: AnyModule, at site: CallSite, returning type: Any.Type) {
        owner = .passUnretained(module)
        subject = Swift.type(of: module)
        self.site = site
        self.type = ObjectIdentifier(type)
        bucket = Self.bucket(
            owner: owner, type: self.type, position: UInt64(site.line) &<< 20 ^ UInt64(site.column))
        isCreation = false
    }

    /// The frame of `component` creating a module of type `module`, asked for at `site`.
    init(creating module: AnyModule.Type, in component: Component, at site: CallSite) {
        owner = .passUnretained(component)
        subject = module
        self.site = site
        type = ObjectIdentifier(module)
        bucket = Self.bucket(owner: owner, type: type, position: 0)
        isCreation = true
    }

    /// The bucket of `owner`'s provider at `position` (line and column) returning `type`. The file
    /// is left out: providers of one owner in different files may share a bucket, which costs a
    /// search of the stack and nothing else.
    @inlinable @inline(__always)
    static func bucket(owner: Unmanaged<AnyObject>, type: ObjectIdentifier, position: UInt64) -> UInt8 {
        let bits =
            (UInt64(UInt(bitPattern: type)) ^ position ^ UInt64(UInt(bitPattern: owner.toOpaque())) >> 4)
            &* 0x9E37_79B9_7F4A_7C15
        return UInt8(truncatingIfNeeded: (bits ^ bits >> 29) >> 58)
    }

    /// Whether both frames are the same provider of the same module, or create the same module in
    /// the same component.
    @inlinable
    func isSame(as other: Frame) -> Bool {
        guard owner.toOpaque() == other.owner.toOpaque(), type == other.type else { return false }
        return isCreation
            || LookupKey(site: site, type: type) == LookupKey(site: other.site, type: other.type)
    }

    /// `Module.provider()`, as messages and resolution paths show it.
    var name: String { "\(subject).\(site.function)" }

    /// The component the frame's provider belongs to.
    var componentType: Any.Type {
        let owner = owner.takeUnretainedValue()
        return (owner as? AnyModule).map { Swift.type(of: $0).componentType } ?? Swift.type(of: owner)
    }

    /// Whether the frame runs a provider of `component`, or creates one of its modules.
    func belongs(to component: Component) -> Bool {
        let owner = owner.takeUnretainedValue()
        return owner === component || (owner as? AnyModule)?.belongs(to: component) == true
    }
}
