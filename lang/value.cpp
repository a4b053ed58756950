// Freeing values without recursion, however deep they nest (Note [Deep values]).
#include "lang/value.hpp"

namespace scn {

// Note [Deep values]
// A program builds values of any depth at run time: `for i in 0..n { t = (t,) }` nests a tuple n
// levels deep, and `for i in 0..n { let h = g; g = |x| h(x) }` chains n closures, each holding
// the scope that holds the previous one. The parser's nesting limit does not see either. Two
// rules keep every such value off the C++ stack:
//   - Tuples may nest at most kMaxTupleDepth levels (a Value knows its depth; Value::ofTuple
//     finds it in O(elements)). A tuple literal that would nest deeper is E0108 where it is
//     built. Nothing else makes values deeper than what it is given: a concatenation is as
//     deep as its operands, a pytree rebuilt from its TreeDef as deep as the one flattened, and
//     the result of `scan` as deep as the (carry, y) pair its body built (builtins may wrap
//     values in a tuple or two of their own for a moment). So the walks over tuples (printing,
//     comparing, flattening into pytrees, compile-cache keys, TreeDef) may recurse: their
//     depth is bounded, and 1000 levels of them fit in a small stack (a thread's, under ASan).
//     Python's recursive walks stop at the same depth (its recursion limit).
//   - Chains through closures and scopes have no bound, so nothing recurses along them: the
//     scope collector walks with a work list (scope_release.cpp), and freeing is iterative:
//     when a Value drops the last reference to a tuple, closure or vmapped function, the payload
//     is queued and freed by a loop, so freeing it frees its children's payloads one by one
//     instead of inside each other's destructors.
namespace {
// The queue of the outermost release under way on this thread, or null.
thread_local std::vector<std::shared_ptr<void>>* pendingRelease = nullptr;

/// Moves `p` onto the queue when this is its last reference (otherwise dropping it frees
/// nothing). Without memory for the queue, `p` stays and is freed the recursive way.
template <typename T>
void queueLast(std::shared_ptr<T>& p, std::vector<std::shared_ptr<void>>& queue) noexcept {
  if (!p || p.use_count() != 1) return;
  try {
    queue.push_back(std::move(p));
  } catch (...) {  // bad_alloc: push_back left p as it was
  }
}
}  // namespace

void Value::releasePayloads() noexcept {
  if (pendingRelease) {  // a release further up this thread's stack frees them
    queueLast(elems, *pendingRelease);
    queueLast(closure, *pendingRelease);
    queueLast(vmap, *pendingRelease);
    return;
  }
  std::vector<std::shared_ptr<void>> queue;
  pendingRelease = &queue;
  queueLast(elems, queue);
  queueLast(closure, queue);
  queueLast(vmap, queue);
  while (!queue.empty()) {
    std::shared_ptr<void> last = std::move(queue.back());
    queue.pop_back();
    last.reset();  // its Values queue what they held last
  }
  pendingRelease = nullptr;
}

}  // namespace scn
