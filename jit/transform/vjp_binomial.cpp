// Reverse mode of scan(..., checkpoints=k) with the binomial schedule (Note [Binomial
// checkpointing] in binomial_schedule.cpp), and of the bounded while loops its backward pass
// runs when it is differentiated again.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>

#include "jit/transform/batch_rules.hpp"
#include "jit/transform/binomial_schedule.hpp"
#include "jit/transform/vjp_scan.hpp"

namespace scn::ad::scan_vjp {

namespace {

// ---- The binomial schedule's IR (Note [Binomial checkpointing] in binomial_schedule.cpp).
// The forward pass is the scan cut at the first sweep's store positions (plain scans between
// them, their boundary carries the stored ones). The backward pass is one reversed scan over the
// steps whose carry holds the ct carry, the consts' running cotangent and the k slots (one
// (k, ...) buffer per carry part); its xs are the schedule's tables. Each step restores its
// carry from a slot, advances to the step with while loops (making the group's stores on the
// way), and runs the step's VJP (residuals recomputed from the carry). Every equation runs in the
// order the stored-residual gradient runs it, so the gradient is the same bit for bit.

int i32Scalar(Builder& b, int64_t v) { return b.full(Type{DType::I32, {}}, static_cast<double>(v)); }

// An i32 vector constant (one 0 when `v` is empty: a table is never empty).
int i32Table(Builder& b, const std::vector<int64_t>& v) {
  Array a(DType::I32, Shape{std::max<int64_t>(1, static_cast<int64_t>(v.size()))});
  for (int64_t i = 0; i < a.size(); ++i) a.setInt(i, static_cast<size_t>(i) < v.size() ? v[static_cast<size_t>(i)] : 0);
  Attrs at;
  at.dtype = DType::I32;
  at.value = std::make_shared<Array>(std::move(a));
  return b.emit1(Op::Constant, {}, std::move(at));
}

// The starts of a block at row `row` (a traced i32) of an array of rank `rank`.
std::vector<int> rowStarts(Builder& b, int row, size_t rank) {
  std::vector<int> starts{row};
  if (rank > 1) starts.resize(rank, i32Scalar(b, 0));
  return starts;
}

// x[row] for a traced row.
int row(Builder& b, int x, int r) {
  Type t = b.type(x);
  std::vector<int> in{x};
  for (int s : rowStarts(b, r, t.shape.size())) in.push_back(s);
  Attrs a;
  a.shape = t.shape;
  a.shape[0] = 1;
  return b.reshape(b.emit1(Op::DynamicSlice, std::move(in), std::move(a)), Shape(t.shape.begin() + 1, t.shape.end()));
}

// x with x[row] = v for a traced row.
int withRow(Builder& b, int x, int v, int r) {
  Type t = b.type(x);
  Shape one = t.shape;
  one[0] = 1;
  std::vector<int> in{x, b.reshape(v, one)};
  for (int s : rowStarts(b, r, t.shape.size())) in.push_back(s);
  return b.emit1(Op::DynamicUpdateSlice, std::move(in));
}

std::vector<int> paramsOf(Func& g, const std::vector<Type>& types) {
  std::vector<int> vs;
  for (const Type& t : types) {
    vs.push_back(g.newVar(t));
    g.params.push_back(vs.back());
  }
  return vs;
}

std::vector<Type> typesOf(const Builder& b, const std::vector<int>& vars) {
  std::vector<Type> r;
  for (int v : vars) r.push_back(b.type(v));
  return r;
}

std::vector<int> cat(std::initializer_list<std::vector<int>> parts) {
  std::vector<int> r;
  for (const std::vector<int>& p : parts) r.insert(r.end(), p.begin(), p.end());
  return r;
}

// A while loop in b: cond(condConsts..., carry...) and body(bodyConsts..., carry...) built by the
// callbacks on fresh parameters; at most `bound` steps (Attrs::length).
using LoopPart = std::function<std::vector<int>(Builder&, const std::vector<int>& consts, const std::vector<int>& carry)>;
std::vector<int> whileLoop(Builder& b, const std::string& name, const std::vector<int>& condConsts,
                           const std::vector<int>& bodyConsts, const std::vector<int>& carry, int64_t bound,
                           const LoopPart& cond, const LoopPart& step) {
  auto make = [&](const std::string& suffix, const std::vector<int>& consts, const LoopPart& part) {
    auto g = std::make_shared<Func>();
    g->name = name + suffix;
    std::vector<int> k = paramsOf(*g, typesOf(b, consts)), c = paramsOf(*g, typesOf(b, carry));
    Builder gb{*g, Span{}};
    g->results = part(gb, k, c);
    return g;
  };
  Attrs a;
  a.numConsts = static_cast<int>(condConsts.size());
  a.numBodyConsts = static_cast<int>(bodyConsts.size());
  a.length = bound;
  FuncPtr c = make("_cond", condConsts, cond), s = make("_step", bodyConsts, step);
  return b.emit(Op::While, cat({condConsts, bodyConsts, carry}), std::move(a), {c, s});
}

// What the loops of the backward step read: the scan's body and attributes, the consts and the
// whole xs (variables of the builder at hand), and the longest advance.
struct Advancing {
  const Func& body;
  const Attrs& attrs;
  int64_t longest;
};

// (t, carry) advanced from step t to step `target` (traced i32 scalars).
std::vector<int> advance(Builder& b, const Advancing& adv, const std::vector<int>& consts, const std::vector<int>& xs,
                         int t, int target, const std::vector<int>& carry) {
  size_t nc = consts.size(), nk = carry.size();
  int64_t n = adv.attrs.length;
  bool reverse = adv.attrs.reverse;
  const Func& body = adv.body;
  return whileLoop(
      b, body.name + "_advance", {target}, cat({consts, xs}), cat({{t}, carry}), adv.longest,
      [](Builder& cb, const std::vector<int>& k, const std::vector<int>& c) {
        return std::vector<int>{cb.emit1(Op::Lt, {c[0], k[0]})};
      },
      [&body, nc, nk, n, reverse](Builder& sb, const std::vector<int>& k, const std::vector<int>& c) {
        int t = c[0];
        int index = reverse ? sb.sub(i32Scalar(sb, n - 1), t) : t;  // the step's xs row
        std::vector<int> args(k.begin(), k.begin() + static_cast<std::ptrdiff_t>(nc));
        args.insert(args.end(), c.begin() + 1, c.end());
        for (size_t i = nc; i < k.size(); ++i) args.push_back(row(sb, k[i], index));
        std::vector<int> out = batching::inlineFunc(sb.dst, body, args);
        std::vector<int> r{sb.add(t, i32Scalar(sb, 1))};
        r.insert(r.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(nk));
        return r;
      });
}

// The backward scan's body: (consts, xs, store positions, store slots; ct carry, ct consts so
// far, slots; restore slot, restore position, first store, end of stores, step, x, ct y) ->
// (ct carry before the step, ct consts so far, slots, ct x).
FuncPtr binomialStepBody(const Func& body, const Attrs& attrs, const BinomialSchedule& s, size_t nx,
                         const VjpOptions& o) {
  size_t nc = static_cast<size_t>(attrs.numConsts), nk = static_cast<size_t>(attrs.numCarry);
  size_t ny = body.results.size() - nk;
  auto g = std::make_shared<Func>();
  g->name = body.name + "_binomial_backward";
  auto typesAt = [&](const std::vector<int>& vars, size_t from, size_t count, int64_t lead) {
    std::vector<Type> r;
    for (size_t i = 0; i < count; ++i) {
      Type t = body.type(vars[from + i]);
      if (lead > 0) t.shape.insert(t.shape.begin(), lead);
      r.push_back(t);
    }
    return r;
  };
  Type i32{DType::I32, {}};
  int64_t stores = 0, longest = 1, mostStores = 1;
  for (const BinomialSchedule::Group& gr : s.groups) {
    stores += static_cast<int64_t>(gr.stores.size());
    mostStores = std::max<int64_t>(mostStores, static_cast<int64_t>(gr.stores.size()));
    longest = std::max(longest, gr.step - gr.restorePosition);
  }
  std::vector<int> consts = paramsOf(*g, typesAt(body.params, 0, nc, 0));
  std::vector<int> xs = paramsOf(*g, typesAt(body.params, nc + nk, nx, attrs.length));
  std::vector<int> tables = paramsOf(*g, {Type{DType::I32, {std::max<int64_t>(1, stores)}},
                                          Type{DType::I32, {std::max<int64_t>(1, stores)}}});
  std::vector<int> ctCarry = paramsOf(*g, typesAt(body.params, nc, nk, 0));
  std::vector<int> acc = paramsOf(*g, typesAt(body.params, 0, nc, 0));
  std::vector<int> slots = paramsOf(*g, typesAt(body.params, nc, nk, s.slotsUsed));
  std::vector<int> step = paramsOf(*g, {i32, i32, i32, i32, i32});  // restore slot and position, stores, step
  std::vector<int> x = paramsOf(*g, typesAt(body.params, nc + nk, nx, 0));
  std::vector<int> ctY = paramsOf(*g, typesAt(body.results, nk, ny, 0));
  Builder gb{*g, Span{}};
  Advancing adv{body, attrs, longest};
  std::vector<int> carry;
  for (int slot : slots) carry.push_back(row(gb, slot, step[0]));
  // The group's stores: advance to each store's position, keep the carry in its slot.
  std::vector<int> stored = whileLoop(
      gb, body.name + "_stores", {step[3]}, cat({consts, xs, tables}), cat({{step[2], step[1]}, carry, slots}),
      mostStores,
      [](Builder& cb, const std::vector<int>& k, const std::vector<int>& c) {
        return std::vector<int>{cb.emit1(Op::Lt, {c[0], k[0]})};
      },
      [&adv, nc, nx, nk](Builder& sb, const std::vector<int>& k, const std::vector<int>& c) {
        std::vector<int> kConsts(k.begin(), k.begin() + static_cast<std::ptrdiff_t>(nc));
        std::vector<int> kXs(k.begin() + static_cast<std::ptrdiff_t>(nc), k.begin() + static_cast<std::ptrdiff_t>(nc + nx));
        int positions = k[nc + nx], slotOf = k[nc + nx + 1], j = c[0];
        std::vector<int> carry(c.begin() + 2, c.begin() + 2 + static_cast<std::ptrdiff_t>(nk));
        std::vector<int> moved = advance(sb, adv, kConsts, kXs, c[1], row(sb, positions, j), carry);
        int slot = row(sb, slotOf, j);
        std::vector<int> r{sb.add(j, i32Scalar(sb, 1)), moved[0]};
        r.insert(r.end(), moved.begin() + 1, moved.end());
        for (size_t i = 0; i < nk; ++i) r.push_back(withRow(sb, c[2 + nk + i], moved[1 + i], slot));
        return r;
      });
  int t = stored[1];
  carry = slice(stored, 2, 2 + nk);
  slots = slice(stored, 2 + nk, 2 + 2 * nk);
  std::vector<int> at = advance(gb, adv, consts, xs, t, step[4], carry);
  carry = slice(at, 1, at.size());
  FuncPtr vb = backwardBody(body, nc, nk, nx, {}, o);
  std::vector<int> out = batching::inlineFunc(*g, *vb, cat({consts, ctCarry, acc, carry, x, ctY}));
  g->results = cat({slice(out, 0, nk + nc), slots, slice(out, nk + nc, out.size())});
  return g;
}

}  // namespace

Forward binomialScan(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need,
                     const VjpOptions& o, Attrs::CheckpointMark budget) {
  const Func& body = *e.subs[0];
  const Attrs& attrs = e.attrs;
  size_t nc = static_cast<size_t>(attrs.numConsts), nk = static_cast<size_t>(attrs.numCarry);
  size_t nx = in.size() - nc - nk, ny = body.results.size() - nk;
  int64_t n = attrs.length;
  auto s = std::make_shared<const BinomialSchedule>(binomialSchedule(n, attrs.checkpoints));
  std::vector<int> consts = slice(in, 0, nc), carry = slice(in, nc, nc + nk), xs = slice(in, nc + nk, in.size());
  // The forward pass: plain scans between the first sweep's stores.
  std::vector<std::vector<int>> slotValues(static_cast<size_t>(s->slotsUsed));
  slotValues[0] = carry;
  std::vector<std::vector<int>> ysPieces(ny);
  int64_t from = 0;
  for (size_t j = 0; j <= s->forwardStores.size(); ++j) {
    int64_t to = j < s->forwardStores.size() ? s->forwardStores[j].position : n;
    SegmentRun run{attrs.reverse ? n - to : from, 1, to - from};  // the xs rows of steps [from, to)
    std::vector<int> args = cat({consts, carry});
    for (int x : xs) args.push_back(flatSegments(b, segmentsOf(b, x, run)));
    std::vector<int> out = b.emit(Op::Scan, std::move(args), segmentAttrs(attrs, to - from), {std::make_shared<Func>(body)});
    carry = slice(out, 0, nk);
    for (size_t i = 0; i < ny; ++i) ysPieces[i].push_back(out[nk + i]);
    if (j < s->forwardStores.size()) slotValues[static_cast<size_t>(s->forwardStores[j].slot)] = carry;
    from = to;
  }
  std::vector<int> primal = carry;
  for (std::vector<int>& pieces : ysPieces) {
    if (attrs.reverse) std::reverse(pieces.begin(), pieces.end());
    primal.push_back(concatRuns(b, pieces));
  }
  // The slots as the forward pass leaves them (unused ones zero until the reverse pass fills them).
  std::vector<int> slots;
  for (size_t i = 0; i < nk; ++i) {
    Type t = b.type(in[nc + i]);
    Shape one = t.shape;
    one.insert(one.begin(), 1);
    std::vector<int> rows;
    for (const std::vector<int>& v : slotValues) rows.push_back(b.reshape(v.empty() ? b.zeros(t) : v[i], one));
    slots.push_back(concatRuns(b, rows));
  }
  Eqn eq = e;
  Backward backward = [eq, in, need, slots, s, nc, nk, nx, o, budget](Builder& bb, const std::vector<Tan>& ct) {
    const Func& body = *eq.subs[0];
    const Attrs& attrs = eq.attrs;
    int64_t n = attrs.length;
    // The tables, one row per step in the xs' index order; the stores flattened.
    std::vector<int64_t> restoreSlot(static_cast<size_t>(n)), restorePosition(static_cast<size_t>(n)),
        firstStore(static_cast<size_t>(n)), endStore(static_cast<size_t>(n)), stepOf(static_cast<size_t>(n)),
        storePosition, storeSlot;
    for (const BinomialSchedule::Group& g : s->groups) {
      size_t at = static_cast<size_t>(attrs.reverse ? n - 1 - g.step : g.step);
      restoreSlot[at] = g.restoreSlot;
      restorePosition[at] = g.restorePosition;
      firstStore[at] = static_cast<int64_t>(storePosition.size());
      for (const BinomialSchedule::Store& st : g.stores) {
        storePosition.push_back(st.position);
        storeSlot.push_back(st.slot);
      }
      endStore[at] = static_cast<int64_t>(storePosition.size());
      stepOf[at] = g.step;
    }
    std::vector<int> ctCarry, acc;
    for (size_t i = 0; i < nk; ++i) ctCarry.push_back(bb.instantiate(ct[i], bb.type(in[nc + i])));
    for (size_t i = 0; i < nc; ++i) acc.push_back(bb.zeros(bb.type(in[i])));
    std::vector<int> consts = slice(in, 0, nc), xs = slice(in, nc + nk, in.size());
    std::vector<int> args = cat({consts, xs, {i32Table(bb, storePosition), i32Table(bb, storeSlot)}, ctCarry, acc, slots});
    for (const std::vector<int64_t>* table : {&restoreSlot, &restorePosition, &firstStore, &endStore, &stepOf})
      args.push_back(i32Table(bb, *table));
    args.insert(args.end(), xs.begin(), xs.end());
    std::vector<int> ctYs = ysCotangents(bb, body, attrs, ct);
    args.insert(args.end(), ctYs.begin(), ctYs.end());
    Attrs a = outerAttrs(attrs, n, static_cast<int>(2 * nk + nc));
    a.numConsts = static_cast<int>(nc + nx + 2);
    a.reverse = !attrs.reverse;
    a.checkpointMark.residualBytes = budget.residualBytes;
    a.checkpointMark.budgetBytes = budget.budgetBytes;
    a.checkpointMark.binomialCarries = s->slotsUsed;
    a.checkpointMark.binomialRecomputedSteps = s->recomputedSteps;
    std::vector<int> r = bb.emit(Op::Scan, std::move(args), std::move(a), {binomialStepBody(body, attrs, *s, nx, o)});
    // (ct carry, ct consts, slots, ct xs) -> (ct carry, ct consts, ct xs)
    std::vector<int> cts = cat({slice(r, 0, nk + nc), slice(r, 2 * nk + nc, r.size())});
    return inputCotangents(cts, nc, nk, need);
  };
  return {primal, backward};
}

// A while loop with a static bound (Attrs::length: the binomial schedule's loops, which a second
// reverse pass meets) in reverse mode: a scan of `length` steps whose body runs the loop's body
// where its condition holds (a cond, so a finished loop's steps compute nothing), which reverse
// mode differentiates like any scan.
Forward boundedWhile(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need,
                     const VjpOptions& o) {
  size_t nc = static_cast<size_t>(e.attrs.numConsts), nb = static_cast<size_t>(e.attrs.numBodyConsts);
  const Func& cond = *e.subs[0];
  const Func& step = *e.subs[1];
  std::vector<Type> bodyConsts = typesOf(b, slice(in, nc, nc + nb)), carry = typesOf(b, slice(in, nc + nb, in.size()));
  auto keep = std::make_shared<Func>();
  keep->name = step.name + "_done";
  paramsOf(*keep, bodyConsts);
  keep->results = paramsOf(*keep, carry);
  auto guarded = std::make_shared<Func>();
  guarded->name = step.name + "_guarded";
  std::vector<int> cc = paramsOf(*guarded, typesOf(b, slice(in, 0, nc))), bc = paramsOf(*guarded, bodyConsts),
                   k = paramsOf(*guarded, carry);
  Builder gb{*guarded, Span{}};
  int running = batching::inlineFunc(*guarded, cond, cat({cc, k})).at(0);
  guarded->results = gb.emit(Op::Cond, cat({{running}, bc, k}), Attrs{}, {keep, std::make_shared<Func>(step)});
  Eqn loop = e;
  loop.op = Op::Scan;
  loop.attrs = Attrs{};
  loop.attrs.numConsts = static_cast<int>(nc + nb);
  loop.attrs.numCarry = static_cast<int>(carry.size());
  loop.attrs.length = e.attrs.length;
  loop.subs = {guarded};
  return scan(b, loop, in, need, o);
}

}  // namespace scn::ad::scan_vjp
