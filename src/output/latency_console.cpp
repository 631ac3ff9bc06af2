#include "output/latency_console.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <string>

#include "base/duration.hpp"

namespace overlap::output {
namespace {

constexpr const char* kRow = "{:<22} {:>10} {:>11} {:>11} {:>12}\n";

std::string bytes(long n) {
  const auto b = static_cast<double>(n);
  if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.4g} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return fmt::format("{:.4g} MiB", b / (1024.0 * 1024));
  if (b >= 1024) return fmt::format("{:.4g} KiB", b / 1024.0);
  return fmt::format("{} B", n);
}

std::string median_of(const bench::LatencyPointRecord& r, bench::NbcImpl impl) {
  const bench::LatencyTimes* t = r.times_of(impl);
  return t ? format_duration(t->median_s) : "-";
}

}  // namespace

void print_latency_header(std::ostream& out, const bench::RunContext& ctx,
                          const bench::LatencyConfig& config) {
  const bool ovx = std::find(config.impls.begin(), config.impls.end(), bench::NbcImpl::overlap) !=
                   config.impls.end();
  fmt::print(out, "# overlap-bench latency: {} ({}), P = {}, {} iterations{}\n", ctx.label,
             ctx.mpi_library, ctx.size, config.iterations,
             ovx ? ", liboverlap progress " + config.progress : "");
  fmt::print(out, "# Icoll + MPI_Wait from a barrier, slowest rank, median over iterations\n");
  fmt::print(out, kRow, "op", "msg", "mpi", "overlap", "overlap/mpi");
}

void print_latency_point(std::ostream& out, const bench::LatencyPointRecord& r) {
  const std::string op(bench::to_string(r.key.op));
  const std::string msg = r.key.op == bench::NbcOp::ibarrier ? "-" : bytes(r.msg_bytes);
  if (!r.valid) {
    fmt::print(out, "{:<22} {:>10} invalid: {}\n", op, msg, r.invalid_reason);
    return;
  }
  fmt::print(out, kRow, op, msg, median_of(r, bench::NbcImpl::mpi),
             median_of(r, bench::NbcImpl::overlap),
             r.ratio ? fmt::format("{:.2f}", *r.ratio) : "-");
}

}  // namespace overlap::output
