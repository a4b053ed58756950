// What a kernel body reads and writes, for the passes that reorder or regroup kernels (row
// fusion, GEMM epilogues).
#pragma once

#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "jit/kernel/kernel_ir.hpp"

namespace scn::kir {

/// Every load and store of a kernel body: (buffer, index, is a store), loads inside indices too.
struct Accesses {
  std::vector<std::tuple<int, ExprP, bool>> list;
  std::map<int, int64_t> loopExtents;
  std::set<const Expr*> seen;

  void expr(const ExprP& e) {
    if (!e || !seen.insert(e.get()).second) return;
    if (e->kind == ExprKind::Load) list.emplace_back(e->id, e->args[0], false);
    for (const ExprP& a : e->args) expr(a);
  }
  void stmts(const std::vector<Stmt>& body) {
    for (const Stmt& s : body) {
      if (s.kind == StmtKind::Store || s.kind == StmtKind::AtomicAdd) list.emplace_back(s.buffer, s.index, true);
      if (s.kind == StmtKind::Loop) loopExtents[s.local] = s.extent;
      expr(s.index);
      expr(s.value);
      stmts(s.body);
    }
  }
};

}  // namespace scn::kir
