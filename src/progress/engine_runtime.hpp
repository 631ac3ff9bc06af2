// The process's one progress engine and its lifetime, shared by every layer of liboverlap
// that needs progress (the collectives, partitioned communication) and by other shared
// objects through the private ABI (private_abi.h), such as the interception library.
//
// Lifetime rules (docs/liboverlap.md, "Lifetime"):
//  - The engine starts with its first user (acquire_engine) and its policy is that user's
//    choice; every later acquire joins it (a different explicit policy is an error).
//  - It runs while it has users or work in flight. When the last user leaves with work
//    still in flight, the engine keeps driving it (requests stay valid and complete) and
//    stops at the first safe point after that work drained, or at MPI_Finalize.
//  - Stopping it (no user, nothing in flight) joins its thread and unhooks it from MPI;
//    what the layers built with MPI (communicator duplicates) stays for a restart: a
//    restart on one rank only must find the same communicators the others still use.
//  - MPI_Finalize stops it for good: liboverlap's MPI_Finalize (mpi_finalize.cpp) before
//    calling PMPI_Finalize, else an attribute on MPI_COMM_SELF, whose delete callback MPI
//    runs first thing in MPI_Finalize. Work still in flight then is erroneous: it is
//    abandoned (receives cancelled, requests completed with an error) and memory MPI might
//    still use is never freed.
//  - The engine object itself is never destroyed, so no request, hook or racing thread
//    can reach freed memory, and no static destructor joins a thread (a child created by
//    fork() has none: liboverlap refuses to run there).
//  - liboverlap never initialises MPI.
// Work that calls MPI on liboverlap's own behalf (freeing communicators) runs only at safe
// points: entry points of liboverlap and the progress thread between passes, never inside
// a callback MPI runs (MPICH holds its lock during some of them).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "progress/progress_engine.hpp"
#include "progress/progress_policy.hpp"

namespace overlap::progress {

struct EngineUse {
  ProgressEngine* engine = nullptr;  // null on error
  std::string error;                 // one line: what is wrong and what to do
};

// Starts the engine (first user) or joins it. `requested` empty: OVERLAP_PROGRESS, else
// shared. Each success is one use; end it with release_engine().
EngineUse acquire_engine(std::optional<ProgressPolicy> requested);
// Ends one use; stops the engine when it was the last and nothing is in flight. Call it
// only from an entry point of liboverlap (a safe point).
void release_engine();
// The engine while it runs (also while it drains work its users left), else nullptr.
ProgressEngine* running_engine();
// Users of the running engine (0 while it drains or when stopped).
int engine_users();
// Scheduler::hurry()/unhurry() on the process's engine, running or not (its scheduler
// lives as long as the process). Async-signal-safe once the engine was acquired.
void hurry_engine(bool on) noexcept;
// Scheduler::set_link_model on the process's engine (its steps' expected times).
void set_engine_link_model(LinkModel m);

// Entry points of liboverlap call this first: it stops a drained engine whose users all
// left and runs requested sweeps. Never call it from inside an MPI callback.
void safe_point();
// Sweeps: work another layer asks for from a context that may not call MPI (an attribute
// delete callback); it runs at the next safe point, or in the progress thread.
void add_sweeper(std::function<void()> sweep);
void request_sweep();
// Runs once, at MPI_Finalize (with MPI still usable), after the engine stopped: layers
// free what they created with MPI (communicators). Registered once per layer.
void add_finalize_hook(std::function<void()> hook);
// True from the start of liboverlap's part of MPI_Finalize on: attribute callbacks MPI
// runs during MPI_Finalize must not wait for anything.
bool mpi_finalizing();
// liboverlap's part of MPI_Finalize, made before PMPI_Finalize: stops the engine for good
// and runs the finalize hooks. Does nothing when MPI is not initialised or already
// finalized, and the second time.
void before_mpi_finalize();

// How MPI calls reach the engine in this process (for diagnostics).
std::string progress_mechanism();
// True in a child process created by fork() after liboverlap was used.
bool in_forked_child();
// The 'caller' policy's note on stderr when MPICH's rescue thread first steps in is not
// printed (an interposition library acquired the engine and reports itself).
void quiet_rescue_note();

}  // namespace overlap::progress
