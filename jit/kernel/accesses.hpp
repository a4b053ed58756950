// What a kernel body reads and writes, for the passes that reorder or regroup kernels (row
// fusion, GEMM epilogues).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
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


using Interval = std::pair<int64_t, int64_t>;

/// An index expression of a row kernel split as rowCoef * i0 + sum(coef * host var) + rest, where
/// the rest (constants, loop variables, other arithmetic) has a known interval.
struct RowAccess {
  int64_t rowCoef = 0;
  std::map<int, int64_t> hostCoef;
  Interval rest{0, 0};
};

class AccessAnalysis {
 public:
  explicit AccessAnalysis(std::map<int, int64_t> loopExtents) : loopExtents_(std::move(loopExtents)) {}

  std::optional<RowAccess> access(const ExprP& index) {
    RowAccess a;
    if (!split(index, 1, a)) return std::nullopt;
    return a;
  }

 private:
  static bool addTo(int64_t& x, int64_t y) { return !__builtin_add_overflow(x, y, &x); }

  bool addRest(RowAccess& a, std::optional<Interval> r, int64_t scale) {
    if (!r) return false;
    int64_t lo = 0, hi = 0;
    if (__builtin_mul_overflow(r->first, scale, &lo) || __builtin_mul_overflow(r->second, scale, &hi)) return false;
    if (lo > hi) std::swap(lo, hi);
    return addTo(a.rest.first, lo) && addTo(a.rest.second, hi);
  }

  bool split(const ExprP& e, int64_t scale, RowAccess& a) {
    if (e->kind == ExprKind::Index) return addTo(a.rowCoef, scale);
    if (e->kind == ExprKind::HostVar) return addTo(a.hostCoef[e->id], scale);
    if (e->kind == ExprKind::Arith && (e->arith == Arith::Add || e->arith == Arith::Sub))
      return split(e->args[0], scale, a) && split(e->args[1], e->arith == Arith::Sub ? -scale : scale, a);
    if (e->kind == ExprKind::Arith && e->arith == Arith::Mul) {
      for (int c = 0; c < 2; ++c) {
        if (e->args[c]->kind != ExprKind::Const) continue;
        int64_t s = 0;
        return !__builtin_mul_overflow(scale, e->args[c]->ival, &s) && split(e->args[1 - c], s, a);
      }
    }
    return addRest(a, interval(e), scale);
  }

  /// The values e takes over the loop variables' ranges; nullopt where it depends on the row,
  /// a host variable or memory.
  std::optional<Interval> interval(const ExprP& e) {
    switch (e->kind) {
      case ExprKind::Const: return Interval{e->ival, e->ival};
      case ExprKind::Local: {
        auto it = loopExtents_.find(e->id);
        if (it == loopExtents_.end() || it->second < 1) return std::nullopt;
        return Interval{0, it->second - 1};
      }
      case ExprKind::Arith: {
        auto x = interval(e->args[0]), y = interval(e->args[1]);
        if (!x || !y) return std::nullopt;
        return arithInterval(e->arith, *x, *y);
      }
      default: return std::nullopt;
    }
  }

  static std::optional<Interval> arithInterval(Arith op, Interval x, Interval y) {
    int64_t c[4];
    switch (op) {
      case Arith::Add:
        if (__builtin_add_overflow(x.first, y.first, &c[0]) || __builtin_add_overflow(x.second, y.second, &c[1]))
          return std::nullopt;
        return Interval{c[0], c[1]};
      case Arith::Sub: return arithInterval(Arith::Add, x, {-y.second, -y.first});
      case Arith::Mul:
        if (__builtin_mul_overflow(x.first, y.first, &c[0]) || __builtin_mul_overflow(x.first, y.second, &c[1]) ||
            __builtin_mul_overflow(x.second, y.first, &c[2]) || __builtin_mul_overflow(x.second, y.second, &c[3]))
          return std::nullopt;
        return Interval{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      case Arith::Div:  // operands are never negative (Note [Kernel IR])
        if (x.first < 0 || y.first < 1) return std::nullopt;
        return Interval{x.first / y.second, x.second / y.first};
      case Arith::Rem:
        if (x.first < 0 || y.first < 1) return std::nullopt;
        return Interval{0, std::min(x.second, y.second - 1)};
      case Arith::Min: return Interval{std::min(x.first, y.first), std::min(x.second, y.second)};
      case Arith::Max: return Interval{std::max(x.first, y.first), std::max(x.second, y.second)};
    }
    return std::nullopt;
  }

  std::map<int, int64_t> loopExtents_;
};

}  // namespace scn::kir
