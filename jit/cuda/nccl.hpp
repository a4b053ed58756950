// NCCL, loaded at run time with dlopen (Note [Loading NCCL]): a table of function pointers.
#pragma once

#include <string>

namespace scn::cuda {

// Note [Loading NCCL]
// Collectives between GPUs are NCCL's (from the CUDA toolkit or the system), never scn's own.
// Like the driver and cuBLAS (Note [Loading the driver]), NCCL is not linked: libnccl.so.2 is
// dlopen'ed the first time a run asks for NCCL collectives (SCN_COLLECTIVES=nccl), from
// $SCN_NCCL when set (that path only), else the loader's search path, /usr/local/cuda/lib64 and
// /usr/local/cuda/lib. So the same binary runs where NCCL is absent, and says so (E0445) only
// when NCCL is asked for. The entry points are declared with plain types (an ncclComm_t is a
// pointer, ncclResult_t, ncclDataType_t and ncclRedOp_t are ints, an ncclUniqueId is 128 bytes),
// so building scn needs no nccl.h.

/// nccl.h's ncclUniqueId: the bootstrap handle rank 0 makes and every rank receives.
struct NcclUniqueId {
  char internal[128];
};

/// The NCCL functions scn uses; filled by loadNccl.
struct Nccl {
  void* lib = nullptr;
  std::string path;  // as dlopen'ed
  int version = 0;   // ncclGetVersion: 22809 for 2.28.9
  int (*getVersion)(int*) = nullptr;
  int (*getUniqueId)(NcclUniqueId* id) = nullptr;
  int (*commInitRank)(void** comm, int nranks, NcclUniqueId id, int rank) = nullptr;
  int (*commDestroy)(void* comm) = nullptr;
  int (*commAbort)(void* comm) = nullptr;
  int (*commGetAsyncError)(void* comm, int* asyncError) = nullptr;
  int (*allReduce)(const void* send, void* recv, size_t count, int dtype, int op, void* comm, void* stream) = nullptr;
  int (*allGather)(const void* send, void* recv, size_t count, int dtype, void* comm, void* stream) = nullptr;
  const char* (*getErrorString)(int result) = nullptr;

  /// "2.28.3".
  std::string versionText() const;
};

/// Loads NCCL once per process; null with *whyNot ("NCCL (libnccl.so.2) was not found: ...",
/// "NCCL lacks ...") when it is unusable.
const Nccl* loadNccl(std::string* whyNot);

}  // namespace scn::cuda
