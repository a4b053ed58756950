// vmap: the builtin that makes a batched function, and its application (a batching trace).
#include <functional>

#include "jit/batch.hpp"
#include "lang/builtin_args.hpp"

namespace scn {

namespace {

// vmap(f, in_axes=0, out_axes=0, axis_size=None)
Value vmap(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "vmap", {"f", "in_axes=", "out_axes=", "axis_size=", "axis_name="});
  auto v = std::make_shared<VmapFn>();
  v->fn = a.callable(0);
  v->inAxes = a.has(1) ? a.get(1) : arr(weakInt(0));
  v->outAxes = a.has(2) ? a.get(2) : arr(weakInt(0));
  if (a.has(3) && !a.get(3).isNone()) v->axisSize = a.integer(3, std::nullopt, StaticUse::Shape);
  v->axisName = axisNameArgument(a, 4, "vmap");
  v->span = c.span;
  Value r;
  r.kind = ValueKind::Vmap;
  r.vmap = v;
  return r;
}

/// Assigns an axis spec (int, None, or a tuple matching the tree) to each leaf of `def`.
void axesForTree(const Value& spec, const TreeDef& def, std::vector<std::optional<int64_t>>& out, Span span,
                 const char* what) {
  if (spec.isNone()) {
    std::vector<AVal> dummy;
    std::function<void(const TreeDef&)> count = [&](const TreeDef& d) {
      if (d.kind == TreeDef::Leaf) out.push_back(std::nullopt);
      for (const TreeDef& ch : d.children) count(ch);
    };
    count(def);
    return;
  }
  if (spec.isArray()) {
    int64_t ax = staticInt(*spec.array, StaticUse::Axis, span, what);
    std::function<void(const TreeDef&)> fill = [&](const TreeDef& d) {
      if (d.kind == TreeDef::Leaf) out.push_back(ax);
      for (const TreeDef& ch : d.children) fill(ch);
    };
    fill(def);
    return;
  }
  if (spec.isTuple() && def.kind == TreeDef::Tuple && spec.elems->size() == def.children.size()) {
    for (size_t i = 0; i < def.children.size(); ++i) axesForTree((*spec.elems)[i], def.children[i], out, span, what);
    return;
  }
  bool results = std::string(what).find("out_axes") != std::string::npos;
  fail("E0302", span,
       std::string(what) + " does not match the structure of the " + (results ? "results " : "arguments ") + def.str(),
       results ? "give one int or None per result, or a tuple of them matching the results"
               : "give one int or None per argument, or a tuple of them");
}

bool isNamedFunction(const Value& f) { return f.kind == ValueKind::Closure && f.closure->name != "<lambda>"; }

/// How a vmap message names each leaf of the arguments: "argument `x`" (the parameter's name
/// when the function is a closure, else its position), "leaf 1 of argument `t`" in a tuple.
std::vector<std::string> leafNames(const Value& f, const std::vector<Value>& args) {
  std::vector<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) {
    bool named = f.kind == ValueKind::Closure && i < f.closure->params->size() && (*f.closure->params)[i].name != "_";
    std::string arg = named ? "argument `" + (*f.closure->params)[i].name + "`" : "argument " + std::to_string(i);
    std::vector<AVal> leaves;
    TreeDef def;
    Evaluator::flatten(args[i], leaves, def, Span{}, "vmap argument");
    for (size_t k = 0; k < leaves.size(); ++k)
      names.push_back(leaves.size() == 1 && def.kind == TreeDef::Leaf ? arg : "leaf " + std::to_string(k) + " of " + arg);
  }
  return names;
}

}  // namespace

FuncPtr withUnusedParams(const Func& f, size_t at, const std::vector<AVal>& extra) {
  auto g = std::make_shared<Func>(f);
  std::vector<int> added;
  for (const AVal& e : extra) added.push_back(g->newVar(e.type));
  g->params.insert(g->params.begin() + static_cast<long>(at), added.begin(), added.end());
  return g;
}

Value applyVmap(Evaluator& ev, const VmapFn& v, CallArgs& c) {
  if (!c.kw.empty()) fail("E0221", c.kwSpans[0], "a vmapped function takes positional arguments only");
  Value argsTuple = Value::ofTuple(c.pos);
  Flat in;
  Evaluator::flatten(argsTuple, in.leaves, in.def, c.span, "vmap argument");
  for (AVal& l : in.leaves) l = defaultize(l, c.span);
  Value spec = v.inAxes;
  if (!spec.isTuple()) spec = Value::ofTuple(std::vector<Value>(c.pos.size(), spec));
  if (spec.elems->size() != c.pos.size())
    fail("E0302", v.span, "vmap in_axes has " + std::to_string(spec.elems->size()) + " entries but the function got " +
                              std::to_string(c.pos.size()) + " arguments");
  std::vector<std::optional<int64_t>> axes;
  axesForTree(spec, in.def, axes, v.span, "vmap in_axes");
  std::optional<int64_t> size = v.axisSize;
  std::string sizeSource = v.axisSize ? "axis_size is " + std::to_string(*v.axisSize) : "";
  std::vector<std::string> names = leafNames(v.fn, c.pos);
  std::vector<AVal> perLane;
  std::vector<std::optional<int>> inAxes;
  for (size_t i = 0; i < in.leaves.size(); ++i) {
    AVal l = in.leaves[i];
    if (axes[i]) {
      int64_t ax = ArrayOps::normAxis(*axes[i], l.type.shape.size(), v.span, "vmap in_axes");
      int64_t n = l.type.shape[ax];
      std::string thisSize = names[i] + " has size " + std::to_string(n) + " along axis " + std::to_string(ax);
      if (size && *size != n)
        fail("E0303", c.span, "vmap got inconsistent sizes for the mapped axis: " + sizeSource + ", " + thisSize,
             "every mapped argument must have the same size along its mapped axis; map only the "
             "arguments that have that axis (in_axes=None for the others)");
      if (!size) sizeSource = names[i] + (isNamedFunction(v.fn) ? " of `" + v.fn.closure->name + "`" : "") +
                              " has size " + std::to_string(n) + " along axis " + std::to_string(ax);
      size = n;
      l.type.shape.erase(l.type.shape.begin() + ax);
      inAxes.push_back(static_cast<int>(ax));
    } else {
      inAxes.push_back(std::nullopt);
    }
    perLane.push_back(inAxes.back() ? placeholder(l) : l);  // unmapped static leaves stay static
  }
  if (!size)
    fail("E0304", c.span, "vmap has no mapped argument to take the axis size from",
         "map at least one argument (in_axes) or pass `axis_size=`");
  // A pmap runs this process's lanes only (Note [Named axes] in jit/transform/batch_collectives.cpp).
  int64_t lanes = v.pmap ? pmapLocalLanes(ev, *size, c.span) : *size;
  for (size_t i = 0; v.pmap && i < in.leaves.size(); ++i)
    if (inAxes[i]) in.leaves[i] = pmapShard(ev, in.leaves[i], *inAxes[i], lanes, c.span);
  size_t pos = 0;
  Value laneArgs = Evaluator::unflatten(in.def, perLane, pos);
  AxisScope named(ev, AxisFrame{v.axisName, *size, v.pmap});
  Evaluator::Traced t = ev.traceFunction(v.fn, *laneArgs.elems, v.span, "vmapped function", "a vmapped argument", true);
  std::vector<std::optional<int>> allIn(t.trace->captured().size(), std::nullopt);
  allIn.insert(allIn.end(), inAxes.begin(), inAxes.end());
  std::vector<std::optional<int64_t>> outSpec;
  axesForTree(v.outAxes, t.outTree, outSpec, v.span, "vmap out_axes");
  std::vector<std::optional<int>> outAxes;
  for (size_t j = 0; j < outSpec.size(); ++j) {
    if (!outSpec[j]) {
      outAxes.push_back(std::nullopt);
      continue;
    }
    outAxes.push_back(static_cast<int>(
        ArrayOps::normAxis(*outSpec[j], t.outLeaves[j].type.shape.size() + 1, v.span, "vmap out_axes")));
  }
  // One process holds every lane: the pmap is the vmap it equals, with no process collectives.
  bool split = v.pmap && ev.processes()->processCount() > 1;
  NamedAxis axis{v.axisName, split ? ev.processes() : nullptr};
  FuncPtr batched = batchFunc(*t.func, allIn, lanes, outAxes, v.span, axis);
  std::vector<AVal> outs = ev.tracer().call(batched, concatLeaves(t.trace->captured(), in.leaves), c.span);
  for (size_t j = 0; j < outs.size(); ++j)  // a weak lane result stays weak, as in JAX
    outs[j].weak = t.outLeaves[j].weak && outs[j].type.dtype == t.outLeaves[j].type.dtype;
  for (size_t j = 0; split && j < outs.size(); ++j)
    if (outAxes[j]) outs[j] = pmapGatherResult(ev, outs[j], *outAxes[j], c.span);
  pos = 0;
  return Evaluator::unflatten(t.outTree, outs, pos);
}

BuiltinDefs vmapBuiltins() {
  return {{},
          {
              {"vmap(f, in_axes=0, out_axes=0, axis_size=None, axis_name=None)", "f mapped over an axis of its arguments, as one batched function (collectives such as psum name the axis by axis_name)", vmap},
          }};
}

}  // namespace scn
