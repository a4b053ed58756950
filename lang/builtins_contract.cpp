// Contractions: einsum tensordot inner vdot kron, lowered to dot_general, transposes, reshapes
// and sums (no op of their own).
#include <algorithm>
#include <map>
#include <set>

#include "lang/builtin_args.hpp"

namespace scn {

AVal dotGeneral(ArrayOps& ops, const AVal& a, const AVal& b, std::vector<int64_t> ca, std::vector<int64_t> cb,
                std::vector<int64_t> ba, std::vector<int64_t> bb, Span span) {
  Attrs at;
  at.lhsContract = std::move(ca);
  at.rhsContract = std::move(cb);
  at.lhsBatch = std::move(ba);
  at.rhsBatch = std::move(bb);
  return ops.tracer().apply1(Op::DotGeneral, {a, b}, at, span);
}

namespace {

bool given(const Args& a, size_t i) { return a.has(i) && !a.get(i).isNone(); }

/// a and b at one dtype for a product (bool multiplies as i32, as matmul's operands).
void promotePair(ArrayOps& ops, AVal& a, AVal& b, Span span) {
  a = defaultize(a, span);
  b = defaultize(b, span);
  DType t = promoteTypes(a, b);
  if (t == DType::Bool) t = DType::I32;
  a = ops.convert(a, t, span);
  b = ops.convert(b, t, span);
}

// ---- einsum ----

// Note [Einsum]
// einsum(spec, *operands) names each operand's axes by letters ("ij,jk->ik"); "..." stands for
// the axes no letter names, broadcast across operands as NumPy's trailing axes. Without "->" the
// output is the ellipsis axes, then the letters that occur once, in alphabetical order. The
// lowering works on (array, labels) pairs: (1) a label repeated within one operand takes that
// diagonal (the two axes multiplied by the identity and one summed); (2) a label that no other
// operand and not the output has is summed away; (3) while two or more operands are left, the
// pair whose contraction costs the fewest multiply-adds (the product of the sizes of all their
// labels; the first such pair in operand order on ties) becomes one dot_general: labels both
// have and something later needs are batch axes, labels both have and nothing later needs are
// contracted, the rest free; (4) the last operand is transposed into the output's order. This
// greedy order is what opt_einsum calls 'greedy' in spirit; it is optimal for chains of two or
// three operands such as "ij,jk,k->i" (the vector first).

/// An operand with a label per axis (letters are their char; ellipsis axes -1, -2, ...).
struct Labelled {
  AVal x;
  std::vector<int> labels;
  Span span;
};

struct EinsumSpec {
  std::vector<std::vector<int>> inputs;  // per operand, its labels (ellipsis axes already named)
  std::vector<int> output;
};

int ellipsisLabel(int64_t fromRight) { return -1 - static_cast<int>(fromRight); }  // -1: the last ellipsis axis

std::string labelName(int l) { return l >= 0 ? std::string(1, static_cast<char>(l)) : "..."; }

/// Parses one term: letters and at most one "...", expanded to `rank` labels (ellipsisRank
/// is the number the ellipsis stands for, found from the operand).
std::vector<int> parseTerm(const std::string& term, int64_t rank, Span span, const std::string& what, bool* hasEllipsis) {
  std::vector<int> letters;
  int64_t ellipsisAt = -1;
  for (size_t i = 0; i < term.size(); ++i) {
    char ch = term[i];
    if (ch == '.') {
      if (term.compare(i, 3, "...") != 0 || ellipsisAt >= 0)
        fail("E0285", span, "einsum's subscripts have a stray `.` in " + what + " `" + term + "`",
             "an ellipsis is exactly `...`, at most once per term");
      ellipsisAt = static_cast<int64_t>(letters.size());
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(ch))) {
      letters.push_back(ch);
    } else {
      fail("E0285", span, std::string("einsum's subscripts have the character `") + ch + "` in " + what + " `" + term + "`",
           "subscripts are letters a-z, A-Z, `...`, `,` and `->`");
    }
  }
  *hasEllipsis = ellipsisAt >= 0;
  if (rank < 0) rank = static_cast<int64_t>(letters.size());  // the output: sized by the caller
  int64_t covered = rank - static_cast<int64_t>(letters.size());
  if (covered < 0 || (ellipsisAt < 0 && covered != 0))
    fail("E0285", span, "einsum's " + what + " `" + term + "` names " + std::to_string(letters.size()) +
                            " axes but the operand has " + std::to_string(rank),
         "give one letter per axis, or `...` for the axes not named");
  std::vector<int> labels;
  for (size_t i = 0; i <= letters.size(); ++i) {
    if (static_cast<int64_t>(i) == ellipsisAt)
      for (int64_t e = covered; e-- > 0;) labels.push_back(ellipsisLabel(e));
    if (i < letters.size()) labels.push_back(letters[i]);
  }
  return labels;
}

EinsumSpec parseSpec(const std::string& raw, const std::vector<AVal>& xs, Span span) {
  std::string spec;
  for (char ch : raw)
    if (ch != ' ') spec += ch;
  size_t arrow = spec.find("->");
  if (arrow != std::string::npos && spec.find("->", arrow + 1) != std::string::npos)
    fail("E0285", span, "einsum's subscripts `" + raw + "` have more than one `->`", "write inputs->output, e.g. \"ij,jk->ik\"");
  std::string lhs = spec.substr(0, arrow);
  std::vector<std::string> terms{""};
  for (char ch : lhs) {
    if (ch == ',') terms.emplace_back();
    else terms.back() += ch;
  }
  if (terms.size() != xs.size())
    fail("E0285", span, "einsum's subscripts `" + raw + "` have " + std::to_string(terms.size()) + " input term" +
                            (terms.size() == 1 ? "" : "s") + " but " + std::to_string(xs.size()) + " operand" +
                            (xs.size() == 1 ? " was" : "s were") + " given",
         "give one comma-separated term per operand");
  EinsumSpec s;
  int64_t ellipsisRank = 0;
  std::map<int, int> count;
  for (size_t i = 0; i < terms.size(); ++i) {
    bool e = false;
    s.inputs.push_back(parseTerm(terms[i], static_cast<int64_t>(xs[i].type.shape.size()), span,
                                 "term " + std::to_string(i), &e));
    (void)e;
    for (int l : s.inputs.back()) {
      if (l < 0) ellipsisRank = std::max<int64_t>(ellipsisRank, -l);
      else ++count[l];
    }
  }
  if (arrow == std::string::npos) {
    for (int64_t e = ellipsisRank; e-- > 0;) s.output.push_back(ellipsisLabel(e));
    for (auto [l, n] : count)
      if (n == 1) s.output.push_back(l);
    return s;
  }
  std::string out = spec.substr(arrow + 2);
  bool outEllipsis = false;
  parseTerm(out, -1, span, "output", &outEllipsis);  // the syntax only
  std::set<int> seen;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '.') {  // "..." stands for every ellipsis axis
      for (int64_t e = ellipsisRank; e-- > 0;) s.output.push_back(ellipsisLabel(e));
      i += 2;
      continue;
    }
    int l = out[i];
    if (!count.count(l))
      fail("E0285", span, "einsum's output `" + out + "` has the index `" + labelName(l) + "` that no input has",
           "every output index must appear in an input term");
    if (!seen.insert(l).second)
      fail("E0285", span, "einsum's output `" + out + "` repeats the index `" + labelName(l) + "`", "an output index appears once");
    s.output.push_back(l);
  }
  return s;
}

/// The size of every label, checking that operands agree (1 broadcasts for ellipsis axes).
std::map<int, int64_t> labelSizes(const std::vector<Labelled>& ops, Span span) {
  std::map<int, int64_t> size;
  std::map<int, size_t> from;
  for (size_t i = 0; i < ops.size(); ++i)
    for (size_t d = 0; d < ops[i].labels.size(); ++d) {
      int l = ops[i].labels[d];
      int64_t n = ops[i].x.type.shape[d];
      auto it = size.find(l);
      if (it == size.end() || (l < 0 && it->second == 1)) {
        size[l] = n;
        from[l] = i;
      } else if (it->second != n && !(l < 0 && n == 1)) {
        fail("E0286", ops[i].span, "einsum's index `" + labelName(l) + "` has size " + std::to_string(it->second) +
                                       " in operand " + std::to_string(from[l]) + " but size " + std::to_string(n) +
                                       " in operand " + std::to_string(i),
             "an index names axes of one size in every operand");
      }
    }
  return size;
}

/// Takes the diagonal of each label repeated within o (Note [Einsum] step 1).
void takeDiagonals(ArrayOps& ops, Labelled& o, Span span) {
  for (bool again = true; again;) {
    again = false;
    for (size_t p = 0; p < o.labels.size() && !again; ++p)
      for (size_t q = p + 1; q < o.labels.size() && !again; ++q) {
        if (o.labels[p] != o.labels[q]) continue;
        const Shape& s = o.x.type.shape;
        int64_t n = s[p];
        Shape eyeShape(s.size(), 1);
        eyeShape[p] = eyeShape[q] = n;
        AVal rows = ops.iota(DType::I32, {n, n}, 0, span), cols = ops.iota(DType::I32, {n, n}, 1, span);
        AVal eye = ops.reshape(ops.binary(Op::Eq, rows, cols, span, "einsum"), eyeShape, span);
        AVal zero = strongScalar(o.x.type.dtype, 0);
        AVal masked = ops.select(ops.broadcastTo(eye, s, span, "einsum"), o.x, zero, span, "einsum");
        o.x = ops.reduce(Op::ReduceSum, masked, std::vector<int64_t>{static_cast<int64_t>(q)}, span, "einsum");
        o.labels.erase(o.labels.begin() + q);
        again = true;
      }
  }
}

/// Sums the labels of operand `i` that no other operand and not `keep` has (step 2).
void sumPrivateLabels(ArrayOps& ops, std::vector<Labelled>& all, size_t i, const std::vector<int>& keep, Span span) {
  Labelled& o = all[i];
  std::vector<int64_t> axes;
  std::vector<int> left;
  for (size_t d = 0; d < o.labels.size(); ++d) {
    int l = o.labels[d];
    bool needed = std::count(keep.begin(), keep.end(), l) > 0;
    for (size_t j = 0; j < all.size() && !needed; ++j)
      needed = j != i && std::count(all[j].labels.begin(), all[j].labels.end(), l) > 0;
    if (needed) left.push_back(l);
    else axes.push_back(static_cast<int64_t>(d));
  }
  if (axes.empty()) return;
  o.x = ops.reduce(Op::ReduceSum, o.x, axes, span, "einsum");
  o.labels = left;
}

/// The label sizes of operands a and b together (their multiply-adds when contracted).
double pairCost(const Labelled& a, const Labelled& b, const std::map<int, int64_t>& size) {
  std::set<int> all(a.labels.begin(), a.labels.end());
  all.insert(b.labels.begin(), b.labels.end());
  double cost = 1;
  for (int l : all) cost *= static_cast<double>(size.at(l));
  return cost;
}

/// Broadcasts o's size-1 ellipsis axes to the sizes the other operands give them.
void broadcastEllipsis(ArrayOps& ops, Labelled& o, const std::map<int, int64_t>& size, Span span) {
  Shape want = o.x.type.shape;
  for (size_t d = 0; d < o.labels.size(); ++d) want[d] = size.at(o.labels[d]);
  if (want != o.x.type.shape) o.x = ops.broadcastTo(o.x, want, span, "einsum");
}

/// One dot_general of a and b (step 3); labels others (or the output) need are kept.
Labelled contractPair(ArrayOps& ops, const Labelled& a, const Labelled& b, const std::set<int>& needed, Span span) {
  std::vector<int64_t> ca, cb, ba, bb;
  std::vector<int> batch, freeA, freeB;
  for (size_t i = 0; i < a.labels.size(); ++i) {
    int l = a.labels[i];
    auto it = std::find(b.labels.begin(), b.labels.end(), l);
    if (it == b.labels.end()) {
      freeA.push_back(l);
      continue;
    }
    int64_t j = it - b.labels.begin();
    if (needed.count(l)) {
      ba.push_back(static_cast<int64_t>(i));
      bb.push_back(j);
      batch.push_back(l);
    } else {
      ca.push_back(static_cast<int64_t>(i));
      cb.push_back(j);
    }
  }
  for (int l : b.labels)
    if (std::find(a.labels.begin(), a.labels.end(), l) == a.labels.end()) freeB.push_back(l);
  AVal x = a.x, y = b.x;
  promotePair(ops, x, y, span);
  Labelled r{dotGeneral(ops, x, y, ca, cb, ba, bb, span), batch, span};
  r.labels.insert(r.labels.end(), freeA.begin(), freeA.end());
  r.labels.insert(r.labels.end(), freeB.begin(), freeB.end());
  return r;
}

// einsum(subscripts, operands...)
Value einsum(Evaluator& ev, CallArgs& c) {
  ArrayOps& ops = ev.ops();
  if (c.pos.empty() || c.pos[0].kind != ValueKind::String)
    fail("E0285", c.pos.empty() ? c.span : c.posSpans[0], "einsum needs its subscripts as a string first",
         "einsum(\"ij,jk->ik\", a, b)");
  CallArgs keywords = c;
  keywords.pos.clear();
  keywords.posSpans.clear();
  Args kw(ev, keywords, "einsum", {"optimize="});  // accepted and ignored: the order is always greedy
  std::vector<Labelled> all;
  std::vector<AVal> xs;
  for (size_t i = 1; i < c.pos.size(); ++i) xs.push_back(defaultize(toArray(c.pos[i], c.posSpans[i], "einsum"), c.posSpans[i]));
  if (xs.empty()) fail("E0285", c.span, "einsum needs at least one operand", "einsum(\"ii\", a) is the trace of a");
  EinsumSpec spec = parseSpec(c.pos[0].str, xs, c.posSpans[0]);
  for (size_t i = 0; i < xs.size(); ++i) all.push_back({xs[i], spec.inputs[i], c.posSpans[i + 1]});
  std::map<int, int64_t> size = labelSizes(all, c.span);
  for (Labelled& o : all) {
    takeDiagonals(ops, o, c.span);
    broadcastEllipsis(ops, o, size, c.span);
  }
  for (size_t i = 0; i < all.size(); ++i) sumPrivateLabels(ops, all, i, spec.output, c.span);
  while (all.size() > 1) {
    size_t bi = 0, bj = 1;
    double best = -1;
    for (size_t i = 0; i < all.size(); ++i)
      for (size_t j = i + 1; j < all.size(); ++j) {
        double cost = pairCost(all[i], all[j], size);
        if (best < 0 || cost < best) {
          best = cost;
          bi = i;
          bj = j;
        }
      }
    std::set<int> needed(spec.output.begin(), spec.output.end());
    for (size_t k = 0; k < all.size(); ++k)
      if (k != bi && k != bj) needed.insert(all[k].labels.begin(), all[k].labels.end());
    Labelled r = contractPair(ops, all[bi], all[bj], needed, c.span);
    all.erase(all.begin() + bj);
    all[bi] = std::move(r);
    for (size_t i = 0; i < all.size(); ++i) sumPrivateLabels(ops, all, i, spec.output, c.span);
  }
  Labelled& last = all[0];
  std::vector<int64_t> perm;
  for (int l : spec.output)
    perm.push_back(std::find(last.labels.begin(), last.labels.end(), l) - last.labels.begin());
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  AVal r = identity ? last.x : ops.transpose(last.x, perm, c.span);
  if (r.type.dtype == DType::Bool) r = ops.convert(r, DType::I32, c.span);
  return arr(r);
}

// ---- tensordot inner vdot kron ----

/// tensordot's axes of one operand: an int, or a tuple or list of ints (static), normalised.
std::vector<int64_t> axesList(const Value& v, Span span, size_t rank) {
  std::vector<int64_t> out;
  auto one = [&](int64_t ax) { out.push_back(ArrayOps::normAxis(ax, rank, span, "tensordot")); };
  if (v.isTuple()) {
    for (const Value& x : *v.elems) one(staticInt(toArray(x, span, "tensordot"), StaticUse::Axis, span, "`axes` of tensordot"));
  } else if (v.isArray() && v.array->isStatic() && v.array->type.shape.size() == 1 && isInteger(v.array->type.dtype)) {
    for (int64_t k = 0; k < v.array->concrete->size(); ++k) one(v.array->concrete->getInt(k));
  } else {
    one(staticInt(toArray(v, span, "tensordot"), StaticUse::Axis, span, "`axes` of tensordot"));
  }
  return out;
}

// tensordot(a, b, axes=2)
Value tensordot(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "tensordot", {"a", "b", "axes="});
  AVal x = a.array(0), y = a.array(1);
  ArrayOps& ops = ev.ops();
  promotePair(ops, x, y, c.span);
  size_t rx = x.type.shape.size(), ry = y.type.shape.size();
  std::vector<int64_t> ax, ay;
  Value axes = given(a, 2) ? a.get(2) : Value::ofArray(weakInt(2));
  // A pair (axes_a, axes_b): a tuple of two, or a static 2 x k list of lists.
  std::vector<Value> pair;
  if (axes.isTuple() && axes.elems->size() == 2) pair = *axes.elems;
  if (axes.isArray() && axes.array->isStatic() && axes.array->type.shape.size() == 2 && axes.array->type.shape[0] == 2) {
    const Array& m = *axes.array->concrete;
    int64_t k = m.shape[1];
    for (int64_t r = 0; r < 2; ++r) {
      std::vector<Value> row;
      for (int64_t j = 0; j < k; ++j) row.push_back(Value::ofArray(weakInt(m.getInt(r * k + j))));
      pair.push_back(Value::ofTuple(std::move(row)));
    }
  }
  if (!pair.empty()) {
    ax = axesList(pair[0], a.span(2), rx);
    ay = axesList(pair[1], a.span(2), ry);
  } else {
    int64_t n = a.integer(2, 2);
    if (n < 0 || n > static_cast<int64_t>(std::min(rx, ry)))
      fail("E0287", a.span(2), "tensordot got axes=" + std::to_string(n) + " for shapes " + shapeString(x.type.shape) +
                                   " and " + shapeString(y.type.shape),
           "axes=N contracts the last N axes of a with the first N of b; N is at most the smaller rank");
    for (int64_t i = 0; i < n; ++i) {
      ax.push_back(static_cast<int64_t>(rx) - n + i);
      ay.push_back(i);
    }
  }
  if (ax.size() != ay.size())
    fail("E0287", a.span(2), "tensordot got " + std::to_string(ax.size()) + " axes of a but " + std::to_string(ay.size()) + " of b",
         "give the same number of axes for both");
  for (size_t i = 0; i < ax.size(); ++i)
    if (x.type.shape[ax[i]] != y.type.shape[ay[i]])
      fail("E0287", c.span, "tensordot contracts axis " + std::to_string(ax[i]) + " of a (size " + std::to_string(x.type.shape[ax[i]]) +
                                ") with axis " + std::to_string(ay[i]) + " of b (size " + std::to_string(y.type.shape[ay[i]]) +
                                "), shapes " + shapeString(x.type.shape) + " and " + shapeString(y.type.shape),
           "contracted axes must have one size");
  return arr(dotGeneral(ops, x, y, ax, ay, {}, {}, c.span));
}

// inner(a, b): the sum product over the last axes (a * b for scalars).
Value inner(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "inner", {"a", "b"});
  AVal x = a.array(0), y = a.array(1);
  ArrayOps& ops = ev.ops();
  if (x.type.shape.empty() || y.type.shape.empty()) return arr(ops.binary(Op::Mul, x, y, c.span, "inner"));
  promotePair(ops, x, y, c.span);
  int64_t lx = static_cast<int64_t>(x.type.shape.size()) - 1, ly = static_cast<int64_t>(y.type.shape.size()) - 1;
  if (x.type.shape[lx] != y.type.shape[ly])
    fail("E0287", c.span, "inner got shapes " + shapeString(x.type.shape) + " and " + shapeString(y.type.shape),
         "the last axes must have one size (" + std::to_string(x.type.shape[lx]) + " != " + std::to_string(y.type.shape[ly]) + ")");
  return arr(dotGeneral(ops, x, y, {lx}, {ly}, {}, {}, c.span));
}

// vdot(a, b): the sum product of the flattened conj(a) and b, as jnp.vdot.
Value vdot(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "vdot", {"a", "b"});
  AVal x = a.array(0), y = a.array(1);
  ArrayOps& ops = ev.ops();
  promotePair(ops, x, y, c.span);
  int64_t nx = numElements(x.type.shape), ny = numElements(y.type.shape);
  if (nx != ny)
    fail("E0287", c.span, "vdot got " + std::to_string(nx) + " and " + std::to_string(ny) + " elements (shapes " +
                              shapeString(x.type.shape) + " and " + shapeString(y.type.shape) + ")",
         "vdot flattens both arrays, which need one number of elements");
  if (isComplex(x.type.dtype)) x = ops.complexPart(Op::Conj, x, c.span);
  return arr(dotGeneral(ops, ops.reshape(x, {nx}, c.span), ops.reshape(y, {ny}, c.span), {0}, {0}, {}, {}, c.span));
}

// kron(a, b): the Kronecker product; the ranks are evened out with leading 1s as NumPy does.
Value kron(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "kron", {"a", "b"});
  AVal x = a.array(0), y = a.array(1);
  ArrayOps& ops = ev.ops();
  promotePair(ops, x, y, c.span);
  Shape sx = x.type.shape, sy = y.type.shape;
  size_t r = std::max(sx.size(), sy.size());
  sx.insert(sx.begin(), r - sx.size(), 1);
  sy.insert(sy.begin(), r - sy.size(), 1);
  Shape ix, iy, out;  // x as (x0, 1, x1, 1, ...), y as (1, y0, 1, y1, ...)
  for (size_t d = 0; d < r; ++d) {
    ix.insert(ix.end(), {sx[d], 1});
    iy.insert(iy.end(), {1, sy[d]});
    out.push_back(sx[d] * sy[d]);
  }
  AVal p = ops.binary(Op::Mul, ops.reshape(x, ix, c.span), ops.reshape(y, iy, c.span), c.span, "kron");
  return arr(ops.reshape(p, out, c.span));
}

}  // namespace

BuiltinDefs contractBuiltins() {
  return {{},
          {
              {"einsum(subscripts, operands..., optimize=\"greedy\")",
               "the contraction of the operands that the subscripts name (\"ij,jk->ik\"), in a greedy order for 3 or more", einsum},
              {"tensordot(a, b, axes=2)", "the sum product over the last `axes` axes of a and the first of b, or over (axes_a, axes_b)", tensordot},
              {"inner(a, b)", "the sum product of a and b over their last axes", inner},
              {"vdot(a, b)", "the sum product of the flattened a and b", vdot},
              {"kron(a, b)", "the Kronecker product of a and b", kron},
          }};
}

}  // namespace scn
