// Named axes and collectives: pmap, psum, pmean, pmax, pmin, all_gather, ppermute, axis_index,
// process_index, process_count (Note [Named axes] in jit/transform/batch_collectives.cpp).
#include <set>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {

std::string boundNames(const std::vector<AxisFrame>& env) {
  std::string s;
  for (const AxisFrame& f : env)
    if (!f.name.empty()) s += (s.empty() ? "`" : ", `") + f.name + "`";
  return s;
}

// The innermost mapped axis named `name`: E0308 outside any named axis, E0307 for a name no
// enclosing vmap or pmap binds.
const AxisFrame& boundAxis(Evaluator& ev, const std::string& name, const char* fn, Span span) {
  const std::vector<AxisFrame>& env = ev.axisEnv();
  if (boundNames(env).empty())
    fail("E0308", span, std::string(fn) + " over axis `" + name + "` outside any named mapped axis",
         "call " + std::string(fn) + " inside a function mapped by vmap(f, axis_name=\"" + name +
             "\") or pmap(f, axis_name=\"" + name + "\")");
  for (auto it = env.rbegin(); it != env.rend(); ++it)
    if (it->name == name) return *it;
  fail("E0307", span, std::string(fn) + " got the unknown axis name `" + name + "`",
       "the named axes here are " + boundNames(env) + "; use one of them or name the axis with axis_name=");
}

}  // namespace

std::string axisNameArgument(const Args& a, size_t i, const char* fn) {
  if (!a.has(i) || a.get(i).isNone()) return "";
  const Value& v = a.get(i);
  if (v.kind != ValueKind::String || v.str.empty())
    fail("E0311", a.span(i), std::string(fn) + " axis_name must be a non-empty string but got " + describe(v),
         "name the axis with a string, e.g. axis_name=\"i\"");
  return v.str;
}

AxisScope::AxisScope(Evaluator& ev, AxisFrame frame) : ev_(ev) { ev_.axisEnv().push_back(std::move(frame)); }
AxisScope::~AxisScope() { ev_.axisEnv().pop_back(); }

int64_t pmapLocalLanes(Evaluator& ev, int64_t size, Span span) {
  for (const AxisFrame& f : ev.axisEnv())
    if (f.pmap)
      fail("E0312", span, "pmap inside another pmap: both would split their axes over the same processes",
           "map the inner function with vmap (its collectives work the same), or pmap the outer one only");
  int64_t p = ev.processes()->processCount();
  if (size % p != 0)
    fail("E0309", span,
         "pmap cannot split the mapped axis of size " + std::to_string(size) + " evenly over " +
             std::to_string(p) + " processes",
         "give the mapped axis a multiple of " + std::to_string(p) + " lanes (pad it), or run with a process count that divides " +
             std::to_string(size));
  return size / p;
}

AVal pmapShard(Evaluator& ev, const AVal& x, int64_t axis, int64_t lanes, Span span) {
  std::vector<int64_t> starts(x.type.shape.size(), 0), limits = x.type.shape;
  starts[axis] = lanes * ev.processes()->processIndex();
  limits[axis] = starts[axis] + lanes;
  return ev.ops().slice(x, starts, limits, std::vector<int64_t>(starts.size(), 1), span);
}

AVal pmapGatherResult(Evaluator& ev, const AVal& local, int64_t axis, Span span) {
  Attrs a;
  a.group = ev.processes();
  a.resultGather = true;
  int64_t rank = static_cast<int64_t>(local.type.shape.size());
  std::vector<int64_t> toFront{axis}, back;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis) toFront.push_back(d);
  AVal front = axis == 0 ? local : ev.ops().transpose(local, toFront, span);
  AVal all = ev.tracer().apply(Op::ProcessGather, {front}, a, span)[0];
  if (axis == 0) return all;
  for (int64_t d = 1; d <= axis; ++d) back.push_back(d);
  back.push_back(0);
  for (int64_t d = axis + 1; d < rank; ++d) back.push_back(d);
  return ev.ops().transpose(all, back, span);
}

namespace {

// op(leaf) for every leaf of `x` over the named axis.
Value collective(Evaluator& ev, const Value& x, Op op, Attrs attrs, Span span, const char* fn) {
  Flat in = flat(x, span, fn);
  std::vector<AVal> out;
  for (const AVal& leaf : in.leaves) out.push_back(ev.tracer().apply(op, {leaf}, attrs, span)[0]);
  size_t pos = 0;
  return rebuild(in.def, out, pos);
}

Attrs axisAttrs(const std::string& name) {
  Attrs a;
  a.axisName = name;
  return a;
}

std::string requiredAxisName(const Args& a, size_t i, const char* fn) {
  std::string name = axisNameArgument(a, i, fn);
  if (name.empty())
    fail("E0311", a.span(i), std::string(fn) + " needs an axis name but got None",
         "name the mapped axis, e.g. " + std::string(fn) + "(x, \"i\")");
  return name;
}

template <Op op>
Value reduction(Evaluator& ev, CallArgs& c) {
  const char* fn = opName(op);
  Args a(ev, c, fn, {"x", "axis_name"});
  std::string name = requiredAxisName(a, 1, fn);
  boundAxis(ev, name, fn, c.span);
  return collective(ev, a.get(0), op, axisAttrs(name), c.span, fn);
}

Value pmean(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "pmean", {"x", "axis_name"});
  std::string name = requiredAxisName(a, 1, "pmean");
  int64_t size = boundAxis(ev, name, "pmean", c.span).size;
  Flat in = flat(collective(ev, a.get(0), Op::PSum, axisAttrs(name), c.span, "pmean"), c.span, "pmean");
  std::vector<AVal> out;
  for (const AVal& s : in.leaves) out.push_back(ev.ops().trueDivide(s, weakInt(size), c.span));
  size_t pos = 0;
  return rebuild(in.def, out, pos);
}

Value allGather(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "all_gather", {"x", "axis_name"});
  std::string name = requiredAxisName(a, 1, "all_gather");
  Attrs at = axisAttrs(name);
  at.length = boundAxis(ev, name, "all_gather", c.span).size;
  return collective(ev, a.get(0), Op::AllGather, at, c.span, "all_gather");
}

// The (source, destination) pairs of ppermute: E0310 unless each is a pair of lanes in range
// and no source or destination repeats.
std::vector<int64_t> permutationPairs(const Args& a, size_t i, int64_t size) {
  std::vector<int64_t> pairs;
  std::set<int64_t> sources, destinations;
  auto bad = [&](const std::string& what) {
    fail("E0310", a.span(i), "ppermute perm " + what,
         "give perm as (source, destination) pairs of lanes in [0, " + std::to_string(size) +
             "), each source and each destination at most once");
  };
  auto add = [&](int64_t lane, bool source) {
    if (lane < 0 || lane >= size) bad("names lane " + std::to_string(lane) + " of an axis of size " + std::to_string(size));
    if (!(source ? sources : destinations).insert(lane).second)
      bad("has lane " + std::to_string(lane) + " as a " + (source ? "source" : "destination") + " twice");
    pairs.push_back(lane);
  };
  const Value& perm = a.get(i);
  if (perm.isArray() && perm.array->isStatic() && perm.array->type.shape.size() == 2 &&
      perm.array->type.shape[1] == 2 && isInteger(perm.array->type.dtype)) {  // [[0, 1], [1, 2]]
    for (int64_t k = 0; k < perm.array->concrete->size(); ++k) add(perm.array->concrete->getInt(k), k % 2 == 0);
    return pairs;
  }
  if (!perm.isTuple()) bad("must be a tuple or list of (source, destination) pairs");
  for (const Value& pair : *perm.elems) {
    if (!pair.isTuple() || pair.elems->size() != 2) bad("has an entry that is not a (source, destination) pair");
    for (size_t k = 0; k < 2; ++k) {
      const Value& lane = (*pair.elems)[k];
      if (!lane.isArray() || !lane.array->isStatic() || !lane.array->type.shape.empty() ||
          !isInteger(lane.array->type.dtype))
        bad("has a lane that is not a static int");
      add(lane.array->concrete->getInt(0), k == 0);
    }
  }
  return pairs;
}

Value ppermute(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "ppermute", {"x", "axis_name", "perm"});
  std::string name = requiredAxisName(a, 1, "ppermute");
  Attrs at = axisAttrs(name);
  at.axes = permutationPairs(a, 2, boundAxis(ev, name, "ppermute", c.span).size);
  return collective(ev, a.get(0), Op::PPermute, at, c.span, "ppermute");
}

Value axisIndex(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "axis_index", {"axis_name"});
  std::string name = requiredAxisName(a, 0, "axis_index");
  boundAxis(ev, name, "axis_index", c.span);
  return arr(ev.tracer().apply(Op::AxisIndex, {}, axisAttrs(name), c.span)[0]);
}

Value processIndex(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "process_index", {});
  return arr(AVal::of(Array::scalarInt(DType::I32, ev.processes()->processIndex())));
}

Value processCount(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "process_count", {});
  return arr(AVal::of(Array::scalarInt(DType::I32, ev.processes()->processCount())));
}

// pmap(f, axis_name=None, in_axes=0, out_axes=0): vmap with the axis split over the processes.
Value pmap(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "pmap", {"f", "axis_name=", "in_axes=", "out_axes="});
  auto v = std::make_shared<VmapFn>();
  v->fn = a.callable(0);
  v->axisName = axisNameArgument(a, 1, "pmap");
  v->inAxes = a.has(2) ? a.get(2) : arr(weakInt(0));
  v->outAxes = a.has(3) ? a.get(3) : arr(weakInt(0));
  v->pmap = true;
  v->span = c.span;
  Value r;
  r.kind = ValueKind::Vmap;
  r.vmap = v;
  return r;
}

}  // namespace

BuiltinDefs distBuiltins() {
  return {{},
          {
              {"pmap(f, axis_name=None, in_axes=0, out_axes=0)", "f mapped over an axis of its arguments split evenly over the processes of the run, as vmap maps it, the results gathered on every process", pmap},
              {"psum(x, axis_name)", "the sum of x over the lanes of the named mapped axis, in every lane", reduction<Op::PSum>},
              {"pmean(x, axis_name)", "the mean of x over the lanes of the named mapped axis, in every lane", pmean},
              {"pmax(x, axis_name)", "the largest x over the lanes of the named mapped axis, in every lane", reduction<Op::PMax>},
              {"pmin(x, axis_name)", "the smallest x over the lanes of the named mapped axis, in every lane", reduction<Op::PMin>},
              {"all_gather(x, axis_name)", "every lane's x of the named mapped axis, stacked along a new first axis", allGather},
              {"ppermute(x, axis_name, perm)", "x sent from lane source to lane destination for each (source, destination) pair of perm, zeros where no pair sends", ppermute},
              {"axis_index(axis_name)", "the index of this lane along the named mapped axis (i32)", axisIndex},
              {"process_index()", "the index of this process among the processes of the run (0 without mpirun)", processIndex},
              {"process_count()", "the number of processes of the run (1 without mpirun)", processCount},
          }};
}

}  // namespace scn
