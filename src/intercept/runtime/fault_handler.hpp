// The SIGSEGV handler: a fault on a page a transfer in flight protects waits for the
// transfers covering that page (only those) and returns, and the instruction runs again
// on the now accessible page. Every other fault goes to the handler the program (or its
// MPI library) installed, with SA_SIGINFO, SIG_DFL and SIG_IGN meaning what they mean
// without us (the shim keeps the program's handler; see preload_shim.c).
//
// Async-signal-safety: no allocation and no lock in the thread policies (the handler
// only reads the transfer table's atomics and sleeps on a futex). Under policy `caller`
// nobody else makes progress, so the handler makes passes itself, calling MPI from the
// signal handler: acceptable only because a fault we handle is always the program's own
// access outside MPI and outside the allocator (protected pages hold nothing else, and
// free/realloc settle first). A fault inside an interposed MPI call or in the progress
// thread would mean MPI itself touches a protected page: waiting could deadlock and going
// on could corrupt data, so that ends the process with a message.
#pragma once

namespace overlap::intercept {

void install_fault_handler();

}  // namespace overlap::intercept
