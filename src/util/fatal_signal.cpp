#include "util/fatal_signal.hpp"

#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

namespace ss {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
namespace {

void write_text(const char* text) {
  const ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

// Only async-signal-safe calls here: write, backtrace_symbols_fd, signal, raise (backtrace itself
// loads its unwinder once, in report_fatal_signals, so that here it only walks the stack).
void on_fatal_signal(int sig) {
  write_text("streamsolve: fatal signal ");
  write_text(sig == SIGSEGV ? "SIGSEGV (invalid memory access)"
             : sig == SIGBUS ? "SIGBUS (bus error)"
             : sig == SIGFPE ? "SIGFPE (arithmetic exception)"
             : sig == SIGILL ? "SIGILL (illegal instruction)"
                             : "SIGABRT (abort)");
  write_text("; call stack, innermost first:\n");
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
  std::signal(sig, SIG_DFL);
  raise(sig);
}

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

}  // namespace

void report_fatal_signals() {
  void* warm[1];
  backtrace(warm, 1);
  for (int sig : kFatalSignals) std::signal(sig, on_fatal_signal);
}

void leave_fatal_signals_to_mpi() {
  for (int sig : kFatalSignals) {
    const auto previous = std::signal(sig, SIG_DFL);
    if (previous != on_fatal_signal) std::signal(sig, previous);  // not ours: left as it was
  }
}
#else
void report_fatal_signals() {}
void leave_fatal_signals_to_mpi() {}
#endif

}  // namespace ss
