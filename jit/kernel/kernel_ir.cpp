// Kernel IR builders (with index-arithmetic folding) and the stable text printer.
#include "jit/kernel/kernel_ir.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "base/diagnostics.hpp"

namespace scn::kir {

namespace {
std::shared_ptr<Expr> make(ExprKind k, DType t) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->dtype = t;
  return e;
}
}  // namespace

ExprP constInt(DType t, int64_t v) {
  auto e = make(ExprKind::Const, t);
  e->ival = v;
  e->fval = static_cast<double>(v);
  return e;
}

ExprP constFloat(DType t, double v) {
  auto e = make(ExprKind::Const, t);
  e->fval = v;
  return e;
}

ExprP constComplex(DType t, double re, double im) {
  auto e = make(ExprKind::Const, t);
  e->fval = re;
  e->fimag = im;
  return e;
}

ExprP idx(int64_t v) { return constInt(DType::I64, v); }

ExprP index(int dim) {
  auto e = make(ExprKind::Index, DType::I64);
  e->id = dim;
  return e;
}

ExprP hostVar(int id) {
  auto e = make(ExprKind::HostVar, DType::I64);
  e->id = id;
  return e;
}

ExprP local(int id, DType t) {
  auto e = make(ExprKind::Local, t);
  e->id = id;
  return e;
}

ExprP load(int buffer, DType t, ExprP flatIndex) {
  auto e = make(ExprKind::Load, t);
  e->id = buffer;
  e->args = {std::move(flatIndex)};
  return e;
}

ExprP opExpr(scn::Op op, DType out, std::vector<ExprP> args) {
  auto e = make(ExprKind::Op, out);
  e->op = op;
  e->args = std::move(args);
  return e;
}

ExprP convert(DType to, ExprP x) {
  if (x->dtype == to) return x;
  auto e = make(ExprKind::Convert, to);
  e->args = {std::move(x)};
  return e;
}

bool isConstIdx(const ExprP& e, int64_t v) {
  return e->kind == ExprKind::Const && e->dtype == DType::I64 && e->ival == v;
}

namespace {

bool isArith(const ExprP& e, Arith a) { return e->kind == ExprKind::Arith && e->arith == a; }

/// q when x is (q / c) * c and y is q % c: the split of an index into a quotient and a remainder,
/// linearised again (a row kernel's row dims, Note [Row fusion]); else null.
ExprP undividedSum(const ExprP& x, const ExprP& y) {
  if (!isArith(x, Arith::Mul) || !isArith(y, Arith::Rem) || !isArith(x->args[0], Arith::Div)) return nullptr;
  const ExprP& div = x->args[0];
  const ExprP& c = x->args[1];
  if (c->kind != ExprKind::Const || c->ival == 0 || !sameExpr(div->args[1], c) || !sameExpr(y->args[1], c)) return nullptr;
  return sameExpr(div->args[0], y->args[0]) ? y->args[0] : nullptr;
}

}  // namespace

ExprP arith(Arith a, ExprP x, ExprP y) {
  bool cx = x->kind == ExprKind::Const, cy = y->kind == ExprKind::Const;
  if (cx && cy) {
    return idx(evalArith(a, x->ival, y->ival));
  }
  switch (a) {
    case Arith::Add:
      if (isConstIdx(x, 0)) return y;
      if (isConstIdx(y, 0)) return x;
      if (ExprP q = undividedSum(x, y)) return q;
      if (ExprP q = undividedSum(y, x)) return q;
      break;
    case Arith::Sub:
      if (isConstIdx(y, 0)) return x;
      break;
    case Arith::Mul:
      if (isConstIdx(x, 1)) return y;
      if (isConstIdx(y, 1)) return x;
      if (isConstIdx(x, 0) || isConstIdx(y, 0)) return idx(0);
      break;
    case Arith::Div:
      if (isConstIdx(y, 1)) return x;
      if (isConstIdx(x, 0)) return idx(0);
      break;
    case Arith::Rem:
      if (isConstIdx(y, 1) || isConstIdx(x, 0)) return idx(0);
      break;
    case Arith::Min: case Arith::Max:
      break;
  }
  auto e = make(ExprKind::Arith, DType::I64);
  e->arith = a;
  e->args = {std::move(x), std::move(y)};
  return e;
}

bool sameExpr(const ExprP& a, const ExprP& b) {
  if (a == b) return true;
  if (a->kind != b->kind || a->dtype != b->dtype || a->id != b->id || a->op != b->op ||
      a->arith != b->arith || a->ival != b->ival || a->args.size() != b->args.size())
    return false;
  if (a->kind == ExprKind::Const && (isFloat(a->dtype) || isComplex(a->dtype)) &&
      (std::memcmp(&a->fval, &b->fval, sizeof(double)) != 0 || std::memcmp(&a->fimag, &b->fimag, sizeof(double)) != 0))
    return false;
  for (size_t i = 0; i < a->args.size(); ++i)
    if (!sameExpr(a->args[i], b->args[i])) return false;
  return true;
}

int64_t TileScan::tiles(const std::vector<int64_t>& dims) const {
  if (dims.empty()) return 0;
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < dims.size(); ++d) rows *= dims[d];
  return rows * ((dims.back() + tileElems() - 1) / tileElems());
}

int64_t Kernel::points() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

size_t Program::tempBytes() const {
  size_t n = 0;
  for (const BufferInfo& b : buffers)
    if (b.kind == BufferKind::Temp) n += b.bytes();
  return n;
}

int countSteps(const std::vector<Step>& steps, StepKind kind) {
  int n = 0;
  for (const Step& s : steps) {
    if (s.kind == kind) ++n;
    n += countSteps(s.body, kind) + countSteps(s.cond, kind);
    for (const auto& br : s.branches) n += countSteps(br, kind);
  }
  return n;
}

// ---- printing ----

namespace {

void printConst(std::ostream& os, const Expr& e) {
  if (isComplex(e.dtype)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "(%a, %a)", e.fval, e.fimag);
    os << buf << dtypeName(e.dtype);
  } else if (isFloat(e.dtype)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", e.fval);  // exact and stable
    os << buf << dtypeName(e.dtype);
  } else if (e.dtype == DType::Bool) {
    os << (e.ival ? "true" : "false");
  } else if (e.dtype == DType::I64) {
    os << e.ival;
  } else if (e.dtype == DType::U64) {
    os << static_cast<uint64_t>(e.ival) << "u64";
  } else {
    os << e.ival << dtypeName(e.dtype);
  }
}

void print(std::ostream& os, const ExprP& e) {
  switch (e->kind) {
    case ExprKind::Const: printConst(os, *e); return;
    case ExprKind::Index: os << "i" << e->id; return;
    case ExprKind::HostVar: os << "h" << e->id; return;
    case ExprKind::Local: os << "l" << e->id; return;
    case ExprKind::Load:
      os << "b" << e->id << "[";
      print(os, e->args[0]);
      os << "]";
      return;
    case ExprKind::Op:
      os << opName(e->op) << "(";
      for (size_t i = 0; i < e->args.size(); ++i) {
        if (i) os << ", ";
        print(os, e->args[i]);
      }
      os << ")";
      return;
    case ExprKind::Convert:
      os << dtypeName(e->dtype) << "(";
      print(os, e->args[0]);
      os << ")";
      return;
    case ExprKind::Arith:
      if (!arithInfo(e->arith).infix) {
        os << arithInfo(e->arith).symbol << "(";
        print(os, e->args[0]);
        os << ", ";
        print(os, e->args[1]);
        os << ")";
      } else {
        os << "(";
        print(os, e->args[0]);
        os << " " << arithInfo(e->arith).symbol << " ";
        print(os, e->args[1]);
        os << ")";
      }
      return;
  }
}

void indent(std::ostream& os, int n) {
  for (int i = 0; i < n; ++i) os << "  ";
}

void printStmts(std::ostream& os, const Kernel& k, const std::vector<Stmt>& body, int ind) {
  for (const Stmt& s : body) {
    indent(os, ind);
    switch (s.kind) {
      case StmtKind::Let:
        os << "l" << s.local << ": " << dtypeName(k.locals.at(s.local)) << " = ";
        print(os, s.value);
        os << (s.assoc ? "  (assoc)\n" : "\n");
        break;
      case StmtKind::Store:
        os << "b" << s.buffer << "[";
        print(os, s.index);
        os << "] = ";
        print(os, s.value);
        os << "\n";
        break;
      case StmtKind::Loop:
        os << "for l" << s.local << " in 0.." << s.extent << " {\n";
        printStmts(os, k, s.body, ind + 1);
        indent(os, ind);
        os << "}\n";
        break;
      case StmtKind::AtomicAdd:
        os << "b" << s.buffer << "[";
        print(os, s.index);
        os << "] += ";
        print(os, s.value);
        os << "  (atomic)\n";
        break;
      case StmtKind::If:
        os << "if ";
        print(os, s.value);
        os << " {\n";
        printStmts(os, k, s.body, ind + 1);
        indent(os, ind);
        os << "}\n";
        break;
    }
  }
}

/// A kernel's dims, its scan form (Note [Single-pass scans]) and its body.
void printKernelText(std::ostream& os, const Kernel& k, int ind) {
  os << "[";
  for (size_t d = 0; d < k.dims.size(); ++d) os << (d ? "," : "") << k.dims[d];
  os << "]";
  if (k.scan)
    os << " tile-scan " << opName(k.scan->comb) << " from " << printExpr(k.scan->identity) << " x"
       << k.scan->items << " status b" << k.scan->status << " value l" << k.scan->value;
  os << " {\n";
  printStmts(os, k, k.body, ind);
  if (k.scan) {
    indent(os, ind - 1);
    os << "} store l" << k.scan->prefix << " {\n";
    printStmts(os, k, k.scan->store, ind);
  }
  indent(os, ind - 1);
  os << "}\n";
}

void printLoc(std::ostream& os, const Loc& l) {
  os << "b" << l.buffer;
  if (l.offset && !isConstIdx(l.offset, 0)) {
    os << "+";
    print(os, l.offset);
  }
}

void printSteps(std::ostream& os, const Program& p, const std::vector<Step>& steps, int ind) {
  for (const Step& s : steps) {
    indent(os, ind);
    switch (s.kind) {
      case StepKind::Launch: os << "launch k" << s.kernel << "\n"; break;
      case StepKind::Gemm: {
        const Gemm& g = s.gemm;
        os << "gemm." << dtypeName(g.dtype) << (g.transA ? " T" : " N") << (g.transB ? "T" : "N")
           << " m=" << g.m << " n=" << g.n << " k=" << g.k << " batch=" << g.batch
           << " lda=" << g.lda << " ldb=" << g.ldb << " ldc=" << g.ldc << " strides=("
           << g.strideA << "," << g.strideB << "," << g.strideC << ") ";
        printLoc(os, g.c);
        os << (g.accumulate ? " += " : " = ");
        printLoc(os, g.a);
        os << " @ ";
        printLoc(os, g.b);
        if (g.epilogue >= 0) os << " then k" << g.epilogue;
        os << "\n";
        break;
      }
      case StepKind::Loop:
        os << "loop h" << s.hostVar << " in " << s.start << ".." << s.count << " {\n";
        printSteps(os, p, s.body, ind + 1);
        indent(os, ind);
        os << "}\n";
        break;
      case StepKind::While:
        os << "while {\n";
        printSteps(os, p, s.cond, ind + 1);
        indent(os, ind + 1);
        os << "test ";
        printLoc(os, s.flag);
        os << "\n";
        printSteps(os, p, s.body, ind + 1);
        indent(os, ind);
        os << "}\n";
        break;
      case StepKind::Switch:
        os << "switch ";
        printLoc(os, s.flag);
        os << " {\n";
        for (size_t i = 0; i < s.branches.size(); ++i) {
          indent(os, ind);
          os << "case " << i << ":\n";
          printSteps(os, p, s.branches[i], ind + 1);
        }
        indent(os, ind);
        os << "}\n";
        break;
      case StepKind::Copy:
        os << (s.carry ? "copy.carry " : "copy ");
        printLoc(os, s.dst);
        os << " <- ";
        printLoc(os, s.src);
        os << " x" << s.elems << "\n";
        break;
      case StepKind::Swap: os << "swap b" << s.a << " b" << s.b << "\n"; break;
      case StepKind::Sort:
        os << "sort rows=" << s.sort.rows << " n=" << s.sort.n << " ";
        printLoc(os, s.sort.perm);
        os << " <- order of ";
        printLoc(os, s.sort.keys);
        os << "\n";
        break;
      case StepKind::Linalg: {
        const LinalgCall& c = s.linalg.call;
        os << opName(c.op) << "." << dtypeName(c.dtype) << " batch=" << c.batch << " m=" << c.m << " n=" << c.n
           << " k=" << c.k << " flags=" << linalgFlags(c) << " (";
        for (size_t i = 0; i < s.linalg.out.size(); ++i) {
          if (i) os << ", ";
          printLoc(os, s.linalg.out[i]);
        }
        os << ") <- (";
        for (size_t i = 0; i < s.linalg.in.size(); ++i) {
          if (i) os << ", ";
          printLoc(os, s.linalg.in[i]);
        }
        os << ")\n";
        break;
      }
      case StepKind::Collective: {
        const CollectiveCall& c = p.collectives.at(s.collective.call);
        os << opName(c.what.op) << (c.what.resultGather ? ".results " : " ") << typeString(c.out) << " ";
        printLoc(os, s.collective.out);
        os << " <- " << typeString(c.in) << " ";
        printLoc(os, s.collective.in);
        for (size_t i = 0; i < c.what.pairs.size(); ++i) os << (i ? ", " : " pairs ") << c.what.pairs[i];
        os << "\n";
        break;
      }
    }
  }
}

}  // namespace

std::string printExpr(const ExprP& e) {
  std::ostringstream os;
  print(os, e);
  return os.str();
}

std::string printKernels(const Func& f) { return printKernels(lowerStage(f, {})); }

std::string printKernel(const Kernel& k) {
  std::ostringstream os;
  printKernelText(os, k, 1);
  return os.str();
}

std::string printKernels(const Program& p) {
  std::ostringstream os;
  os << "program " << p.name << " {\n";
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const BufferInfo& b = p.buffers[i];
    os << "  buffer b" << i << ": " << dtypeName(b.dtype) << "[" << b.elems << "] ";
    switch (b.kind) {
      case BufferKind::Param: os << "param " << b.index; break;
      case BufferKind::Const: os << "const " << b.index; break;
      case BufferKind::Temp: os << "temp"; break;
    }
    os << "\n";
  }
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const Kernel& k = p.kernels[i];
    os << "  kernel k" << i << " ";
    printKernelText(os, k, 2);
  }
  os << "  steps {\n";
  printSteps(os, p, p.steps, 2);
  os << "  }\n  results";
  for (int r : p.results) os << " b" << r;
  os << "\n}\n";
  return os.str();
}

}  // namespace scn::kir
