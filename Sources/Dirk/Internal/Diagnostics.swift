/// Every message with which Dirk stops a program that misuses it.
///
/// Each message starts with `Dirk:`, names the component, module and provider involved, and ends
/// with how to fix the problem. The trap points at the user's provider or accessor where Dirk
/// knows it. `Docs/Errors.md` lists every message.
enum Diagnostics {
    static func cycle(path: [String], at frame: Frame) -> Never {
        fail(
            """
            Dirk: dependency cycle: \(path.joined(separator: " -> ")). \
            `\(frame.name)` of `\(frame.componentType)` requires itself while it is being built. \
            Break the cycle: build both objects without each other and let them set each other in \
            `configure:` closures (`single({ A() }, configure: { a, c in a.b = c.data.b() })`), \
            or construct one side from a value that does not need the other.
            """,
            site: frame.site)
    }

    static func recursion(path: [String], at frame: Frame) -> Never {
        fail(
            """
            Dirk: dependency cycle: \(path.joined(separator: " -> ")). \
            `\(frame.name)` of `\(frame.componentType)` calls itself while it is being built. \
            Dirk reports any recursion through one provider, even with other arguments, because \
            it cannot tell an endless one from one that ends. Build a recursive structure in a \
            plain function that the provider calls, or break a cycle between objects with \
            `configure:` closures.
            """,
            site: frame.site)
    }

    static func cycleAcrossThreads(path: [String], at frame: Frame) -> Never {
        fail(
            """
            Dirk: dependency cycle across threads: \(path.joined(separator: " -> ")). \
            In `\(frame.componentType)` and its parents, two or more threads each build an \
            instance that needs an instance the other is \
            building, so none can finish. Break the cycle: let one side set the other in a \
            `configure:` closure, or construct one side from a value that does not need the other.
            """,
            site: frame.site)
    }

    static func duplicateContribution(
        key: String, element: Any.Type, component: Any.Type, owner: Any.Type, file: StaticString, line: UInt
    ) -> Never {
        fail(
            """
            Dirk: `\(component)` contributed `\(element)` under the key "\(key)", which `\(owner)` \
            already uses in that collection. A component's contributions add to its parents' and \
            never replace them, and keys are unique within a collection: choose another key, or \
            contribute the element once, from the component that owns it.
            """, file: file, line: line)
    }

    static func lazyCycle(valueType: Any.Type) -> Never {
        fail(
            """
            Dirk: a `Lazy<\(valueType)>` was read while it was resolving its own value, so it can \
            never finish. Read it after the provider that builds the value has returned, for \
            example in a method called later, not in the value's own factory or configure closure.
            """)
    }

    static func componentReleased(provider: String, component: Any.Type, site: CallSite) -> Never {
        fail(
            """
            Dirk: `\(provider)` was called after its component `\(component)` was released. \
            A module does not keep its component alive: keep a reference to the component \
            (for example in the object that owns its scope) for as long as you use its modules. \
            A chain on a temporary, such as `\(component)().someModule.someProvider()`, releases \
            the component before the provider runs: store the component in a constant first.
            """,
            site: site)
    }

    static func missingParent(
        _ parent: Any.Type, component: Any.Type, registered: [Any.Type], file: StaticString, line: UInt
    ) -> Never {
        let known =
            registered.isEmpty
            ? "It has no parents."
            : "Its parents are " + registered.map { "`\($0)`" }.joined(separator: ", ") + "."
        fail(
            """
            Dirk: `\(component)` has no parent of type `\(parent)`, nor does any of its ancestors. \
            \(known) Register one when you build the component: \
            `\(component)().parent { \(lowerFirst("\(parent)")) }`.
            """,
            file: file, line: line)
    }

    static func parentCycle(_ parent: Any.Type, component: Any.Type, file: StaticString, line: UInt) -> Never
    {
        fail(
            """
            Dirk: `\(parent)` cannot become a parent of `\(component)`: it is `\(component)` \
            itself or one of its descendants, so the two would hold each other forever. \
            Register parents from the wider scope down: the application component is the parent \
            of the session component, never the reverse.
            """, file: file, line: line)
    }

    static func duplicateParent(_ parent: Any.Type, component: Any.Type, file: StaticString, line: UInt)
        -> Never
    {
        fail(
            """
            Dirk: `\(component)` already has a parent registered as `\(parent)`. A component has \
            at most one parent per type, so that `parent()` is never ambiguous. Register it once, \
            or build a new component to use another.
            """, file: file, line: line)
    }

    static func lateParent(_ parent: Any.Type, component: Any.Type, file: StaticString, line: UInt) -> Never {
        fail(
            """
            Dirk: `\(component)` gained the parent `\(parent)` after it had already looked up a \
            parent, so earlier lookups could have found a different one. Register every \
            `.parent { }` when you build the component, before the first resolution.
            """, file: file, line: line)
    }

    static func lateModule(_ module: Any.Type, component: Any.Type, file: StaticString, line: UInt) -> Never {
        fail(
            """
            Dirk: `\(component)` registered a module for `\(module)` after that module was \
            already in use, so some instances would come from the old module and some from the \
            new one. Register modules with `.module { }` when you build the component, before \
            the first resolution.
            """, file: file, line: line)
    }

    static func wrongComponent(
        module: Any.Type, expected: Any.Type, actual: Any.Type, site: CallSite
    ) -> Never {
        fail(
            """
            Dirk: `\(actual)` asked for the module `\(module)`, which is a `Module<\(expected)>`. \
            A module can only be created for its own component: declare the accessor on \
            `\(expected)` (or a subclass of it), and reach that component from `\(actual)`, \
            for example through a parent accessor such as \
            `var \(lowerFirst("\(expected)")): \(expected) { parent() }`.
            """,
            site: site)
    }

    static func foreignModule(_ module: Any.Type, component: Any.Type, file: StaticString, line: UInt)
        -> Never
    {
        fail(
            """
            Dirk: `\(component)` was given a `\(module)` that was created for another component. \
            Create the module from the component the closure receives: \
            `.module { \(module)($0) }`.
            """, file: file, line: line)
    }

    static func resetDuringResolution(
        component: Any.Type, provider: String, file: StaticString, line: UInt
    ) -> Never {
        fail(
            """
            Dirk: `\(component).reset()` was called while `\(provider)` of that component was \
            being resolved on the same thread. Resetting would drop instances the resolution is \
            still using. Call `reset()` outside providers and `configure:` closures, for example \
            after the sign-out flow has finished.
            """, file: file, line: line)
    }

    private static func lowerFirst(_ name: String) -> String {
        name.prefix(1).lowercased() + name.dropFirst()
    }

    private static func fail(_ message: String, site: CallSite) -> Never {
        fatalError(message, file: site.file, line: site.line)
    }

    private static func fail(
        _ message: String, file: StaticString = #fileID, line: UInt = #line
    ) -> Never {
        fatalError(message, file: file, line: line)
    }
}
