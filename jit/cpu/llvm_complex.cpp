// Complex elements in LLVM: a c64 / c128 value is a literal struct {re, im} of two floats (in
// registers and in memory, NumPy's layout), computed on its parts (Note [Complex numbers] in
// jit/scalar/complex.inc).
#include "jit/cpu/llvm_emit.hpp"
#include "base/diagnostics.hpp"

namespace scn::cpu {

using llvm::Value;

// Note [Complex numbers on the CPU]
// The emitter never passes a complex struct to a function: + - and negation, conj, the parts,
// ==, != and the conversions are instructions on the parts (extractvalue / insertvalue), and
// mul, div, exp, log, sqrt, sin, cos, abs and angle call complex.inc's functions of the parts
// from the scalar bitcode (Note [Scalar bitcode]) with an out-pointer to a [2 x float] slot in
// the function's entry block: scn_cmul(float, float, float, float, float*) is
// _Z8scn_cmulffffPf. After inlining, SROA turns the slots back into registers, so no struct ABI
// (how clang would pass a {float, float} by value) leaks into the emitted code.

namespace {

llvm::Type* partType(llvm::LLVMContext& c, DType t) {
  return componentType(t) == DType::F64 ? llvm::Type::getDoubleTy(c) : llvm::Type::getFloatTy(c);
}

char partLetter(DType t) { return componentType(t) == DType::F64 ? 'd' : 'f'; }

Value* re(llvm::IRBuilder<>& b, Value* z) { return b.CreateExtractValue(z, 0); }
Value* im(llvm::IRBuilder<>& b, Value* z) { return b.CreateExtractValue(z, 1); }

Value* make(llvm::IRBuilder<>& b, DType t, Value* r, Value* i) {
  llvm::Type* st = regType(b.getContext(), t);
  Value* z = b.CreateInsertValue(llvm::PoisonValue::get(st), r, 0);
  return b.CreateInsertValue(z, i, 1);
}

llvm::FunctionCallee declare(llvm::IRBuilder<>& b, const std::string& name, llvm::Type* ret,
                             const std::vector<llvm::Type*>& params) {
  llvm::Module* m = b.GetInsertBlock()->getModule();
  return m->getOrInsertFunction(name, llvm::FunctionType::get(ret, params, false));
}

std::string mangled(const std::string& fn, const std::string& params) {
  return "_Z" + std::to_string(fn.size()) + fn + params;
}

/// scn_c<name>(parts..., T* r) of complex.inc: the complex result r[0] + r[1] i.
Value* callOut(llvm::IRBuilder<>& b, const char* name, DType t, const std::vector<Value*>& parts) {
  llvm::LLVMContext& c = b.getContext();
  llvm::Type* pt = partType(c, t);
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().getFirstInsertionPt());
  llvm::AllocaInst* slot = entry.CreateAlloca(llvm::ArrayType::get(pt, 2));
  std::vector<llvm::Type*> params(parts.size(), pt);
  params.push_back(llvm::PointerType::getUnqual(c));
  std::vector<Value*> args = parts;
  args.push_back(slot);
  std::string letters(parts.size(), partLetter(t));
  b.CreateCall(declare(b, mangled(name, letters + "P" + partLetter(t)), b.getVoidTy(), params), args);
  Value* r = b.CreateLoad(pt, b.CreateConstInBoundsGEP1_64(pt, slot, 0));
  Value* i = b.CreateLoad(pt, b.CreateConstInBoundsGEP1_64(pt, slot, 1));
  return make(b, t, r, i);
}

/// scn_c<name>(re, im) of complex.inc: a real result.
Value* callReal(llvm::IRBuilder<>& b, const char* name, DType t, Value* z) {
  llvm::Type* pt = partType(b.getContext(), t);
  return b.CreateCall(declare(b, mangled(name, std::string(2, partLetter(t))), pt, {pt, pt}), {re(b, z), im(b, z)});
}

}  // namespace

llvm::Type* complexType(llvm::LLVMContext& c, DType t) {
  llvm::Type* pt = partType(c, t);
  return llvm::StructType::get(c, {pt, pt});
}

Value* complexConstant(llvm::LLVMContext& c, DType t, double r, double i) {
  llvm::Type* pt = partType(c, t);
  return llvm::ConstantStruct::get(llvm::cast<llvm::StructType>(complexType(c, t)),
                                   {llvm::ConstantFP::get(pt, r), llvm::ConstantFP::get(pt, i)});
}

Value* emitComplexOp(llvm::IRBuilder<>& b, Op op, DType t, const std::vector<Value*>& a) {
  switch (op) {
    case Op::Neg: return make(b, t, b.CreateFNeg(re(b, a[0])), b.CreateFNeg(im(b, a[0])));
    case Op::Add: return make(b, t, b.CreateFAdd(re(b, a[0]), re(b, a[1])), b.CreateFAdd(im(b, a[0]), im(b, a[1])));
    case Op::Sub: return make(b, t, b.CreateFSub(re(b, a[0]), re(b, a[1])), b.CreateFSub(im(b, a[0]), im(b, a[1])));
    case Op::Mul: return callOut(b, "scn_cmul", t, {re(b, a[0]), im(b, a[0]), re(b, a[1]), im(b, a[1])});
    case Op::Div: return callOut(b, "scn_cdiv", t, {re(b, a[0]), im(b, a[0]), re(b, a[1]), im(b, a[1])});
    case Op::Eq: case Op::Ne: {
      Value* eq = b.CreateAnd(b.CreateFCmpOEQ(re(b, a[0]), re(b, a[1])), b.CreateFCmpOEQ(im(b, a[0]), im(b, a[1])));
      return op == Op::Eq ? eq : b.CreateNot(eq);
    }
    case Op::Exp: return callOut(b, "scn_cexp", t, {re(b, a[0]), im(b, a[0])});
    case Op::Log: return callOut(b, "scn_clog", t, {re(b, a[0]), im(b, a[0])});
    case Op::Sqrt: return callOut(b, "scn_csqrt", t, {re(b, a[0]), im(b, a[0])});
    case Op::Sin: return callOut(b, "scn_csin", t, {re(b, a[0]), im(b, a[0])});
    case Op::Cos: return callOut(b, "scn_ccos", t, {re(b, a[0]), im(b, a[0])});
    case Op::Tanh: return callOut(b, "scn_ctanh", t, {re(b, a[0]), im(b, a[0])});
    case Op::Tan: return callOut(b, "scn_ctan", t, {re(b, a[0]), im(b, a[0])});
    case Op::Log1p: return callOut(b, "scn_clog1p", t, {re(b, a[0]), im(b, a[0])});
    case Op::Expm1: return callOut(b, "scn_cexpm1", t, {re(b, a[0]), im(b, a[0])});
    case Op::Log2: return callOut(b, "scn_clog2", t, {re(b, a[0]), im(b, a[0])});
    case Op::Log10: return callOut(b, "scn_clog10", t, {re(b, a[0]), im(b, a[0])});
    case Op::Exp2: return callOut(b, "scn_cexp2", t, {re(b, a[0]), im(b, a[0])});
    case Op::Reciprocal: return callOut(b, "scn_creciprocal", t, {re(b, a[0]), im(b, a[0])});
    case Op::Sigmoid: return callOut(b, "scn_csigmoid", t, {re(b, a[0]), im(b, a[0])});
    case Op::Asin: return callOut(b, "scn_casin", t, {re(b, a[0]), im(b, a[0])});
    case Op::Acos: return callOut(b, "scn_cacos", t, {re(b, a[0]), im(b, a[0])});
    case Op::Atan: return callOut(b, "scn_catan", t, {re(b, a[0]), im(b, a[0])});
    case Op::Asinh: return callOut(b, "scn_casinh", t, {re(b, a[0]), im(b, a[0])});
    case Op::Acosh: return callOut(b, "scn_cacosh", t, {re(b, a[0]), im(b, a[0])});
    case Op::Atanh: return callOut(b, "scn_catanh", t, {re(b, a[0]), im(b, a[0])});
    case Op::Real: return re(b, a[0]);
    case Op::Imag: return im(b, a[0]);
    case Op::Conj: return make(b, t, re(b, a[0]), b.CreateFNeg(im(b, a[0])));
    case Op::ComplexAbs: return callReal(b, "scn_cabs", t, a[0]);
    case Op::Angle: return callReal(b, "scn_cangle", t, a[0]);
    case Op::Complex: return make(b, complexOf(t), a[0], a[1]);  // t: the parts' dtype
    default: break;
  }
  internalError(std::string("emitComplexOp: ") + opName(op) + " on " + dtypeName(t));
}

Value* emitComplexConvert(llvm::IRBuilder<>& b, DType from, DType to, Value* v) {
  if (isComplex(from) && isComplex(to))
    return make(b, to, emitConvert(b, componentType(from), componentType(to), re(b, v)),
                emitConvert(b, componentType(from), componentType(to), im(b, v)));
  if (isComplex(to))
    return make(b, to, emitConvert(b, from, componentType(to), v),
                llvm::ConstantFP::get(partType(b.getContext(), to), 0.0));
  if (to == DType::Bool) {  // z != 0: either part nonzero (NaN counts, as C's !=)
    llvm::Type* pt = partType(b.getContext(), from);
    Value* zero = llvm::ConstantFP::get(pt, 0.0);
    return b.CreateOr(b.CreateFCmpUNE(re(b, v), zero), b.CreateFCmpUNE(im(b, v), zero));
  }
  return emitConvert(b, componentType(from), to, re(b, v));  // drops the imaginary part
}

}  // namespace scn::cpu
