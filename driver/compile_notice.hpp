// A notice while a compile is slow (Note [Slow compiles] in compile_notice.cpp).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace scn {

/// What a slow compile reports: what is compiled ("f(f32[8])"), the seconds so far, and whether
/// it just ended. Called on a thread of its own.
using SlowCompileFn = std::function<void(const std::string& what, double seconds, bool done)>;

/// Watches one compile, from construction to destruction: past `afterMs` it calls `show` about
/// every 100 ms, and once with `done` at the end. Nothing happens for a quick compile, nor when
/// `show` is empty.
class CompileNotice {
 public:
  CompileNotice(const SlowCompileFn& show, std::string what, double afterMs);
  ~CompileNotice();
  CompileNotice(const CompileNotice&) = delete;
  CompileNotice& operator=(const CompileNotice&) = delete;

 private:
  void watch(double afterMs);

  const SlowCompileFn& show_;
  std::string what_;
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::thread watcher_;
};

}  // namespace scn
