// checkpoint / remat and their policies (Note [Rematerialisation]), checkpoint_name and the
// save-by-name policies (Note [Checkpoint names]).
#include "lang/builtins_autodiff.hpp"

namespace scn {

namespace {

// Note [Rematerialisation]
// checkpoint(f) (JAX's jax.checkpoint / jax.remat) makes reverse mode recompute f's
// intermediates in the backward pass instead of keeping them from the forward pass. A call of
// the function it returns is traced as a scan of one step whose consts are f's inputs, with no
// carry and f's results as the ys (un-stacked after), marked with its policy (Attrs::remat).
// Forward, it is f (the same equations), and forward mode and vmap treat it as any scan. Reverse
// mode (rematScan in jit/transform/vjp_control.cpp) keeps only the scan's inputs (and, for
// dots_saveable, the outputs of the body's products), f's intermediates living in the body, a
// sub-function; the backward pass runs the VJP of the body, which recomputes them from those
// inputs. That VJP starts from the cotangents its inputs have so far (from the later uses of
// the inputs) and adds the body's contributions to them one by one, in the order the backward
// sweep of the un-checkpointed f would: so the gradients are the un-checkpointed ones bit for
// bit on the interpreter (compiled backends may fuse the two differently: last-bit changes).
// No pass merges the recomputation with the forward pass (what JAX's prevent_cse guards
// against). everything_saveable keeps everything, so it is f itself. Inside a scan body it makes
// the scan's reverse mode recompute f's products too, which it would otherwise store per step
// (Note [Scan residuals] in jit/transform/scan_residuals.cpp).

// Note [Checkpoint names]
// checkpoint_name(x, name) (JAX's jax.ad_checkpoint.checkpoint_name) tags each traced leaf of x
// with a name: it is traced as a reshape to the shape the leaf already has, carrying the name
// (Attrs::checkpointName). A reshape rather than an op of its own because every backend and
// transformation already knows it: vmap and jvp copy an equation's attributes (the batched and
// the tangent reshape keep the name, as JAX's name_p is vectorized and linear), the tracer's
// reshape helper (which drops same-shape reshapes) is not used for it, and drop-identity-reshapes
// removes it before lowering, so it costs nothing and outside checkpoint means nothing. The
// policies save_only_these_names(names...) and save_any_names_but_these(names...) are data, not
// functions as in JAX: the tuple ("save_only_these_names", names...) (what they return, which
// checkpoint's policy= also takes written out), so a policy prints, compares and caches like
// any value. Reverse mode of checkpoint's scan (saveable in jit/transform/vjp_control.cpp)
// stores the outputs of the body's named reshapes whose name the policy saves and recomputes
// the rest; the named values are f's own values, so gradients stay the plain ones bit for bit.

// The policies checkpoint knows, JAX's jax.checkpoint_policies names (with their aliases) and
// what each stores; E0370 for others.
struct Policy {
  const char* name;
  Attrs::Remat remat;
};
constexpr Policy kCheckpointPolicies[] = {
    {"nothing_saveable", Attrs::Remat::Nothing},
    {"everything_saveable", Attrs::Remat::None},
    {"dots_saveable", Attrs::Remat::Dots},
    {"checkpoint_dots", Attrs::Remat::Dots},
    {"dots_with_no_batch_dims_saveable", Attrs::Remat::DotsWithNoBatchDims},
    {"checkpoint_dots_with_no_batch_dims", Attrs::Remat::DotsWithNoBatchDims},
};

// The name policies (Note [Checkpoint names]): the head of the tuple that stands for one.
constexpr Policy kNamePolicies[] = {
    {"save_only_these_names", Attrs::Remat::OnlyNames},
    {"save_any_names_but_these", Attrs::Remat::AnyNamesBut},
};

// A name policy's names: each a string, else E0372.
std::vector<std::string> policyNames(const std::vector<Value>& names, const std::vector<Span>& spans, Span whole,
                                     const std::string& policy) {
  std::vector<std::string> r;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].kind != ValueKind::String)
      fail("E0372", i < spans.size() ? spans[i] : whole,
           policy + " takes the names of values (strings), got " + describe(names[i]),
           "write the names checkpoint_name gave, e.g. `" + policy + "(\"hidden\")`");
    r.push_back(names[i].str);
  }
  return r;
}

// Reads checkpoint's policy= into d: a policy name, or a name policy's tuple; E0370 for others.
void readPolicy(const Value& p, Span span, const char* name, AutodiffFn& d) {
  std::string known;
  for (const Policy& k : kCheckpointPolicies) known += std::string(known.empty() ? "" : ", ") + "\"" + k.name + "\"";
  std::string help = "the policies are " + known + " and save_only_these_names(names...), save_any_names_but_these(names...)";
  if (p.kind == ValueKind::Tuple && !p.elems->empty() && p.elems->front().kind == ValueKind::String) {
    const std::string& head = p.elems->front().str;
    for (const Policy& k : kNamePolicies)
      if (head == k.name) {
        d.policy = head;
        d.policyNames = policyNames(std::vector<Value>(p.elems->begin() + 1, p.elems->end()), {}, span, head);
        return;
      }
    fail("E0370", span, std::string(name) + " has no policy \"" + head + "\"", help);
  }
  if (p.kind != ValueKind::String)
    fail("E0370", span, std::string(name) + " policy must be a policy name (a string) or a name policy, got " + describe(p),
         help);
  bool ok = false;
  for (const Policy& k : kCheckpointPolicies) ok = ok || p.str == k.name;
  bool namePolicy = false;
  for (const Policy& k : kNamePolicies) namePolicy = namePolicy || p.str == k.name;
  if (namePolicy)
    fail("E0370", span, std::string(name) + " policy \"" + p.str + "\" needs the names it concerns",
         "write `policy=" + p.str + "(\"a\", \"b\")` with the names checkpoint_name gave");
  if (!ok) fail("E0370", span, std::string(name) + " has no policy \"" + p.str + "\"", help);
  d.policy = p.str;
}

// checkpoint(f, policy=None, prevent_cse=true): f, recomputed in reverse mode.
Value checkpointBuiltin(Evaluator& ev, CallArgs& c, const char* name) {
  Args a(ev, c, name, {"f", "policy=", "prevent_cse="});
  AutodiffFn d;
  d.kind = AutodiffFn::Checkpoint;
  if (a.has(1) && !a.get(1).isNone()) readPolicy(a.get(1), a.span(1), name, d);
  a.boolean(2, true);  // prevent_cse: always on (Note [Rematerialisation])
  return functionValue(a.callable(0), d, c.span);
}
Value checkpoint(Evaluator& ev, CallArgs& c) { return checkpointBuiltin(ev, c, "checkpoint"); }
Value remat(Evaluator& ev, CallArgs& c) { return checkpointBuiltin(ev, c, "remat"); }

// save_only_these_names(names...) and save_any_names_but_these(names...): the policy's tuple
// (Note [Checkpoint names]).
Value namePolicy(CallArgs& c, const char* policy) {
  if (!c.kw.empty()) fail("E0221", c.kwSpans[0], std::string(policy) + " takes positional arguments only");
  std::vector<Value> r{Value::ofString(policy)};
  for (const std::string& n : policyNames(c.pos, c.posSpans, c.span, policy)) r.push_back(Value::ofString(n));
  return Value::ofTuple(std::move(r));
}
Value saveOnlyTheseNames(Evaluator&, CallArgs& c) { return namePolicy(c, "save_only_these_names"); }
Value saveAnyNamesButThese(Evaluator&, CallArgs& c) { return namePolicy(c, "save_any_names_but_these"); }

// checkpoint_name(x, name): x, each traced leaf tagged with name (Note [Checkpoint names]).
Value checkpointName(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "checkpoint_name", {"x", "name"});
  const Value& name = a.get(1);
  if (name.kind != ValueKind::String)
    fail("E0371", a.span(1), "checkpoint_name's name must be a string, got " + describe(name),
         "name the value with a string, e.g. `checkpoint_name(h, \"hidden\")`, and save it with "
         "`checkpoint(f, policy=save_only_these_names(\"hidden\"))`");
  if (name.str.empty()) fail("E0371", a.span(1), "checkpoint_name's name must not be empty", "give the value a name, e.g. \"hidden\"");
  Flat x = flat(a.get(0), a.span(0), "checkpoint_name argument");
  std::vector<AVal> out;
  for (const AVal& l : x.leaves) {
    if (l.isStatic()) {  // not traced: nothing to store or recompute
      out.push_back(l);
      continue;
    }
    Attrs at;
    at.shape = l.type.shape;
    at.checkpointName = name.str;
    AVal r = ev.tracer().apply1(Op::Reshape, {l}, at, c.span);
    r.weak = l.weak;
    out.push_back(r);
  }
  size_t pos = 0;
  return rebuild(x.def, out, pos);
}

}  // namespace

// A call of a checkpointed function: a scan of one step over f (Note [Rematerialisation]).
Value applyCheckpoint(Evaluator& ev, const VmapFn& v, const AutodiffFn& d, CallArgs& c) {
  if (d.policy == "everything_saveable") return ev.call(v.fn, c);
  // Static arguments stay static (a `static` parameter of f accepts them): only the traced
  // ones are recomputed.
  TracedCall tc = traceAt(ev, v.fn, c.pos, c.posSpans, v.span, "checkpoint", std::vector<bool>(c.pos.size(), true));
  Attrs at;
  at.numConsts = static_cast<int>(tc.leaves.size());
  at.length = 1;
  for (const Policy& k : kCheckpointPolicies)
    if (d.policy == k.name) at.remat = k.remat;
  for (const Policy& k : kNamePolicies)
    if (d.policy == k.name) at.remat = k.remat;
  at.rematNames = d.policyNames;
  std::vector<AVal> ys = ev.tracer().apply(Op::Scan, tc.leaves, at, c.span, {tc.t.func});
  std::vector<AVal> out;
  for (const AVal& y : ys) {
    Shape s = y.type.shape;
    s.erase(s.begin());
    out.push_back(ev.ops().reshape(y, s, c.span));
  }
  size_t pos = 0;
  return rebuild(tc.t.outTree, out, pos);
}

BuiltinDefs checkpointBuiltins() {
  return {{},
          {
              {"checkpoint(f, policy=None, prevent_cse=true)", "f, whose intermediates reverse mode recomputes from its inputs instead of storing them (policy: \"nothing_saveable\", \"dots_saveable\", ..., save_only_these_names(names...))", checkpoint},
              {"remat(f, policy=None, prevent_cse=true)", "checkpoint(f, policy): f, recomputed in reverse mode", remat},
              {"checkpoint_name(x, name)", "x, tagged with the name (a string) that checkpoint's policies save_only_these_names and save_any_names_but_these select", checkpointName},
              {"save_only_these_names(names...)", "the checkpoint policy that stores the values checkpoint_name gave one of these names and recomputes the rest: the tuple (\"save_only_these_names\", names...)", saveOnlyTheseNames},
              {"save_any_names_but_these(names...)", "the checkpoint policy that stores the named values (checkpoint_name) except those with these names: the tuple (\"save_any_names_but_these\", names...)", saveAnyNamesButThese},
          }};
}

}  // namespace scn
