// Internal to jit/cpu: kernel IR -> LLVM IR, scalar semantics in LLVM, and the JIT session.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "jit/kernel/kernel_ir.hpp"

namespace scn {
struct Diagnostic;
}

namespace scn::cpu {

/// The LLVM type a dtype has in registers (bool: i1) and in memory (bool: i8).
llvm::Type* regType(llvm::LLVMContext& c, DType t);
llvm::Type* memType(llvm::LLVMContext& c, DType t);

/// One elementwise op of the op table on operands of dtype t: a call of its function in
/// jit/scalar/scalar.inc (Note [Scalar bitcode]). Unary, Predicate, Binary, Compare and Select ops.
llvm::Value* emitScalarOp(llvm::IRBuilder<>& b, Op op, DType t, const std::vector<llvm::Value*>& a);
/// convert<to>(v) of jit/scalar/scalar.inc.
llvm::Value* emitConvert(llvm::IRBuilder<>& b, DType from, DType to, llvm::Value* v);
/// Complex elements (jit/cpu/llvm_complex.cpp, Note [Complex numbers on the CPU]): the struct
/// {re, im} of a c64 / c128, a constant of it, an op of the op table on complex operands of
/// dtype t (for complex(re, im): t is the parts' dtype), and conversions to or from complex.
llvm::Type* complexType(llvm::LLVMContext& c, DType t);
llvm::Value* complexConstant(llvm::LLVMContext& c, DType t, double re, double im);
llvm::Value* emitComplexOp(llvm::IRBuilder<>& b, Op op, DType t, const std::vector<llvm::Value*>& a);
llvm::Value* emitComplexConvert(llvm::IRBuilder<>& b, DType from, DType to, llvm::Value* v);
/// Links the scalar functions that `m` calls from the scalar bitcode, internal and always-inline.
void linkScalarFunctions(llvm::Module& m);

/// Builds the module for a program: one internal function per kernel and the entry `mainName`
/// with signature void(ptr bufs, ptr ctx, ptr interrupt) (see EntryFn in cpu_backend.cpp).
std::unique_ptr<llvm::Module> emitModule(const kir::Program& p, llvm::LLVMContext& ctx,
                                         const std::string& mainName, llvm::TargetMachine& tm);

/// Emits, at the builder's position in the entry function, a poll of the interrupt flag (an
/// i32 that `flag` points to): when it is nonzero the entry returns at once. Once per iteration
/// of step-level loops (Note [Interrupting compiled code] in llvm_jit.cpp).
void emitInterruptPoll(llvm::IRBuilder<>& b, llvm::Value* flag);

/// Initialises the native target once per process.
void initLLVM();
/// A TargetMachine for the host CPU (its name and features, so AVX2/AVX-512 are used).
std::unique_ptr<llvm::TargetMachine> hostTargetMachine(int optLevel);
/// Runs the new pass manager's default pipeline at optLevel with libmvec vector math.
/// `interrupt` set: the remaining optional passes are skipped (Note [Interrupting the optimiser]).
void optimiseModule(llvm::Module& m, llvm::TargetMachine& tm, int optLevel,
                    const std::atomic<int32_t>* interrupt = nullptr);

/// An LLJIT with the runtime's symbols, libm and libmvec; one per backend object. With an
/// object cache, compiling a module first asks the cache for its object (looked up by the
/// module's identifier) and hands every object it compiles to the cache.
class JitSession {
 public:
  /// `warn` receives errors LLVM reports on the side that no compile failed of (E0412).
  explicit JitSession(int optLevel, std::shared_ptr<llvm::ObjectCache> cache = nullptr,
                      std::function<void(const Diagnostic&)> warn = {});
  /// Compiles the module and returns the address of `mainName`.
  void* add(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
            const std::string& mainName);
  llvm::TargetMachine& targetMachine() { return *tm_; }

 private:
  std::string takeSessionErrors();

  std::shared_ptr<llvm::ObjectCache> cache_;  // before jit_: its compiler points to it
  std::function<void(const Diagnostic&)> warn_;
  std::mutex errorsMutex_;  // before jit_, which may report while it is destroyed
  std::string sessionErrors_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::unique_ptr<llvm::TargetMachine> tm_;
};

/// Turns an llvm::Error into a diagnostic (E0410), with what LLVM reported on the side (the
/// JIT session's errors) as a note; never aborts.
[[noreturn]] void failLLVM(const std::string& what, llvm::Error err, const std::string& reported = {});

}  // namespace scn::cpu
