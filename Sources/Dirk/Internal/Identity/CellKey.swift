/// What a host finds a build-once cell by: the module whose provider's cell it is, the provider's
/// key, and, for a key of a `single(key:)` provider or a resolution's `scoped` instance, the number
/// of that key or resolution.
@usableFromInline package struct CellKey: Hashable {
    @usableFromInline package let owner: ObjectIdentifier
    @usableFromInline package let provider: ProviderKey
    /// Zero, or the number of a `single(key:)` provider's key, or of the resolution whose `scoped`
    /// instance the cell holds: a thread's (top bit set) or an async one's store (the bit below).
    @usableFromInline package let serial: UInt64

    /// Whether the cell holds a resolution's `scoped` instance, which the resolution drops when it
    /// ends.
    package var isResolutions: Bool { serial >> 62 != 0 }

    /// Compares the owners and serials, which are plain words, first.
    @inlinable package static func == (lhs: CellKey, rhs: CellKey) -> Bool {
        lhs.owner == rhs.owner && lhs.serial == rhs.serial && lhs.provider == rhs.provider
    }

    @inlinable package init(owner: ObjectIdentifier, provider: ProviderKey, serial: UInt64 = 0) {
        self.owner = owner
        self.provider = provider
        self.serial = serial
    }

    /// One word mixed from the owner, the type and the position, which tell cells apart: hashed
    /// without a `Hasher`, since keys are made by Dirk, not by an adversary, and every cached read
    /// hashes one. (Speed only: the underscored requirement is `Hashable`'s own hook for it.)
    @inlinable package func _rawHashValue(seed: Int) -> Int {
        var bits =
            UInt64(UInt(bitPattern: owner)) ^ UInt64(UInt(bitPattern: ObjectIdentifier(provider.returnType)))
            &<< 1
        bits ^= provider.position &* 0x9E37_79B9_7F4A_7C15 ^ serial ^ UInt64(UInt(bitPattern: seed))
        bits = (bits ^ bits >> 29) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: bits ^ bits >> 32)
    }

    @inlinable package func hash(into hasher: inout Hasher) {
        hasher.combine(_rawHashValue(seed: 0))
    }

    /// The key of the one cell of a host that holds no other (`StandaloneCell`), whose address is
    /// `owner`.
    package static func standalone(_ owner: ObjectIdentifier) -> CellKey {
        let site = ProviderSite(file: "", line: 0, column: 0, function: "")
        return CellKey(owner: owner, provider: ProviderKey(site: site, type: Never.self))
    }
}
