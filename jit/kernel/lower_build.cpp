// Small builders shared by the per-op lowerings: kernel statements, parallel indices, the
// row-major index decomposition and constants of the op table's combiners.
#include "jit/kernel/lower_impl.hpp"
#include "jit/scalar.hpp"

namespace scn::kir {

ExprP constOf(const Array& a, DType t) {
  if (isComplex(t)) {
    if (a.dtype == DType::C64) return constComplex(t, a.data<c64>()[0].re, a.data<c64>()[0].im);
    if (a.dtype == DType::C128) return constComplex(t, a.data<c128>()[0].re, a.data<c128>()[0].im);
    return constComplex(t, a.getDouble(0), 0.0);
  }
  if (isFloat(t)) return constFloat(t, a.getDouble(0));
  if (t == DType::U64) return constInt(t, static_cast<int64_t>(a.getUInt(0)));
  return constInt(t, a.getInt(0));
}

ExprP identityExpr(Op comb, DType t) {
  if (isComplex(t)) return constComplex(t, comb == Op::Mul ? 1.0 : 0.0, 0.0);
  return dispatchDType(t, [&]<typename T>() -> ExprP {
    T v = scalar::identityOf<T>(comb);
    if constexpr (std::is_floating_point_v<T>) return constFloat(t, v);
    else return constInt(t, static_cast<int64_t>(v));
  });
}

/// e with every subexpression equal to `from` replaced by `to` (shared nodes visited once:

/// Row-major multi-index of flat index L in shape.
std::vector<ExprP> delinearise(const ExprP& L, const Shape& shape) {
  std::vector<ExprP> ix(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    ExprP q = arith(Arith::Div, L, idx(stride));
    ix[d] = d == 0 ? q : arith(Arith::Rem, q, idx(shape[d]));
    stride *= shape[d];
  }
  return ix;
}

/// Parallel indices for a kernel over `shape`: size-1 dims are the constant 0 and get no loop.
std::vector<ExprP> parallelIndex(const Shape& shape, Kernel& k) {
  std::vector<ExprP> ix;
  for (int64_t s : shape) {
    if (s == 1) {
      ix.push_back(idx(0));
    } else {
      ix.push_back(index(static_cast<int>(k.dims.size())));
      k.dims.push_back(s);
    }
  }
  return ix;
}

int newLocal(Kernel& k, DType t) {
  k.locals.push_back(t);
  return static_cast<int>(k.locals.size()) - 1;
}

Stmt let(int l, ExprP v, bool assoc) {
  Stmt s;
  s.kind = StmtKind::Let;
  s.local = l;
  s.value = std::move(v);
  s.assoc = assoc;
  return s;
}

Stmt store(const Loc& out, const ExprP& i, ExprP v) {
  Stmt s;
  s.kind = StmtKind::Store;
  s.buffer = out.buffer;
  s.index = offsetPlus(out, i);
  s.value = std::move(v);
  return s;
}

Stmt atomicAdd(const Loc& out, const ExprP& i, ExprP v) {
  Stmt s = store(out, i, std::move(v));
  s.kind = StmtKind::AtomicAdd;
  return s;
}

Stmt ifThen(ExprP cond, std::vector<Stmt> body) {
  Stmt s;
  s.kind = StmtKind::If;
  s.value = std::move(cond);
  s.body = std::move(body);
  return s;
}

Stmt loop(int l, int64_t extent, std::vector<Stmt> body) {
  Stmt s;
  s.kind = StmtKind::Loop;
  s.local = l;
  s.extent = extent;
  s.body = std::move(body);
  return s;
}

int64_t product(const Shape& s, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= s[d];
  return n;
}

}  // namespace scn::kir
