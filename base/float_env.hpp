// The floating-point environment scn computes in on the host: denormals flushed to zero.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace scn {

// Note [Denormals flushed to zero]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// JAX on the CPU computes with denormals flushed to zero (XLA sets the flush mode on the threads
// it runs on), so `cumprod` of 0.95s reaches 0.0 after ~1800 steps. With IEEE denormals a
// product that decays below f32's normal range stops at the smallest denormal (0.95 x 1 ulp
// rounds back to 1 ulp), and on Intel cores every later multiplication is a microcode assist:
// workload A's linear recurrence ran 13x slower than with flushing on a Xeon (3x slower than
// JAX; issue 21), where AMD cores handle denormals in hardware. So scn computes as JAX does: every
// host-side evaluation (a script, a REPL entry, an embedding call, a compiled function on any
// backend that runs on the host, the CPU pool's workers) runs with FTZ, a denormal result is
// +-0.0, and the caller's mode is restored afterwards, so an embedding host's own arithmetic is
// unchanged. x86's DAZ (denormal operands read as 0) is left off: a denormal that comes from
// outside (a loaded file, a host's array) keeps its value, prints as itself and is not zero to
// a comparison. On a GPU (scn's CUDA backend, like XLA's with --xla_gpu_ftz=false) denormals are
// kept. docs/language.md "dtypes" says so.

/// Sets FTZ for the current thread until destruction, then restores the previous mode.
class FlushDenormals {
 public:
  FlushDenormals() : saved_(read()) { write(saved_ | kFlushBits); }
  ~FlushDenormals() { write(saved_); }
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;

  /// Sets FTZ for the rest of the current thread's life (scn's own worker threads).
  static void forThisThread() { write(read() | kFlushBits); }

 private:
#if defined(__x86_64__) || defined(__i386__)
  static constexpr uint64_t kFlushBits = 0x8000;  // MXCSR.FTZ (bit 15); DAZ (bit 6) stays off
  static uint64_t read() { return _mm_getcsr(); }
  static void write(uint64_t v) { _mm_setcsr(static_cast<unsigned>(v)); }
#elif defined(__aarch64__)
  static constexpr uint64_t kFlushBits = uint64_t{1} << 24;  // FPCR.FZ (flushes operands too: no separate bit)
  static uint64_t read() {
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    return v;
  }
  static void write(uint64_t v) { __asm__ __volatile__("msr fpcr, %0" : : "r"(v)); }
#else
  static constexpr uint64_t kFlushBits = 0;  // unknown CPU: its default (IEEE denormals)
  static uint64_t read() { return 0; }
  static void write(uint64_t) {}
#endif
  uint64_t saved_;
};

}  // namespace scn
