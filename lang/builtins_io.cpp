// Builtins for data in and out: print, load/save (.npy, .npz), savez, loadtxt/savetxt, and
// numbers from text (int, float, and dtype names called on strings, in eval.cpp).
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>

#include "jit/array_format.hpp"
#include "lang/builtin_args.hpp"
#include "lang/data_files.hpp"
#include "lang/npy.hpp"
#include "lang/npz.hpp"
#include "lang/number_text.hpp"
#include "lang/text_table.hpp"

namespace scn {

namespace {

// ---- print ----

/// A string argument (a path, sep=, end=, delimiter=); E0525 for any other value.
const std::string& stringArg(const Args& a, size_t i, const char* fn) {
  const Value& v = a.get(i);
  if (v.kind != ValueKind::String)
    fail("E0525", a.span(i), std::string(fn) + ": `" + a.name(i) + "` must be a string, got " + describe(v));
  return v.str;
}

/// How many elements an array may have before print summarises it: NumPy's threshold (1000),
/// or `threshold=` (inf: never).
int64_t summaryThreshold(const Args& a, size_t i, int64_t dflt) {
  if (!a.has(i)) return dflt;
  double t = a.number(i, 1000);
  if (std::isnan(t) || t < 0) fail("E0222", a.span(i), "print: `threshold` must be a non-negative number or inf");
  return t >= 9.2e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(t);
}

std::string formatValue(Evaluator& ev, const Value& v, int64_t threshold) {
  if (v.isArray()) {
    AVal x = defaultize(*v.array);
    PrintOptions o = ev.printOptions();
    o.threshold = threshold;
    if (x.isStatic()) return formatArray(*x.concrete, o);
  }
  if (v.isTuple()) {
    std::string s = "(";
    for (size_t i = 0; i < v.elems->size(); ++i) s += (i ? ", " : "") + formatValue(ev, (*v.elems)[i], threshold);
    return s + (v.elems->size() == 1 ? ",)" : ")");
  }
  return ev.format(v);
}

// print(values..., sep=" ", end="\n", threshold=1000): prints when evaluated. Inside a traced
// function that is trace time (once per signature, as Python's print under jax.jit): static
// values print as values, traced ones as "traced f32[3]". Floats always print in the shortest
// form that reads back to the same bits; `threshold=inf` also turns off NumPy's "..." summary
// of arrays over 1000 elements, so the output is the whole array.
Value print(Evaluator& ev, CallArgs& c) {
  std::vector<Value> values = std::move(c.pos);
  std::vector<Span> spans = std::move(c.posSpans);
  c.pos.clear(), c.posSpans.clear();
  Args a(ev, c, "print", {"sep=", "end=", "threshold="});
  std::string sep = a.has(0) ? stringArg(a, 0, "print") : " ";
  std::string end = a.has(1) ? stringArg(a, 1, "print") : "\n";
  int64_t threshold = summaryThreshold(a, 2, ev.printOptions().threshold);
  // A weak value prints at its default dtype: check here that it fits, so that E0228 points at
  // the argument (format itself has no place to point at).
  std::function<void(const Value&, Span)> materialise = [&](const Value& v, Span span) {
    if (v.isArray()) defaultize(*v.array, span);
    if (v.isTuple())
      for (const Value& e : *v.elems) materialise(e, span);
  };
  for (size_t i = 0; i < values.size(); ++i) materialise(values[i], spans[i]);
  std::string line;
  for (size_t i = 0; i < values.size(); ++i) line += (i ? sep : "") + formatValue(ev, values[i], threshold);
  ev.host().out(line + end);
  return Value::none();
}

// ---- files ----

/// A path as the script wrote it, made relative to the directory of the file the call is in
/// (as `import` does); absolute paths stay as they are.
std::string resolvePath(const std::string& path, Span call) {
  namespace fs = std::filesystem;
  fs::path base = call.file ? fs::path(call.file->name()).parent_path() : fs::path();
  return (base / path).string();
}

// Note [Files at trace time]
// A builtin runs when the evaluator reaches it. At top level that is once per statement, and
// load gives a static array (shapes known, the values foldable). Inside a `fn` the body is
// traced once per signature and the compiled code is reused: a load there would read the file
// once and bake it into the code as a constant, and a save would write once, at trace time,
// whatever later calls do. Both would silently be wrong, so file builtins inside a traced
// function are E0245, which says to do the I/O at top level (JAX has the same rule: np.load
// inside jax.jit gives a constant; io_callback is the escape hatch, not offered here).
void requireTopLevel(Evaluator& ev, const char* fn, Span span) {
  if (!ev.tracer().tracing()) return;
  bool reading = std::string_view(fn).starts_with("load");
  fail("E0245", span,
       std::string(fn) + " cannot run inside a traced function: it would run once when the function is traced, not on each call",
       reading ? "load the file at top level and pass the array in as an argument"
               : "return the array and save it at top level");
}

/// Whether load reads `path` as one .npy array (else a .npz archive); E0526 for other names.
bool isNpy(const std::string& path, Span span) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (ext != ".npy" && ext != ".npz")
    fail("E0526", span, "load: `" + path + "` is not a .npy or .npz file", "text tables are read with loadtxt(path)");
  return ext == ".npy";
}

/// The static array a save writes; E0521 for what is not one.
Array savedArray(const Value& v, Span span, const char* fn) {
  if (!v.isArray())
    fail("E0521", span, std::string(fn) + " saves arrays, got " + describe(v),
         v.isTuple() ? "save each array, or save them together with savez(path, a, b)" : "");
  if (v.array->type.dtype == DType::BF16)
    fail("E0521", span, std::string(fn) + " cannot save a bf16 array: NumPy has no bf16 dtype for the file to name",
         "save x.astype(f32) (exact: every bf16 is an f32) and convert back after loading");
  return *defaultize(*v.array, span).concrete;
}

// load(path): a .npy file's array, or a .npz archive's arrays as a tuple in the archive's order.
Value load(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "load", {"path"});
  requireTopLevel(ev, "load", c.span);
  std::string path = resolvePath(stringArg(a, 0, "load"), c.span);
  if (isNpy(path, a.span(0))) return Value::ofArray(AVal::of(loadNpyFile(path, a.span(0))));
  std::vector<Value> out;
  for (NamedArray& na : decodeNpz(readWholeFile(path, a.span(0)), path, a.span(0)))
    out.push_back(Value::ofArray(AVal::of(std::move(na.array))));
  return Value::ofTuple(std::move(out));
}

// save(path, x): x as a .npy file, written atomically.
Value save(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "save", {"path", "x"});
  requireTopLevel(ev, "save", c.span);
  std::string path = resolvePath(stringArg(a, 0, "save"), c.span);
  if (std::filesystem::path(path).extension() != ".npy")
    fail("E0526", a.span(0), "save: `" + path + "` is not a .npy file", "save writes .npy files; use savez for .npz archives");
  writeFileAtomically(path, encodeNpy(savedArray(a.get(1), a.span(1), "save")), a.span(0));
  return Value::none();
}

// savez(path, arrays..., name=array...): a .npz archive; positional arrays are arr_0, arr_1, ...
// as in numpy.savez, keyword ones keep their names.
Value savezWith(Evaluator& ev, CallArgs& c, const char* fn, bool compress) {
  if (c.pos.empty()) fail("E0220", c.span, std::string(fn) + " is missing the argument `path`", std::string("signature: ") + fn + "(path, arrays..., name=array...)");
  requireTopLevel(ev, fn, c.span);
  const Value& p = c.pos[0];
  if (p.kind != ValueKind::String) fail("E0525", c.posSpans[0], std::string(fn) + ": `path` must be a string, got " + describe(p));
  std::string path = resolvePath(p.str, c.span);
  if (std::filesystem::path(path).extension() != ".npz")
    fail("E0526", c.posSpans[0], std::string(fn) + ": `" + path + "` is not a .npz file", "savez writes .npz archives; use save for one .npy file");
  std::vector<NamedArray> arrays;
  for (size_t i = 1; i < c.pos.size(); ++i)
    arrays.push_back({"arr_" + std::to_string(i - 1), savedArray(c.pos[i], c.posSpans[i], fn)});
  for (size_t k = 0; k < c.kw.size(); ++k) {
    for (const NamedArray& na : arrays)
      if (na.name == c.kw[k].first) fail("E0215", c.kwSpans[k], std::string(fn) + ": the array `" + na.name + "` is given twice");
    arrays.push_back({c.kw[k].first, savedArray(c.kw[k].second, c.kwSpans[k], fn)});
  }
  writeFileAtomically(path, encodeNpz(arrays, compress, path, c.posSpans[0]), c.posSpans[0]);
  return Value::none();
}
Value savez(Evaluator& ev, CallArgs& c) { return savezWith(ev, c, "savez", false); }
Value savezCompressed(Evaluator& ev, CallArgs& c) { return savezWith(ev, c, "savez_compressed", true); }

std::optional<char> delimiterArg(const Args& a, size_t i, const char* fn) {
  if (!a.has(i) || a.get(i).isNone()) return std::nullopt;
  const std::string& d = stringArg(a, i, fn);
  if (d.size() != 1 || d[0] == '\n' || d[0] == '#')
    fail("E0525", a.span(i), std::string(fn) + ": `delimiter` must be one character (not a newline or '#'), got \"" + d + "\"");
  return d[0];
}

// loadtxt(path, delimiter=None, dtype=f64, skiprows=0): a small text table (numpy.loadtxt).
Value loadtxt(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "loadtxt", {"path", "delimiter=", "dtype=", "skiprows="});
  requireTopLevel(ev, "loadtxt", c.span);
  std::string path = resolvePath(stringArg(a, 0, "loadtxt"), c.span);
  TextTableFormat f{delimiterArg(a, 1, "loadtxt"), a.integer(3, 0)};
  DType t = a.dtype(2).value_or(DType::F64);
  return Value::ofArray(AVal::of(parseTextTable(readWholeFile(path, a.span(0)), t, f, path, a.span(0))));
}

// savetxt(path, x, delimiter=" "): a 1-D or 2-D array as a text table (numpy.savetxt).
Value savetxt(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "savetxt", {"path", "x", "delimiter="});
  requireTopLevel(ev, "savetxt", c.span);
  std::string path = resolvePath(stringArg(a, 0, "savetxt"), c.span);
  Array x = savedArray(a.get(1), a.span(1), "savetxt");
  if (x.rank() != 1 && x.rank() != 2)
    fail("E0521", a.span(1), "savetxt writes 1-D or 2-D arrays, got " + typeString(Type{x.dtype, x.shape}),
         "reshape it first, or save it with save(path, x) as .npy");
  writeFileAtomically(path, formatTextTable(x, delimiterArg(a, 2, "savetxt").value_or(' ')), a.span(0));
  return Value::none();
}

// ---- numbers from text ----

/// int(x) / float(x): a string parsed as Python's int()/float() do, weakly typed as a literal
/// is; a number converts (int truncates toward zero).
Value numberBuiltin(Evaluator& ev, CallArgs& c, const char* fn, DType t) {
  Args a(ev, c, fn, {"x"});
  const Value& v = a.get(0);
  if (v.kind == ValueKind::String) return Value::ofArray(parseNumberText(v.str, t, true, a.span(0), fn));
  AVal x = ev.ops().convert(a.array(0), t, c.span);
  x.weak = true;
  return Value::ofArray(x);
}
Value intBuiltin(Evaluator& ev, CallArgs& c) { return numberBuiltin(ev, c, "int", DType::I64); }
Value floatBuiltin(Evaluator& ev, CallArgs& c) { return numberBuiltin(ev, c, "float", DType::F64); }

}  // namespace

BuiltinDefs ioBuiltins() {
  return {{},
          {
              {"print(values..., sep=\" \", end=\"\\n\", threshold=1000)",
               "prints the values separated by sep and followed by end (traced values as their type, at trace time)", print},
              {"load(path)", "reads a .npy file (a static array) or a .npz archive (a tuple of its arrays)", load},
              {"save(path, x)", "writes x to a .npy file, atomically", save},
              {"savez(path, arrays..., name=array...)", "writes arrays to an uncompressed .npz archive", savez},
              {"savez_compressed(path, arrays..., name=array...)", "writes arrays to a zlib-compressed .npz archive", savezCompressed},
              {"loadtxt(path, delimiter=None, dtype=f64, skiprows=0)", "reads a text table of numbers into a 1-d or 2-d array", loadtxt},
              {"savetxt(path, x, delimiter=\" \")", "writes a 0-d, 1-d or 2-d array as a text table", savetxt},
              {"int(x)", "an integer from text (Python's rules) or a number, weakly typed", intBuiltin},
              {"float(x)", "a float from text (Python's rules) or a number, weakly typed", floatBuiltin},
          }};
}

}  // namespace scn
