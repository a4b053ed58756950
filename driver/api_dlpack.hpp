// DLPack tensors crossing the embedding API: taken as call inputs, handed out as results
// (driver/api_dlpack.cpp). Used by driver/api.cpp and driver/api_c.cpp.
#pragma once

#include <functional>
#include <memory>

#include "scn/scn.hpp"

namespace scn {

/// A taken DLPack tensor: the view of its memory, and the call of its deleter when destroyed.
struct DLPackInput::Impl {
  ArrayView view;
  std::function<void()> release;
  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    if (release) release();
  }
};

/// Takes `tensor` (Note [Taking a DLPack tensor]). One scn cannot read throws a UserError
/// (E0527-E0530) after its deleter ran; a null pointer is E0529 with nothing to delete.
std::shared_ptr<const DLPackInput::Impl> takeDLPack(DLManagedTensor* tensor);
std::shared_ptr<const DLPackInput::Impl> takeDLPack(DLManagedTensorVersioned* tensor);

/// Calls the deleter of a tensor that is not taken after all (the context refused the call).
void dropDLPack(DLManagedTensor* tensor);
void dropDLPack(DLManagedTensorVersioned* tensor);

}  // namespace scn
