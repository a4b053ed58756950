// The CUDA printer: kernel IR kernels as grid-stride __global__ functions over the prelude.
#include "jit/cuda/cuda_source.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>

#include "lang/diagnostics.hpp"

namespace scn::cuda {

// Note [CUDA kernels]
// A kernel over dims (d0, ..., dn-1) becomes
//   extern "C" __global__ void k3(f32* b2, const f32* __restrict__ b0, i64 h0) {
//     for (i64 t = blockIdx.x * blockDim.x + threadIdx.x; t < N; t += blockDim.x * gridDim.x) {
//       const i64 i1 = t % d1; const i64 i0 = t / d1;  // row-major decomposition
//       <locals> <body>
//     }
//   }
// one thread per point of the index space, with a grid-stride loop so the grid can be capped.
// Its parameters are the buffer slots it touches (written ones as T*, read-only ones as
// const T* __restrict__: distinct slots never alias) and the host loop counters it reads; the
// host passes the slot table's current pointers at each launch, so swapping two slots
// (Note [Carry buffers]) costs nothing on the device. Every value has an exact C++ type (bool,
// i32, ..., f64) and ops are the prelude's overloads, so the printer needs no type tables.

const char* cudaTypeName(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::U32: return "u32";
    case DType::U64: return "u64";
    case DType::F32: return "f32";
    case DType::F64: return "f64";
  }
  return "?";
}

unsigned blockFor(int64_t points) {
  return points >= kBlockSize ? kBlockSize : static_cast<unsigned>(points < 1 ? 1 : points);
}

unsigned gridFor(int64_t points) {
  const int64_t maxGrid = int64_t{1} << 20;
  int64_t g = (points + kBlockSize - 1) / kBlockSize;
  return static_cast<unsigned>(g < 1 ? 1 : g > maxGrid ? maxGrid : g);
}

namespace {

void printConst(std::ostream& os, const kir::Expr& e) {
  char buf[96];
  switch (e.dtype) {
    case DType::Bool: os << (e.ival ? "true" : "false"); return;
    case DType::I32:
      if (e.ival == INT32_MIN) os << "((i32)(-2147483647 - 1))";
      else os << "((i32)" << e.ival << ")";
      return;
    case DType::I64:
      if (e.ival == INT64_MIN) os << "((i64)(-9223372036854775807LL - 1))";
      else os << e.ival << "LL";
      return;
    case DType::U32: os << static_cast<uint32_t>(e.ival) << "u"; return;
    case DType::U64: os << static_cast<uint64_t>(e.ival) << "ull"; return;
    case DType::F32: {
      float f = static_cast<float>(e.fval);
      if (std::isfinite(f)) {
        std::snprintf(buf, sizeof buf, "%af", static_cast<double>(f));
      } else {
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        std::snprintf(buf, sizeof buf, "scn_f32_bits(0x%08" PRIx32 "u)", bits);
      }
      os << buf;
      return;
    }
    case DType::F64: {
      double d = e.fval;
      if (std::isfinite(d)) {
        std::snprintf(buf, sizeof buf, "%a", d);
      } else {
        uint64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        std::snprintf(buf, sizeof buf, "scn_f64_bits(0x%016" PRIx64 "ull)", bits);
      }
      os << buf;
      return;
    }
  }
}

/// The C++ operator of a Compare-category op (IEEE comparisons, as scalar::compare).
const char* compareOperator(Op op) {
  if (op == Op::Eq) return "==";
  if (op == Op::Ne) return "!=";
  if (op == Op::Lt) return "<";
  if (op == Op::Le) return "<=";
  if (op == Op::Gt) return ">";
  if (op == Op::Ge) return ">=";
  internalError(std::string("compareOperator called with ") + opName(op));
}

void printExpr(std::ostream& os, const kir::ExprP& e);

void printArgs(std::ostream& os, const std::vector<kir::ExprP>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) os << ", ";
    printExpr(os, args[i]);
  }
}

/// An elementwise op of the op table by its category: prelude overloads for Unary, Predicate and
/// Binary; C++ operators for Compare and Select.
void printOp(std::ostream& os, const kir::Expr& e) {
  const OpInfo& info = opInfo(e.op);
  switch (info.category) {
    case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary:
      SCN_ASSERT(static_cast<int>(e.args.size()) == info.numInputs, "kernel op arity");
      os << "scn_" << info.name << "(";
      printArgs(os, e.args);
      os << ")";
      return;
    case OpCategory::Compare:
      os << "(";
      printExpr(os, e.args.at(0));
      os << " " << compareOperator(e.op) << " ";
      printExpr(os, e.args.at(1));
      os << ")";
      return;
    case OpCategory::Select:
      os << "(";
      printExpr(os, e.args.at(0));
      os << " ? ";
      printExpr(os, e.args.at(1));
      os << " : ";
      printExpr(os, e.args.at(2));
      os << ")";
      return;
    case OpCategory::Convert: case OpCategory::Constant: case OpCategory::Iota:
    case OpCategory::Reduce: case OpCategory::ArgReduce: case OpCategory::Cumulative:
    case OpCategory::BroadcastInDim: case OpCategory::Reshape: case OpCategory::Transpose:
    case OpCategory::Concat: case OpCategory::Slice: case OpCategory::Reverse:
    case OpCategory::DynamicSlice: case OpCategory::DynamicUpdateSlice:
    case OpCategory::DotGeneral: case OpCategory::Scan: case OpCategory::While:
    case OpCategory::Cond:
      break;
  }
  internalError(std::string("kernel expression with non-elementwise op ") + info.name);
}

void printExpr(std::ostream& os, const kir::ExprP& e) {
  switch (e->kind) {
    case kir::ExprKind::Const: printConst(os, *e); return;
    case kir::ExprKind::Index: os << "i" << e->id; return;
    case kir::ExprKind::HostVar: os << "h" << e->id; return;
    case kir::ExprKind::Local: os << "l" << e->id; return;
    case kir::ExprKind::Load:
      os << "b" << e->id << "[";
      printExpr(os, e->args.at(0));
      os << "]";
      return;
    case kir::ExprKind::Op: printOp(os, *e); return;
    case kir::ExprKind::Convert:
      os << "scn_cvt<" << cudaTypeName(e->dtype) << ">(";
      printExpr(os, e->args.at(0));
      os << ")";
      return;
    case kir::ExprKind::Arith: {
      const char* bin = nullptr;
      switch (e->arith) {
        case kir::Arith::Add: bin = " + "; break;
        case kir::Arith::Sub: bin = " - "; break;
        case kir::Arith::Mul: bin = " * "; break;
        case kir::Arith::Div: bin = " / "; break;
        case kir::Arith::Rem: bin = " % "; break;
        case kir::Arith::Min: case kir::Arith::Max: break;
      }
      if (bin) {
        os << "(";
        printExpr(os, e->args.at(0));
        os << bin;
        printExpr(os, e->args.at(1));
        os << ")";
      } else {
        os << (e->arith == kir::Arith::Min ? "scn_imin(" : "scn_imax(");
        printArgs(os, e->args);
        os << ")";
      }
      return;
    }
  }
}

/// Which buffer slots a kernel reads and writes, and which host variables it reads.
struct Uses {
  std::set<int> read, written, hostVars;

  void expr(const kir::ExprP& e) {
    if (e->kind == kir::ExprKind::Load) read.insert(e->id);
    if (e->kind == kir::ExprKind::HostVar) hostVars.insert(e->id);
    for (const kir::ExprP& a : e->args) expr(a);
  }
  void stmts(const std::vector<kir::Stmt>& body) {
    for (const kir::Stmt& s : body) {
      switch (s.kind) {
        case kir::StmtKind::Let: expr(s.value); break;
        case kir::StmtKind::Store:
          written.insert(s.buffer);
          expr(s.index);
          expr(s.value);
          break;
        case kir::StmtKind::Loop: stmts(s.body); break;
      }
    }
  }
};

void indent(std::ostream& os, int n) {
  for (int i = 0; i < n; ++i) os << "  ";
}

void printStmts(std::ostream& os, const std::vector<kir::Stmt>& body, int ind) {
  for (const kir::Stmt& s : body) {
    indent(os, ind);
    switch (s.kind) {
      case kir::StmtKind::Let:
        os << "l" << s.local << " = ";
        printExpr(os, s.value);
        os << ";\n";
        break;
      case kir::StmtKind::Store:
        os << "b" << s.buffer << "[";
        printExpr(os, s.index);
        os << "] = ";
        printExpr(os, s.value);
        os << ";\n";
        break;
      case kir::StmtKind::Loop:
        os << "for (l" << s.local << " = 0; l" << s.local << " < " << s.extent << "LL; ++l"
           << s.local << ") {\n";
        printStmts(os, s.body, ind + 1);
        indent(os, ind);
        os << "}\n";
        break;
    }
  }
}

void printKernel(std::ostream& os, const kir::Program& p, const kir::Kernel& k, KernelSig& sig) {
  Uses u;
  u.stmts(k.body);
  std::set<int> all = u.read;
  all.insert(u.written.begin(), u.written.end());
  sig.buffers.assign(all.begin(), all.end());
  sig.hostVars.assign(u.hostVars.begin(), u.hostVars.end());
  sig.points = k.points();

  os << "extern \"C\" __global__ void " << sig.name << "(";
  bool first = true;
  for (int b : sig.buffers) {
    os << (first ? "" : ", ");
    first = false;
    const char* t = cudaTypeName(p.buffers.at(b).dtype);
    if (u.written.count(b)) os << t << "* b" << b;
    else os << "const " << t << "* __restrict__ b" << b;
  }
  for (int h : sig.hostVars) {
    os << (first ? "" : ", ") << "i64 h" << h;
    first = false;
  }
  os << ") {\n";
  os << "  for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < " << sig.points
     << "LL; t += (i64)blockDim.x * gridDim.x) {\n";
  // Row-major decomposition of the flat point t into the parallel indices.
  std::string rest = "t";
  for (size_t d = k.dims.size(); d-- > 0;) {
    if (d == 0) {
      os << "    const i64 i0 = " << rest << ";\n";
    } else {
      os << "    const i64 i" << d << " = " << rest << " % " << k.dims[d] << "LL;\n";
      std::string q = "q" + std::to_string(d);
      os << "    const i64 " << q << " = " << rest << " / " << k.dims[d] << "LL;\n";
      rest = q;
    }
  }
  for (size_t l = 0; l < k.locals.size(); ++l)
    os << "    " << cudaTypeName(k.locals[l]) << " l" << l << ";\n";
  printStmts(os, k.body, 2);
  os << "  }\n}\n";

  // The host entry of the emulation: unpack cuLaunchKernel-style arguments, run the grid.
  os << "#ifdef SCN_EMULATION\nextern \"C\" void scn_emu_" << sig.name
     << "(void** a, unsigned grid, unsigned block) {\n  SCN_EMU_GRID(grid, block) " << sig.name
     << "(";
  size_t arg = 0;
  first = true;
  for (int b : sig.buffers) {
    const char* t = cudaTypeName(p.buffers.at(b).dtype);
    os << (first ? "" : ", ") << "*(" << t << "**)a[" << arg++ << "]";
    first = false;
  }
  for (size_t h = 0; h < sig.hostVars.size(); ++h) {
    os << (first ? "" : ", ") << "*(i64*)a[" << arg++ << "]";
    first = false;
  }
  os << ");\n}\n#endif\n";
}

}  // namespace

CudaSource printCudaKernels(const kir::Program& p, const std::string& prefix) {
  CudaSource out;
  std::ostringstream os;
  os << "// program " << p.name << ": " << p.kernels.size() << " kernels\n";
  for (const kir::Kernel& k : p.kernels) {
    KernelSig sig;
    sig.name = prefix + k.name;
    printKernel(os, p, k, sig);
    out.kernels.push_back(std::move(sig));
  }
  out.code = os.str();
  return out;
}

std::string cudaTranslationUnit(const CudaSource& s) { return std::string(cudaPrelude()) + s.code; }

std::string emitCuda(const FuncPtr& f) {
  kir::Program p = kir::lower(*f);
  return cudaTranslationUnit(printCudaKernels(p));
}

}  // namespace scn::cuda
