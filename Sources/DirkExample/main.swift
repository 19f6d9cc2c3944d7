import Dirk

final class Store {}
final class AppComponent: Component, @unchecked Sendable {
    var data: DataModule { module() }
}
class DataModule: Module<AppComponent>, @unchecked Sendable {
    func store() -> Store { single { Store() } }
    func other() -> Store { single { Store() } }
    func t() -> Store {
        transient { c in
            _ = c.data.store()
            return Store()
        }
    }
    func w() -> Store { weak { Store() } }
    func s() -> Store { scoped { Store() } }
    func pair() -> (Store, Store) { transient { c in (c.data.s(), c.data.s()) } }
    func a() -> Store { single { c in c.data.b() } }
    func b() -> Store { single { c in c.data.a() } }
}
let app = AppComponent()
print(app.data.store() === app.data.store(), app.data.store() !== app.data.other())
print(app.data.t() !== app.data.t())
var w: Store? = app.data.w()
print(w === app.data.w())
let id1 = ObjectIdentifier(w!)
w = nil
print(ObjectIdentifier(app.data.w()) != id1)
let p = app.data.pair()
print(p.0 === p.1, app.data.s() !== app.data.s())
let s1 = app.data.store()
app.reset()
print(s1 !== app.data.store())
if CommandLine.arguments.count > 1 { _ = app.data.a() }
