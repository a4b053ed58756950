// Helpers shared by the libFuzzer targets: what counts as a finding, and input filters.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "base/diagnostics.hpp"

namespace scn::fuzz {

/// Prints `what` (and `input` when given) to stderr and aborts, so libFuzzer records the input
/// as a crash. Used for every property violation that is not a sanitizer report.
[[noreturn]] void finding(const std::string& what, std::string_view input = {});

/// Renders one diagnostic (while its source is alive: call it from the sink's callback) and
/// calls finding() for an internal error (E9999), an error without a code, or an empty message.
void checkDiagnostic(const Diagnostic& d, std::string_view input);

/// Renders every diagnostic of `sink` (exercising spans, carets and notes under ASan) and calls
/// finding() for an internal error (E9999), an error without a code, or an empty message.
void checkDiagnostics(const DiagnosticSink& sink, std::string_view input);

/// True when the environment variable `name` is set to a non-empty value other than "0"
/// (used to switch off a generator feature after a finding, see docs/hardening.md).
bool envFlag(const char* name);

/// Interrupts a call that has run for more than kCallSeconds, as a host would (scn_interrupt,
/// Session::interrupt): a legitimate program may run for years (a scan of 2**40 empty steps,
/// `running` over a (2**63 - 1, 0) array, an endless while_loop). Only a call that ignores the
/// interrupt is a finding, and libFuzzer's -timeout catches that.
class Watchdog {
 public:
  static constexpr double kCallSeconds = 3;
  Watchdog() : thread_([this] { watch(); }) {}
  ~Watchdog() {
    stop_ = true;
    thread_.join();
  }
  /// A call starts; `interrupt` stops it.
  void begin(std::function<void()> interrupt) {
    std::lock_guard<std::mutex> lock(m_);
    interrupt_ = std::move(interrupt);
    start_ = std::chrono::steady_clock::now();
  }
  void end() {
    std::lock_guard<std::mutex> lock(m_);
    interrupt_ = nullptr;
  }

 private:
  void watch() {
    while (!stop_) {
      {
        std::lock_guard<std::mutex> lock(m_);
        if (interrupt_ && std::chrono::steady_clock::now() - start_ > std::chrono::duration<double>(kCallSeconds))
          interrupt_();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  std::mutex m_;
  std::function<void()> interrupt_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// The text of a fuzzer input.
inline std::string textOf(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace scn::fuzz
