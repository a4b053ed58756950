// Lexical scopes: looking a name up through the enclosing scopes, rebinding one (freeing scopes
// in reference cycles is scope_release.cpp).
#include "lang/eval.hpp"

namespace scn {

const Value* Env::lookup(const std::string& name, const Env** where) const {
  for (const Env* e = this; e; e = e->parent_.get()) {
    auto it = e->vars_.find(name);
    if (it != e->vars_.end()) {
      if (where) *where = e;
      return &it->second;
    }
  }
  return nullptr;
}

int Env::assign(const std::string& name, Value v) {
  for (Env* e = this; e; e = e->parent_.get()) {
    auto it = e->vars_.find(name);
    if (it != e->vars_.end()) {
      it->second = std::move(v);
      return 0;
    }
    if (e->fnBoundary_) return e->parent_ && e->parent_->lookup(name) ? 2 : 1;
  }
  return 1;
}

}  // namespace scn
