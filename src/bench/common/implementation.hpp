// Whose collectives a benchmark runs, and how liboverlap progresses them: the two
// vocabularies every collective benchmark shares, each with its names written once.
#pragma once

#include "base/enum_names.hpp"

namespace overlap::bench {

// mpi: the MPI library's own collectives; overlap: liboverlap's (OVX_I*, same arguments,
// waited on with MPI_Wait), used only through its C API, as an application would.
enum class Implementation { mpi, overlap };

inline constexpr EnumNames<Implementation, 2> kImplementationNames{
    "implementation", {{{Implementation::mpi, "mpi"}, {Implementation::overlap, "overlap"}}}};

// liboverlap's progress policies (docs/liboverlap.md); `automatic` ("auto") is resolved
// to one of the others before the run (OVX_Progress_choose) and recorded with its reason.
enum class ProgressPolicy { caller, shared, dedicated, automatic };

inline constexpr EnumNames<ProgressPolicy, 4> kProgressPolicyNames{
    "progress policy",
    {{{ProgressPolicy::caller, "caller"},
      {ProgressPolicy::shared, "shared"},
      {ProgressPolicy::dedicated, "dedicated"},
      {ProgressPolicy::automatic, "auto"}}}};

inline std::string_view to_string(Implementation i) { return kImplementationNames.name(i); }
inline std::string_view to_string(ProgressPolicy p) { return kProgressPolicyNames.name(p); }

}  // namespace overlap::bench
