// Freeing a scope that ended inside a reference cycle (Note [Scope cycles]).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lang/eval.hpp"

namespace scn {

// Note [Scope cycles]
// A closure keeps the scope that made it alive (it may be called after that scope ends), and a
// closure bound in that scope (`let g = |a| a + big`, a local `fn`) is kept alive by the scope:
// a cycle that reference counting never frees, with every array the scope binds. A loop whose
// body makes such a closure grew by its arrays every iteration.
//
// So when a block, a `for` iteration or a call ends, the evaluator asks whether anything outside
// the scope can still reach it, by trial deletion (the idea of CPython's cycle collector):
//   1. walk the objects reachable from the scope's bindings (closures, their scopes, tuples,
//      vmapped functions; never the scope's ancestors, which outlive it anyway), counting for
//      each the references that come from inside this set;
//   2. an object whose use count is larger has a holder outside (a variable of an enclosing
//      scope, a returned value, the compile cache, the evaluator's own handle on the scope):
//      it and all it reaches stay;
//   3. every other scope is garbage: its bindings are dropped, which breaks the cycles.
// Only counts are read, so a holder the walk does not know counts as outside: the test errs
// towards keeping. A scope that stays because a closure bound in it escaped (returned, or
// stored in an outer variable) is still inside a cycle, and no scope ends when that closure is
// dropped; so the collector remembers it and walks it again at the end of each top-level
// program (a script, a REPL entry) and whenever the remembered scopes doubled in number.
namespace {

class TrialDeletion {
 public:
  explicit TrialDeletion(const std::shared_ptr<Env>& scope) : scope_(scope.get()) {
    for (const Env* e = scope->parent().get(); e; e = e->parent().get()) ancestors_.insert(e);
    Node& n = visitEnv(scope);
    n.uses -= 1;  // the handle of the evaluator frame that is ending the scope
  }

  /// Whether the scope is inside a cycle: something it reaches holds it.
  bool inCycle() const { return nodes_.at(scope_).internal > 0; }

  /// The scopes no holder outside the walk can reach.
  std::vector<std::shared_ptr<Env>> garbage() {
    std::vector<const void*> work;
    for (auto& [p, n] : nodes_)
      if (n.uses > n.internal) work.push_back(p);
    while (!work.empty()) {
      Node& n = nodes_.at(work.back());
      work.pop_back();
      if (n.live) continue;
      n.live = true;
      for (const void* q : n.out) work.push_back(q);
    }
    std::vector<std::shared_ptr<Env>> out;
    if (nodes_.at(scope_).live) return out;  // the common case: nothing to free
    for (auto& [p, n] : nodes_)
      if (!n.live && !n.env.expired()) out.push_back(n.env.lock());
    return out;
  }

 private:
  struct Node {
    long uses = 0;
    long internal = 0;
    bool expanded = false;
    bool live = false;
    std::vector<const void*> out;
    std::weak_ptr<Env> env;  // weak: the walk must not change any count
  };

  /// The node of a shared object, created with its use count on first sight.
  template <typename T>
  Node& node(const std::shared_ptr<T>& p) {
    auto [it, fresh] = nodes_.try_emplace(p.get());
    if (fresh) it->second.uses = p.use_count();
    return it->second;
  }

  /// One reference from `from` (a node) to the object p points to.
  template <typename T>
  Node& edge(const void* from, const std::shared_ptr<T>& p) {
    Node& n = node(p);
    n.internal += 1;
    nodes_.at(from).out.push_back(p.get());
    return n;
  }

  Node& visitEnv(const std::shared_ptr<Env>& e) {
    Node& n = node(e);
    if (n.expanded) return n;
    n.expanded = true;
    n.env = e;
    for (const auto& [name, v] : e->vars()) visitValue(e.get(), v);
    const std::shared_ptr<Env>& parent = e->parent();
    if (parent && !ancestors_.count(parent.get())) {
      edge(e.get(), parent);
      visitEnv(parent);
    }
    return nodes_.at(e.get());
  }

  void visitValue(const void* from, const Value& v) {
    switch (v.kind) {
      case ValueKind::Closure: {
        if (!v.closure) return;
        Node& c = edge(from, v.closure);
        if (c.expanded) return;
        c.expanded = true;
        const std::shared_ptr<Env>& env = v.closure->env;
        if (env && !ancestors_.count(env.get())) {
          edge(v.closure.get(), env);
          visitEnv(env);
        }
        return;
      }
      case ValueKind::Tuple: {
        if (!v.elems) return;
        Node& t = edge(from, v.elems);
        if (t.expanded) return;
        t.expanded = true;
        for (const Value& x : *v.elems) visitValue(v.elems.get(), x);
        return;
      }
      case ValueKind::Vmap: {
        if (!v.vmap) return;
        Node& m = edge(from, v.vmap);
        if (m.expanded) return;
        m.expanded = true;
        for (const Value* x : {&v.vmap->fn, &v.vmap->inAxes, &v.vmap->outAxes}) visitValue(v.vmap.get(), *x);
        return;
      }
      default: return;  // arrays, strings, builtins and dtypes hold no scope
    }
  }

  const Env* scope_;
  std::unordered_set<const Env*> ancestors_;
  std::unordered_map<const void*, Node> nodes_;
};

}  // namespace

void ScopeCollector::ended(const std::shared_ptr<Env>& scope) {
  // The common case: nothing but the ending frame holds the scope, so it is freed as usual.
  if (!scope || scope.use_count() == 1) return;
  TrialDeletion walk(scope);
  std::vector<std::shared_ptr<Env>> dead = walk.garbage();
  if (dead.empty()) {
    if (walk.inCycle()) suspects_.push_back(scope);
    if (suspects_.size() >= threshold_) collect();
    return;
  }
  // Take the bindings out first and drop them after: dropping one may free objects the other
  // dead scopes still point to, and every dead scope stays alive until all are cleared.
  std::vector<std::map<std::string, Value>> bindings;
  for (const std::shared_ptr<Env>& e : dead) bindings.push_back(e->takeVars());
  bindings.clear();
}

void ScopeCollector::collect() {
  if (collecting_ || suspects_.empty()) return;
  collecting_ = true;
  struct Done {
    bool& flag;
    ~Done() { flag = false; }
  } done{collecting_};
  std::vector<std::weak_ptr<Env>> pending = std::move(suspects_);
  suspects_.clear();
  for (const std::weak_ptr<Env>& w : pending)
    if (std::shared_ptr<Env> scope = w.lock()) ended(scope);  // the handle counts as the frame's
  threshold_ = std::max<size_t>(64, 2 * suspects_.size());
}

}  // namespace scn
