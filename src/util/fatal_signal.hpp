#pragma once
// A crash says where it happened: on SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT (glibc's heap checks
// abort too) the process writes one line naming the signal and then its call stack to stderr, and
// dies by the same signal (its exit status and core dump unchanged). The stack's frames name the
// program's functions (the executable exports its symbols) or their addresses; a bug report with it
// says where to look, even from a run that cannot be repeated.
// Not in a sanitizer build: AddressSanitizer reports these itself, with more. Under MPI, Open MPI's
// own handler prints each rank's stack (it installs none over a handler already there, with a
// warning): MPI start-up gives the signals back first.
namespace ss {

void report_fatal_signals();
// The default action again for those signals (before MPI_Init).
void leave_fatal_signals_to_mpi();

}  // namespace ss
