/// A list whose first two elements are kept inline, so that the common short list (the slots of a
/// component's one or two modules, an async resolution's only `scoped` cell) allocates nothing;
/// later elements go to an array, which exists only while it holds any, so that a short list's
/// release touches no array either.
package struct InlineList<Element> {
    private var first: Element?
    private var second: Element?
    private var rest: [Element]?

    package init() {}

    package var isEmpty: Bool { first == nil }

    package mutating func append(_ element: consuming Element) {
        if first == nil {
            first = element
        } else if second == nil {
            second = element
        } else if rest == nil {
            rest = [element]
        } else {
            rest!.append(element)
        }
    }

    /// Removes every element for which `shouldRemove` is true, in place: the elements kept move,
    /// none is copied. `shouldRemove` sees the later elements first, and a removed element is
    /// released here, so a caller that holds a lock keeps what it removes alive by other means.
    package mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        if rest != nil {
            rest!.removeAll(where: shouldRemove)
            if rest!.isEmpty { rest = nil }
        }
        if let element = second, shouldRemove(element) { second = nil }
        if let element = first, shouldRemove(element) { first = nil }
        closeGaps()
    }

    /// Moves later elements into empty inline places, so that the elements stay in order and the
    /// inline places fill first.
    private mutating func closeGaps() {
        // Nothing after the first place: no element to move (the common list of one).
        if second == nil, rest == nil { return }
        if first == nil { first = second.take() }
        if first == nil, rest != nil { first = removeFromRest(at: 0) }
        if second == nil, rest != nil { second = removeFromRest(at: 0) }
    }

    /// Removes the element at `index` of `rest`, which exists, and `rest` with it if it empties.
    private mutating func removeFromRest(at index: Int) -> Element {
        let removed = rest!.remove(at: index)
        if rest!.isEmpty { rest = nil }
        return removed
    }

    /// Removes the first element and returns it; nil when the list is empty.
    package mutating func removeFirst() -> Element? {
        guard let removed = first.take() else { return nil }
        closeGaps()
        return removed
    }

    /// Removes every element and returns them, moved, not copied.
    package mutating func removeAllElements() -> InlineList {
        var taken = InlineList()
        swap(&taken, &self)
        return taken
    }

    /// The first element for which `predicate` is true.
    package func first(where predicate: (Element) -> Bool) -> Element? {
        if let first, predicate(first) { return first }
        if let second, predicate(second) { return second }
        return rest?.first(where: predicate)
    }

    /// The elements, in order.
    package var elements: [Element] {
        var elements: [Element] = []
        forEachElement { elements.append($0) }
        return elements
    }

    /// Calls `body` with every element, in order.
    package func forEachElement(_ body: (Element) -> Void) {
        guard let first else { return }
        body(first)
        guard let second else { return }
        body(second)
        guard let rest else { return }
        for element in rest { body(element) }
    }
}

extension InlineList where Element: AnyObject {
    /// Removes, and so releases, every element that nothing but the list refers to.
    ///
    /// An element that something else refers to stays, even if that reference goes meanwhile: the
    /// check can keep too much, never too little.
    package mutating func removeUniquelyReferenced() {
        if first == nil { return }
        if rest != nil {
            var kept: [Element] = []
            for index in rest!.indices where !isKnownUniquelyReferenced(&rest![index]) {
                kept.append(rest![index])
            }
            rest = kept.isEmpty ? nil : kept
        }
        if second != nil, isKnownUniquelyReferenced(&second!) { second = nil }
        if first != nil, isKnownUniquelyReferenced(&first!) { first = nil }
        closeGaps()
    }
}
