/// What a host finds a build-once cell by: the module whose provider's cell it is, the provider's
/// key, and, for one key of a `single(key:)` provider, that key's number.
@usableFromInline package struct CellKey: Hashable {
    @usableFromInline package let owner: ObjectIdentifier
    @usableFromInline package let provider: ProviderKey
    /// The number of a key's cell, which owns the key's step; zero for the provider's own cell, which
    /// holds its one instance (a `single`'s, a `weak`'s), or else records its strategy (a key's
    /// number is never zero).
    @usableFromInline package let keyNumber: UInt64

    /// Compares the owners and key numbers, which are plain words, first.
    @inlinable package static func == (lhs: CellKey, rhs: CellKey) -> Bool {
        lhs.owner == rhs.owner && lhs.keyNumber == rhs.keyNumber && lhs.provider == rhs.provider
    }

    @inlinable package init(owner: ObjectIdentifier, provider: ProviderKey, keyNumber: UInt64 = 0) {
        self.owner = owner
        self.provider = provider
        self.keyNumber = keyNumber
    }

    /// The key of the cell for the key numbered `number` of this cell's provider.
    func forKey(_ number: UInt64) -> Self { Self(owner: owner, provider: provider, keyNumber: number) }

    /// One word mixed from the owner, the type and the position, which tell cells apart: hashed
    /// without a `Hasher`, since keys are made by Dirk, not by an adversary, and every cached read
    /// hashes one. (Speed only: the underscored requirement is `Hashable`'s own hook for it.)
    @inlinable package func _rawHashValue(seed: Int) -> Int {
        var bits =
            UInt64(UInt(bitPattern: owner)) ^ UInt64(UInt(bitPattern: ObjectIdentifier(provider.returnType)))
            &<< 1
        bits ^= provider.position &* 0x9E37_79B9_7F4A_7C15 ^ keyNumber ^ UInt64(UInt(bitPattern: seed))
        bits = (bits ^ bits >> 29) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: bits ^ bits >> 32)
    }

    @inlinable package func hash(into hasher: inout Hasher) { hasher.combine(_rawHashValue(seed: 0)) }

    /// The key of the one cell of a host that holds no other (`StandaloneCell`), whose address is
    /// `owner`.
    package static func standalone(_ owner: ObjectIdentifier) -> CellKey {
        let site = ProviderSite(file: "", line: 0, column: 0, function: "")
        return CellKey(owner: owner, provider: ProviderKey(site: site, type: Never.self))
    }
}
