// The module table: which builtin `linalg.solve`, `nn.relu`, `random.normal`, `lax.scan` and
// `fft.rfft` name, and what to write for the JAX names scn lacks or spells differently.
#include "lang/namespaces.hpp"

#include <algorithm>

#include "base/diagnostics.hpp"
#include "base/suggest.hpp"

namespace scn {

// Note [Module namespaces]
// JAX programs name functions by module: `jnp.linalg.solve`, `jax.nn.relu`, `jax.random.normal`,
// `lax.scan`. scn's builtins are bare names (`solve`, `relu`, `normal`, `scan`), and five module
// names read them by JAX's path: `linalg`, `fft`, `nn`, `random`, `lax`. A module is not a
// value: `nn.relu` is resolved where the attribute is read (evalAttr, and evalCall for a call),
// when its first name is not bound in the scope. So a variable named `nn` or `random` hides the
// module (its members are then attributes of that value, with a help that says so), while a
// builtin of the same name does not (`fft` the function and `fft.rfft` coexist). The table
// below is the only place that knows the modules: each entry maps a member to its builtin (or
// a prelude function), or says what to write when scn has none (E0109). An entry may name a
// builtin that is not registered yet (other work in progress adds them): it reads as "not
// implemented in scn yet", never as a crash, and lang_namespaces_test lists such entries.
// `jax.`, `jnp.` and `np.` stay foreign prefixes (E0273, Note [Name hints]); their help points
// at the module path here when the path ends in one (`jax.random.normal`: `random.normal`).

namespace {

constexpr const char* kCumulative =
    "lax's cumulative ops scan axis 0 by default, scn's (as jnp's) the flattened array: write "
    "`cumsum(x, axis=0)` (and `reverse=true` for lax's reverse)";
constexpr const char* kOtherDistribution =
    "build it from `random.uniform` or `random.normal` (docs/language.md, Random numbers)";

const std::vector<ModuleMember> kTable = {
    // ---- linalg (jnp.linalg, jax.scipy.linalg, jax.lax.linalg) ----
    {"linalg", "solve", "solve", nullptr},
    {"linalg", "inv", "inv", nullptr},
    {"linalg", "det", "det", nullptr},
    {"linalg", "slogdet", "slogdet", nullptr},
    {"linalg", "cholesky", "cholesky", nullptr},
    {"linalg", "qr", "qr", nullptr},
    {"linalg", "eigh", "eigh", nullptr},
    {"linalg", "svd", "svd", nullptr},
    {"linalg", "norm", "norm", nullptr},
    {"linalg", "triangular_solve", "triangular_solve", nullptr},
    {"linalg", "matmul", "matmul", nullptr},
    {"linalg", "tensordot", "tensordot", nullptr},
    {"linalg", "trace", "linalg.trace", nullptr},
    {"linalg", "diagonal", "linalg.diagonal", nullptr},
    {"linalg", "outer", "outer", nullptr},
    {"linalg", "solve_triangular", nullptr, "scn calls it `linalg.triangular_solve` (jax.lax.linalg's name)"},
    {"linalg", "eig", nullptr, "scn has only the symmetric eigensolver: `linalg.eigh(a)` for a symmetric `a`"},
    {"linalg", "eigvals", nullptr, "scn has only the symmetric eigensolver: `linalg.eigh(a).0` for a symmetric `a`"},
    {"linalg", "eigvalsh", "eigvalsh", nullptr},
    {"linalg", "pinv", "pinv", nullptr},
    {"linalg", "lstsq", "lstsq", nullptr},
    {"linalg", "matrix_power", nullptr, "multiply in a loop: `fori_loop(0, n, |i, p| p @ a, identity(a.shape[0]))`"},
    {"linalg", "matrix_rank", "matrix_rank", nullptr},
    {"linalg", "cond", nullptr, "divide the largest singular value from `linalg.svd(a)` by the smallest (`cond(p, f_true, f_false, operands...)` is the conditional)"},
    {"linalg", "multi_dot", nullptr, "chain the products: `a @ b @ c`"},
    {"linalg", "lu", nullptr, "scn has no LU factorisation; `linalg.solve`, `linalg.det` and `linalg.slogdet` factor internally"},
    {"linalg", "vector_norm", nullptr, "write `linalg.norm(x, ord=..., axis=...)`"},
    {"linalg", "matrix_norm", nullptr, "write `linalg.norm(x, ord=...)` of a matrix"},
    {"linalg", "vecdot", nullptr, "write `sum(a * b, axis=-1)`"},
    {"linalg", "cross", nullptr, "write the components out: `a[1] * b[2] - a[2] * b[1]` and so on"},
    {"linalg", "tensorsolve", nullptr, "reshape to a matrix and use `linalg.solve`"},
    {"linalg", "tensorinv", nullptr, "reshape to a matrix and use `linalg.inv`"},
    // ---- fft (jnp.fft) ----
    {"fft", "fft", "fft", nullptr},
    {"fft", "ifft", "ifft", nullptr},
    {"fft", "rfft", "rfft", nullptr},
    {"fft", "irfft", "irfft", nullptr},
    {"fft", "fft2", "fft2", nullptr},
    {"fft", "ifft2", "ifft2", nullptr},
    {"fft", "rfft2", "rfft2", nullptr},
    {"fft", "irfft2", "irfft2", nullptr},
    {"fft", "fftn", "fftn", nullptr},
    {"fft", "ifftn", "ifftn", nullptr},
    {"fft", "rfftn", "rfftn", nullptr},
    {"fft", "irfftn", "irfftn", nullptr},
    {"fft", "hfft", "hfft", nullptr},
    {"fft", "ihfft", "ihfft", nullptr},
    {"fft", "fftfreq", "fftfreq", nullptr},
    {"fft", "rfftfreq", "rfftfreq", nullptr},
    {"fft", "fftshift", "fftshift", nullptr},
    {"fft", "ifftshift", "ifftshift", nullptr},
    // ---- nn (jax.nn) ----
    {"nn", "relu", "relu", nullptr},
    {"nn", "gelu", "gelu", nullptr},
    {"nn", "silu", "silu", nullptr},
    {"nn", "swish", "silu", nullptr},
    {"nn", "softplus", "softplus", nullptr},
    {"nn", "sigmoid", "sigmoid", nullptr},
    {"nn", "log_sigmoid", "log_sigmoid", nullptr},
    {"nn", "softmax", "softmax", nullptr},
    {"nn", "log_softmax", "log_softmax", nullptr},
    {"nn", "one_hot", "one_hot", nullptr},
    {"nn", "logsumexp", "logsumexp", nullptr},
    {"nn", "relu6", nullptr, "write `clip(x, 0, 6)`"},
    {"nn", "hard_tanh", nullptr, "write `clip(x, -1, 1)`"},
    {"nn", "hard_sigmoid", nullptr, "write `clip(x + 3, 0, 6) / 6`"},
    {"nn", "hard_silu", nullptr, "write `x * clip(x + 3, 0, 6) / 6`"},
    {"nn", "hard_swish", nullptr, "write `x * clip(x + 3, 0, 6) / 6`"},
    {"nn", "leaky_relu", nullptr, "write `where(x >= 0, x, 0.01 * x)` (0.01 is JAX's default negative_slope)"},
    {"nn", "elu", nullptr, "write `where(x > 0, x, expm1(x))` (alpha = 1)"},
    {"nn", "celu", nullptr, "write `where(x > 0, x, alpha * expm1(x / alpha))`"},
    {"nn", "selu", nullptr, "write `1.0507009873554805 * where(x > 0, x, 1.6732632423543772 * expm1(x))`"},
    {"nn", "soft_sign", nullptr, "write `x / (1 + abs(x))`"},
    {"nn", "mish", nullptr, "write `x * tanh(softplus(x))`"},
    {"nn", "squareplus", nullptr, "write `(x + sqrt(x * x + 4)) / 2`"},
    {"nn", "glu", nullptr, "split the last axis into halves a and b and write `a * sigmoid(b)`"},
    {"nn", "standardize", nullptr, "write `(x - mean(x, axis=-1, keepdims=true)) / sqrt(var(x, axis=-1, keepdims=true) + 1e-5)`"},
    {"nn", "dot_product_attention", nullptr, "write it out: `softmax(q @ k.T / sqrt(d), axis=-1) @ v`"},
    // ---- random (jax.random) ----
    {"random", "key", "key", nullptr},
    {"random", "PRNGKey", "key", nullptr},
    {"random", "split", "split", nullptr},
    {"random", "fold_in", "fold_in", nullptr},
    {"random", "uniform", "uniform", nullptr},
    {"random", "normal", "normal", nullptr},
    {"random", "randint", "randint", nullptr},
    {"random", "bernoulli", "bernoulli", nullptr},
    {"random", "categorical", "categorical", nullptr},
    {"random", "choice", "choice", nullptr},
    {"random", "permutation", "permutation", nullptr},
    {"random", "gumbel", "gumbel", nullptr},
    {"random", "exponential", "exponential", nullptr},
    {"random", "truncated_normal", "truncated_normal", nullptr},
    {"random", "shuffle", nullptr, "`random.shuffle` is deprecated in JAX: write `random.permutation(key, x)`"},
    {"random", "key_data", nullptr, "scn's keys are u32[2] arrays already: use the key itself"},
    {"random", "wrap_key_data", nullptr, "scn's keys are u32[2] arrays already: use the array itself"},
    {"random", "bits", nullptr, "draw integers with `random.randint(key, shape, minval, maxval)`"},
    {"random", "rademacher", nullptr, "write `2 * random.randint(key, shape, 0, 2) - 1`"},
    {"random", "laplace", nullptr, "with `u = random.uniform(key, shape) - 0.5`, write `-sign(u) * log1p(-2 * abs(u))`"},
    {"random", "logistic", nullptr, "with `u = random.uniform(key, shape)`, write `log(u) - log1p(-u)`"},
    {"random", "cauchy", nullptr, "with `u = random.uniform(key, shape)`, write `tan(pi * (u - 0.5))`"},
    {"random", "lognormal", nullptr, "write `exp(sigma * random.normal(key, shape))`"},
    {"random", "rayleigh", nullptr, "write `scale * sqrt(-2 * log1p(-random.uniform(key, shape)))`"},
    {"random", "gamma", nullptr, kOtherDistribution},
    {"random", "beta", nullptr, kOtherDistribution},
    {"random", "poisson", nullptr, kOtherDistribution},
    {"random", "dirichlet", nullptr, kOtherDistribution},
    {"random", "multivariate_normal", nullptr, "write `mean + random.normal(key, shape) @ linalg.cholesky(cov).T`"},
    {"random", "t", nullptr, kOtherDistribution},
    {"random", "binomial", nullptr, kOtherDistribution},
    {"random", "geometric", nullptr, kOtherDistribution},
    {"random", "orthogonal", nullptr, "take the Q of `linalg.qr(random.normal(key, (n, n)))`"},
    // ---- lax (jax.lax): control flow ----
    {"lax", "scan", "scan", nullptr},
    {"lax", "fori_loop", "fori_loop", nullptr},
    {"lax", "while_loop", "while_loop", nullptr},
    {"lax", "cond", "cond", nullptr},
    {"lax", "switch", "switch", nullptr},
    {"lax", "map", "map", nullptr},
    {"lax", "associative_scan", "associative_scan", nullptr},
    {"lax", "select_n", nullptr, "write `select(c, a, b)` for two cases, `lax.switch` for more"},
    // ---- lax: array ops ----
    {"lax", "top_k", "top_k", nullptr},
    {"lax", "dynamic_slice", "dynamic_slice", nullptr},
    {"lax", "dynamic_update_slice", "dynamic_update_slice", nullptr},
    {"lax", "select", "select", nullptr},
    {"lax", "reshape", "reshape", nullptr},
    {"lax", "transpose", "transpose", nullptr},
    {"lax", "concatenate", "concatenate", nullptr},
    {"lax", "dot", "dot", nullptr},
    {"lax", "full", "full", nullptr},
    {"lax", "full_like", "full_like", nullptr},
    {"lax", "batch_matmul", "matmul", nullptr},
    {"lax", "stop_gradient", "stop_gradient", nullptr},
    {"lax", "cumsum", nullptr, kCumulative},
    {"lax", "cumprod", nullptr, "lax's cumulative ops scan axis 0 by default: write `cumprod(x, axis=0)`"},
    {"lax", "cummax", nullptr, "lax's cumulative ops scan axis 0 by default: write `cummax(x, axis=0)`"},
    {"lax", "cummin", nullptr, "lax's cumulative ops scan axis 0 by default: write `cummin(x, axis=0)`"},
    {"lax", "cumlogsumexp", "cumlogsumexp", nullptr},
    {"lax", "sort", nullptr, "write `sort(x, axis=d)` (lax.sort's `dimension`); sort several arrays by one with `argsort`"},
    {"lax", "sort_key_val", nullptr, "write `i = argsort(keys)`, then `keys[i]` and `values[i]`"},
    {"lax", "argmax", nullptr, "write `argmax(x, axis=a)` (the index dtype is i32)"},
    {"lax", "argmin", nullptr, "write `argmin(x, axis=a)` (the index dtype is i32)"},
    {"lax", "pad", nullptr, "write `pad(x, pad_width, constant_values=v)`; lax.pad's interior padding is not in scn"},
    {"lax", "round", nullptr, "`round(x)` rounds halves to even (lax's rounding_method=1); lax.round's default rounds halves away from zero: `sign(x) * floor(abs(x) + 0.5)`"},
    {"lax", "clamp", nullptr, "write `clip(x, lo, hi)`: lax.clamp takes the bounds first, `lax.clamp(lo, x, hi)`"},
    {"lax", "rev", nullptr, "write `flip(x, axis=dims)`"},
    {"lax", "slice", nullptr, "index with slices: `x[start:limit:stride]`"},
    {"lax", "dynamic_index_in_dim", nullptr, "write `dynamic_slice(x, (i,), (1,))`, or index `x[i]`"},
    {"lax", "broadcast_in_dim", nullptr, "insert the new axes with `expand_dims` (or `x[None]`), then `broadcast_to`"},
    {"lax", "broadcast", nullptr, "write `broadcast_to(x, sizes + x.shape)`"},
    {"lax", "iota", nullptr, "write `arange(n, dtype=...)`"},
    {"lax", "convert_element_type", nullptr, "write `x.astype(dtype)`, or call the dtype: `f64(x)`"},
    {"lax", "conv", "lax.conv", nullptr},
    {"lax", "conv_general_dilated", "lax.conv_general_dilated", nullptr},
    {"lax", "conv_with_general_padding", "lax.conv_with_general_padding", nullptr},
    {"lax", "conv_transpose", "lax.conv_transpose", nullptr},
    {"lax", "reduce_window", "lax.reduce_window", nullptr},
    {"lax", "dot_general", nullptr, "write the contraction with `einsum` or `tensordot`"},
    {"lax", "gather", nullptr, "index with arrays: `x[idx]`, `take`, `take_along_axis`"},
    {"lax", "scatter", nullptr, "write `x.at[idx].set(v)`"},
    {"lax", "scatter_add", nullptr, "write `x.at[idx].add(v)`"},
    {"lax", "reduce", nullptr, "write the reduction: `sum`, `prod`, `max`, `min`, `all` or `any` with `axis=`"},
    // ---- lax: elementwise ----
    {"lax", "abs", "abs", nullptr},
    {"lax", "exp", "exp", nullptr},
    {"lax", "exp2", "exp2", nullptr},
    {"lax", "log", "log", nullptr},
    {"lax", "log1p", "log1p", nullptr},
    {"lax", "expm1", "expm1", nullptr},
    {"lax", "sqrt", "sqrt", nullptr},
    {"lax", "rsqrt", "rsqrt", nullptr},
    {"lax", "cbrt", "cbrt", nullptr},
    {"lax", "sin", "sin", nullptr},
    {"lax", "cos", "cos", nullptr},
    {"lax", "tan", "tan", nullptr},
    {"lax", "tanh", "tanh", nullptr},
    {"lax", "sinh", "sinh", nullptr},
    {"lax", "cosh", "cosh", nullptr},
    {"lax", "asin", "arcsin", nullptr},
    {"lax", "acos", "arccos", nullptr},
    {"lax", "atan", "arctan", nullptr},
    {"lax", "asinh", "arcsinh", nullptr},
    {"lax", "acosh", "arccosh", nullptr},
    {"lax", "atanh", "arctanh", nullptr},
    {"lax", "atan2", "arctan2", nullptr},
    {"lax", "floor", "floor", nullptr},
    {"lax", "ceil", "ceil", nullptr},
    {"lax", "sign", "sign", nullptr},
    {"lax", "erf", "erf", nullptr},
    {"lax", "erfc", "erfc", nullptr},
    {"lax", "erf_inv", "erfinv", nullptr},
    {"lax", "lgamma", "lgamma", nullptr},
    {"lax", "digamma", "digamma", nullptr},
    {"lax", "logistic", "sigmoid", nullptr},
    {"lax", "is_finite", "isfinite", nullptr},
    {"lax", "max", "maximum", nullptr},
    {"lax", "min", "minimum", nullptr},
    {"lax", "pow", "pow", nullptr},
    {"lax", "square", "square", nullptr},
    {"lax", "bitwise_and", "bitwise_and", nullptr},
    {"lax", "bitwise_or", "bitwise_or", nullptr},
    {"lax", "bitwise_xor", "bitwise_xor", nullptr},
    {"lax", "bitwise_not", "bitwise_not", nullptr},
    {"lax", "shift_left", "left_shift", nullptr},
    {"lax", "shift_right_arithmetic", nullptr, "write `right_shift(x, n)` (`x >> n`): arithmetic on signed integers"},
    {"lax", "shift_right_logical", nullptr, "shift an unsigned integer: `right_shift(u32(x), n)`"},
    {"lax", "integer_pow", nullptr, "write `x ** n`"},
    {"lax", "add", "add", nullptr},
    {"lax", "sub", "subtract", nullptr},
    {"lax", "mul", "multiply", nullptr},
    {"lax", "div", nullptr, "write `x / y` for floats; lax.div of integers rounds toward zero, `x // y` floors"},
    {"lax", "rem", nullptr, "write `fmod(x, y)` (the sign of x, as lax.rem); `x % y` takes the sign of y"},
    {"lax", "neg", "negative", nullptr},
    {"lax", "not", nullptr, "write the operator: `~x` (`!x` for a bool)"},
    {"lax", "eq", "equal", nullptr},
    {"lax", "ne", "not_equal", nullptr},
    {"lax", "lt", "less", nullptr},
    {"lax", "le", "less_equal", nullptr},
    {"lax", "gt", "greater", nullptr},
    {"lax", "ge", "greater_equal", nullptr},
    // ---- lax: collectives over a named mapped axis ----
    {"lax", "psum", "psum", nullptr},
    {"lax", "pmean", "pmean", nullptr},
    {"lax", "pmax", "pmax", nullptr},
    {"lax", "pmin", "pmin", nullptr},
    {"lax", "all_gather", "all_gather", nullptr},
    {"lax", "ppermute", "ppermute", nullptr},
    {"lax", "axis_index", "axis_index", nullptr},
};

const Env& rootOf(const Env& env) {
  const Env* e = &env;
  while (e->parent()) e = e->parent().get();
  return *e;
}

std::string qualified(std::string_view module, std::string_view member) {
  return std::string(module) + "." + std::string(member);
}

// The names of `module`, for a did-you-mean or the whole list.
std::vector<std::string> membersOf(std::string_view module, const Env& env) {
  std::vector<std::string> names;
  for (const ModuleMember& m : kTable)
    if (m.module == module && moduleMemberValue(m, env)) names.push_back(m.member);
  return names;
}

std::string memberList(std::string_view module, const Env& env) {
  std::vector<std::string> names = membersOf(module, env);
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) list += (i ? " " : "") + names[i];
  return "the members of `" + std::string(module) + "` are: " + list;
}

// `a.b.c` as {"a", "b", "c"}; empty when the chain does not start with a plain name.
std::vector<std::string> dottedNames(const Expr& e) {
  if (e.kind == ExprKind::Name) return {static_cast<const NameExpr&>(e).name};
  if (e.kind != ExprKind::Attr) return {};
  const auto& a = static_cast<const AttrExpr&>(e);
  std::vector<std::string> path = dottedNames(*a.base);
  if (!path.empty()) path.push_back(a.attr);
  return path;
}

// The module that has `member`, preferring `preferred`; empty when none has it.
std::string moduleHaving(const std::string& member, const std::string& preferred) {
  if (findModuleMember(preferred, member)) return preferred;
  for (std::string_view m : moduleNames())
    if (findModuleMember(m, member)) return std::string(m);
  return "";
}

[[noreturn]] void failMember(const std::string& module, const std::string& member, Span span, const Env& env) {
  std::string path = qualified(module, member);
  if (const ModuleMember* m = findModuleMember(module, member)) {
    std::string help = m->advice ? m->advice : memberList(module, env);
    if (m->target) fail("E0109", span, "`" + path + "` is not implemented in scn yet", help);
    fail("E0109", span, "`" + path + "` is not in scn", help);
  }
  std::string close = didYouMean(closestNames(member, membersOf(module, env)));
  fail("E0109", span, "module `" + module + "` has no member `" + member + "`",
       close.empty() ? memberList(module, env) : close);
}

}  // namespace

const std::vector<ModuleMember>& moduleMembers() { return kTable; }

const std::vector<std::string_view>& moduleNames() {
  static const std::vector<std::string_view> names = {"fft", "lax", "linalg", "nn", "random"};
  return names;
}

bool isModuleName(std::string_view name) {
  const auto& names = moduleNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

const ModuleMember* findModuleMember(std::string_view module, std::string_view member) {
  for (const ModuleMember& m : kTable)
    if (m.module == module && m.member == member) return &m;
  return nullptr;
}

std::optional<Value> moduleMemberValue(const ModuleMember& m, const Env& env) {
  if (!m.target) return std::nullopt;
  if (auto it = builtins().find(m.target); it != builtins().end()) return Value::ofBuiltin(it->second);
  // A prelude function (`square`, `sinh`): a global of the session.
  if (const Value* v = rootOf(env).lookup(m.target); v && v->kind == ValueKind::Closure) return *v;
  return std::nullopt;
}

std::optional<Value> resolveModulePath(const AttrExpr& e, const Env& env) {
  std::vector<std::string> path = dottedNames(e);
  if (path.size() < 2 || !isModuleName(path[0]) || env.lookup(path[0])) return std::nullopt;
  if (path.size() > 2) {
    if (findModuleMember(path[0], path[1])) return std::nullopt;  // `nn.relu.x`: read by the caller
    // `lax.linalg.cholesky`: scn's modules do not nest
    std::string inner = moduleHaving(path.back(), path[path.size() - 2]);
    fail("E0109", e.span, "module `" + path[0] + "` has no member `" + path[1] + "`",
         inner.empty() ? "scn's modules do not nest: " + memberList(path[0], env)
                       : "scn's modules do not nest: write `" + qualified(inner, path.back()) + "`");
  }
  const ModuleMember* m = findModuleMember(path[0], path[1]);
  std::optional<Value> v = m ? moduleMemberValue(*m, env) : std::nullopt;
  if (!v) failMember(path[0], path[1], e.span, env);
  return v;
}

std::optional<std::string> foreignModulePathHelp(const std::vector<std::string>& path, const Env& env) {
  if (path.size() < 3 || !isModuleName(path[path.size() - 2])) return std::nullopt;
  const std::string& module = path[path.size() - 2];
  const std::string& member = path.back();
  const ModuleMember* m = findModuleMember(module, member);
  std::string prefix = path[0];
  for (size_t i = 1; i + 2 < path.size(); ++i) prefix += "." + path[i];
  if (m && moduleMemberValue(*m, env))
    return "scn's modules have no `" + prefix + ".` prefix: write `" + qualified(module, member) + "`";
  if (m && m->advice) return "scn has no `" + qualified(module, member) + "`: " + m->advice;
  std::string close = didYouMean(closestNames(member, membersOf(module, env)));
  return "scn has no `" + qualified(module, member) + "`; " + (close.empty() ? memberList(module, env) : close);
}

std::optional<std::string> shadowedModuleHelp(const AttrExpr& e, const Env& env) {
  if (e.base->kind != ExprKind::Name) return std::nullopt;
  const std::string& name = static_cast<const NameExpr&>(*e.base).name;
  if (!isModuleName(name) || !findModuleMember(name, e.attr) || !env.lookup(name)) return std::nullopt;
  return "the variable `" + name + "` hides the module `" + name + "`; rename the variable to use `" +
         qualified(name, e.attr) + "`";
}

}  // namespace scn
