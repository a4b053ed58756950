// Arrays between Python and the embedding API (arrays.hpp).
#include "arrays.hpp"

#include <cstring>
#include <optional>
#include <string>

namespace scn::python {

// Note [Zero copies]
// An argument reaches scn as a view of the caller's memory: nanobind imports any object with
// __dlpack__ (NumPy, PyTorch, JAX) or the buffer protocol without copying, and the view carries
// its byte strides only when it is not C-contiguous, so scn borrows a contiguous, aligned array
// of a dtype it has (bool and static parameters excepted, see scn::ArrayView). Nothing converts
// implicitly: an array of another dtype (float16, int8, complex) is a TypeError naming the
// dtypes scn takes, as a silent copy and cast would hide a slow path. Lists, tuples and NumPy
// scalars go through numpy.asarray first. Python ints and floats become weak 0-d i64 / f64
// values, like unsuffixed literals in scn source (`f(x, 2.0)` keeps x's dtype).
//
// A result is a HostArray whose shared buffer is scn's own: it is moved into a capsule that
// owns it, and the NumPy array wraps the data pointer with the capsule as its owner. The array
// is writable when nothing else shares the buffer (HostArray::uniqueData: the usual case), and
// read-only when it does (a global of the program returned as it is, one buffer behind two
// results), so writing to a result never changes what scn or another result sees. Writable
// arrays also matter to DLPack consumers that cannot take a read-only array (jax.dlpack).

namespace {

std::optional<DataType> dataTypeOf(nb::dlpack::dtype t) {
  using Code = nb::dlpack::dtype_code;
  if (t.lanes != 1) return std::nullopt;
  auto code = static_cast<Code>(t.code);
  if (code == Code::Bool && t.bits == 8) return DataType::Bool;
  if (code == Code::Int && t.bits == 32) return DataType::I32;
  if (code == Code::Int && t.bits == 64) return DataType::I64;
  if (code == Code::UInt && t.bits == 32) return DataType::U32;
  if (code == Code::UInt && t.bits == 64) return DataType::U64;
  if (code == Code::Bfloat && t.bits == 16) return DataType::BF16;
  if (code == Code::Float && t.bits == 16) return DataType::F16;
  if (code == Code::Float && t.bits == 32) return DataType::F32;
  if (code == Code::Float && t.bits == 64) return DataType::F64;
  if (code == Code::Complex && t.bits == 64) return DataType::C64;
  if (code == Code::Complex && t.bits == 128) return DataType::C128;
  return std::nullopt;
}

nb::dlpack::dtype dlpackOf(DataType t) {
  using Code = nb::dlpack::dtype_code;
  auto make = [](Code c, uint8_t bits) { return nb::dlpack::dtype{static_cast<uint8_t>(c), bits, 1}; };
  switch (t) {
    case DataType::Bool: return make(Code::Bool, 8);
    case DataType::I32: return make(Code::Int, 32);
    case DataType::I64: return make(Code::Int, 64);
    case DataType::U32: return make(Code::UInt, 32);
    case DataType::U64: return make(Code::UInt, 64);
    case DataType::F32: return make(Code::Float, 32);
    case DataType::F64: return make(Code::Float, 64);
    case DataType::C64: return make(Code::Complex, 64);
    case DataType::C128: return make(Code::Complex, 128);
    case DataType::BF16: return make(Code::Bfloat, 16);
    case DataType::F16: return make(Code::Float, 16);
  }
  return make(Code::Float, 32);
}

std::string dlpackName(nb::dlpack::dtype t) {
  using Code = nb::dlpack::dtype_code;
  auto code = static_cast<Code>(t.code);
  std::string kind = code == Code::Int       ? "int"
                     : code == Code::UInt    ? "uint"
                     : code == Code::Float   ? "float"
                     : code == Code::Bfloat  ? "bfloat"
                     : code == Code::Complex ? "complex"
                     : code == Code::Bool    ? "bool"
                                             : "dlpack-code-" + std::to_string(t.code) + "-";
  return kind + std::to_string(t.bits) + (t.lanes != 1 ? "x" + std::to_string(t.lanes) : "");
}

[[noreturn]] void typeError(const std::string& message) { throw nb::type_error(message.c_str()); }

std::string which(size_t i, const char* fn) {
  return "argument " + std::to_string(i + 1) + " of `" + fn + "`";
}

const char* const kDtypes = "bool, int32, int64, uint32, uint64, bfloat16, float16, float32, float64, complex64 or complex128";

}  // namespace

CallInputs::CallInputs(size_t n) {
  views_.reserve(n);
  arrays_.reserve(n);
  scalars_.reserve(2 * n);  // views point into it: it must never reallocate (a complex takes 2)
}

void CallInputs::add(nb::handle arg, size_t i, const char* fn) {
  PyObject* o = arg.ptr();
  if (!o) {  // a parameter with a default, left out before a given one
    views_.emplace_back();
    views_.back().omitted = true;
    return;
  }
  if (PyBool_Check(o)) {
    scalars_.push_back(o == Py_True ? 1 : 0);
    views_.emplace_back(DataType::Bool, std::vector<int64_t>{}, &scalars_.back());
    return;
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow)
      throw nb::value_error((which(i, fn) + " is an int that does not fit in 64 bits").c_str());
    int64_t x = v;
    scalars_.push_back(0);
    std::memcpy(&scalars_.back(), &x, sizeof x);
    views_.emplace_back(DataType::I64, std::vector<int64_t>{}, &scalars_.back());
    views_.back().weak = true;
    return;
  }
  // Exact floats only: np.float64 subclasses float but is a strong f64 (docs/python.md).
  if (PyFloat_CheckExact(o)) {
    double x = PyFloat_AS_DOUBLE(o);
    scalars_.push_back(0);
    std::memcpy(&scalars_.back(), &x, sizeof x);
    views_.emplace_back(DataType::F64, std::vector<int64_t>{}, &scalars_.back());
    views_.back().weak = true;
    return;
  }
  if (PyComplex_CheckExact(o)) {  // weak, as a complex literal: alone it is c64
    double parts[2] = {PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)};
    scalars_.push_back(0);
    scalars_.push_back(0);
    std::memcpy(&scalars_[scalars_.size() - 2], parts, sizeof parts);
    views_.emplace_back(DataType::C128, std::vector<int64_t>{}, &scalars_[scalars_.size() - 2]);
    views_.back().weak = true;
    return;
  }
  if (addBfloat16(arg, i, fn) || addArray(arg, i, fn)) return;
  // Lists, tuples, NumPy scalars: through numpy.asarray (a copy; Note [Zero copies]).
  nb::object asarray = nb::module_::import_("numpy").attr("asarray");
  nb::object converted;
  try {
    converted = asarray(arg);
  } catch (nb::python_error&) {
    typeError(which(i, fn) + " is a " + std::string(nb::type_name(arg.type()).c_str()) +
              ", not an array or a number");
  }
  converted_.push_back(converted);
  if (!addArray(converted, i, fn))
    typeError(which(i, fn) + " (a " + std::string(nb::type_name(arg.type()).c_str()) +
              ") does not convert to a NumPy array scn can take");
}

// Note [bfloat16 in Python]
// NumPy has no bfloat16; JAX's is ml_dtypes.bfloat16, a NumPy dtype that neither the buffer
// protocol nor DLPack exports. So a NumPy array of it comes in as its bits (a uint16 view) and a
// bf16 result goes out as a uint16 array viewed as ml_dtypes.bfloat16 (ml_dtypes is imported only
// then; JAX depends on it, so a JAX user has it).

/// Adds an ml_dtypes.bfloat16 NumPy array as a bf16 view of its bits; false for anything else.
bool CallInputs::addBfloat16(nb::handle arg, size_t i, const char* fn) {
  if (!nb::hasattr(arg, "dtype") || !nb::hasattr(arg, "view")) return false;
  nb::object dtype = arg.attr("dtype");
  if (!nb::hasattr(dtype, "name") || std::string_view(nb::str(dtype.attr("name")).c_str()) != "bfloat16") return false;
  converted_.push_back(arg.attr("view")(nb::module_::import_("numpy").attr("uint16")));
  return addArray(converted_.back(), i, fn, DataType::BF16);
}

/// Adds a view of an array-like argument; false when nanobind cannot import it. `bitsOf`, when
/// given, is the dtype the array's bits hold (bf16 behind a uint16 view).
bool CallInputs::addArray(nb::handle arg, size_t i, const char* fn, std::optional<DataType> bitsOf) {
  nb::ndarray<nb::ro> a;
  if (!nb::try_cast(arg, a, /*convert=*/false)) return false;
  if (a.device_type() != nb::device::cpu::value)
    typeError(which(i, fn) + " is on a device (DLPack device type " + std::to_string(a.device_type()) +
              "); scn takes host arrays");
  std::optional<DataType> dtype = bitsOf ? bitsOf : dataTypeOf(a.dtype());
  if (!dtype)
    typeError(which(i, fn) + " has dtype " + dlpackName(a.dtype()) + "; scn takes " + kDtypes +
              " (convert it with .astype first)");
  size_t rank = a.ndim();
  std::vector<int64_t> shape(rank);
  bool contiguous = true;
  int64_t expected = 1;
  for (size_t d = rank; d-- > 0;) {
    shape[d] = static_cast<int64_t>(a.shape(d));
    if (shape[d] != 1 && a.stride(d) != expected) contiguous = false;
    expected *= shape[d];
  }
  std::vector<int64_t> strides;
  if (!contiguous) {
    int64_t itemsize = static_cast<int64_t>(dataTypeSize(*dtype));
    strides.resize(rank);
    for (size_t d = 0; d < rank; ++d) strides[d] = a.stride(d) * itemsize;
  }
  views_.emplace_back(*dtype, std::move(shape), a.data(), std::move(strides));
  arrays_.push_back(std::move(a));
  return true;
}

nb::object toNumpy(HostArray&& result) {
  auto* owned = new HostArray(std::move(result));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<HostArray*>(p); });
  std::vector<size_t> shape(owned->shape().begin(), owned->shape().end());
  bool bf16 = owned->dtype() == DataType::BF16;  // its bits, viewed (Note [bfloat16 in Python])
  nb::dlpack::dtype dtype = bf16 ? nb::dtype<uint16_t>() : dlpackOf(owned->dtype());
  nb::object out;
  if (void* data = owned->uniqueData())
    out = nb::ndarray<nb::numpy>(data, shape.size(), shape.data(), owner, nullptr, dtype).cast();
  else
    out = nb::ndarray<nb::numpy, nb::ro>(owned->data(), shape.size(), shape.data(), owner, nullptr, dtype).cast();
  if (!bf16) return out;
  nb::object mlDtypes;
  try {
    mlDtypes = nb::module_::import_("ml_dtypes");
  } catch (nb::python_error&) {
    throw nb::type_error("the result is bf16, which NumPy represents with ml_dtypes.bfloat16: install "
                         "ml_dtypes (pip install ml_dtypes; JAX brings it), or return x.astype(f32)");
  }
  return out.attr("view")(mlDtypes.attr("bfloat16"));
}

}  // namespace scn::python
