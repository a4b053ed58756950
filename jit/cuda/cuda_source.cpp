// The CUDA printer: kernel IR kernels as grid-stride __global__ functions over the prelude.
#include "jit/cuda/cuda_source.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>

#include "base/diagnostics.hpp"

namespace scn::cuda {

// Note [CUDA kernels]
// A kernel over dims (d0, ..., dn-1) becomes
//   extern "C" __global__ void k3(f32* b2, const f32* __restrict__ b0, const i64* __restrict__ hv) {
//     const i64 h0 = hv[0];
//     for (i64 t = blockIdx.x * blockDim.x + threadIdx.x; t < N; t += blockDim.x * gridDim.x) {
//       const i64 i1 = t % d1; const i64 i0 = t / d1;  // row-major decomposition
//       <locals> <body>
//     }
//   }
// one thread per point of the index space, with a grid-stride loop so the grid can be capped.
// Its parameters are the buffer slots it touches (written ones as T*, read-only ones as
// const T* __restrict__: distinct slots never alias) and, when it reads host loop counters, the
// device counter table `hv`; the host passes the slot table's current pointers at each launch, so
// swapping two slots (Note [Carry buffers]) costs nothing on the device. Counters are read from
// the table (one load per thread) rather than passed by value so that one captured graph serves
// every iteration of a loop (Note [Loops on the device] in steps.cpp). Every value has an exact
// C++ type (bool, i32, ..., f64) and ops are the prelude's overloads, so the printer needs no
// type tables.

const char* cudaTypeName(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::U32: return "u32";
    case DType::U64: return "u64";
    case DType::F32: return "f32";
    case DType::F64: return "f64";
    case DType::C64: return "c64";
    case DType::C128: return "c128";
    case DType::BF16: return "bf16";
    case DType::F16: return "f16";
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
    case DType::BF16: case DType::F16: {  // the f32 constant, converted (lowp.inc)
      kir::Expr wide = e;
      wide.dtype = DType::F32;
      os << "scn_cvt<" << dtypeName(e.dtype) << ">(";
      printConst(os, wide);
      os << ")";
      return;
    }
    case DType::C64: case DType::C128: {  // scn_make_c64(re, im), each part as an f32 constant
      kir::Expr part = e;
      part.dtype = componentType(e.dtype);
      os << "scn_make_" << dtypeName(e.dtype) << "(";
      printConst(os, part);
      os << ", ";
      part.fval = e.fimag;
      printConst(os, part);
      os << ")";
      return;
    }
  }
}

void printExpr(std::ostream& os, const kir::ExprP& e);

void printArgs(std::ostream& os, const std::vector<kir::ExprP>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) os << ", ";
    printExpr(os, args[i]);
  }
}

/// An elementwise op of the op table by its category: the prelude's overload scn_<name> (the
/// op table's name; jit/scalar/scalar.inc) for Unary, Predicate, Binary and Compare, the C++
/// conditional for Select.
void printOp(std::ostream& os, const kir::Expr& e) {
  const OpInfo& info = opInfo(e.op);
  switch (info.category) {
    case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary: case OpCategory::ComplexPart:
    case OpCategory::Compare:
      SCN_ASSERT(static_cast<int>(e.args.size()) == info.numInputs, "kernel op arity");
      os << "scn_" << info.name << "(";
      printArgs(os, e.args);
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
    case OpCategory::Convert:
    SCN_CASES_WHERE_NOT(elementwise)
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
    case kir::ExprKind::Convert: {
      // A complex side: the prelude's scn_to_c64 / scn_to_c128, scn_nonzero, or the real part.
      DType from = e->args.at(0)->dtype;
      if (isComplex(e->dtype)) os << "scn_to_" << dtypeName(e->dtype) << "(";
      else if (isComplex(from) && e->dtype == DType::Bool) os << "scn_nonzero(";
      else os << "scn_cvt<" << cudaTypeName(e->dtype) << ">(";
      bool part = isComplex(from) && !isComplex(e->dtype) && e->dtype != DType::Bool;
      if (part) os << "scn_real(";
      printExpr(os, e->args.at(0));
      os << (part ? "))" : ")");
      return;
    }
    case kir::ExprKind::Arith: {
      // The C++ operator of the Arith table, or the prelude's scn_imin / scn_imax.
      const kir::ArithInfo& a = kir::arithInfo(e->arith);
      if (a.infix) {
        os << "(";
        printExpr(os, e->args.at(0));
        os << " " << a.symbol << " ";
        printExpr(os, e->args.at(1));
        os << ")";
      } else {
        os << "scn_i" << a.symbol << "(";
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
  void kernel(const kir::Kernel& k) {
    stmts(k.body);
    if (k.scan) {
      stmts(k.scan->store);
      written.insert(k.scan->status);
    }
  }
  void stmts(const std::vector<kir::Stmt>& body) {
    for (const kir::Stmt& s : body) {
      switch (s.kind) {
        case kir::StmtKind::Let: expr(s.value); break;
        case kir::StmtKind::Store:
        case kir::StmtKind::AtomicAdd:
          written.insert(s.buffer);
          expr(s.index);
          expr(s.value);
          break;
        case kir::StmtKind::Loop: stmts(s.body); break;
        case kir::StmtKind::If:
          expr(s.value);
          stmts(s.body);
          break;
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
      case kir::StmtKind::AtomicAdd:
        os << "scn_atomic_add(&b" << s.buffer << "[";
        printExpr(os, s.index);
        os << "], ";
        printExpr(os, s.value);
        os << ");\n";
        break;
      case kir::StmtKind::If:
        os << "if (";
        printExpr(os, s.value);
        os << ") {\n";
        printStmts(os, s.body, ind + 1);
        indent(os, ind);
        os << "}\n";
        break;
    }
  }
}

/// Declarations of the parallel indices i0..i<r-1> of a row-major decomposition of `flat` over
/// dims[0..r-1] (i0 the slowest).
void printDecomposition(std::ostream& os, const std::vector<int64_t>& dims, size_t r,
                        const std::string& flat, int ind) {
  std::string rest = flat;
  for (size_t d = r; d-- > 0;) {
    indent(os, ind);
    if (d == 0) {
      os << "const i64 i0 = " << rest << ";\n";
    } else {
      os << "const i64 i" << d << " = " << rest << " % " << dims[d] << "LL;\n";
      std::string q = "q" + std::to_string(d);
      indent(os, ind);
      os << "const i64 " << q << " = " << rest << " / " << dims[d] << "LL;\n";
      rest = q;
    }
  }
}

/// The body of a single-pass scan kernel (Note [Single-pass scans] in lower_scan.cpp): the element
/// and the store as lambdas of (row, position), and a call of the prelude's scn_tile_scan.
void printTileScan(std::ostream& os, const kir::Kernel& k) {
  const kir::TileScan& s = *k.scan;
  const size_t r = k.dims.size() - 1;  // the scanned axis is the last dim
  const char* T = cudaTypeName(k.locals.at(s.prefix));
  int64_t rows = 1;
  for (size_t d = 0; d < r; ++d) rows *= k.dims[d];
  os << "  auto value = [&](const i64 row, const i64 i" << r << ") -> " << T << " {\n";
  printDecomposition(os, k.dims, r, "row", 2);
  for (size_t l = 0; l < k.locals.size(); ++l)
    if (static_cast<int>(l) != s.prefix) os << "    " << cudaTypeName(k.locals[l]) << " l" << l << ";\n";
  printStmts(os, k.body, 2);
  os << "    return l" << s.value << ";\n  };\n";
  os << "  auto store = [&](const i64 row, const i64 i" << r << ", const " << T << " l" << s.prefix
     << ") {\n";
  printDecomposition(os, k.dims, r, "row", 2);
  printStmts(os, s.store, 2);
  os << "  };\n";
  os << "  auto comb = [](const " << T << " a, const " << T << " b) { return scn_" << opInfo(s.comb).name
     << "(a, b); };\n";
  os << "  scn_tile_scan<" << T << ", " << s.items << ">(value, store, comb, ";
  printExpr(os, s.identity);
  os << ", " << rows << "LL, " << k.dims.back() << "LL, b" << s.status << ");\n";
}

void printKernel(std::ostream& os, const kir::Program& p, const kir::Kernel& k, KernelSig& sig,
                 int whileActive) {
  Uses u;
  u.kernel(k);
  std::set<int> all = u.read;
  all.insert(u.written.begin(), u.written.end());
  sig.buffers.assign(all.begin(), all.end());
  sig.hostVars.assign(u.hostVars.begin(), u.hostVars.end());
  // A single-pass scan launches one block per tile (each loops while tiles are left).
  static_assert(kBlockSize == kir::kTileScanThreads, "a tile is one block");
  sig.points = k.scan ? k.scan->tiles(k.dims) * kBlockSize : k.points();
  sig.arity = static_cast<int>(sig.buffers.size()) + (sig.hostVars.empty() && !sig.guarded ? 0 : 1);

  os << "extern \"C\" __global__ void " << sig.name << "(";
  bool first = true;
  for (int b : sig.buffers) {
    os << (first ? "" : ", ");
    first = false;
    const char* t = cudaTypeName(p.buffers.at(b).dtype);
    if (u.written.count(b)) os << t << "* b" << b;
    else os << "const " << t << "* __restrict__ b" << b;
  }
  if (!sig.hostVars.empty() || sig.guarded) os << (first ? "" : ", ") << "const i64* __restrict__ hv";
  os << ") {\n";
  if (sig.guarded) os << "  if (hv[" << whileActive << "] == 0) return;\n";
  for (int h : sig.hostVars) os << "  const i64 h" << h << " = hv[" << h << "];\n";
  if (k.scan) {
    printTileScan(os, k);
    os << "}\n";
  } else {
    os << "  for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < " << sig.points
       << "LL; t += (i64)blockDim.x * gridDim.x) {\n";
    // Row-major decomposition of the flat point t into the parallel indices.
    printDecomposition(os, k.dims, k.dims.size(), "t", 2);
    for (size_t l = 0; l < k.locals.size(); ++l)
      os << "    " << cudaTypeName(k.locals[l]) << " l" << l << ";\n";
    printStmts(os, k.body, 2);
    os << "  }\n}\n";
  }

  // The host entry of the emulation: unpack cuLaunchKernel-style arguments, run the grid (a
  // single-pass scan runs its grid itself: Note [Host emulation]).
  os << "#ifdef SCN_EMULATION\nextern \"C\" void scn_emu_" << sig.name
     << "(void** a, unsigned grid, unsigned block) {\n  " << (k.scan ? "SCN_EMU_WHOLE_GRID" : "SCN_EMU_GRID")
     << "(grid, block) " << sig.name << "(";
  size_t arg = 0;
  first = true;
  for (int b : sig.buffers) {
    const char* t = cudaTypeName(p.buffers.at(b).dtype);
    os << (first ? "" : ", ") << "*(" << t << "**)a[" << arg++ << "]";
    first = false;
  }
  if (!sig.hostVars.empty() || sig.guarded) os << (first ? "" : ", ") << "*(const i64**)a[" << arg++ << "]";
  os << ");\n}\n#endif\n";
}

/// The runtime kernels of the counter table (RuntimeKernel; Note [Loops on the device]).
void printRuntimeKernels(std::ostream& os, const std::vector<KernelSig>& k) {
  const std::string& set = k[0].name;
  const std::string& step = k[1].name;
  const std::string& flag = k[2].name;
  const std::string& copy = k[3].name;
  os << "extern \"C\" __global__ void " << set << "(i64* hv, i64 h, i64 v) { hv[h] = v; }\n"
     << "extern \"C\" __global__ void " << step << "(i64* hv, i64 h) { hv[h] = hv[h] + 1; }\n"
     << "extern \"C\" __global__ void " << flag << "(i64* hv, i64 a, const bool* f) {\n"
     << "  if (hv[a] == 0) return;\n"
     << "  if (*f) hv[a + 1] = hv[a + 1] + 1; else hv[a] = 0;\n}\n"
     << "extern \"C\" __global__ void " << copy
     << "(const i64* __restrict__ hv, i64 a, unsigned char* dst, const unsigned char* src, i64 n) {\n"
     << "  if (hv[a] == 0) return;\n"
     << "  for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += (i64)blockDim.x * gridDim.x)"
        " dst[t] = src[t];\n}\n"
     << "#ifdef SCN_EMULATION\n"
     << "extern \"C\" void scn_emu_" << set << "(void** a, unsigned grid, unsigned block) {\n"
     << "  SCN_EMU_GRID(grid, block) " << set << "(*(i64**)a[0], *(i64*)a[1], *(i64*)a[2]);\n}\n"
     << "extern \"C\" void scn_emu_" << step << "(void** a, unsigned grid, unsigned block) {\n"
     << "  SCN_EMU_GRID(grid, block) " << step << "(*(i64**)a[0], *(i64*)a[1]);\n}\n"
     << "extern \"C\" void scn_emu_" << flag << "(void** a, unsigned grid, unsigned block) {\n"
     << "  SCN_EMU_GRID(grid, block) " << flag << "(*(i64**)a[0], *(i64*)a[1], *(const bool**)a[2]);\n}\n"
     << "extern \"C\" void scn_emu_" << copy << "(void** a, unsigned grid, unsigned block) {\n"
     << "  SCN_EMU_GRID(grid, block) " << copy << "(*(const i64**)a[0], *(i64*)a[1], "
        "*(unsigned char**)a[2], *(const unsigned char**)a[3], *(i64*)a[4]);\n}\n"
     << "#endif\n";
}

/// Marks the kernels launched inside a while loop (its condition or body, nested steps too).
void markInWhile(const std::vector<kir::Step>& steps, bool inWhile, std::vector<bool>& marked, bool* any) {
  for (const kir::Step& s : steps) {
    switch (s.kind) {
      case kir::StepKind::Launch:
        if (inWhile) marked.at(s.kernel) = true;
        break;
      case kir::StepKind::Loop: markInWhile(s.body, inWhile, marked, any); break;
      case kir::StepKind::While:
        *any = true;
        markInWhile(s.cond, true, marked, any);
        markInWhile(s.body, true, marked, any);
        break;
      case kir::StepKind::Switch:
        for (const std::vector<kir::Step>& b : s.branches) markInWhile(b, inWhile, marked, any);
        break;
      case kir::StepKind::Gemm: case kir::StepKind::Copy: case kir::StepKind::Swap: case kir::StepKind::Sort:
      case kir::StepKind::Linalg: case kir::StepKind::Collective: break;
    }
  }
}

}  // namespace

CudaSource printCudaKernels(const kir::Program& p, const std::string& prefix) {
  CudaSource out;
  std::ostringstream os;
  os << "// program " << p.name << ": " << p.kernels.size() << " kernels\n";
  std::vector<bool> inWhile(p.kernels.size(), false);
  bool anyWhile = false;
  markInWhile(p.steps, false, inWhile, &anyWhile);
  out.counterSlots = p.numHostVars + (anyWhile ? 2 : 0);
  out.whileActive = anyWhile ? p.numHostVars : -1;
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    KernelSig sig;
    sig.name = prefix + p.kernels[i].name;
    sig.guarded = inWhile[i];
    printKernel(os, p, p.kernels[i], sig, out.whileActive);
    out.kernels.push_back(std::move(sig));
  }
  if (out.counterSlots > 0) {
    const char* names[kRuntimeKernels] = {"scn_set_counter", "scn_step_counter", "scn_while_flag",
                                          "scn_guarded_copy"};
    const int arities[kRuntimeKernels] = {3, 2, 3, 5};
    for (int i = 0; i < kRuntimeKernels; ++i) {
      KernelSig k;
      k.name = prefix + names[i];
      k.arity = arities[i];
      out.runtimeKernels.push_back(k);
    }
    printRuntimeKernels(os, out.runtimeKernels);
  }
  out.code = os.str();
  return out;
}

std::string cudaTranslationUnit(const CudaSource& s) { return std::string(cudaPrelude()) + s.code; }

kir::LowerOptions cudaLowerOptions() {
  kir::LowerOptions o;
  o.peelFirstIteration = true;  // the step runner honours Step::start
  o.singlePassScanMin = kSinglePassScanMin;  // Note [Single-pass scans]
  o.reduceBlock = 16;                         // a serial thread: short chains (Note [Blocked reductions])
  o.reduceSerialMax = 32;
  o.atomicScatterBelow = kAtomicScatterBelow;  // Note [Scatter kernels]
  return o;
}

std::string emitKernels(const FuncPtr& f) { return kir::printKernels(kir::lowerStage(*f, cudaLowerOptions())); }

std::string emitCuda(const FuncPtr& f, bool withPrelude) {
  kir::Program p = kir::lowerStage(*f, cudaLowerOptions());
  CudaSource s = printCudaKernels(p);
  return withPrelude ? cudaTranslationUnit(s) : s.code;
}

}  // namespace scn::cuda
