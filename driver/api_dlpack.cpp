// DLPack tensors crossing the embedding API (driver/api_dlpack.hpp): inputs taken from a
// producer without a copy, results handed to a consumer sharing scn's buffer.
#include "driver/api_dlpack.hpp"

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "jit/array.hpp"

namespace scn {

// Note [Taking a DLPack tensor]
// DLPack hands a tensor over: the consumer calls its deleter once, when it no longer reads the
// memory. scn takes every tensor given to it, also one it cannot read (a float16 tensor, GPU
// memory, a later major version): its deleter runs before the error is returned, so a host
// has exactly one rule (the tensor is gone once handed over) and no error path leaks it. For a
// versioned tensor of another major version, DLPack allows nothing but calling the deleter.
// A tensor read successfully becomes a DLPackInput whose view() points into its memory: C-order
// host memory is borrowed by calls like any contiguous ArrayView (no copy); other strides
// (transposed, sliced, broadcast with stride 0, negative) are passed as byte strides and
// gathered by the call into a contiguous copy, as for any strided view: scn's kernels read
// row-major buffers only. Host memory is kDLCPU and the pinned host memory of CUDA and ROCm.

namespace {

const char* const kDtypes = "bool, int32, int64, uint32, uint64, bfloat16, float16, float32, float64, complex64 or complex128";

std::string dtypeText(const DLDataType& t) {
  std::string kind;
  switch (t.code) {
    case kDLInt: kind = "int"; break;
    case kDLUInt: kind = "uint"; break;
    case kDLFloat: kind = "float"; break;
    case kDLBfloat: kind = "bfloat"; break;
    case kDLComplex: kind = "complex"; break;
    case kDLBool: kind = "bool"; break;
    default: return "of DLPack type code " + std::to_string(t.code) + " (" + std::to_string(t.bits) + " bits)";
  }
  return kind + std::to_string(t.bits) + (t.lanes != 1 ? "x" + std::to_string(t.lanes) : "");
}

/// scn's dtype of a DLPack one; E0527 for the others.
DataType dataTypeOf(const DLDataType& t) {
  if (t.lanes == 1) {
    if (t.code == kDLBool && t.bits == 8) return DataType::Bool;
    if (t.code == kDLInt && t.bits == 32) return DataType::I32;
    if (t.code == kDLInt && t.bits == 64) return DataType::I64;
    if (t.code == kDLUInt && t.bits == 32) return DataType::U32;
    if (t.code == kDLUInt && t.bits == 64) return DataType::U64;
    if (t.code == kDLBfloat && t.bits == 16) return DataType::BF16;
    if (t.code == kDLFloat && t.bits == 16) return DataType::F16;
    if (t.code == kDLFloat && t.bits == 32) return DataType::F32;
    if (t.code == kDLFloat && t.bits == 64) return DataType::F64;
    if (t.code == kDLComplex && t.bits == 64) return DataType::C64;
    if (t.code == kDLComplex && t.bits == 128) return DataType::C128;
  }
  fail("E0527", Span{}, "the DLPack tensor has dtype " + dtypeText(t) + "; scn takes " + kDtypes,
       "convert it before handing it over (NumPy: `.astype(np.float32)`, PyTorch: `.to(torch.float32)`)");
}

DLDataType dlpackOf(DataType t) {
  auto make = [](uint8_t code, uint8_t bits) { return DLDataType{code, bits, 1}; };
  switch (t) {
    case DataType::Bool: return make(kDLBool, 8);
    case DataType::I32: return make(kDLInt, 32);
    case DataType::I64: return make(kDLInt, 64);
    case DataType::U32: return make(kDLUInt, 32);
    case DataType::U64: return make(kDLUInt, 64);
    case DataType::F32: return make(kDLFloat, 32);
    case DataType::F64: return make(kDLFloat, 64);
    case DataType::C64: return make(kDLComplex, 64);
    case DataType::C128: return make(kDLComplex, 128);
    case DataType::BF16: return make(kDLBfloat, 16);
    case DataType::F16: return make(kDLFloat, 16);
  }
  return make(kDLFloat, 32);
}

std::string deviceName(int32_t type) {
  switch (type) {
    case kDLCUDA: return "cuda";
    case kDLCUDAManaged: return "cuda managed";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLROCM: return "rocm";
    case kDLOneAPI: return "oneapi";
    default: return "device";
  }
}

/// E0528 unless the memory is the host's.
void checkHostMemory(const DLDevice& d) {
  int32_t type = static_cast<int32_t>(d.device_type);
  if (type == kDLCPU || type == kDLCUDAHost || type == kDLROCMHost) return;
  fail("E0528", Span{}, "the DLPack tensor is in " + deviceName(type) + " memory (device type " +
                            std::to_string(type) + ", device " + std::to_string(d.device_id) +
                            "); scn takes host memory",
       "copy it to the host first (PyTorch: `.cpu()`, JAX: `jax.device_put(x, jax.devices(\"cpu\")[0])`)");
}

/// The view of a DLTensor's memory (Note [Taking a DLPack tensor]); E0527-E0529 when unreadable.
ArrayView viewOf(const DLTensor& t) {
  checkHostMemory(t.device);
  DataType dtype = dataTypeOf(t.dtype);
  if (t.ndim < 0) fail("E0529", Span{}, "the DLPack tensor has a negative ndim (" + std::to_string(t.ndim) + ")");
  if (t.ndim > 0 && !t.shape)
    fail("E0529", Span{}, "the DLPack tensor has ndim " + std::to_string(t.ndim) + " but a null shape");
  Shape shape(t.shape, t.shape + t.ndim);
  for (int64_t d : shape)
    if (d < 0) fail("E0529", Span{}, "the DLPack tensor has a negative dimension in its shape " + shapeString(shape));
  int64_t n = numElements(shape);
  if (n > 0 && !t.data)
    fail("E0529", Span{}, "the DLPack tensor has a null data pointer but " + std::to_string(n) + " elements");
  const auto* data = static_cast<const unsigned char*>(t.data) + t.byte_offset;
  ArrayView v(dtype, std::move(shape), data);
  if (!t.strides || n == 0) return v;  // no strides: compact row-major (DLPack's convention)
  auto es = static_cast<int64_t>(dataTypeSize(dtype));
  bool rowMajor = true;
  int64_t expected = 1;
  for (size_t d = v.shape.size(); d-- > 0;) {
    if (v.shape[d] != 1 && t.strides[d] != expected) rowMajor = false;
    expected *= v.shape[d];
  }
  if (rowMajor) return v;
  for (size_t d = 0; d < v.shape.size(); ++d) {
    int64_t s = t.strides[d];
    if (s > INT64_MAX / es || s < -(INT64_MAX / es))
      fail("E0529", Span{}, "the DLPack tensor has a stride of " + std::to_string(s) +
                                " elements, more bytes than an address space holds");
    v.strides.push_back(s * es);
  }
  return v;
}

template <typename Managed>
std::shared_ptr<const DLPackInput::Impl> take(Managed* tensor, const DLTensor& t) {
  std::shared_ptr<DLPackInput::Impl> impl;
  try {
    impl = std::make_shared<DLPackInput::Impl>();
    impl->release = [tensor] { dropDLPack(tensor); };
  } catch (...) {  // no memory for the handle: the tensor is dropped all the same
    if (!impl || !impl->release) dropDLPack(tensor);
    throw;
  }
  impl->view = viewOf(t);  // a failure destroys impl, which calls the deleter
  return impl;
}

/// A result handed out: the HostArray keeps scn's buffer alive until the deleter runs.
template <typename Managed>
struct Exported {
  HostArray array;
  std::vector<int64_t> shape, strides;  // in elements, as DLPack counts them
  Managed managed{};
};

template <typename Managed>
Managed* exportArray(HostArray array) {
  auto* e = new Exported<Managed>{std::move(array), {}, {}, {}};
  e->shape = e->array.shape();
  e->strides.resize(e->shape.size());
  int64_t step = 1;
  for (size_t d = e->shape.size(); d-- > 0;) {
    e->strides[d] = step;
    step *= e->shape[d];
  }
  DLTensor& t = e->managed.dl_tensor;
  t.data = const_cast<void*>(e->array.data());
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(e->shape.size());
  t.dtype = dlpackOf(e->array.dtype());
  t.shape = e->shape.data();
  t.strides = e->strides.data();
  t.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = [](Managed* self) { delete static_cast<Exported<Managed>*>(self->manager_ctx); };
  return &e->managed;
}

}  // namespace

std::shared_ptr<const DLPackInput::Impl> takeDLPack(DLManagedTensor* tensor) {
  if (!tensor) fail("E0529", Span{}, "the DLPack tensor is a null pointer");
  return take(tensor, tensor->dl_tensor);
}

std::shared_ptr<const DLPackInput::Impl> takeDLPack(DLManagedTensorVersioned* tensor) {
  if (!tensor) fail("E0529", Span{}, "the DLPack tensor is a null pointer");
  if (tensor->version.major != DLPACK_MAJOR_VERSION) {
    std::string version = std::to_string(tensor->version.major) + "." + std::to_string(tensor->version.minor);
    dropDLPack(tensor);  // the only field DLPack lets a consumer use across major versions
    fail("E0530", Span{}, "the DLPack tensor has version " + version + "; scn reads DLPack 1.x tensors",
         "ask the producer for a version 1 tensor (Python: `x.__dlpack__(max_version=(1, 0))`)");
  }
  return take(tensor, tensor->dl_tensor);
}

void dropDLPack(DLManagedTensor* tensor) {
  if (tensor && tensor->deleter) tensor->deleter(tensor);
}

void dropDLPack(DLManagedTensorVersioned* tensor) {
  if (tensor && tensor->deleter) tensor->deleter(tensor);
}

const ArrayView& DLPackInput::view() const {
  static const ArrayView kEmpty;
  return impl_ ? impl_->view : kEmpty;
}

DLManagedTensor* toDLPack(HostArray array) { return exportArray<DLManagedTensor>(std::move(array)); }

DLManagedTensorVersioned* toDLPackVersioned(HostArray array) {
  DLManagedTensorVersioned* m = exportArray<DLManagedTensorVersioned>(std::move(array));
  m->version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  auto* e = static_cast<Exported<DLManagedTensorVersioned>*>(m->manager_ctx);
  m->flags = e->array.uniqueData() ? 0 : DLPACK_FLAG_BITMASK_READ_ONLY;
  return m;
}

}  // namespace scn
