// Kernel IR -> LLVM IR: each kernel becomes a loop nest over noalias buffer pointers, and the
// sequential program becomes one entry function over the table of buffer pointers.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "jit/cpu/llvm_emit.hpp"
#include "base/diagnostics.hpp"
#include "jit/cpu/gemm.hpp"

namespace scn::cpu {

using llvm::Value;
using namespace kir;

namespace {

// Note [Parallel kernels]
// A kernel whose work (points times inner loop trips) reaches kParallelWork and whose first
// dimension has at least two indices is run by scn_parallel_for, which splits dims[0] across
// the thread pool; smaller kernels run on the calling thread.
constexpr int64_t kParallelWork = int64_t(1) << 16;

int64_t innerWork(const std::vector<Stmt>& body) {
  int64_t w = 1;
  for (const Stmt& s : body)
    if (s.kind == StmtKind::Loop) w += s.extent * innerWork(s.body);
    else if (s.kind == StmtKind::If) w += innerWork(s.body);
  return w;
}

bool runsParallel(const Kernel& k) {
  return !k.dims.empty() && k.dims[0] >= 2 && k.points() * innerWork(k.body) >= kParallelWork;
}

// Iterations between two interrupt polls (Note [Polling small loop bodies] in llvm_jit.cpp).
constexpr int64_t kMaxPollStride = 1024;

int64_t pollStride(const std::vector<Step>& body, const Program& p) {
  int64_t work = 1;
  for (const Step& s : body) {
    switch (s.kind) {
      case StepKind::Launch: {
        const Kernel& k = p.kernels.at(s.kernel);
        if (runsParallel(k)) return 1;
        work += k.points() * innerWork(k.body);
        break;
      }
      case StepKind::Copy: work += s.elems; break;
      case StepKind::Swap: break;
      default: return 1;
    }
  }
  return std::clamp<int64_t>(kParallelWork / work, 1, kMaxPollStride);
}

void collectHostVars(const ExprP& e, std::set<int>& out) {
  if (e->kind == ExprKind::HostVar) out.insert(e->id);
  for (const ExprP& a : e->args) collectHostVars(a, out);
}

void collectHostVars(const std::vector<Stmt>& body, std::set<int>& out) {
  for (const Stmt& s : body) {
    if (s.index) collectHostVars(s.index, out);
    if (s.value) collectHostVars(s.value, out);
    collectHostVars(s.body, out);
  }
}

// Note [Shared kernel bodies]
// Kernels that differ only in which buffer slots they use (W1's scan2: sqrt in place on the
// first GEMM's output, then on the second's) compile to one body function: the key is the
// kernel's text with its buffers renumbered by first mention, plus their dtypes, and each
// kernel keeps its own small wrapper that loads its slots and calls the body. Only parallel
// kernels share: they are called through scn_parallel_for anyway, so the body's call costs
// nothing, while a small kernel stays inlined into the entry function (Note [Slot table]).
// LLVM's time grows with the loops it vectorises, so this halves scan2's kernel code.
struct KernelShape {
  std::string key;
  std::vector<int> bufs;  // slots in order of first mention in the printed kernel
};

/// Renumbers a kernel's buffers by first mention in its printed text (a pre-order walk in the
/// printer's order: a store's buffer, its index, its value; a load's buffer, its index).
class BufferRenumbering {
 public:
  std::vector<int> bufs;  // original slots, in order of first mention

  void stmts(std::vector<Stmt>& body) {
    for (Stmt& s : body) {
      switch (s.kind) {
        case StmtKind::Let: s.value = expr(s.value); break;
        case StmtKind::Store:
        case StmtKind::AtomicAdd:
          s.buffer = slot(s.buffer);
          s.index = expr(s.index);
          s.value = expr(s.value);
          break;
        case StmtKind::Loop: stmts(s.body); break;
        case StmtKind::If:
          s.value = expr(s.value);
          stmts(s.body);
          break;
      }
    }
  }

 private:
  int slot(int buffer) {
    auto [it, fresh] = renamed_.emplace(buffer, static_cast<int>(bufs.size()));
    if (fresh) bufs.push_back(buffer);
    return it->second;
  }
  ExprP expr(const ExprP& e) {  // shared nodes (fused DAGs) are renumbered once
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    auto c = std::make_shared<Expr>(*e);
    if (c->kind == ExprKind::Load) c->id = slot(c->id);
    for (ExprP& a : c->args) a = expr(a);
    memo_[e.get()] = c;
    return c;
  }
  std::map<int, int> renamed_;
  std::map<const Expr*, ExprP> memo_;
};

KernelShape shapeOf(const Kernel& k, const Program& p) {
  Kernel renumbered = k;
  BufferRenumbering r;
  r.stmts(renumbered.body);
  if (renumbered.scan) r.stmts(renumbered.scan->store);  // printed after the body
  KernelShape s;
  s.key = printKernel(renumbered);
  s.bufs = std::move(r.bufs);
  for (int slot : s.bufs) s.key += std::string(" ") + dtypeName(p.buffers.at(slot).dtype);
  return s;
}

/// Emits expressions; the context says what indices, host vars, locals and buffers are.
struct ExprEmitter {
  explicit ExprEmitter(llvm::IRBuilder<>& builder) : b(builder) {}
  llvm::IRBuilder<>& b;
  std::function<Value*(int)> index, hostVar, bufferPtr;
  std::vector<llvm::AllocaInst*>* locals = nullptr;
  const std::vector<DType>* localTypes = nullptr;

  Value* emit(const ExprP& e) {
    llvm::LLVMContext& c = b.getContext();
    switch (e->kind) {
      case ExprKind::Const:
        if (isComplex(e->dtype)) return complexConstant(c, e->dtype, e->fval, e->fimag);
        if (isLowPrecision(e->dtype))  // the f32 constant, converted (lowp.inc)
          return emitConvert(b, DType::F32, e->dtype, llvm::ConstantFP::get(b.getFloatTy(), e->fval));
        if (isFloat(e->dtype)) return llvm::ConstantFP::get(regType(c, e->dtype), e->fval);
        return llvm::ConstantInt::get(regType(c, e->dtype), static_cast<uint64_t>(e->ival), true);
      case ExprKind::Index: return index(e->id);
      case ExprKind::HostVar: return hostVar(e->id);
      case ExprKind::Local:
        return b.CreateLoad(regType(c, localTypes->at(e->id)), locals->at(e->id));
      case ExprKind::Load: {
        llvm::Type* mt = memType(c, e->dtype);
        Value* p = b.CreateInBoundsGEP(mt, bufferPtr(e->id), {emit(e->args[0])});
        Value* v = b.CreateLoad(mt, p);
        return e->dtype == DType::Bool ? b.CreateICmpNE(v, llvm::ConstantInt::get(mt, 0)) : v;
      }
      case ExprKind::Op: {
        std::vector<Value*> args;
        for (const ExprP& a : e->args) args.push_back(emit(a));
        DType t = e->op == Op::Select ? e->args[1]->dtype : e->args[0]->dtype;
        return emitScalarOp(b, e->op, t, args);
      }
      case ExprKind::Convert: return emitConvert(b, e->args[0]->dtype, e->dtype, emit(e->args[0]));
      case ExprKind::Arith: {
        Value* x = emit(e->args[0]);
        Value* y = emit(e->args[1]);
        switch (e->arith) {
          case Arith::Add: return b.CreateNSWAdd(x, y);
          case Arith::Sub: return b.CreateNSWSub(x, y);
          case Arith::Mul: return b.CreateNSWMul(x, y);
          case Arith::Div: return b.CreateUDiv(x, y);
          case Arith::Rem: return b.CreateURem(x, y);
          case Arith::Min: return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, y);
          case Arith::Max: return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, y);
        }
      }
    }
    internalError("unknown kernel expression");
  }
};

/// for (iv = lo; iv < hi; ++iv) body(iv), leaving the builder after the loop.
void emitLoop(llvm::IRBuilder<>& b, Value* lo, Value* hi, const std::function<void(Value*)>& body) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& c = b.getContext();
  llvm::BasicBlock* pre = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(c, "loop", fn);
  auto* bodyBB = llvm::BasicBlock::Create(c, "body", fn);
  auto* exit = llvm::BasicBlock::Create(c, "exit", fn);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* iv = b.CreatePHI(lo->getType(), 2);
  iv->addIncoming(lo, pre);
  b.CreateCondBr(b.CreateICmpSLT(iv, hi), bodyBB, exit);
  b.SetInsertPoint(bodyBB);
  body(iv);
  Value* next = b.CreateNSWAdd(iv, llvm::ConstantInt::get(lo->getType(), 1));
  iv->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
}

class ModuleEmitter {
 public:
  ModuleEmitter(const Program& p, llvm::Module& m, llvm::TargetMachine& tm)
      : p_(p), m_(m), c_(m.getContext()), b_(c_), tm_(tm) {
    i64_ = llvm::Type::getInt64Ty(c_);
    i32_ = llvm::Type::getInt32Ty(c_);
    ptr_ = llvm::PointerType::getUnqual(c_);
    void_ = llvm::Type::getVoidTy(c_);
  }

  void run(const std::string& mainName) {
    std::vector<KernelShape> shapes;
    std::map<std::string, int> uses;
    for (const Kernel& k : p_.kernels) {
      shapes.push_back(shapeOf(k, p_));
      if (runsParallel(k)) ++uses[shapes.back().key];
    }
    for (size_t i = 0; i < p_.kernels.size(); ++i) {
      const Kernel& k = p_.kernels[i];
      bool shared = runsParallel(k) && uses[shapes[i].key] > 1;
      kernels_.push_back(emitKernel(k, mainName, shapes[i], shared));
    }
    emitMain(mainName);
  }

 private:
  void setTarget(llvm::Function* f) {
    f->addFnAttr("target-cpu", tm_.getTargetCPU());
    f->addFnAttr("target-features", tm_.getTargetFeatureString());
    f->addFnAttr(llvm::Attribute::NoUnwind);
  }

  void emitStmts(ExprEmitter& ee, const Kernel& k, const std::vector<Stmt>& body,
                 std::vector<llvm::AllocaInst*>& locals) {
    for (const Stmt& s : body) {
      switch (s.kind) {
        case StmtKind::Let: {
          llvm::FastMathFlags saved = b_.getFastMathFlags();
          if (s.assoc) {
            llvm::FastMathFlags fmf;
            fmf.setAllowReassoc();
            b_.setFastMathFlags(fmf);
          }
          Value* v = ee.emit(s.value);
          b_.setFastMathFlags(saved);
          b_.CreateStore(v, locals.at(s.local));
          break;
        }
        case StmtKind::Store: {
          DType t = p_.buffers.at(s.buffer).dtype;
          Value* v = ee.emit(s.value);
          if (t == DType::Bool) v = b_.CreateZExt(v, memType(c_, t));
          Value* p = b_.CreateInBoundsGEP(memType(c_, t), ee.bufferPtr(s.buffer), {ee.emit(s.index)});
          b_.CreateStore(v, p);
          break;
        }
        case StmtKind::Loop:
          emitLoop(b_, llvm::ConstantInt::get(i64_, 0), llvm::ConstantInt::get(i64_, s.extent),
                   [&](Value* iv) {
                     b_.CreateStore(iv, locals.at(s.local));
                     emitStmts(ee, k, s.body, locals);
                   });
          break;
        case StmtKind::AtomicAdd: {  // only a backend that asks for them gets them; kept exact
          DType t = p_.buffers.at(s.buffer).dtype;
          Value* p = b_.CreateInBoundsGEP(memType(c_, t), ee.bufferPtr(s.buffer), {ee.emit(s.index)});
          b_.CreateAtomicRMW(isFloat(t) ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add, p,
                             ee.emit(s.value), llvm::MaybeAlign(dtypeSize(t)), llvm::AtomicOrdering::Monotonic);
          break;
        }
        case StmtKind::If: {
          llvm::Function* fn = b_.GetInsertBlock()->getParent();
          auto* then = llvm::BasicBlock::Create(c_, "if.then", fn);
          auto* done = llvm::BasicBlock::Create(c_, "if.done", fn);
          b_.CreateCondBr(ee.emit(s.value), then, done);
          b_.SetInsertPoint(then);
          emitStmts(ee, k, s.body, locals);
          b_.CreateBr(done);
          b_.SetInsertPoint(done);
          break;
        }
      }
    }
  }

  llvm::Function* emitKernel(const Kernel& k, const std::string& prefix, const KernelShape& shape,
                             bool shared) {
    const std::vector<int>& bufs = shape.bufs;
    llvm::Function* body = shared ? sharedBodies_[shape.key] : nullptr;
    if (!body) {
      body = emitBody(k, prefix, bufs);
      if (shared) {
        body->removeFnAttr(llvm::Attribute::AlwaysInline);
        body->addFnAttr(llvm::Attribute::NoInline);
        sharedBodies_[shape.key] = body;
      }
    }
    auto* wrapTy = llvm::FunctionType::get(void_, {ptr_, ptr_, i64_, i64_}, false);
    auto* wrap = llvm::Function::Create(wrapTy, llvm::Function::InternalLinkage,
                                        prefix + "." + k.name, m_);
    setTarget(wrap);
    b_.SetInsertPoint(llvm::BasicBlock::Create(c_, "entry", wrap));
    std::vector<Value*> args;
    for (int buf : bufs)
      args.push_back(b_.CreateLoad(ptr_, b_.CreateInBoundsGEP(ptr_, wrap->getArg(0), {b_.getInt64(buf)})));
    args.insert(args.end(), {wrap->getArg(1), wrap->getArg(2), wrap->getArg(3)});
    b_.CreateCall(body, args);
    b_.CreateRetVoid();
    return wrap;
  }

  /// The loop nest of a kernel over its buffers `bufs` (noalias pointer arguments, in order).
  llvm::Function* emitBody(const Kernel& k, const std::string& prefix,
                           const std::vector<int>& bufs) {
    SCN_ASSERT(!k.scan, "kernel " + k.name + " is a single-pass tile scan, which only the CUDA "
                        "backend asks for (LowerOptions::singlePassScanMin)");
    std::map<int, int> argOf;
    std::vector<llvm::Type*> params;
    for (size_t i = 0; i < bufs.size(); ++i) {
      argOf[bufs[i]] = static_cast<int>(i);
      params.push_back(ptr_);
    }
    params.insert(params.end(), {ptr_, i64_, i64_});
    // The body takes each buffer as a noalias pointer (slots never alias; see lower.cpp).
    auto* bodyTy = llvm::FunctionType::get(void_, params, false);
    auto* body = llvm::Function::Create(bodyTy, llvm::Function::InternalLinkage,
                                        prefix + "." + k.name + ".body", m_);
    setTarget(body);
    body->addFnAttr(llvm::Attribute::AlwaysInline);
    for (size_t i = 0; i < bufs.size(); ++i) body->addParamAttr(i, llvm::Attribute::NoAlias);
    b_.SetInsertPoint(llvm::BasicBlock::Create(c_, "entry", body));
    llvm::Value* hv = body->getArg(bufs.size());
    llvm::Value* begin = body->getArg(bufs.size() + 1);
    llvm::Value* end = body->getArg(bufs.size() + 2);
    std::vector<llvm::AllocaInst*> locals;
    for (DType t : k.locals) locals.push_back(b_.CreateAlloca(regType(c_, t)));
    std::map<int, Value*> hostVals;
    std::set<int> usedHostVars;
    collectHostVars(k.body, usedHostVars);
    for (int id : usedHostVars)  // host vars do not change during a kernel
      hostVals[id] = b_.CreateLoad(i64_, b_.CreateInBoundsGEP(i64_, hv, {b_.getInt64(id)}));
    std::vector<Value*> ivs(k.dims.size(), nullptr);
    ExprEmitter ee{b_};
    ee.index = [&](int d) { return ivs.at(d); };
    ee.hostVar = [&](int id) -> Value* { return hostVals.at(id); };
    ee.bufferPtr = [&](int buf) -> Value* { return body->getArg(argOf.at(buf)); };
    ee.locals = &locals;
    ee.localTypes = &k.locals;
    std::function<void(size_t)> nest = [&](size_t d) {
      if (d == k.dims.size()) {
        emitStmts(ee, k, k.body, locals);
        return;
      }
      Value* lo = d == 0 ? begin : b_.getInt64(0);
      Value* hi = d == 0 ? end : b_.getInt64(k.dims[d]);
      emitLoop(b_, lo, hi, [&](Value* iv) {
        ivs[d] = iv;
        nest(d + 1);
      });
    };
    nest(0);
    b_.CreateRetVoid();
    return body;
  }

  // ---- the sequential program ----

  Value* slotPtr(int buf) { return b_.CreateInBoundsGEP(ptr_, bufs_, {b_.getInt64(buf)}); }

  Value* locPtr(ExprEmitter& ee, const Loc& l) {
    Value* base = b_.CreateLoad(ptr_, slotPtr(l.buffer));
    if (!l.offset || isConstIdx(l.offset, 0)) return base;
    llvm::Type* mt = memType(c_, p_.buffers.at(l.buffer).dtype);
    return b_.CreateInBoundsGEP(mt, base, {ee.emit(l.offset)});
  }

  void emitSteps(ExprEmitter& ee, const std::vector<Step>& steps) {
    for (const Step& s : steps) emitStep(ee, s);
  }

  void emitStep(ExprEmitter& ee, const Step& s) {
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    switch (s.kind) {
      case StepKind::Launch: {
        const Kernel& k = p_.kernels.at(s.kernel);
        int64_t n = k.dims.empty() ? 1 : k.dims[0];
        if (runsParallel(k)) {
          auto* ft = llvm::FunctionType::get(void_, {ptr_, ptr_, ptr_, ptr_, i64_}, false);
          b_.CreateCall(m_.getOrInsertFunction("scn_parallel_for", ft),
                        {ctx_, kernels_.at(s.kernel), bufs_, hv_, b_.getInt64(n)});
        } else {
          b_.CreateCall(kernels_.at(s.kernel), {bufs_, hv_, b_.getInt64(0), b_.getInt64(n)});
        }
        break;
      }
      case StepKind::Gemm: {
        const Gemm& g = s.gemm;
        auto* ft = llvm::FunctionType::get(
            void_, {ptr_, i32_, i32_, i32_, i64_, i64_, i64_, ptr_, i64_, i64_, ptr_, i64_, i64_,
                    ptr_, i64_, i64_, i64_, i32_, ptr_, ptr_, ptr_, i64_}, false);
        // Note [GEMM epilogues]: the kernel (or null) and the elements of C per point of its dim 0.
        bool fused = g.epilogue >= 0;
        Value* epilogue = fused ? static_cast<Value*>(kernels_.at(g.epilogue)) : llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(c_));
        int64_t inner = fused ? g.batch * g.m * g.n / p_.kernels.at(g.epilogue).dims[0] : 1;
        b_.CreateCall(m_.getOrInsertFunction("scn_gemm", ft),
                      {ctx_, b_.getInt32(static_cast<int32_t>(gemmTypeOf(g.dtype))), b_.getInt32(g.transA), b_.getInt32(g.transB),
                       b_.getInt64(g.m), b_.getInt64(g.n), b_.getInt64(g.k), locPtr(ee, g.a),
                       b_.getInt64(g.lda), b_.getInt64(g.strideA), locPtr(ee, g.b), b_.getInt64(g.ldb),
                       b_.getInt64(g.strideB), locPtr(ee, g.c), b_.getInt64(g.ldc),
                       b_.getInt64(g.strideC), b_.getInt64(g.batch), b_.getInt32(g.accumulate), epilogue, bufs_,
                       hv_, b_.getInt64(inner)});
        break;
      }
      case StepKind::Loop: {
        Value* slot = b_.CreateInBoundsGEP(i64_, hv_, {b_.getInt64(s.hostVar)});
        auto iteration = [&](Value* iv) {
          b_.CreateStore(iv, slot);
          emitSteps(ee, s.body);
        };
        int64_t stride = pollStride(s.body, p_), trips = s.count - s.start;
        if (stride == 1 || trips <= stride) {
          emitLoop(b_, b_.getInt64(s.start), b_.getInt64(s.count), [&](Value* iv) {
            iteration(iv);
            emitInterruptPoll(b_, interrupt_);  // Note [Interrupting compiled code]
          });
          break;
        }
        // Note [Polling small loop bodies]: chunks of `stride` iterations, one poll per chunk.
        emitLoop(b_, b_.getInt64(0), b_.getInt64((trips + stride - 1) / stride), [&](Value* chunk) {
          Value* lo = b_.CreateNSWAdd(b_.getInt64(s.start), b_.CreateNSWMul(chunk, b_.getInt64(stride)));
          Value* hi = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateNSWAdd(lo, b_.getInt64(stride)),
                                               b_.getInt64(s.count));
          emitLoop(b_, lo, hi, iteration);
          emitInterruptPoll(b_, interrupt_);
        });
        break;
      }
      case StepKind::While: {
        auto* header = llvm::BasicBlock::Create(c_, "while", fn);
        auto* body = llvm::BasicBlock::Create(c_, "while.body", fn);
        auto* exit = llvm::BasicBlock::Create(c_, "while.exit", fn);
        b_.CreateBr(header);
        b_.SetInsertPoint(header);
        emitSteps(ee, s.cond);
        Value* flag = b_.CreateLoad(b_.getInt8Ty(), locPtr(ee, s.flag));
        b_.CreateCondBr(b_.CreateICmpNE(flag, b_.getInt8(0)), body, exit);
        b_.SetInsertPoint(body);
        emitSteps(ee, s.body);
        emitInterruptPoll(b_, interrupt_);  // Note [Interrupting compiled code]
        b_.CreateBr(header);
        b_.SetInsertPoint(exit);
        break;
      }
      case StepKind::Switch: {
        DType t = p_.buffers.at(s.flag.buffer).dtype;
        Value* v = b_.CreateLoad(memType(c_, t), locPtr(ee, s.flag));
        v = b_.CreateIntCast(v, i64_, isSignedInt(t));
        int64_t n = static_cast<int64_t>(s.branches.size());
        v = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, v, b_.getInt64(0));
        v = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, b_.getInt64(n - 1));
        auto* exit = llvm::BasicBlock::Create(c_, "switch.exit", fn);
        llvm::SwitchInst* sw = b_.CreateSwitch(v, exit, static_cast<unsigned>(n));
        for (int64_t i = 0; i < n; ++i) {
          auto* bb = llvm::BasicBlock::Create(c_, "case", fn);
          sw->addCase(b_.getInt64(i), bb);
          b_.SetInsertPoint(bb);
          emitSteps(ee, s.branches[i]);
          b_.CreateBr(exit);
        }
        b_.SetInsertPoint(exit);
        break;
      }
      case StepKind::Copy: {
        const BufferInfo& bi = p_.buffers.at(s.dst.buffer);
        int64_t bytes = s.elems * static_cast<int64_t>(dtypeSize(bi.dtype));
        b_.CreateMemCpy(locPtr(ee, s.dst), llvm::MaybeAlign(1), locPtr(ee, s.src), llvm::MaybeAlign(1),
                        bytes);
        if (s.carry) {
          Value* counter = b_.CreateInBoundsGEP(b_.getInt8Ty(), ctx_, {b_.getInt64(8)});
          b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64_, counter), b_.getInt64(bytes)), counter);
        }
        break;
      }
      case StepKind::Sort: {
        const SortRows& r = s.sort;
        auto* ft = llvm::FunctionType::get(void_, {ptr_, i32_, ptr_, i32_, ptr_, i64_, i64_}, false);
        b_.CreateCall(m_.getOrInsertFunction("scn_sort_rows", ft),
                      {ctx_, b_.getInt32(static_cast<int32_t>(p_.buffers.at(r.keys.buffer).dtype)), locPtr(ee, r.keys),
                       b_.getInt32(static_cast<int32_t>(p_.buffers.at(r.perm.buffer).dtype)), locPtr(ee, r.perm),
                       b_.getInt64(r.rows), b_.getInt64(r.n)});
        break;
      }
      case StepKind::Linalg: {
        const LinalgStep& l = s.linalg;
        const LinalgCall& c = l.call;
        auto* ft = llvm::FunctionType::get(void_, {ptr_, i32_, i32_, i64_, i64_, i64_, i64_, i32_, ptr_, ptr_, ptr_, ptr_, ptr_}, false);
        auto ptrAt = [&](const std::vector<Loc>& ls, size_t i) -> Value* {
          return i < ls.size() ? locPtr(ee, ls[i]) : llvm::ConstantPointerNull::get(llvm::PointerType::get(c_, 0));
        };
        b_.CreateCall(m_.getOrInsertFunction("scn_linalg", ft),
                      {ctx_, b_.getInt32(static_cast<int32_t>(c.op)), b_.getInt32(static_cast<int32_t>(c.dtype)),
                       b_.getInt64(c.batch), b_.getInt64(c.m), b_.getInt64(c.n), b_.getInt64(c.k),
                       b_.getInt32(linalgFlags(c)), ptrAt(l.in, 0), ptrAt(l.in, 1), ptrAt(l.out, 0), ptrAt(l.out, 1),
                       ptrAt(l.out, 2)});
        break;
      }
      case StepKind::Collective: emitCollective(ee, s.collective); break;
      case StepKind::Swap: {
        Value* pa = slotPtr(s.a);
        Value* pb = slotPtr(s.b);
        Value* va = b_.CreateLoad(ptr_, pa);
        Value* vb = b_.CreateLoad(ptr_, pb);
        b_.CreateStore(vb, pa);
        b_.CreateStore(va, pb);
        break;
      }
    }
  }

  /// A Collective step: the call, and a return when it failed (Note [Collective steps] in
  /// jit/kernel/lower_collective.cpp); the executable reports the failure.
  void emitCollective(ExprEmitter& ee, const CollectiveStep& c) {
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    auto* ft = llvm::FunctionType::get(i32_, {ptr_, i32_, ptr_, ptr_}, false);
    Value* failed = b_.CreateCall(m_.getOrInsertFunction("scn_collective", ft),
                                  {ctx_, b_.getInt32(c.call), locPtr(ee, c.in), locPtr(ee, c.out)});
    auto* stop = llvm::BasicBlock::Create(c_, "collective.failed", fn);
    auto* go = llvm::BasicBlock::Create(c_, "collective.done", fn);
    b_.CreateCondBr(b_.CreateICmpNE(failed, b_.getInt32(0)), stop, go,
                    llvm::MDBuilder(c_).createBranchWeights(1, 1u << 20));
    b_.SetInsertPoint(stop);
    b_.CreateRetVoid();
    b_.SetInsertPoint(go);
  }

  void emitMain(const std::string& name) {
    auto* ft = llvm::FunctionType::get(void_, {ptr_, ptr_, ptr_}, false);  // bufs, ctx, interrupt
    auto* fn = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, name, m_);
    setTarget(fn);
    // Note [Slot table]: the table of buffer pointers is only ever reached through this
    // argument, so the pointer swaps of ping-pong carries stay in registers across a loop
    // (a store into a buffer cannot change a slot) instead of a load and store per iteration.
    fn->addParamAttr(0, llvm::Attribute::NoAlias);
    b_.SetInsertPoint(llvm::BasicBlock::Create(c_, "entry", fn));
    bufs_ = fn->getArg(0);
    ctx_ = fn->getArg(1);
    interrupt_ = fn->getArg(2);
    hv_ = b_.CreateAlloca(llvm::ArrayType::get(i64_, std::max(1, p_.numHostVars)));
    ExprEmitter ee{b_};
    ee.index = [](int) -> Value* { internalError("parallel index outside a kernel"); };
    ee.hostVar = [&](int id) -> Value* {
      return b_.CreateLoad(i64_, b_.CreateInBoundsGEP(i64_, hv_, {b_.getInt64(id)}));
    };
    ee.bufferPtr = [&](int buf) -> Value* { return b_.CreateLoad(ptr_, slotPtr(buf)); };
    emitSteps(ee, p_.steps);
    b_.CreateRetVoid();
  }

  const Program& p_;
  llvm::Module& m_;
  llvm::LLVMContext& c_;
  llvm::IRBuilder<> b_;
  llvm::TargetMachine& tm_;
  llvm::Type *i64_, *i32_, *ptr_, *void_;
  std::vector<llvm::Function*> kernels_;
  std::map<std::string, llvm::Function*> sharedBodies_;  // KernelShape::key -> body
  Value *bufs_ = nullptr, *ctx_ = nullptr, *hv_ = nullptr, *interrupt_ = nullptr;
};

}  // namespace

std::unique_ptr<llvm::Module> emitModule(const Program& p, llvm::LLVMContext& ctx,
                                         const std::string& mainName, llvm::TargetMachine& tm) {
  auto m = std::make_unique<llvm::Module>(mainName, ctx);
  m->setDataLayout(tm.createDataLayout());
  m->setTargetTriple(tm.getTargetTriple().str());
  ModuleEmitter(p, *m, tm).run(mainName);
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*m, &os)) internalError("generated LLVM IR does not verify: " + os.str());
  return m;
}

}  // namespace scn::cpu
