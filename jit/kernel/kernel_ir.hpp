// The loop-level kernel IR both backends print: buffers, perfectly parallel kernels with scalar
// bodies, and the sequential program (loops, while, cond, GEMM calls, swaps) around them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jit/array.hpp"
#include "jit/collectives.hpp"
#include "jit/ir.hpp"
#include "jit/linalg.hpp"

namespace scn::kir {

// Note [Kernel IR]
// A Program is what one compiled Func becomes. Its *buffers* are slots in a table of pointers
// (params, constants, temporaries); every buffer has a static dtype and element count. A *kernel*
// is a perfectly parallel loop nest over `dims`: for every index (i0, i1, ...) it runs `body`, a
// list of scalar statements (lets into typed locals, stores, sequential inner loops for
// reductions and cumulative ops, `if` blocks around a scatter's in-range updates). All memory accesses are a buffer and a flat i64 element index;
// index expressions are built from the parallel indices (Index), inner loop locals, the
// sequential program's loop counters (HostVar) and integer arithmetic (Arith). Kernels never
// depend on each other's iteration order, so a CPU backend may split dims[0] across threads and a
// CUDA backend may print each kernel as a __global__ function with one thread per index; an
// AtomicAdd statement (a parallel scatter-add, asked for by LowerOptions) commutes with every
// other point's. The one exception is a single-pass scan (Kernel::scan, asked for by LowerOptions and printed only
// by the CUDA backend): its points are combined along the last dim (Note [Single-pass scans]).
// The *steps* are the sequential host program: launches, GEMM calls, counted loops (scan, fori),
// while loops whose condition is a bool in a buffer, switches (cond), copies and swaps of two
// buffer slots (ping-pong carries: swapping exchanges the pointers, no data moves).

// The index arithmetic, one row per op: X(Enum, symbol, infix, value of x op y). `symbol` is
// the C++ operator of an infix op (kernel text and CUDA print `(x + y)`), else a name: the
// kernel text prints `min(x, y)`, CUDA the prelude's scn_imin(x, y). `value` is the semantics on
// i64 that constant folding and the host step runners evaluate (evalArith); the LLVM emitter
// maps each row to an instruction (jit/cpu/llvm_emit.cpp). Operands of Div/Rem are never
// negative, and a division by 0 (never generated) gives 0 when folded.
#define SCN_ARITH_OPS(X)                          \
  X(Add, "+", true, x + y)                        \
  X(Sub, "-", true, x - y)                        \
  X(Mul, "*", true, x * y)                        \
  X(Div, "/", true, y == 0 ? 0 : x / y)           \
  X(Rem, "%", true, y == 0 ? 0 : x % y)           \
  X(Min, "min", false, x < y ? x : y)             \
  X(Max, "max", false, x > y ? x : y)

/// Integer index arithmetic on i64 (SCN_ARITH_OPS).
enum class Arith : uint8_t {
#define SCN_ARITH_ENUM(Enum, ...) Enum,
  SCN_ARITH_OPS(SCN_ARITH_ENUM)
#undef SCN_ARITH_ENUM
};

/// How an Arith op is printed (SCN_ARITH_OPS).
struct ArithInfo {
  const char* symbol;
  bool infix;
};

constexpr ArithInfo arithInfo(Arith a) {
  switch (a) {
#define SCN_ARITH_INFO(Enum, symbol, infix, value) case Arith::Enum: return {symbol, infix};
    SCN_ARITH_OPS(SCN_ARITH_INFO)
#undef SCN_ARITH_INFO
  }
  return {"?", false};
}

/// x a y on i64, as SCN_ARITH_OPS defines it.
constexpr int64_t evalArith(Arith a, int64_t x, int64_t y) {
  switch (a) {
#define SCN_ARITH_EVAL(Enum, symbol, infix, value) case Arith::Enum: return value;
    SCN_ARITH_OPS(SCN_ARITH_EVAL)
#undef SCN_ARITH_EVAL
  }
  return 0;
}
static_assert(evalArith(Arith::Rem, 7, 3) == 1 && evalArith(Arith::Div, 7, 0) == 0 &&
              evalArith(Arith::Max, -1, 2) == 2);

enum class ExprKind : uint8_t {
  Const,    // ival (integers, bool), fval (floats) or fval + fimag i (complex) of `dtype`
  Index,    // the parallel loop index `id` (i64)
  HostVar,  // the sequential program's loop counter `id` (i64)
  Local,    // the kernel-local scalar `id`
  Load,     // buffer `id` at flat element index args[0]
  Op,       // an elementwise op of the op table (Unary/Predicate/Binary/Compare/Select) on args
  Convert,  // args[0] converted to `dtype`
  Arith,    // i64 index arithmetic `arith` on args[0], args[1]
};

struct Expr;
using ExprP = std::shared_ptr<const Expr>;

/// One scalar expression node; shared and immutable.
struct Expr {
  ExprKind kind = ExprKind::Const;
  DType dtype = DType::I64;  // the result's dtype
  scn::Op op = scn::Op::Add; // ExprKind::Op
  kir::Arith arith = kir::Arith::Add;
  int id = 0;                // Index, HostVar, Local, Load (buffer)
  int64_t ival = 0;          // Const (integers and bool; u64 stored as its bits)
  double fval = 0;           // Const (floats; the real part of a complex constant)
  double fimag = 0;          // Const (the imaginary part of a complex constant)
  std::vector<ExprP> args;
};

/// Expression builders; Arith folds constants and the identities x+0, x*1, x*0.
ExprP constInt(DType t, int64_t v);
ExprP constFloat(DType t, double v);
/// A c64 / c128 constant re + im i (Note [Complex numbers] in jit/scalar/complex.inc).
ExprP constComplex(DType t, double re, double im);
ExprP idx(int64_t v);  // an i64 constant
ExprP index(int dim);
ExprP hostVar(int id);
ExprP local(int id, DType t);
ExprP load(int buffer, DType t, ExprP flatIndex);
ExprP opExpr(scn::Op op, DType out, std::vector<ExprP> args);
ExprP convert(DType to, ExprP x);
ExprP arith(Arith a, ExprP x, ExprP y);
/// Whether e is the constant `v` (an i64 index constant).
bool isConstIdx(const ExprP& e, int64_t v);
/// Structural equality of two expressions.
bool sameExpr(const ExprP& a, const ExprP& b);

enum class StmtKind : uint8_t {
  Let,    // local = value (locals are mutable: accumulators are reassigned)
  Store,  // buffer[index] = value
  Loop,   // for local in 0..extent { body } (sequential, inside one parallel index)
  If,     // if value { body } (value is bool; what body assigns is not visible after it)
  AtomicAdd,  // buffer[index] += value, atomic among the kernel's parallel points
};

/// One statement of a kernel body.
struct Stmt {
  StmtKind kind = StmtKind::Let;
  int local = 0;    // Let target, Loop variable (an i64 local)
  int buffer = 0;   // Store, AtomicAdd
  ExprP index;      // Store, AtomicAdd
  ExprP value;      // Let, Store, AtomicAdd; If: the condition
  bool assoc = false;  // Let: a reduction's accumulation, which may be reassociated (vectorised)
  int64_t extent = 0;      // Loop
  std::vector<Stmt> body;  // Loop, If
};

/// Threads of a tile of a single-pass scan (Note [Single-pass scans] in lower_scan.cpp).
inline constexpr int64_t kTileScanThreads = 256;
/// u64 words of a single-pass scan's status buffer: the tile counter, then 3 per tile.
inline constexpr int64_t tileScanStatusWords(int64_t tiles) { return 1 + 3 * tiles; }

/// What makes a kernel a single-pass scan (Note [Single-pass scans] in lower_scan.cpp): its last
/// dim is the scanned axis, the others are independent rows. `body` leaves the element at
/// (i0, ..., in-1) in local `value`; the elements of each row are combined in order with `comb`
/// into inclusive prefixes, and `store` runs at every point with the prefix in local `prefix`.
/// Only a backend that asks for it (LowerOptions::singlePassScanMin) gets such kernels.
struct TileScan {
  scn::Op comb = scn::Op::Add;  // Add, Mul, Max or Min
  ExprP identity;               // comb's identity (a constant)
  int64_t items = 1;            // elements per thread: a tile is kTileScanThreads * items elements
  int status = -1;              // u64 buffer of tileScanStatusWords(tiles), zeroed before the launch
  int value = 0, prefix = 0;    // locals
  std::vector<Stmt> store;
  int64_t tileElems() const { return kTileScanThreads * items; }
  /// Tiles of a kernel over dims: rows * ceil(n / tileElems()).
  int64_t tiles(const std::vector<int64_t>& dims) const;
};

/// A perfectly parallel loop nest with a scalar body, or a single-pass scan (`scan` set).
struct Kernel {
  std::string name;
  std::vector<int64_t> dims;  // the parallel index space (empty: runs once)
  std::vector<DType> locals;  // dtype of each local
  std::vector<Stmt> body;
  std::optional<TileScan> scan;
  int64_t points() const;     // product of dims
};

enum class BufferKind : uint8_t { Param, Const, Temp };

/// A slot of the buffer table.
struct BufferInfo {
  DType dtype = DType::F32;
  int64_t elems = 0;
  BufferKind kind = BufferKind::Temp;
  int index = 0;  // Param: parameter index; Const: index into Program::consts
  size_t bytes() const { return static_cast<size_t>(elems) * dtypeSize(dtype); }
};

/// A place in memory: a buffer slot and an element offset (an i64 expression of host vars).
struct Loc {
  int buffer = -1;
  ExprP offset;
};

/// A (batched) row-major GEMM: C[b] = op(A[b]) @ op(B[b]), b in 0..batch; with accumulate,
/// C[b] += op(A[b]) @ op(B[b]) (f32 and f64 only: Note [Accumulating products] in lower_dot.cpp).
struct Gemm {
  DType dtype = DType::F32;  // f32, f64, c64, c128, or bf16 (LowerOptions::keepBf16Products)
  bool transA = false, transB = false;
  bool accumulate = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t strideA = 0, strideB = 0, strideC = 0;  // elements between batches
  Loc a, b, c;
  /// A kernel run over C's elements after the product, piece by piece while each is in cache,
  /// instead of a launch after it (Note [GEMM epilogues] in gemm_epilogue.cpp); -1: none.
  int epilogue = -1;
};

/// A stable sort of each row of a row-major [rows, n] key array into a permutation, asked for by
/// LowerOptions::sortStep (Note [Sorting] in jit/interp_sort.cpp): perm[r * n + j] is the index
/// within row r of the row's j-th key in sort's order (jit/sort_keys.hpp).
struct SortRows {
  int64_t rows = 0, n = 0;
  Loc keys;  // any dtype
  Loc perm;  // i32, or i64 when n does not fit in i32
};

/// One Linalg op on its operands' and results' buffers (row-major, batch after batch), run by
/// a library routine of the backend's runner (LAPACK on the CPU, jit/cpu/lapack.cpp).
struct LinalgStep {
  LinalgCall call;
  std::vector<Loc> in, out;
};

/// A process collective (ProcessSum/Max/Min/Gather/Permute, Note [Named axes] in
/// jit/transform/batch_collectives.cpp) on its operand's and result's dense buffers, run on the
/// host by the backend's runner through runCollectiveStep (Note [Collective steps] in
/// jit/kernel/lower_collective.cpp). `call` indexes Program::collectives.
struct CollectiveStep {
  int call = 0;
  Loc in, out;
};

/// What a collective step calls: the op (and its pairs or result flag), its operand's and result's types, the group it runs
/// over and the span its failure is reported at. The group is not part of the printed kernel
/// IR (the CPU cache key): a compiled program finds it through its own Program at run time.
struct CollectiveCall {
  ProcessCollectiveCall what{scn::Op::ProcessSum, false, {}};
  Type in, out;
  std::shared_ptr<Collectives> group;
  Span span;
};

enum class StepKind : uint8_t { Launch, Gemm, Loop, While, Switch, Copy, Swap, Sort, Linalg, Collective };

/// One step of the sequential program.
struct Step {
  StepKind kind = StepKind::Launch;
  int kernel = 0;           // Launch
  kir::Gemm gemm;           // Gemm
  SortRows sort;            // Sort
  LinalgStep linalg;        // Linalg
  CollectiveStep collective;  // Collective
  int hostVar = 0;          // Loop: counter id, runs start..count-1
  int64_t count = 0;        // Loop
  int64_t start = 0;        // Loop: first counter value (1 after a peeled first iteration)
  std::vector<Step> body;   // Loop, While (after the condition)
  std::vector<Step> cond;   // While: computes the flag
  Loc flag;                 // While: bool to test; Switch: i32 or bool index (clamped)
  std::vector<std::vector<Step>> branches;  // Switch
  Loc dst, src;             // Copy
  int64_t elems = 0;        // Copy
  bool carry = false;       // Copy: counts as a loop-carry copy (RunStats::copiedBytes)
  int a = 0, b = 0;         // Swap: exchange the pointers of slots a and b
};

/// One compiled Func in kernel form.
struct Program {
  std::string name;
  std::vector<BufferInfo> buffers;
  std::vector<Array> consts;  // values of Const buffers
  std::vector<Kernel> kernels;
  std::vector<CollectiveCall> collectives;  // what the Collective steps call
  std::vector<Step> steps;
  int numHostVars = 0;
  std::vector<int> results;  // buffer slot of each result (read after the run)
  /// Updates (scatters, dynamic_update_slice) done in a dead operand's buffer instead of in a
  /// copy of it, per run (RunStats::inPlaceUpdates); a while body's count once.
  int64_t inPlaceUpdates = 0;
  /// Bytes of all temporaries (the static buffer plan).
  size_t tempBytes() const;
};

/// Nodes a fused expression may grow to before the lowering materialises part of it in a buffer
/// (Note [Fused expression size] in jit/kernel/lower.cpp); it also bounds the expression's depth.
inline constexpr int64_t kMaxFusedNodes = 512;

/// Choices of the lowering that depend on what a backend's step runner supports.
struct LowerOptions {
  /// Run a scan's first iteration before its loop (which then starts at 1), reading a carry
  /// whose init cannot be overwritten (a parameter, a value used later) in place instead of
  /// copying it into the carry slot first (Note [Peeled first iteration] in lower_control.cpp).
  /// Needs a runner that honours Step::start.
  bool peelFirstIteration = false;
  /// A cumulative op over an axis of at least this many elements in fewer than 16 rows becomes
  /// one single-pass scan kernel (Kernel::scan, Note [Single-pass scans] in lower_scan.cpp)
  /// instead of the blocked scan or a serial loop; 0: never. Needs a backend that prints
  /// TileScan kernels (the CUDA backend).
  int64_t singlePassScanMin = 0;
  /// A complex matmul is a Gemm step (the CPU's cgemm / zgemm) rather than a loop nest.
  bool complexGemm = false;
  /// A bf16 matmul is a bf16 Gemm step, not widened to f32 first (WidenOptions in jit/widen.hpp;
  /// the backend's GEMM accumulates in f32 and rounds once).
  bool keepBf16Products = false;
  /// A reduction of more than reduceSerialMax elements per output becomes a tree of passes whose
  /// partials each combine reduceBlock elements (Note [Blocked reductions] in lower_reduce.cpp).
  /// The CPU vectorises each loop over 32 lanes, so its blocks are long; a GPU thread runs its
  /// loop serially, so its blocks are short.
  int64_t reduceBlock = 256;
  int64_t reduceSerialMax = 1024;
  /// Sort rows with a Sort step (a library sort of the backend's runner) instead of a bitonic
  /// network of kernels (Note [Sorting] in jit/interp_sort.cpp).
  bool sortStep = false;
  /// Merge consecutive kernels over the same rows into one kernel per row where no row reads
  /// another's writes (Note [Row fusion] in jit/kernel/fuse_rows.cpp); the CPU asks for it.
  bool fuseRows = false;
  /// A scatter-add with fewer than this many elements per update (its window) runs one thread
  /// per update element, adding with AtomicAdd (Note [Scatter kernels]); 0: never. The CUDA
  /// backend asks for it; the CPU's sequential loop is faster on its few cores.
  int64_t atomicScatterBelow = 0;
  /// Run the elementwise launch that follows a product and reads its result point by point as
  /// the product's epilogue (Gemm::epilogue, Note [GEMM epilogues]); the CPU asks for it.
  bool gemmEpilogues = false;
};

/// Merges runs of launches into row kernels where that is legal and pays (Note [Row fusion]).
void fuseRows(Program& p);
/// Makes each launch that may run piece by piece after the product before it that product's
/// epilogue (Note [GEMM epilogues]).
void fuseGemmEpilogues(Program& p);

/// Lowers a verified Func to kernel form (fusion, buffer plan); see jit/kernel/lower.cpp.
Program lower(const Func& f, const LowerOptions& opts = {});

/// The pipeline's last stage, `lower` (Note [The lower stage] in jit/kernel/lower.cpp): the
/// optimised Func (runPipeline's output) lowered with a backend's options, then verified. Every
/// backend and every emit path calls this; a verifier failure is an internal error (E9999).
Program lowerStage(const Func& optimised, const LowerOptions& opts);

/// Checks the invariants of Note [Kernel IR invariants] (jit/kernel/verify_kernels.cpp): "" when
/// `p` holds them, else what is wrong and where.
std::string verifyProgram(const Program& p);

/// Stable text of a program (--emit=kernels); also the compile-cache key.
std::string printKernels(const Program& p);
/// printKernels(lowerStage(f, {})): the kernel IR of a Func with the default options.
std::string printKernels(const Func& f);
/// Text of one kernel without its name (dims, locals and body): equal texts, equal kernels.
std::string printKernel(const Kernel& k);
/// Text of one expression, as printKernels writes it.
std::string printExpr(const ExprP& e);

/// Counts steps of a kind anywhere in a step list (nested loops included); for tests and stats.
int countSteps(const std::vector<Step>& steps, StepKind kind);

}  // namespace scn::kir
