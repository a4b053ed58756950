// Scalar semantics in LLVM IR: the one place the CPU JIT mirrors jit/scalar.hpp
// (Note [Scalar semantics]): wrapping integers, Python floor division and remainder, division
// by zero = 0, NaN-propagating max/min, saturating float -> integer conversion.
#include <llvm/IR/Intrinsics.h>

#include "jit/cpu/llvm_emit.hpp"
#include "lang/diagnostics.hpp"

namespace scn::cpu {

using llvm::Value;

llvm::Type* regType(llvm::LLVMContext& c, DType t) {
  switch (t) {
    case DType::Bool: return llvm::Type::getInt1Ty(c);
    case DType::I32: case DType::U32: return llvm::Type::getInt32Ty(c);
    case DType::I64: case DType::U64: return llvm::Type::getInt64Ty(c);
    case DType::F32: return llvm::Type::getFloatTy(c);
    case DType::F64: return llvm::Type::getDoubleTy(c);
  }
  return nullptr;
}

llvm::Type* memType(llvm::LLVMContext& c, DType t) {
  return t == DType::Bool ? llvm::Type::getInt8Ty(c) : regType(c, t);
}

namespace {

Value* intrinsic(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, std::vector<Value*> args) {
  return b.CreateIntrinsic(id, {args[0]->getType()}, args);
}

/// A pure libm function (tanhf, log1p, ...): declared memory(none) so it can be vectorised.
Value* libm(llvm::IRBuilder<>& b, const char* name32, const char* name64, Value* x) {
  llvm::Module* m = b.GetInsertBlock()->getModule();
  bool f32 = x->getType()->isFloatTy();
  llvm::FunctionType* ft = llvm::FunctionType::get(x->getType(), {x->getType()}, false);
  llvm::FunctionCallee fn = m->getOrInsertFunction(f32 ? name32 : name64, ft);
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  return b.CreateCall(fn, {x});
}

Value* intPow(llvm::IRBuilder<>& b, DType t, Value* x, Value* y) {
  const char* name = t == DType::I32 ? "scn_ipow_i32" : t == DType::I64 ? "scn_ipow_i64"
                     : t == DType::U32 ? "scn_ipow_u32" : "scn_ipow_u64";
  llvm::Module* m = b.GetInsertBlock()->getModule();
  llvm::FunctionType* ft = llvm::FunctionType::get(x->getType(), {x->getType(), x->getType()}, false);
  llvm::FunctionCallee fn = m->getOrInsertFunction(name, ft);
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  return b.CreateCall(fn, {x, y});
}

Value* cst(Value* like, double v) { return llvm::ConstantFP::get(like->getType(), v); }
Value* ci(Value* like, int64_t v) {
  return llvm::ConstantInt::get(like->getType(), static_cast<uint64_t>(v), true);
}

/// Integer division family with the zero and INT_MIN / -1 rules of scalar.hpp.
Value* intDivide(llvm::IRBuilder<>& b, Op op, bool isSigned, Value* x, Value* y) {
  Value* zero = ci(x, 0);
  Value* isZero = b.CreateICmpEQ(y, zero);
  if (!isSigned) {
    Value* safe = b.CreateSelect(isZero, ci(y, 1), y);
    Value* r = op == Op::Rem ? b.CreateURem(x, safe) : b.CreateUDiv(x, safe);
    return b.CreateSelect(isZero, zero, r);
  }
  Value* isM1 = b.CreateICmpEQ(y, ci(y, -1));
  Value* safe = b.CreateSelect(b.CreateOr(isZero, isM1), ci(y, 1), y);
  Value* q = b.CreateSDiv(x, safe);
  Value* r = b.CreateSRem(x, safe);
  Value* signsDiffer = b.CreateXor(b.CreateICmpSLT(r, zero), b.CreateICmpSLT(y, zero));
  Value* fix = b.CreateAnd(b.CreateICmpNE(r, zero), signsDiffer);
  Value* result = nullptr;
  Value* onM1 = nullptr;
  if (op == Op::Div) {
    result = q;
    onM1 = b.CreateSub(zero, x);
  } else if (op == Op::FloorDiv) {
    result = b.CreateSub(q, b.CreateZExt(fix, q->getType()));
    onM1 = b.CreateSub(zero, x);
  } else {  // Rem
    result = b.CreateSelect(fix, b.CreateAdd(r, y), r);
    onM1 = zero;
  }
  result = b.CreateSelect(isM1, onM1, result);
  return b.CreateSelect(isZero, zero, result);
}

Value* floatRem(llvm::IRBuilder<>& b, Value* x, Value* y) {
  Value* r = b.CreateFRem(x, y);
  Value* zero = cst(x, 0.0);
  Value* signsDiffer = b.CreateXor(b.CreateFCmpOLT(r, zero), b.CreateFCmpOLT(y, zero));
  Value* moved = b.CreateSelect(signsDiffer, b.CreateFAdd(r, y), r);
  Value* signedZero = intrinsic(b, llvm::Intrinsic::copysign, {zero, y});
  return b.CreateSelect(b.CreateFCmpUNE(r, zero), moved, signedZero);
}

}  // namespace

Value* emitScalarOp(llvm::IRBuilder<>& b, Op op, DType t, const std::vector<Value*>& a) {
  bool fl = isFloat(t), sg = isSignedInt(t);
  using llvm::Intrinsic::ID;
  namespace I = llvm::Intrinsic;
  auto un = [&](ID id) { return intrinsic(b, id, {a[0]}); };
  switch (op) {
    // ---- unary ----
    case Op::Neg: return fl ? b.CreateFNeg(a[0]) : b.CreateSub(ci(a[0], 0), a[0]);
    case Op::Not: return b.CreateNot(a[0]);
    case Op::Abs:
      if (fl) return un(I::fabs);
      if (sg) return b.CreateSelect(b.CreateICmpSLT(a[0], ci(a[0], 0)), b.CreateSub(ci(a[0], 0), a[0]), a[0]);
      return a[0];
    case Op::Sign:
      if (fl)
        return b.CreateSelect(b.CreateFCmpOGT(a[0], cst(a[0], 0)), cst(a[0], 1),
                              b.CreateSelect(b.CreateFCmpOLT(a[0], cst(a[0], 0)), cst(a[0], -1), a[0]));
      if (sg)
        return b.CreateSub(b.CreateZExt(b.CreateICmpSGT(a[0], ci(a[0], 0)), a[0]->getType()),
                           b.CreateZExt(b.CreateICmpSLT(a[0], ci(a[0], 0)), a[0]->getType()));
      return b.CreateZExt(b.CreateICmpNE(a[0], ci(a[0], 0)), a[0]->getType());
    case Op::Floor: return un(I::floor);
    case Op::Ceil: return un(I::ceil);
    case Op::Round: return un(I::roundeven);
    case Op::Sqrt: return un(I::sqrt);
    case Op::Rsqrt: return b.CreateFDiv(cst(a[0], 1), un(I::sqrt));
    case Op::Exp: return un(I::exp);
    case Op::Log: return un(I::log);
    case Op::Log1p: return libm(b, "log1pf", "log1p", a[0]);
    case Op::Expm1: return libm(b, "expm1f", "expm1", a[0]);
    case Op::Sin: return un(I::sin);
    case Op::Cos: return un(I::cos);
    case Op::Tan: return libm(b, "tanf", "tan", a[0]);
    case Op::Tanh: return libm(b, "tanhf", "tanh", a[0]);
    case Op::Sigmoid: {
      Value* e = intrinsic(b, I::exp, {b.CreateFNeg(a[0])});
      return b.CreateFDiv(cst(a[0], 1), b.CreateFAdd(cst(a[0], 1), e));
    }
    case Op::IsNan:
      if (fl) return b.CreateFCmpUNO(a[0], a[0]);
      return b.getFalse();
    // ---- binary ----
    case Op::Add: return fl ? b.CreateFAdd(a[0], a[1]) : b.CreateAdd(a[0], a[1]);
    case Op::Sub: return fl ? b.CreateFSub(a[0], a[1]) : b.CreateSub(a[0], a[1]);
    case Op::Mul: return fl ? b.CreateFMul(a[0], a[1]) : b.CreateMul(a[0], a[1]);
    case Op::Div: return fl ? b.CreateFDiv(a[0], a[1]) : intDivide(b, op, sg, a[0], a[1]);
    case Op::FloorDiv:
      if (fl) return intrinsic(b, I::floor, {b.CreateFDiv(a[0], a[1])});
      return intDivide(b, sg ? op : Op::Div, sg, a[0], a[1]);
    case Op::Rem: return fl ? floatRem(b, a[0], a[1]) : intDivide(b, op, sg, a[0], a[1]);
    case Op::Pow: return fl ? intrinsic(b, I::pow, {a[0], a[1]}) : intPow(b, t, a[0], a[1]);
    case Op::Max:
      if (fl) return intrinsic(b, I::maximum, {a[0], a[1]});
      return intrinsic(b, sg ? I::smax : I::umax, {a[0], a[1]});
    case Op::Min:
      if (fl) return intrinsic(b, I::minimum, {a[0], a[1]});
      return intrinsic(b, sg ? I::smin : I::umin, {a[0], a[1]});
    case Op::And: return b.CreateAnd(a[0], a[1]);
    case Op::Or: return b.CreateOr(a[0], a[1]);
    case Op::Xor: return b.CreateXor(a[0], a[1]);
    case Op::Shl: {
      unsigned w = a[0]->getType()->getIntegerBitWidth();
      Value* big = b.CreateICmpUGE(a[1], ci(a[1], w));
      Value* s = b.CreateShl(a[0], b.CreateAnd(a[1], ci(a[1], w - 1)));
      return b.CreateSelect(big, ci(a[0], 0), s);
    }
    case Op::Shr: {
      unsigned w = a[0]->getType()->getIntegerBitWidth();
      if (sg) return b.CreateAShr(a[0], intrinsic(b, I::umin, {a[1], ci(a[1], w - 1)}));
      Value* big = b.CreateICmpUGE(a[1], ci(a[1], w));
      Value* s = b.CreateLShr(a[0], b.CreateAnd(a[1], ci(a[1], w - 1)));
      return b.CreateSelect(big, ci(a[0], 0), s);
    }
    // ---- comparisons (IEEE: NaN compares false except ne) ----
    case Op::Eq: return fl ? b.CreateFCmpOEQ(a[0], a[1]) : b.CreateICmpEQ(a[0], a[1]);
    case Op::Ne: return fl ? b.CreateFCmpUNE(a[0], a[1]) : b.CreateICmpNE(a[0], a[1]);
    case Op::Lt: return fl ? b.CreateFCmpOLT(a[0], a[1]) : sg ? b.CreateICmpSLT(a[0], a[1]) : b.CreateICmpULT(a[0], a[1]);
    case Op::Le: return fl ? b.CreateFCmpOLE(a[0], a[1]) : sg ? b.CreateICmpSLE(a[0], a[1]) : b.CreateICmpULE(a[0], a[1]);
    case Op::Gt: return fl ? b.CreateFCmpOGT(a[0], a[1]) : sg ? b.CreateICmpSGT(a[0], a[1]) : b.CreateICmpUGT(a[0], a[1]);
    case Op::Ge: return fl ? b.CreateFCmpOGE(a[0], a[1]) : sg ? b.CreateICmpSGE(a[0], a[1]) : b.CreateICmpUGE(a[0], a[1]);
    case Op::Select: return b.CreateSelect(a[0], a[1], a[2]);
    case Op::Convert: case Op::Constant: case Op::Iota: case Op::ReduceSum: case Op::ReduceProd:
    case Op::ReduceMax: case Op::ReduceMin: case Op::ReduceAnd: case Op::ReduceOr:
    case Op::ArgMax: case Op::ArgMin: case Op::CumSum: case Op::CumProd: case Op::CumMax:
    case Op::CumMin: case Op::AssocScan: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose:
    case Op::Concat: case Op::Slice: case Op::Reverse: case Op::DynamicSlice:
    case Op::DynamicUpdateSlice: case Op::DotGeneral: case Op::Scan: case Op::While:
    case Op::Cond:
      break;
  }
  internalError(std::string("emitScalarOp: not a scalar op: ") + opName(op));
}

Value* emitConvert(llvm::IRBuilder<>& b, DType from, DType to, Value* v) {
  if (from == to) return v;
  llvm::Type* rt = regType(b.getContext(), to);
  if (to == DType::Bool)
    return isFloat(from) ? b.CreateFCmpUNE(v, cst(v, 0)) : b.CreateICmpNE(v, ci(v, 0));
  if (from == DType::Bool) return isFloat(to) ? b.CreateUIToFP(v, rt) : b.CreateZExt(v, rt);
  if (isFloat(from) && isFloat(to)) return b.CreateFPCast(v, rt);
  if (isFloat(from))  // NaN -> 0, saturating: exactly llvm.fpto[su]i.sat
    return b.CreateIntrinsic(isSignedInt(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                             {rt, v->getType()}, {v});
  if (isFloat(to)) return isSignedInt(from) ? b.CreateSIToFP(v, rt) : b.CreateUIToFP(v, rt);
  return b.CreateIntCast(v, rt, isSignedInt(from));  // wraps
}


}  // namespace scn::cpu
