// Batching rules of the collectives: the rule of the axis a collective names consumes it (a
// reduction or a gather over the lanes, then over the processes under pmap); collectives over
// other axes are batched like the elementwise op they are to this axis.
#include <map>

#include "base/diagnostics.hpp"
#include "jit/transform/batch_rules.hpp"

namespace scn::batching {

// Note [Named axes]
// scn takes JAX's pmap vocabulary (not shard_map): `vmap(f, axis_name="i")` and
// `pmap(f, axis_name="i")` name the axis they map, and the collectives psum, pmean, pmax, pmin,
// all_gather, ppermute and axis_index name the axis they work across. pmap is one mapped axis,
// which is all seed 001 and data-parallel training ask for; shard_map's meshes and partition
// specs would add a second vocabulary of sharding for the same programs, with nothing yet that
// needs it (docs/distributed.md).
//
// The tracer traces the mapped function once, per lane, so a collective is an equation of that
// per-lane function (ops.def's Collective category) with the axis name as an attribute; the
// tracer checks that some enclosing vmap/pmap binds the name (lang/builtins_dist.cpp). Batching
// that function over the named axis consumes the collective, as JAX's batching rules of psum do:
//   psum(x)        reduce_sum over the batch dimension: the result is the same in every lane,
//                  so it comes back unbatched (x * n when x itself is unbatched);
//   pmax, pmin     reduce_max / reduce_min over it (x itself when unbatched);
//   all_gather(x)  the batch dimension moved to axis 0: unbatched, of shape n ++ x.shape;
//   axis_index()   iota over the lanes, batched at 0;
//   ppermute(x)    a gather of the lanes by the static (source, destination) pairs, zeros in the
//                  lanes no pair sends to.
// Batching over any other axis leaves a collective in place on the bigger array (psum over the
// outer axis is elementwise over this one), so nested vmaps consume their collectives inside out.
//
// Under pmap (NamedAxis::group set) the axis's N lanes are split evenly over the P processes of
// the run: each process traces and batches the same function over its n = N / P local lanes.
// The rules above then combine the local lanes first and the processes second, through a
// ProcessCollective op (process_sum/max/min, process_gather, process_permute) that the backends
// run through the group (jit/collectives.hpp; compiled, a Collective step, Note [Collective
// steps] in jit/kernel/lower_collective.cpp): psum costs one allreduce of x's bytes, all_gather
// one allgather, axis_index none (the process's lane offset is a constant), and ppermute one
// point-to-point message to each process that one of its lanes sends to, carrying just the rows
// that cross (lanes paired within a process are copied in place). A while_loop whose
// predicate differs per lane runs until every lane is done; when its body makes process
// collectives, "every lane" must mean every lane of every process, or the processes would run
// different numbers of collectives: its predicate is then OR-ed over the processes too
// (batch_control.cpp). A program without
// collectives, like seed 001's frequency-partitioned scan(vmap(vmap(f))), makes no calls at all
// until pmap gathers its results.

bool mentionsAxis(const Eqn& e, const std::string& name) {
  if (name.empty()) return false;
  if (opInfo(e.op).category == OpCategory::Collective && e.attrs.axisName == name) return true;
  for (const FuncPtr& sub : e.subs)
    for (const Eqn& inner : sub->eqns)
      if (mentionsAxis(inner, name)) return true;
  return false;
}

namespace {

int64_t processCount(const Ctx& c) { return c.axis.group ? c.axis.group->processCount() : 1; }
// The global index of this process's first lane.
int64_t laneOffset(const Ctx& c) { return c.axis.group ? c.n * c.axis.group->processIndex() : 0; }

// `local` (a value of this process) combined over the processes by `op`; itself under vmap.
int overProcesses(Ctx& c, Op op, int local) {
  if (!c.axis.group) return local;
  Attrs a;
  a.group = c.axis.group;
  return c.emit1(op, {local}, std::move(a));
}

// A constant array of `dtype` and shape [values.size()].
int constantVector(Ctx& c, DType dtype, const std::vector<int64_t>& values) {
  Array v(dtype, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) v.setInt(static_cast<int64_t>(i), values[i]);
  Attrs a;
  a.value = std::make_shared<Array>(std::move(v));
  return c.emit1(Op::Constant, {}, std::move(a));
}

// psum, pmax, pmin over this axis: the local lanes reduced, then the processes.
int reduceLanes(Ctx& c, const Eqn& e, const BVal& x) {
  DType dt = c.type(x.var).dtype;
  std::optional<Op> comb = opInfo(e.op).combiner;
  int local = x.var;
  if (x.dim) {
    Attrs a;
    a.axes = {*x.dim};
    local = c.emit1(comb == Op::Add ? Op::ReduceSum : comb == Op::Max ? Op::ReduceMax : Op::ReduceMin, {x.var}, a);
  } else if (comb == Op::Add) {  // every lane holds x: the sum is x * n
    Shape shape = c.type(x.var).shape;
    int lanes = c.broadcastTo(c.scalar(dt, c.n), shape, {});
    local = c.emit1(Op::Mul, {x.var, lanes});
  }
  Op across = comb == Op::Add ? Op::ProcessSum : comb == Op::Max ? Op::ProcessMax : Op::ProcessMin;
  return overProcesses(c, across, local);
}

// all_gather over this axis: every lane's x stacked along a new axis 0.
int gatherLanes(Ctx& c, const BVal& x) {
  int local = c.materialize(x, 0);
  int all = overProcesses(c, Op::ProcessGather, local);
  SCN_ASSERT(c.type(all).shape[0] == c.n * processCount(c), "all_gather has every lane of the axis");
  return all;
}

// axis_index over this axis: iota over the local lanes, offset by this process's first lane.
int laneIndex(Ctx& c) {
  Attrs a;
  a.dtype = DType::I32;
  a.shape = {c.n};
  a.axes = {0};
  int local = c.emit1(Op::Iota, {}, std::move(a));
  if (laneOffset(c) == 0) return local;
  int offset = c.broadcastTo(c.scalar(DType::I32, laneOffset(c)), {c.n}, {});
  return c.emit1(Op::Add, {local, offset});
}

// ppermute over this axis: local lane l receives the x of the source paired with its global
// index, or zeros. Under pmap the processes exchange the rows that cross between them; under
// vmap the lanes are gathered by their sources.
int permuteLanes(Ctx& c, const Eqn& e, const BVal& x) {
  if (c.axis.group && x.dim) {
    Attrs a;
    a.group = c.axis.group;
    a.axes = e.attrs.axes;
    return c.emit1(Op::ProcessPermute, {c.materialize(x, 0)}, std::move(a));
  }
  std::map<int64_t, int64_t> sourceOf;
  for (size_t k = 0; k + 1 < e.attrs.axes.size(); k += 2) sourceOf[e.attrs.axes[k + 1]] = e.attrs.axes[k];
  std::vector<int64_t> index, receives;
  for (int64_t l = 0; l < c.n; ++l) {
    auto it = sourceOf.find(laneOffset(c) + l);
    index.push_back(it == sourceOf.end() ? 0 : it->second);
    receives.push_back(it != sourceOf.end());
  }
  Shape shape = batchedType(unbatchedType(c.type(x.var), x.dim), BDim(0), c.n).shape;
  int moved = x.dim ? c.emit1(Op::Gather, {gatherLanes(c, x), constantVector(c, DType::I32, index)})
                    : c.broadcastBatch(x.var, 0);
  DType dt = c.type(moved).dtype;
  int zeros = c.broadcastTo(c.scalar(dt, 0), shape, {});
  int mask = c.broadcastTo(constantVector(c, DType::Bool, receives), shape, {0});
  return c.emit1(Op::Select, {mask, moved, zeros});
}

// A collective over an outer axis, batched over this one: the same op on the batched value.
std::vector<BVal> otherAxis(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  if (in.empty()) return {BVal{c.emit1(e.op, {}, e.attrs), std::nullopt}};
  int b = *in[0].dim;
  if (e.op == Op::AllGather) return {BVal{c.emit1(e.op, {in[0].var}, e.attrs), b + 1}};
  return {BVal{c.emit1(e.op, {in[0].var}, e.attrs), b}};
}

}  // namespace

std::vector<BVal> batchCollective(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  if (e.attrs.axisName != c.axis.name) return otherAxis(c, e, in);
  if (e.op == Op::PSum || e.op == Op::PMax || e.op == Op::PMin) return {BVal{reduceLanes(c, e, in[0]), std::nullopt}};
  if (e.op == Op::AllGather) return {BVal{gatherLanes(c, in[0]), std::nullopt}};
  if (e.op == Op::AxisIndex) return {BVal{laneIndex(c), 0}};
  if (e.op == Op::PPermute) return {BVal{permuteLanes(c, e, in[0]), 0}};
  internalError(std::string("no collective batching rule for ") + opName(e.op));
}

std::vector<BVal> batchProcessCollective(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  // Gather and permute work along axis 0 (the lanes): a batch dimension there moves to 1.
  bool alongLanes = e.op == Op::ProcessGather || e.op == Op::ProcessPermute;
  int b = *in[0].dim;
  int x = alongLanes && b == 0 ? c.moveTo(in[0], 1) : in[0].var;
  if (alongLanes && b == 0) b = 1;
  return {BVal{c.emit1(e.op, {x}, e.attrs), b}};
}

}  // namespace scn::batching
