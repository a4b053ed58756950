// Watching a compile that takes long (Note [Slow compiles]).
#include "driver/compile_notice.hpp"

#include <chrono>

namespace scn {

// Note [Slow compiles]
// LLVM can take seconds on a large function, and a REPL that goes quiet for that long looks
// hung. So each compile is watched by a thread that sleeps until the compile ends or a second
// (SessionOptions::slowCompileMs) has passed; after that it reports the elapsed time ten times a
// second, and once more when the compile ends. The library never prints: the reports go to a
// callback, and the CLI shows them only when stderr is a terminal (`compiling f(f32[8]) ...
// 2.1s`, rewritten in place). A compile that ends in time costs one thread start and one
// wake-up, small beside any LLVM compile.

CompileNotice::CompileNotice(const SlowCompileFn& show, std::string what, double afterMs)
    : show_(show), what_(std::move(what)) {
  if (show_) watcher_ = std::thread([this, afterMs] { watch(afterMs); });
}

CompileNotice::~CompileNotice() {
  if (!watcher_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  finished_.notify_one();
  watcher_.join();
}

void CompileNotice::watch(double afterMs) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::unique_lock<std::mutex> lock(mutex_);
  if (finished_.wait_for(lock, std::chrono::duration<double, std::milli>(afterMs), [this] { return done_; })) return;
  while (!finished_.wait_for(lock, std::chrono::milliseconds(100), [this] { return done_; })) show_(what_, seconds(), false);
  show_(what_, seconds(), true);
}

}  // namespace scn
