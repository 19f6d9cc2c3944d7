import Dirk
import Testing

@Suite("The names that messages' hints give properties")
struct DiagnosticsTests {
    final class AppComponent {}
    final class URLComponent {}
    final class IOModule {}
    final class HTTP2Client {}
    final class URL {}
    final class A {}
    final class Box<Value> {}
    final class Default {}
    // swift-format-ignore: TypeNamesShouldBeCapitalized
    final class lowercased {}

    @Test(
        "a property's name lowers the type's first word, a whole acronym included, and drops generic arguments",
        arguments: [
            (AppComponent.self as Any.Type, "appComponent"),
            (URLComponent.self, "urlComponent"),
            (IOModule.self, "ioModule"),
            (HTTP2Client.self, "http2Client"),
            (URL.self, "url"),
            (A.self, "a"),
            (Box<URLComponent>.self, "box"),
            (Default.self, "`default`"),
            (lowercased.self, "lowercased"),
        ])
    func propertyName(type: Any.Type, expected: String) {
        #expect(Diagnostics.propertyName(for: type) == expected)
    }
}
