// The tracer target's program generator: random shapes, dtypes, builtins and nested control flow.
//
// Every expression is generated for a wanted type (dtype and shape) and is well typed by
// construction, so most programs get past the tracer and exercise the IR, the passes and both
// backends. Where the language's exact result dtype is not modelled here (reductions of
// integers, argmax), the expression is pinned with astype(.., dtype).
#include "program_gen.hpp"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace scn::fuzz {

namespace {

enum class DT { F32, F64, I32, I64, U32, Bool };
constexpr DT kAllDT[] = {DT::F32, DT::F64, DT::I32, DT::I64, DT::U32, DT::Bool};

const char* dtName(DT t) {
  switch (t) {
    case DT::F32: return "f32";
    case DT::F64: return "f64";
    case DT::I32: return "i32";
    case DT::I64: return "i64";
    case DT::U32: return "u32";
    case DT::Bool: return "bool";
  }
  return "?";
}
bool isFloatDT(DT t) { return t == DT::F32 || t == DT::F64; }
bool isIntDT(DT t) { return t == DT::I32 || t == DT::I64 || t == DT::U32; }

struct Ty {
  DT dt = DT::F32;
  std::vector<int> shape;
  bool operator==(const Ty& o) const { return dt == o.dt && shape == o.shape; }
};

long numel(const std::vector<int>& s) {
  long n = 1;
  for (int d : s) n *= d;
  return n;
}

std::string shapeText(const std::vector<int>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  if (s.size() == 1) r += ",";
  return r + ")";
}

struct Var {
  std::string name;
  Ty ty;
};

class Gen {
 public:
  Gen(const uint8_t* data, size_t size, const GenOptions& o) : in_(data, size), opts_(o) {}

  GeneratedProgram program();

 private:
  // ---- choices ----
  bool coin(int percent) { return in_.ConsumeIntegralInRange<int>(0, 99) < percent; }
  int pick(int lo, int hi) { return in_.ConsumeIntegralInRange<int>(lo, hi); }
  DT pickDT() { return kAllDT[pick(0, 5)]; }
  DT pickNumDT() { return kAllDT[pick(0, 4)]; }
  int pickDim() {
    if (opts_.emptyDims && coin(4)) return 0;
    return pick(1, 4);
  }
  std::vector<int> pickShape(int maxRank = 3) {
    std::vector<int> s(pick(0, maxRank));
    for (int& d : s) d = pickDim();
    return s;
  }
  /// A new lambda / loop variable name ("lc3"); never equal to a parameter (a0) or a let (v0).
  std::string fresh(const char* prefix) { return prefix + std::to_string(counter_++); }

  // ---- literals ----
  std::string scalarLit(DT t) {
    int v = pick(-3, 5);
    switch (t) {
      case DT::F32: return "(" + std::to_string(v) + ".5f32)";
      case DT::F64: return "(" + std::to_string(v) + ".25f64)";
      case DT::I32: return "(" + std::to_string(v) + "i32)";
      case DT::I64: return "(" + std::to_string(v) + "i64)";
      case DT::U32: return std::to_string(std::abs(v)) + "u32";
      case DT::Bool: return v > 1 ? "true" : "false";
    }
    return "0";
  }
  /// A weakly typed literal that keeps `t` in arithmetic (ints for ints, floats for floats).
  std::string weakLit(DT t) {
    int v = pick(1, 4);
    return isFloatDT(t) ? std::to_string(v) + ".5" : std::to_string(v);
  }
  std::string constant(const Ty& t) {
    if (t.shape.empty()) return scalarLit(t.dt);
    return "full(" + shapeText(t.shape) + ", " + scalarLit(t.dt) + ")";
  }

  // ---- conversions ----
  /// `e` of dtype `from` converted to `to`, keeping float -> int casts defined.
  std::string cast(const std::string& e, DT from, DT to) {
    if (from == to) return e;
    if (isFloatDT(from) && (isIntDT(to)) && !opts_.rawCasts) {
      std::string lo = to == DT::U32 ? "0.0" : "-1000.0";
      return "astype(where(isnan(" + e + "), 0.0, clip(" + e + ", " + lo + ", 1000.0)), " + dtName(to) + ")";
    }
    if (to == DT::Bool) return "(" + e + " != " + (isFloatDT(from) ? "0.0" : from == DT::Bool ? "false" : "0") + ")";
    return "astype(" + e + ", " + dtName(to) + ")";
  }

  // ---- expressions ----
  std::string expr(const Ty& t, int depth);
  std::string leaf(const Ty& t);
  std::string elementwise(const Ty& t, int depth);
  std::string structural(const Ty& t, int depth);
  std::string reduction(const Ty& t, int depth);
  std::string control(const Ty& t, int depth);
  // ---- statements that build large values (rare: they make an input slow) ----
  std::string longLoop(Var v);
  /// An elementwise operand of type `t` from the variables and the loop variable `iv`.
  std::string chainOperand(const Ty& t, const std::string& iv);
  std::string closureChain(Var v);
  std::string deepTuple(Var v, std::vector<std::string>& results);
  /// A shape that broadcasts to `s` (a suffix of it, some dimensions turned to 1).
  std::vector<int> broadcastable(const std::vector<int>& s) {
    std::vector<int> r(s.begin() + pick(0, static_cast<int>(s.size())), s.end());
    for (int& d : r)
      if (coin(25)) d = 1;
    return r;
  }
  /// Runs `body` with extra variables in scope.
  std::string withVars(const std::vector<Var>& vs, const std::function<std::string()>& body) {
    size_t n = vars_.size();
    vars_.insert(vars_.end(), vs.begin(), vs.end());
    std::string r = body();
    vars_.resize(n);
    return r;
  }

  FuzzedDataProvider in_;
  GenOptions opts_;
  std::vector<Var> vars_;
  int counter_ = 0;
  bool usesPeel_ = false;  // the prelude needs `peel` (deepTuple)
};

std::string Gen::leaf(const Ty& t) {
  std::vector<const Var*> exact, sameShape, any;
  for (const Var& v : vars_) {
    if (v.ty == t) exact.push_back(&v);
    else if (v.ty.shape == t.shape) sameShape.push_back(&v);
    any.push_back(&v);
  }
  if (!exact.empty() && coin(80)) return exact[pick(0, static_cast<int>(exact.size()) - 1)]->name;
  if (!sameShape.empty() && coin(60)) {
    const Var* v = sameShape[pick(0, static_cast<int>(sameShape.size()) - 1)];
    return cast(v->name, v->ty.dt, t.dt);
  }
  if (!any.empty() && coin(60)) {
    const Var* v = any[pick(0, static_cast<int>(any.size()) - 1)];
    std::string e = v->name;
    if (numel(v->ty.shape) == numel(t.shape) && v->ty.shape != t.shape) {
      e = "reshape(" + e + ", " + shapeText(t.shape) + ")";
    } else if (v->ty.shape != t.shape) {
      if (numel(v->ty.shape) == 0) return constant(t);
      // A scalar from it, broadcast to the shape.
      std::string s = v->ty.dt == DT::Bool ? "any(" + e + ")" : "max(" + e + ")";
      e = "broadcast_to(" + s + ", " + shapeText(t.shape) + ")";
    }
    return cast(e, v->ty.dt, t.dt);
  }
  return constant(t);
}

std::string Gen::elementwise(const Ty& t, int depth) {
  if (t.dt == DT::Bool) {
    switch (pick(0, 3)) {
      case 0: {
        Ty a{pickNumDT(), broadcastable(t.shape)};
        static const char* cmp[] = {"<", "<=", ">", ">=", "==", "!="};
        return "(" + expr(Ty{a.dt, t.shape}, depth - 1) + " " + cmp[pick(0, 5)] + " " + expr(a, depth - 1) + ")";
      }
      case 1: return "(" + expr(t, depth - 1) + (coin(50) ? " && " : " || ") + expr(Ty{DT::Bool, broadcastable(t.shape)}, depth - 1) + ")";
      case 2: return "(!" + expr(t, depth - 1) + ")";
      default: return "isnan(" + expr(Ty{coin(50) ? DT::F32 : DT::F64, t.shape}, depth - 1) + ")";
    }
  }
  std::string x = expr(t, depth - 1);
  if (isFloatDT(t.dt)) {
    switch (pick(0, 19)) {
      case 0: return "sin(" + x + ")";
      case 1: return "cos(" + x + ")";
      case 2: return "tanh(" + x + ")";
      case 3: return "exp(clip(" + x + ", -20.0, 20.0))";
      case 4: return "sqrt(abs(" + x + "))";
      case 5: return "log(abs(" + x + ") + 1.0)";
      case 6: return "sigmoid(" + x + ")";
      case 7: return "floor(" + x + ")";
      case 8: return "ceil(" + x + ")";
      case 9: return "round(" + x + ")";
      case 10: return "sign(" + x + ")";
      case 11: return "(-" + x + ")";
      case 12: return "(abs(" + x + ") ** " + weakLit(t.dt) + ")";
      case 13: return "log1p(abs(" + x + "))";
      case 14: return "expm1(clip(" + x + ", -5.0, 5.0))";
      case 15: return "rsqrt(abs(" + x + ") + 1.0)";
      case 16: return "tan(clip(" + x + ", -1.0, 1.0))";
      default: break;  // binary below
    }
  } else {
    switch (pick(0, 5)) {
      case 0: return "abs(" + x + ")";
      case 1: return t.dt == DT::U32 ? x : "(-" + x + ")";
      case 2: return "sign(" + x + ")";
      default: break;
    }
  }
  // Binary: the other operand broadcasts; for floats it may be of a type that promotes to t.
  Ty o{t.dt, broadcastable(t.shape)};
  if (coin(25)) {
    if (t.dt == DT::F32) o.dt = std::vector<DT>{DT::F32, DT::I32, DT::I64, DT::U32, DT::Bool}[pick(0, 4)];
    else if (t.dt == DT::F64) o.dt = kAllDT[pick(0, 5)];
    else if (t.dt == DT::I64) o.dt = std::vector<DT>{DT::I32, DT::I64, DT::U32, DT::Bool}[pick(0, 3)];
    else if (t.dt == DT::I32) o.dt = coin(50) ? DT::I32 : DT::Bool;
  }
  std::string y = coin(20) ? weakLit(t.dt) : expr(o, depth - 1);
  bool swap = coin(50);
  auto bin = [&](const std::string& op) { return swap ? "(" + y + " " + op + " " + x + ")" : "(" + x + " " + op + " " + y + ")"; };
  switch (pick(0, 9)) {
    case 0: case 1: return bin("+");
    case 2: case 3: return bin("-");
    case 4: case 5: return bin("*");
    case 6: return "maximum(" + x + ", " + y + ")";
    case 7: return "minimum(" + x + ", " + y + ")";
    case 8:
      if (isFloatDT(t.dt)) return bin("/");
      [[fallthrough]];
    default: {
      const char* op = coin(50) ? "//" : "%";
      if (isIntDT(t.dt) && opts_.safeIntDiv) return "(" + x + " " + op + " maximum(abs(" + y + "), 1))";
      return "(" + x + " " + op + " " + y + ")";
    }
  }
}

std::string Gen::reduction(const Ty& t, int depth) {
  // Input: t's shape with one more axis of size k at `ax`.
  int ax = pick(0, static_cast<int>(t.shape.size()));
  std::vector<int> s = t.shape;
  s.insert(s.begin() + ax, pickDim());
  if (t.dt == DT::Bool) {
    Ty in{DT::Bool, s};
    return std::string(coin(50) ? "all(" : "any(") + expr(in, depth - 1) + ", axis=" + std::to_string(ax) + ")";
  }
  if (numel(s) == 0 || coin(10)) {
    // sum over an empty axis is fine; max/min/argmax of an empty axis is an error (user error).
    Ty in{t.dt, s};
    return cast("sum(" + expr(in, depth - 1) + ", axis=" + std::to_string(ax) + ")", t.dt, t.dt);
  }
  DT inDT = coin(70) ? t.dt : pickNumDT();
  Ty in{inDT, s};
  std::string x = expr(in, depth - 1), a = std::to_string(ax);
  switch (pick(0, 7)) {
    case 0: return "astype(sum(" + x + ", axis=" + a + "), " + dtName(t.dt) + ")";
    case 1: return "astype(prod(" + x + ", axis=" + a + "), " + dtName(t.dt) + ")";
    case 2: return cast("max(" + x + ", axis=" + a + ")", inDT, t.dt);
    case 3: return cast("min(" + x + ", axis=" + a + ")", inDT, t.dt);
    case 4: return cast("mean(" + x + ", axis=" + a + ")", isFloatDT(inDT) ? inDT : (inDT == DT::I64 ? DT::F64 : DT::F32), t.dt);
    case 5: return "astype(" + std::string(coin(50) ? "argmax(" : "argmin(") + x + ", axis=" + a + "), " + dtName(t.dt) + ")";
    case 6:
      if (t.shape.empty() && numel(s) > 0) return cast(std::string(coin(50) ? "max(" : "min(") + x + ")", inDT, t.dt);
      [[fallthrough]];
    default: {
      // Cumulative ops keep the shape: apply to t itself.
      static const char* cum[] = {"cumsum", "cumprod", "cummax", "cummin"};
      if (t.shape.empty()) return "astype(sum(" + x + "), " + std::string(dtName(t.dt)) + ")";
      int cax = pick(0, static_cast<int>(t.shape.size()) - 1);
      return "astype(" + std::string(cum[pick(0, 3)]) + "(" + expr(t, depth - 1) + ", axis=" + std::to_string(cax) +
             (coin(30) ? ", reverse=true" : "") + "), " + dtName(t.dt) + ")";
    }
  }
}

std::string Gen::structural(const Ty& t, int depth) {
  const auto& s = t.shape;
  int r = static_cast<int>(s.size());
  switch (pick(0, 13)) {
    case 0: {  // reshape from another factorisation
      long n = numel(s);
      std::vector<int> s2;
      if (n == 0 || coin(50)) s2 = {static_cast<int>(n)};
      else {
        for (int d : s) {
          if (d % 2 == 0 && d > 2 && coin(50)) { s2.push_back(2); s2.push_back(d / 2); }
          else s2.push_back(d);
        }
        if (coin(30)) s2.insert(s2.begin(), 1);
      }
      return "reshape(" + expr(Ty{t.dt, s2}, depth - 1) + ", " + shapeText(s) + ")";
    }
    case 1: {  // transpose
      if (r < 2) break;
      std::vector<int> p(r);
      for (int i = 0; i < r; ++i) p[i] = i;
      for (int i = r - 1; i > 0; --i) std::swap(p[i], p[pick(0, i)]);
      std::vector<int> in(r);
      for (int i = 0; i < r; ++i) in[p[i]] = s[i];
      std::string ps = "(";
      for (int i = 0; i < r; ++i) ps += (i ? ", " : "") + std::to_string(p[i]);
      ps += ")";
      if (r == 2 && p[0] == 1 && coin(50)) return expr(Ty{t.dt, in}, depth - 1) + ".T";
      return "transpose(" + expr(Ty{t.dt, in}, depth - 1) + ", axes=" + ps + ")";
    }
    case 2: {  // a slice along one axis
      if (r == 0) break;
      int d = pick(0, r - 1);
      std::vector<int> in = s;
      int start = pick(0, 2), step = coin(30) ? 2 : 1;
      in[d] = start + (s[d] == 0 ? 0 : (s[d] - 1) * step + 1) + pick(0, 2);
      std::string idx;
      for (int i = 0; i < d; ++i) idx += ":, ";
      idx += std::to_string(start) + ":" + std::to_string(start + s[d] * step) + (step == 2 ? ":2" : "");
      return expr(Ty{t.dt, in}, depth - 1) + "[" + idx + "]";
    }
    case 3: {  // an integer index removes an axis
      int d = pick(0, r);
      std::vector<int> in = s;
      int m = pick(1, 4);
      in.insert(in.begin() + d, m);
      std::string idx;
      for (int i = 0; i < d; ++i) idx += ":, ";
      idx += std::to_string(pick(-m, m - 1));
      return expr(Ty{t.dt, in}, depth - 1) + "[" + idx + "]";
    }
    case 4: {  // concat along an axis
      if (r == 0 || s[0] < 1) break;
      int d = pick(0, r - 1);
      if (s[d] < 1) break;
      int k = pick(0, s[d]);
      std::vector<int> a = s, b = s;
      a[d] = k;
      b[d] = s[d] - k;
      return "concat((" + expr(Ty{t.dt, a}, depth - 1) + ", " + expr(Ty{t.dt, b}, depth - 1) + "), axis=" + std::to_string(d) + ")";
    }
    case 5: {  // stack
      if (r == 0 || s[0] < 1) break;
      int d = pick(0, r - 1);
      if (s[d] < 1) break;
      std::vector<int> part = s;
      part.erase(part.begin() + d);
      std::string items;
      for (int i = 0; i < s[d]; ++i) items += expr(Ty{t.dt, part}, depth - 1) + ", ";
      return "stack((" + items + "), axis=" + std::to_string(d) + ")";
    }
    case 6:  // broadcast_to
      return "broadcast_to(" + expr(Ty{t.dt, broadcastable(s)}, depth - 1) + ", " + shapeText(s) + ")";
    case 7: {  // expand_dims / None index
      int d = -1;
      for (int i = 0; i < r; ++i)
        if (s[i] == 1) d = i;
      if (d < 0) break;
      std::vector<int> in = s;
      in.erase(in.begin() + d);
      if (d == 0 && coin(50)) return expr(Ty{t.dt, in}, depth - 1) + "[None]";
      return "expand_dims(" + expr(Ty{t.dt, in}, depth - 1) + ", " + std::to_string(d) + ")";
    }
    case 8: {  // squeeze
      int d = pick(0, r);
      std::vector<int> in = s;
      in.insert(in.begin() + d, 1);
      return "squeeze(" + expr(Ty{t.dt, in}, depth - 1) + ", axis=" + std::to_string(d) + ")";
    }
    case 9:  // flip
      if (r == 0) break;
      return "flip(" + expr(t, depth - 1) + ", axis=" + std::to_string(pick(0, r - 1)) + ")";
    case 10: {  // matmul / dot
      if (!isFloatDT(t.dt) && coin(70)) break;
      if (t.dt == DT::Bool) break;
      int k = pick(1, 4);
      if (r == 0) return "dot(" + expr(Ty{t.dt, {k}}, depth - 1) + ", " + expr(Ty{t.dt, {k}}, depth - 1) + ")";
      if (r == 1) return "(" + expr(Ty{t.dt, {k}}, depth - 1) + " @ " + expr(Ty{t.dt, {k, s[0]}}, depth - 1) + ")";
      std::vector<int> a = s, b = {k, s[r - 1]};
      a[r - 1] = k;
      if (coin(40)) {  // batched on both sides
        b = s;
        b[r - 2] = k;
      }
      return "(" + expr(Ty{t.dt, a}, depth - 1) + " @ " + expr(Ty{t.dt, b}, depth - 1) + ")";
    }
    case 11: {  // dynamic_slice with possibly out-of-range starts (clamped)
      if (r == 0) break;
      std::vector<int> in = s;
      std::string starts = "(";
      for (int i = 0; i < r; ++i) {
        in[i] += pick(0, 2);
        starts += (i ? ", " : "") + (coin(30) ? leaf(Ty{DT::I32, {}}) : std::to_string(pick(-1, 4)));
      }
      if (r == 1) starts += ",";
      starts += ")";
      return "dynamic_slice(" + expr(Ty{t.dt, in}, depth - 1) + ", " + starts + ", " + shapeText(s) + ")";
    }
    case 12: {  // dynamic_update_slice
      if (r == 0) break;
      std::vector<int> up = s;
      std::string starts = "(";
      for (int i = 0; i < r; ++i) {
        up[i] = pick(0, s[i]);
        starts += (i ? ", " : "") + (coin(30) ? leaf(Ty{DT::I32, {}}) : std::to_string(pick(-1, 4)));
      }
      if (r == 1) starts += ",";
      starts += ")";
      return "dynamic_update_slice(" + expr(t, depth - 1) + ", " + expr(Ty{t.dt, up}, depth - 1) + ", " + starts + ")";
    }
    default: {  // select / where
      std::string c = expr(Ty{DT::Bool, coin(50) ? s : broadcastable(s)}, depth - 1);
      return std::string(coin(50) ? "where(" : "select(") + c + ", " + expr(t, depth - 1) + ", " +
             expr(Ty{t.dt, broadcastable(s)}, depth - 1) + ")";
    }
  }
  return elementwise(t, depth);
}

std::string Gen::control(const Ty& t, int depth) {
  switch (pick(0, 8)) {
    case 0: case 1: {  // scan returning the carry or the stacked ys
      bool wantYs = !t.shape.empty() && coin(50);
      Ty carry = wantYs ? Ty{pickDT(), pickShape(1)} : t;
      Ty y = wantYs ? Ty{t.dt, std::vector<int>(t.shape.begin() + 1, t.shape.end())} : Ty{pickDT(), pickShape(1)};
      int len = wantYs ? t.shape[0] : pickDim();
      bool noXs = coin(25);
      Ty row{pickDT(), pickShape(2)};
      std::vector<int> xsShape = row.shape;
      xsShape.insert(xsShape.begin(), len);
      std::string c = fresh("lc"), x = fresh("lx");
      std::string init = expr(carry, depth - 1);
      std::string xs = noXs ? "None" : expr(Ty{row.dt, xsShape}, depth - 1);
      std::vector<Var> params = {{c, carry}};
      if (!noXs) params.push_back({x, row});
      std::string body = withVars(params, [&] {
        return "(" + expr(carry, depth - 1) + ", " + expr(y, depth - 1) + ")";
      });
      std::string extra;
      if (noXs) extra += ", length=" + std::to_string(len);
      if (coin(30)) extra += ", reverse=true";
      if (coin(20)) extra += ", unroll=" + std::to_string(pick(1, 3));
      return "scan(|" + c + ", " + (noXs ? std::string("_") : x) + "| " + body + ", " + init + ", " + xs + extra + ")." +
             (wantYs ? "1" : "0");
    }
    case 2: {  // fori_loop
      std::string i = fresh("li"), c = fresh("lc");
      std::string lo = std::to_string(pick(0, 2)), hi = std::to_string(pick(0, 4));
      if (coin(25)) hi = "minimum(" + leaf(Ty{DT::I32, {}}) + ", 5)";  // traced trip count
      std::string init = expr(t, depth - 1);
      std::string body = withVars({{i, Ty{DT::I32, {}}}, {c, t}}, [&] { return expr(t, depth - 1); });
      return "fori_loop(" + lo + ", " + hi + ", |" + i + ", " + c + "| " + body + ", " + init + ")";
    }
    case 3: {  // while_loop with a counter in the state
      std::string s = fresh("ls"), v = fresh("lv");
      std::string init = expr(t, depth - 1);
      std::string body = withVars({{v, t}}, [&] { return expr(t, depth - 1); });
      return "while_loop(|" + s + "| " + s + ".0 < " + std::to_string(pick(0, 4)) + ", |" + s + "| { let " + v + " = " +
             s + ".1; (" + s + ".0 + 1, " + body + ") }, (0, " + init + ")).1";
    }
    case 4: case 5: {  // vmap, with in_axes/out_axes
      if (t.shape.empty()) break;
      int outAx = coin(70) ? 0 : pick(0, static_cast<int>(t.shape.size()) - 1);
      int b = t.shape[outAx];
      std::vector<int> lane = t.shape;
      lane.erase(lane.begin() + outAx);
      Ty argLane{pickDT(), pickShape(2)};
      int inAx = pick(0, static_cast<int>(argLane.shape.size()));
      std::vector<int> argShape = argLane.shape;
      argShape.insert(argShape.begin() + inAx, b);
      bool second = coin(40);
      Ty other{pickDT(), pickShape(1)};
      std::string a = fresh("la"), o = fresh("lo");
      std::vector<Var> params = {{a, argLane}};
      if (second) params.push_back({o, other});
      std::string body = withVars(params, [&] { return expr(Ty{t.dt, lane}, depth - 1); });
      std::string args = expr(Ty{argLane.dt, argShape}, depth - 1);
      std::string axes = second ? "(" + std::to_string(inAx) + ", None)" : std::to_string(inAx);
      if (second) args += ", " + expr(other, depth - 1);
      return "vmap(|" + a + (second ? ", " + o : "") + "| " + body + ", in_axes=" + axes + ", out_axes=" +
             std::to_string(outAx) + ")(" + args + ")";
    }
    case 6: {  // cond
      std::string p = expr(Ty{DT::Bool, {}}, depth - 1);
      Ty op{pickDT(), pickShape(2)};
      std::string a = fresh("la");
      std::string tb = withVars({{a, op}}, [&] { return expr(t, depth - 1); });
      std::string fb = withVars({{a, op}}, [&] { return expr(t, depth - 1); });
      return "cond(" + p + ", |" + a + "| " + tb + ", |" + a + "| " + fb + ", " + expr(op, depth - 1) + ")";
    }
    case 7: {  // associative_scan
      if (t.shape.empty() || t.dt == DT::Bool) break;
      std::string a = fresh("lp"), b = fresh("lq");
      // The single ops become cumsum/cummax/cummin/cumprod; the next two are the associative_scan
      // op with a scalar combiner (Note [Associative scans]): "the last nonzero value" and a
      // maximum written with two ops; the last scans a tuple.
      int k = pick(0, 6);
      if (k == 6)  // two arrays scanned together: composed affine maps (a linear recurrence)
        return "associative_scan(|" + a + ", " + b + "| (" + a + ".0 * " + b + ".0, " + b + ".0 * " + a + ".1 + " + b +
               ".1), (" + expr(t, depth - 1) + ", " + expr(t, depth - 1) + ")).1";
      std::string f = k == 0   ? a + " + " + b
                      : k == 3 ? a + " * " + b
                      : k == 4 ? "where(" + b + " != 0, " + b + ", " + a + ")"
                      : k == 5 ? "minimum(maximum(" + a + ", " + b + "), maximum(" + b + ", " + a + "))"
                               : std::string(k == 1 ? "maximum(" : "minimum(") + a + ", " + b + ")";
      return "associative_scan(|" + a + ", " + b + "| " + f + ", " + expr(t, depth - 1) + ")";
    }
    default: {  // a lambda called directly (inlined)
      Ty p{pickDT(), pickShape(2)};
      std::string a = fresh("la");
      std::string body = withVars({{a, p}}, [&] { return expr(t, depth - 1); });
      return "(|" + a + "| " + body + ")(" + expr(p, depth - 1) + ")";
    }
  }
  return structural(t, depth);
}

std::string Gen::expr(const Ty& t, int depth) {
  if (depth <= 0 || in_.remaining_bytes() == 0) return leaf(t);
  int k = pick(0, 99);
  if (k < 25) return leaf(t);
  if (k < 55) return elementwise(t, depth);
  if (k < 75) return structural(t, depth);
  if (k < 85) return reduction(t, depth);
  if (opts_.control) return control(t, depth);
  return structural(t, depth);
}

// Long dependent chains: `v` updated by a static loop of up to 5000 trips (~25000 operations,
// within E0105's budget of 200000). The update reads the other variables and the loop variable
// but not `v`, and a float `v` is halved each step, so rounding differences between backends
// shrink instead of growing. Past 100 trips the update is elementwise, one fused kernel: a
// reduction per trip makes a kernel per trip, and the CPU backend's compile time grows faster
// than the number of kernels (1000 took 10 s), too slow for one fuzzer input.
std::string Gen::longLoop(Var v) {
  static const int kTrips[] = {100, 1000, 2000, 5000};
  int trips = kTrips[pick(0, 3)];
  std::string iv = fresh("lk");
  std::vector<Var> saved = vars_;
  std::erase_if(vars_, [&](const Var& w) { return w.name == v.name; });
  std::string e;
  if (trips > 100) {
    e = chainOperand(v.ty, iv);
  } else {
    vars_.push_back({iv, Ty{DT::I32, {}}});
    bool control = std::exchange(opts_.control, false);  // a scan per trip compiles for long
    e = expr(v.ty, 1);
    opts_.control = control;
  }
  vars_ = saved;
  std::string upd = isFloatDT(v.ty.dt) ? v.name + " * 0.5 + tanh(" + e + ")"
                    : v.ty.dt == DT::Bool ? "(" + v.name + " != " + e + ")"
                                          : v.name + " + " + e;
  return "for " + iv + " in 0.." + std::to_string(trips) + " { " + v.name + " = " + upd + " }\n";
}

std::string Gen::chainOperand(const Ty& t, const std::string& iv) {
  std::vector<const Var*> same;
  for (const Var& w : vars_)
    if (w.ty.shape == t.shape) same.push_back(&w);
  if (!same.empty() && coin(70)) {
    const Var* w = same[pick(0, static_cast<int>(same.size()) - 1)];
    return cast(w->name, w->ty.dt, t.dt);
  }
  if (coin(50)) return constant(t);
  return "broadcast_to(" + cast(iv, DT::I32, t.dt) + ", " + shapeText(t.shape) + ")";
}

// A chain of closures, each calling the one before (the scope collector's worst case, Note
// [Scope cycles]). Called only when shorter than the call depth limit (E0104 at 200).
std::string Gen::closureChain(Var v) {
  static const int kLinks[] = {10, 150, 1000, 20000};
  int links = kLinks[pick(0, 3)];
  std::string g = fresh("lg"), h = fresh("lh"), x = fresh("lx"), iv = fresh("lk");
  std::string step = isFloatDT(v.ty.dt) ? h + "(" + x + ") * 0.5 + 1.5"
                     : v.ty.dt == DT::Bool ? "!" + h + "(" + x + ")"
                                           : h + "(" + x + ") + 1";
  std::string s = "let " + g + " = |" + x + "| " + x + "\n";
  s += "for " + iv + " in 0.." + std::to_string(links) + " { let " + h + " = " + g + "\n  " + g + " = |" + x + "| " +
       step + " }\n";
  if (links < 200) s += v.name + " = " + g + "(" + v.name + ")\n";
  return s;
}

// Deeply nested tuples (Note [Deep values]): `v` wrapped `depth` times, around the limit of
// 1000 levels (E0108 beyond it, on every run alike), then printed, compared, passed through a
// scan carry, vmap and a `fn`, and unwrapped again by `peel`.
std::string Gen::deepTuple(Var v, std::vector<std::string>& results) {
  static const int kDepths[] = {1, 30, 999, 1000, 1001, 5000};
  int depth = kDepths[pick(0, 5)];
  std::string t = fresh("lt"), iv = fresh("lk"), c = fresh("lc");
  // `==` of tuples needs static leaves (Note [Comparing values]): a twin of static constants.
  bool compare = coin(50);
  std::string twin = fresh("ls");
  std::string s = "let " + t + " = " + v.name + "\n";
  if (compare) s += "let " + twin + " = " + constant(v.ty) + "\n";
  s += "for " + iv + " in 0.." + std::to_string(depth) + " { " + t + " = (" + t + ",)" +
       (compare ? "\n  " + twin + " = (" + twin + ",)" : "") + " }\n";
  if (coin(30)) s += "print(" + t + ")\n";
  if (coin(50)) s += t + " = scan(|" + c + ", _| (" + c + ", None), " + t + ", None, length=" + std::to_string(pick(0, 2)) + ").0\n";
  if (!v.ty.shape.empty() && v.ty.shape[0] > 0 && coin(50)) s += t + " = vmap(|" + c + "| " + c + ")(" + t + ")\n";
  if (compare) {
    std::string b = fresh("lb");
    s += "let " + b + " = " + twin + " == " + twin + "\n";
    vars_.push_back({b, Ty{DT::Bool, {}}});
    results.push_back(b);
  }
  usesPeel_ = true;
  return s + v.name + " = peel(" + t + ", " + std::to_string(depth) + ")\n";
}

GeneratedProgram Gen::program() {
  GeneratedProgram g;
  // Inputs: deterministic values in a small range.
  int nIn = pick(1, 3);
  std::vector<Var> inputs;
  for (int i = 0; i < nIn; ++i) {
    Ty t{pickDT(), pickShape()};
    std::string name = "x" + std::to_string(i);
    long n = numel(t.shape);
    int a = pick(1, 7), m = pick(2, 9), off = pick(0, 4);
    std::string base = "((arange(" + std::to_string(n) + ") * " + std::to_string(a) + ") % " + std::to_string(m) + ")";
    std::string val;
    if (t.dt == DT::Bool) val = "(" + base + " < " + std::to_string(m / 2) + ")";
    else if (isFloatDT(t.dt)) val = "(astype(" + base + ", " + dtName(t.dt) + ") * 0.5 - " + std::to_string(off) + ".0)";
    else if (t.dt == DT::U32) val = "astype(" + base + ", u32)";
    else val = "astype(" + base + " - " + std::to_string(off) + ", " + dtName(t.dt) + ")";
    g.prelude += "let " + name + " = reshape(" + val + ", " + shapeText(t.shape) + ")\n";
    inputs.push_back({name, t});
  }
  int staticN = pick(0, 3);
  g.prelude += "let nn = " + std::to_string(staticN) + "\n";

  // The body of f: lets (and a static `for` now and then), then a tuple of results.
  std::string params, args, eagerArgs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string p = "a" + std::to_string(i);
    params += ", " + p;
    args += ", " + inputs[i].name;
    eagerArgs += "let " + p + " = " + inputs[i].name + "\n";
    vars_.push_back({p, inputs[i].ty});
  }
  std::string body;
  int nStmts = pick(1, 4);
  std::vector<std::string> results;
  for (int i = 0; i < nStmts; ++i) {
    Ty t{pickDT(), pickShape()};
    std::string v = "v" + std::to_string(i);
    body += "let " + v + " = " + expr(t, pick(1, 5)) + "\n";
    vars_.push_back({v, t});
    if (coin(25)) {
      std::string iv = fresh("lk");
      std::string upd = withVars({{iv, Ty{DT::I32, {}}}}, [&] { return expr(t, pick(1, 3)); });
      body += "for " + iv + " in 0..n { " + v + " = " + upd + " }\n";
    }
    switch (pick(0, 49)) {
      case 0: case 1: body += longLoop(vars_.back()); break;
      case 2: body += closureChain(vars_.back()); break;
      case 3: case 4: body += deepTuple(vars_.back(), results); break;
      default: break;
    }
    if (i == nStmts - 1 || coin(40)) results.push_back(v);
  }
  std::string tuple = "(";
  for (const std::string& r : results) tuple += r + ", ";
  tuple += ")";
  if (usesPeel_) g.prelude += "fn peel(t, static d) {\n  let y = t\n  for i in 0..d { y = y.0 }\n  y\n}\n";
  g.traced = "fn f(static n" + params + ") {\n" + body + tuple + "\n}\nf(nn" + args + ")\n";
  g.eager = "let n = nn\n" + eagerArgs + body + tuple + "\n";
  return g;
}

}  // namespace

GenOptions GenOptions::fromEnv() {
  auto flag = [](const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::string(v) != "0";
  };
  GenOptions o;
  o.safeIntDiv = flag("SCN_FUZZ_SAFE_DIV");
  o.rawCasts = flag("SCN_FUZZ_RAW_CASTS");
  o.control = !flag("SCN_FUZZ_NO_CONTROL");
  o.emptyDims = !flag("SCN_FUZZ_NO_EMPTY");
  return o;
}

GeneratedProgram generateProgram(const uint8_t* data, size_t size, const GenOptions& opts) {
  return Gen(data, size, opts).program();
}

}  // namespace scn::fuzz
