// The cost model's parameters (cost_model.hpp): the latency of one message and the
// bandwidth of a link, as the per-message latency in bytes the model takes. Every rank of
// a communicator must choose the same algorithms, so the parameters are agreed, never
// local: calibration.hpp measures them and takes, over every rank, the largest latency and
// the smallest bandwidth (the slowest link bounds a collective). Until a calibration ran,
// every process has the same defaults.
//
// OVERLAP_COST_MODEL says where they come from: unset or "measure", measured by the
// calibration; "default", the defaults; "latency=5us,bandwidth=10GB/s", those values
// (units: ns, us, ms, s; B/s, kB/s, MB/s, GB/s, Mbit/s, Gbit/s; decimal prefixes).
// Pure but for the process's parameters (thread-safe).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace overlap::collectives {

enum class CostSource { defaults = 0, environment = 1, measured = 2 };
const char* cost_source_name(CostSource s);  // "default", "OVERLAP_COST_MODEL", "measured"

struct CostParams {
  double latency_s = 6.5536e-6;  // with 10 GB/s: 64 KiB, the model's historical constant
  double bandwidth = 1e10;       // bytes per second
  CostSource source = CostSource::defaults;
};

// Latency times bandwidth in bytes, within [512 B, 16 MiB]: a measurement gone wrong (a
// rank descheduled during the ping-pong) cannot push every choice to one extreme.
double latency_bytes(const CostParams& p);

struct CostModelSetting {
  bool measure = false;             // measure at calibration
  std::optional<CostParams> given;  // "default" or explicit values
  std::string error;                // names the bad text and what is allowed
};
CostModelSetting parse_cost_model(std::string_view text);

// The agreement of two ranks' parameters: the larger latency, the smaller bandwidth, the
// source that says the most (measured over given over default). Associative and
// commutative, so a reduction over any number of ranks in any order gives one answer.
CostParams combine(const CostParams& a, const CostParams& b);

// The parameters collectives on communicators within MPI_COMM_WORLD use.
CostParams process_cost_params();
void set_process_cost_params(const CostParams& p);
// A liboverlap collective was called in this process (after which the parameters may not
// change: ranks that chose with the old ones would disagree with the others).
void note_collective_called();
bool collective_called();

}  // namespace overlap::collectives
