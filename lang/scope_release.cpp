// Freeing a scope that ended inside a reference cycle (Note [Scope cycles]).
#include <algorithm>
#include <atomic>
#include <unordered_map>
#include <unordered_set>
#include <variant>
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
//      vmapped functions; never the scope's ancestors, which outlive it anyway, nor scopes older
//      than it, see below), counting for each the references that come from inside this set;
//   2. an object whose use count is larger has a holder outside (a variable of an enclosing
//      scope, a returned value, the compile cache, the evaluator's own handle on the scope):
//      it and all it reaches stay;
//   3. every other scope is garbage: its bindings are dropped, which breaks the cycles.
// Only counts are read, so a holder the walk does not know counts as outside: the test errs
// towards keeping. A scope that stays because a closure bound in it escaped (returned, or
// stored in an outer variable) is still inside a cycle, and no scope ends when that closure is
// dropped; so the collector remembers it and walks it again at the end of each top-level
// program (a script, a REPL entry) and whenever the remembered scopes doubled in number.
//
// The walk stops at scopes made before the ending one (Env::serial): such a scope cannot lead
// back to it. Closures and tuples never change, so what an older object holds is older still,
// except through a scope's bindings; and while a scope S lives, `let` and `x = e` only change
// S, the scopes inside it, its ancestors (not walked) and the scopes of functions called from
// it, all of which but the ancestors are younger than S. So an older scope that is not an
// ancestor did not change in S's lifetime. Without this stop, a chain of closures, each made in
// a loop iteration and holding the previous one (`let h = g; g = |x| h(x)`), was walked whole
// at the end of every iteration: quadratic. When a remembered scope is walked again later,
// older scopes may have changed since; an edge the walk misses only makes it keep more. The
// walk keeps a work list instead of recursing: a chain of closures has no depth limit (Note
// [Deep values] in value.cpp).
namespace {

class TrialDeletion {
 public:
  explicit TrialDeletion(const std::shared_ptr<Env>& scope) : scope_(scope.get()), serial_(scope->serial()) {
    for (const Env* e = scope->parent().get(); e; e = e->parent().get()) ancestors_.insert(e);
    Node& n = node(scope);
    n.uses -= 1;  // the handle of the evaluator frame that is ending the scope
    n.expanded = true;
    n.env = scope;
    todo_.push_back(scope.get());
    while (!todo_.empty()) {
      Object o = todo_.back();
      todo_.pop_back();
      std::visit([this](auto* p) { expand(p); }, o);
    }
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
  /// An object whose references are still to be counted.
  using Object = std::variant<const Env*, const Closure*, const std::vector<Value>*, const VmapFn*>;

  /// The node of a shared object, created with its use count on first sight.
  template <typename T>
  Node& node(const std::shared_ptr<T>& p) {
    auto [it, fresh] = nodes_.try_emplace(p.get());
    if (fresh) it->second.uses = p.use_count();
    return it->second;
  }

  /// Counts one reference from `from` (a node) to the object p points to; true the first time
  /// the object is seen, when the caller decides whether to expand it.
  template <typename T>
  bool edge(const void* from, const std::shared_ptr<T>& p) {
    Node& n = node(p);
    n.internal += 1;
    nodes_.at(from).out.push_back(p.get());
    return !std::exchange(n.expanded, true);
  }

  void reachEnv(const void* from, const std::shared_ptr<Env>& e) {
    if (!e || ancestors_.count(e.get())) return;
    if (!edge(from, e)) return;
    nodes_.at(e.get()).env = e;
    if (e->serial() > serial_) todo_.push_back(e.get());  // older ones cannot lead back
  }

  void reachValue(const void* from, const Value& v) {
    switch (v.kind) {
      case ValueKind::Closure:
        if (v.closure && edge(from, v.closure)) todo_.push_back(v.closure.get());
        return;
      case ValueKind::Tuple:
        if (v.elems && edge(from, v.elems)) todo_.push_back(v.elems.get());
        return;
      case ValueKind::Vmap:
        if (v.vmap && edge(from, v.vmap)) todo_.push_back(v.vmap.get());
        return;
      case ValueKind::Array: case ValueKind::None: case ValueKind::String: case ValueKind::Builtin:
      case ValueKind::DType:
        return;  // they hold no scope
    }
  }

  void expand(const Env* e) {
    for (const auto& [name, v] : e->vars()) reachValue(e, v);
    reachEnv(e, e->parent());
  }
  void expand(const Closure* c) { reachEnv(c, c->env); }
  void expand(const std::vector<Value>* elems) {
    for (const Value& x : *elems) reachValue(elems, x);
  }
  void expand(const VmapFn* m) {
    for (const Value* x : {&m->fn, &m->inAxes, &m->outAxes}) reachValue(m, *x);
  }

  const Env* scope_;
  uint64_t serial_;
  std::unordered_set<const Env*> ancestors_;
  std::unordered_map<const void*, Node> nodes_;
  std::vector<Object> todo_;
};

}  // namespace

uint64_t Env::nextSerial() {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

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
