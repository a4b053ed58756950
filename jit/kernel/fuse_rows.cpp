// Row fusion: consecutive kernels over the same rows become one kernel per row (Note [Row fusion]).
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "jit/kernel/accesses.hpp"
#include "jit/kernel/kernel_ir.hpp"

namespace scn::kir {

// Note [Row fusion]
// A softmax over the last axis lowers to five kernels (the scale, the row max, exp of the
// difference into a temporary, the row sum, the divide), and each sweeps the whole array: for
// attention's (8, 512, 512) f32 scores that is 8 MiB, past L2, read or written seven times.
// Row fusion merges a run of consecutive launches into one kernel over rows: the points of its
// member with the fewest (the 8 * 512 rows there), flattened into one dim so that threads split
// all of them. Each member's points of one row become inner loops, and the row runs the members
// in turn, so a row (2 KiB) comes from memory once and stays in L1 through the max, the exp, the
// sum and the divide. A layer norm is the same pattern.
// It is legal when no row reads what another row writes. For every buffer that a member
// writes, every access to it in the run must have the form c*r + h + e: r the linear row index,
// the same stride c and the same host-variable part h in every access, and every e (constants,
// inner loop indices, index arithmetic over them; by interval) inside one window of c elements.
// Then the buffer splits into disjoint windows, one per row, each row touches only its own, and
// running row by row keeps the order of the accesses to each address (a kernel's points never
// depend on each other). Buffers only read are unconstrained. It is done only where it pays: at
// least kMinRows rows (threads split them) and at most kMaxRowPoints points of a member per row
// (a row stays in cache). The CPU asks for it (LowerOptions::fuseRows); on a GPU a row would be
// one thread's serial loop, so CUDA keeps its kernels.
// The rows of a run are the dims of its first kernel, or a prefix of them when a later member
// only fits fewer: a GRU step's [32, 768] gate kernel and its flat [8192] elementwise kernel
// share the 32 batch rows (a flat member's i0 / 256 and i0 % 256 become the row and its loop
// index, flatQuotient), and its eight kernels a step become one. A run also goes on past a
// matrix product that shares no buffer it writes with the run (the run then starts after the
// product): a GRU step's `gx + b` kernel, launched before the step's product `h @ wh`, joins the
// gate kernel after it.

namespace {

constexpr int64_t kMinRows = 16;
constexpr int64_t kMaxRowPoints = 16384;
constexpr size_t kMaxMembers = 16;

int64_t product(const std::vector<int64_t>& dims, size_t from = 0) {
  int64_t n = 1;
  for (size_t d = from; d < dims.size(); ++d) n *= dims[d];
  return n;
}

/// A copy of an expression DAG with nodes replaced by `replace` (null: keep the node and rewrite
/// its arguments), memoised so that shared nodes stay shared.
class Rewriter {
 public:
  explicit Rewriter(std::function<ExprP(const Expr&)> replace) : replace_(std::move(replace)) {}

  ExprP operator()(const ExprP& e) {
    if (!e) return e;
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    ExprP r = replace_(*e);
    if (!r && e->kind == ExprKind::Arith) {
      r = arith(e->arith, (*this)(e->args[0]), (*this)(e->args[1]));  // folds what the rewrite exposes
    } else if (!r) {
      auto c = std::make_shared<Expr>(*e);
      for (ExprP& a : c->args) a = (*this)(a);
      r = c;
    }
    memo_[e.get()] = r;
    return r;
  }

  void stmts(std::vector<Stmt>& body, const std::function<int(int)>& localId) {
    for (Stmt& s : body) {
      if (s.kind == StmtKind::Let || s.kind == StmtKind::Loop) s.local = localId(s.local);
      s.index = (*this)(s.index);
      s.value = (*this)(s.value);
      stmts(s.body, localId);
    }
  }

 private:
  std::function<ExprP(const Expr&)> replace_;
  std::map<const Expr*, ExprP> memo_;
};

/// A member kernel rewritten over the rows, one flat row index i0: its locals, and a body whose
/// points of one row are inner loops.
struct RowPart {
  std::vector<DType> locals;
  std::vector<Stmt> body;
};

/// i0 / c or i0 % c of a flat member whose point i0 is r * rowLength + l (r the row, l in [0,
/// rowLength)), where c divides rowLength: r * (rowLength / c) + l / c and l % c, so that the
/// row stays visible to the access analysis (a flat [8192] kernel reading rows of 256 as
/// (i0 / 256) * 768 + i0 % 256 shares 32 rows with a [32, 768] one). Null for any other node.
ExprP flatQuotient(const Expr& e, int64_t rowLength, const ExprP& l) {
  if (e.kind != ExprKind::Arith || (e.arith != Arith::Div && e.arith != Arith::Rem)) return nullptr;
  if (e.args[0]->kind != ExprKind::Index || e.args[1]->kind != ExprKind::Const) return nullptr;
  int64_t c = e.args[1]->ival;
  if (c < 1 || rowLength % c != 0) return nullptr;
  bool whole = c == rowLength;  // l / c is 0 and l % c is l
  if (e.arith == Arith::Rem) return whole ? l : arith(Arith::Rem, l, idx(c));
  ExprP rowPart = arith(Arith::Mul, index(0), idx(rowLength / c));
  return whole ? rowPart : arith(Arith::Add, rowPart, arith(Arith::Div, l, idx(c)));
}

/// Kernel k as a part of a row kernel over `rows` (its dims start with `rows`, or it is flat over
/// rows times a row length); nullopt when it is not one.
std::optional<RowPart> asRowPart(const Kernel& k, const std::vector<int64_t>& rows) {
  if (k.scan || k.dims.empty() || rows.empty()) return std::nullopt;
  // An empty member has no rows to share (as a flat one its row length would be 0, and its body
  // would run once per row of the others, writing past its empty buffer).
  if (k.points() == 0 || product(rows) == 0) return std::nullopt;
  size_t p = rows.size();
  bool prefix = k.dims.size() >= p && std::equal(rows.begin(), rows.end(), k.dims.begin());
  bool flat = !prefix && k.dims.size() == 1 && k.dims[0] % product(rows) == 0;
  if (!prefix && !flat) return std::nullopt;
  std::vector<int64_t> inner(k.dims.begin() + static_cast<long>(prefix ? p : 1), k.dims.end());
  int64_t rowLength = flat ? k.dims[0] / product(rows) : 1;  // a flat member's points per row
  if (rowLength > 1) inner = {rowLength};
  if (product(inner) > kMaxRowPoints) return std::nullopt;
  RowPart part;
  part.locals = k.locals;
  std::vector<int> loopVars;
  for (size_t d = 0; d < inner.size(); ++d) {
    loopVars.push_back(static_cast<int>(part.locals.size()));
    part.locals.push_back(DType::I64);
  }
  // The row dims' indices from the flat row: i_{p-1} = r % n_{p-1}, i_{p-2} = (r / n_{p-1}) %
  // n_{p-2}, ...; their row-major linearisation folds back to r (undividedSum in kernel_ir.cpp).
  std::vector<ExprP> rowIndex(p);
  ExprP quotient = index(0);
  for (size_t d = p; d-- > 0;) {
    rowIndex[d] = d == 0 ? quotient : arith(Arith::Rem, quotient, idx(rows[d]));
    if (d > 0) quotient = arith(Arith::Div, quotient, idx(rows[d]));
  }
  ExprP flatIndex = rowLength > 1 ? arith(Arith::Add, arith(Arith::Mul, index(0), idx(rowLength)), local(loopVars[0], DType::I64)) : index(0);
  Rewriter rw([&](const Expr& e) -> ExprP {
    if (flat && rowLength > 1) {
      if (ExprP q = flatQuotient(e, rowLength, local(loopVars[0], DType::I64))) return q;
    }
    if (e.kind != ExprKind::Index) return nullptr;
    if (flat) return flatIndex;
    return e.id < static_cast<int>(p) ? rowIndex[e.id] : local(loopVars[e.id - p], DType::I64);
  });
  part.body = k.body;
  rw.stmts(part.body, [](int l) { return l; });
  for (size_t d = inner.size(); d-- > 0;) {
    Stmt loop;
    loop.kind = StmtKind::Loop;
    loop.local = loopVars[d];
    loop.extent = inner[d];
    loop.body = std::move(part.body);
    part.body = {std::move(loop)};
  }
  return part;
}

/// Whether running k row by row computes what its members did one after another (the legality
/// condition of Note [Row fusion]).
bool rowsAreIndependent(const Kernel& k) {
  Accesses all;
  all.stmts(k.body);
  std::set<int> written;
  for (const auto& [buffer, index, store] : all.list)
    if (store) written.insert(buffer);
  AccessAnalysis analysis(all.loopExtents);
  struct Window {
    int64_t stride = 0;
    std::map<int, int64_t> host;
    Interval span;
  };
  std::map<int, Window> windows;
  for (const auto& [buffer, index, store] : all.list) {
    if (!written.count(buffer)) continue;
    std::optional<RowAccess> a = analysis.access(index);
    if (!a) return false;
    int64_t c = a->rowCoef;
    if (c < 1) return false;
    std::erase_if(a->hostCoef, [](const auto& kv) { return kv.second == 0; });
    auto [it, fresh] = windows.emplace(buffer, Window{c, a->hostCoef, a->rest});
    Window& w = it->second;
    if (!fresh) {
      if (w.stride != c || w.host != a->hostCoef) return false;
      w.span = {std::min(w.span.first, a->rest.first), std::max(w.span.second, a->rest.second)};
    }
    if (w.span.second - w.span.first >= c) return false;
  }
  return true;
}

/// The kernels of `members` merged over `rows`, when that is legal and pays.
std::optional<Kernel> mergeOverRows(const std::vector<const Kernel*>& members, const std::vector<int64_t>& rows) {
  if (product(rows) < kMinRows) return std::nullopt;
  Kernel merged;
  merged.dims = {product(rows)};
  for (const Kernel* m : members) {
    std::optional<RowPart> part = asRowPart(*m, rows);
    if (!part) return std::nullopt;
    int base = static_cast<int>(merged.locals.size());
    merged.locals.insert(merged.locals.end(), part->locals.begin(), part->locals.end());
    Rewriter shift([&](const Expr& e) -> ExprP {
      return e.kind == ExprKind::Local ? local(e.id + base, e.dtype) : nullptr;
    });
    shift.stmts(part->body, [&](int l) { return l + base; });
    for (Stmt& s : part->body) merged.body.push_back(std::move(s));
  }
  if (!rowsAreIndependent(merged)) return std::nullopt;
  return merged;
}

class RowFusion {
 public:
  explicit RowFusion(Program& p) : p_(p), original_(p.kernels) {}

  void run() {
    steps(p_.steps);
    p_.kernels = std::move(kernels_);
  }

 private:
  void steps(std::vector<Step>& list) {
    std::vector<Step> out;
    for (Step& s : list) {
      if (s.kind == StepKind::Launch) {
        extend(s.kernel, out);
        continue;
      }
      if (s.kind == StepKind::Gemm && commutesWith(s.gemm)) {  // the run goes on after the product
        out.push_back(std::move(s));
        continue;
      }
      flush(out);
      steps(s.body);
      steps(s.cond);
      for (std::vector<Step>& b : s.branches) steps(b);
      out.push_back(std::move(s));
    }
    flush(out);
    list = std::move(out);
  }

  /// Adds a launch of original kernel `id` to the run, over the current rows or over its own
  /// dims when it has fewer points; else ends the run and starts a new one.
  void extend(int id, std::vector<Step>& out) {
    const Kernel& k = original_[id];
    if (!group_.empty() && group_.size() < kMaxMembers) {
      std::vector<const Kernel*> members = group_;
      members.push_back(&k);
      std::vector<std::vector<int64_t>> candidates{rows_};
      if (k.points() < product(rows_)) candidates.push_back(k.dims);
      // Fewer rows, a prefix of the run's: a [32, 768] kernel and a flat [8192] one share 32.
      for (size_t p = rows_.size(); p-- > 1;) candidates.emplace_back(rows_.begin(), rows_.begin() + static_cast<long>(p));
      for (const std::vector<int64_t>& rows : candidates) {
        if (std::optional<Kernel> m = mergeOverRows(members, rows)) {
          group_ = std::move(members);
          rows_ = rows;
          merged_ = std::move(m);
          return;
        }
      }
    }
    flush(out);
    group_ = {&k};
    rows_ = k.dims;
    merged_ = k;
  }

  /// Whether the pending run may run after product g instead of before it: it reads and writes
  /// nothing g writes, and writes nothing g reads (buffers compared whole).
  bool commutesWith(const Gemm& g) const {
    if (group_.empty()) return false;
    for (const Kernel* k : group_) {
      if (k->scan) return false;
      Accesses all;
      all.stmts(k->body);
      for (const auto& [buffer, index, store] : all.list)
        if (buffer == g.c.buffer || (store && (buffer == g.a.buffer || buffer == g.b.buffer))) return false;
    }
    return true;
  }

  void flush(std::vector<Step>& out) {
    if (group_.empty()) return;
    Step s;
    s.kind = StepKind::Launch;
    s.kernel = add(std::move(*merged_));
    out.push_back(std::move(s));
    group_.clear();
    merged_.reset();
  }

  int add(Kernel k) {
    auto [it, fresh] = ids_.emplace(printKernel(k), static_cast<int>(kernels_.size()));
    if (fresh) {
      k.name = "k" + std::to_string(it->second);
      kernels_.push_back(std::move(k));
    }
    return it->second;
  }

  Program& p_;
  const std::vector<Kernel> original_;
  std::vector<Kernel> kernels_;
  std::map<std::string, int> ids_;
  std::vector<const Kernel*> group_;
  std::vector<int64_t> rows_;
  std::optional<Kernel> merged_;
};

}  // namespace

void fuseRows(Program& p) { RowFusion(p).run(); }

}  // namespace scn::kir
