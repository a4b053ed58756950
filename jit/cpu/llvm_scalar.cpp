// Scalar semantics on the CPU: calls of jit/scalar/scalar.inc's functions, linked in from the
// bitcode clang-19 made of it at build time and inlined (Note [Scalar bitcode]).
#include <set>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include "jit/cpu/llvm_emit.hpp"
#include "jit/scalar/scalar_text.hpp"
#include "base/diagnostics.hpp"

namespace scn::cpu {

// Note [Scalar bitcode]
// The CPU backend has no scalar semantics of its own: jit/scalar/scalar_bitcode.cpp includes
// jit/scalar/scalar.inc (the definition the interpreter and the CUDA prelude compile too) and
// clang-19 compiles it to LLVM bitcode at build time (-O2 -fno-math-errno -ffp-contract=off), which
// is embedded in the binary (scalarBitcode()). The emitter calls the function by its C++ name:
// scn_add(float, float) is _Z7scn_addff (Itanium mangling of a function of builtin types:
// _Z, the length and the name, one letter per parameter type), convert<To>(From) is the
// template scn_cvt<To, From>, _Z7scn_cvtI<to><from>ET_T0_. Before optimisation,
// linkScalarFunctions links the called functions (and what they call) from the bitcode with
// LinkOnlyNeeded (without clang's module flags), makes them internal and always-inline and drops
// their target attributes (the bitcode was compiled for generic x86-64; the module's functions
// take the host CPU's), so the
// O2 pipeline inlines them first and the loop vectoriser sees plain IR: llvm.sin.f32 becomes
// libmvec's _ZGVdN8v_sinf as before. Libm functions without an intrinsic (log1pf, expm1f) are
// declared memory(none) by clang, so they stay vectorisable too.

using llvm::Value;

llvm::Type* regType(llvm::LLVMContext& c, DType t) {
  switch (t) {
    case DType::Bool: return llvm::Type::getInt1Ty(c);
    case DType::I32: case DType::U32: return llvm::Type::getInt32Ty(c);
    case DType::I64: case DType::U64: return llvm::Type::getInt64Ty(c);
    case DType::F32: return llvm::Type::getFloatTy(c);
    case DType::F64: return llvm::Type::getDoubleTy(c);
    case DType::C64: case DType::C128: return complexType(c, t);  // {re, im}
    case DType::BF16: case DType::F16: return llvm::Type::getInt16Ty(c);  // the bits (lowp.inc)
  }
  return nullptr;
}

llvm::Type* memType(llvm::LLVMContext& c, DType t) {
  return t == DType::Bool ? llvm::Type::getInt8Ty(c) : regType(c, t);
}

namespace {

/// A dtype in an Itanium-mangled name: one letter for a builtin type (int32_t is int, int64_t is
/// long, ...), the length and the name for the structs bf16 and f16 of lowp.inc.
std::string mangledType(DType t) {
  switch (t) {
    case DType::Bool: return "b";
    case DType::I32: return "i";
    case DType::I64: return "l";
    case DType::U32: return "j";
    case DType::U64: return "m";
    case DType::F32: return "f";
    case DType::F64: return "d";
    case DType::BF16: return "4bf16";
    case DType::F16: return "3f16";
    case DType::C64: case DType::C128: break;
  }
  return "?";
}

/// A call of the scalar function `name` (mangled) of type ret(params...) (Note [Scalar bitcode]).
Value* callScalar(llvm::IRBuilder<>& b, const std::string& name, llvm::Type* ret,
                  const std::vector<Value*>& args) {
  std::vector<llvm::Type*> params;
  for (Value* a : args) params.push_back(a->getType());
  llvm::Module* m = b.GetInsertBlock()->getModule();
  llvm::FunctionCallee fn = m->getOrInsertFunction(name, llvm::FunctionType::get(ret, params, false));
  return b.CreateCall(fn, args);
}

}  // namespace

Value* emitScalarOp(llvm::IRBuilder<>& b, Op op, DType t, const std::vector<Value*>& a) {
  const OpInfo& info = opInfo(op);
  if (info.category == OpCategory::Select) return b.CreateSelect(a[0], a[1], a[2]);
  if (isComplex(t) || info.category == OpCategory::ComplexPart) return emitComplexOp(b, op, t, a);
  SCN_ASSERT(info.flags.elementwise && info.category != OpCategory::Convert,
             "emitScalarOp: not a scalar op");
  if (b.getFastMathFlags().allowReassoc() && isFloat(t)) {
    // A reduction's accumulation (Note [Blocked reductions]) carries `reassoc` so that the loop
    // vectoriser can split it into lanes; a call cannot carry the flag, so the four combiners a
    // float reduction uses are LLVM's own operations, of exactly scalar.inc's semantics.
    if (op == Op::Add) return b.CreateFAdd(a[0], a[1]);
    if (op == Op::Mul) return b.CreateFMul(a[0], a[1]);
    if (op == Op::Max) return b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, a[0], a[1]);
    if (op == Op::Min) return b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, a[0], a[1]);
  }
  std::string fn = std::string("scn_") + info.name;
  std::string name = "_Z" + std::to_string(fn.size()) + fn;
  for (size_t i = 0; i < a.size(); ++i) name += mangledType(t);
  bool toBool = info.category == OpCategory::Predicate || info.category == OpCategory::Compare;
  llvm::Type* ret = toBool ? b.getInt1Ty() : regType(b.getContext(), t);
  return callScalar(b, name, ret, a);
}

Value* emitConvert(llvm::IRBuilder<>& b, DType from, DType to, Value* v) {
  if (from == to) return v;
  if (isComplex(from) || isComplex(to)) return emitComplexConvert(b, from, to, v);
  std::string name = std::string("_Z7scn_cvtI") + mangledType(to) + mangledType(from) + "ET_T0_";
  return callScalar(b, name, regType(b.getContext(), to), {v});
}

void linkScalarFunctions(llvm::Module& m) {
  bool calls = false;
  for (const llvm::Function& f : m) calls = calls || (f.isDeclaration() && f.getName().starts_with("_Z"));
  if (!calls) return;
  std::string_view bc = scalarBitcode();
  llvm::MemoryBufferRef buf(llvm::StringRef(bc.data(), bc.size()), "scalar.bc");
  llvm::Expected<std::unique_ptr<llvm::Module>> lib = llvm::getLazyBitcodeModule(buf, m.getContext());
  if (!lib) internalError("the scalar bitcode does not load: " + llvm::toString(lib.takeError()));
  (*lib)->setDataLayout(m.getDataLayout());
  (*lib)->setTargetTriple(m.getTargetTriple());
  // clang's module flags (PIC/PIE level, uwtable) would change how the whole module is compiled.
  if (llvm::Error e = (*lib)->materializeMetadata())
    internalError("the scalar bitcode does not load: " + llvm::toString(std::move(e)));
  for (const char* md : {"llvm.module.flags", "llvm.ident"})
    if (llvm::NamedMDNode* n = (*lib)->getNamedMetadata(md)) (*lib)->eraseNamedMetadata(n);
  std::set<std::string> defined;
  for (const llvm::Function& f : **lib)
    if (!f.isDeclaration()) defined.insert(f.getName().str());
  if (llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded))
    internalError("linking the scalar bitcode failed");
  for (llvm::Function& f : m) {
    if (f.isDeclaration() || !defined.count(f.getName().str())) continue;
    f.setLinkage(llvm::GlobalValue::InternalLinkage);
    f.removeFnAttr(llvm::Attribute::NoInline);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
    for (const char* a : {"target-cpu", "target-features", "tune-cpu"}) f.removeFnAttr(a);
  }
}

}  // namespace scn::cpu
