/// A list whose first two elements are kept inline, so that the common short list (a component's
/// one or two modules, a resolution's only `scoped` instance) allocates nothing; later elements go
/// to an array.
package struct InlineList<Element> {
    private var first: Element?
    private var second: Element?
    private var rest: [Element] = []

    package init() {}

    package var isEmpty: Bool { first == nil }

    package mutating func append(_ element: Element) {
        if first == nil {
            first = element
        } else if second == nil {
            second = element
        } else {
            rest.append(element)
        }
    }

    /// Removes every element for which `shouldRemove` is true.
    package mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        var kept = InlineList()
        var removedAny = false
        forEachElement { element in
            if shouldRemove(element) { removedAny = true } else { kept.append(element) }
        }
        if removedAny { self = kept }
    }

    /// Calls `modify` with the first element for which `predicate` is true, if any; returns
    /// whether there was one.
    package mutating func modifyFirst(where predicate: (Element) -> Bool, _ modify: (inout Element) -> Void)
        -> Bool
    {
        if first != nil, predicate(first!) {
            modify(&first!)
            return true
        }
        if second != nil, predicate(second!) {
            modify(&second!)
            return true
        }
        guard let index = rest.firstIndex(where: predicate) else { return false }
        modify(&rest[index])
        return true
    }

    /// The first element for which `predicate` is true.
    package func first(where predicate: (Element) -> Bool) -> Element? {
        if let first, predicate(first) { return first }
        if let second, predicate(second) { return second }
        return rest.isEmpty ? nil : rest.first(where: predicate)
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
        for element in rest { body(element) }
    }
}
