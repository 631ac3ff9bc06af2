#include "output/nbc_console.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "base/duration.hpp"

namespace overlap::output {
namespace {

std::string bytes(long n) {
  const auto b = static_cast<double>(n);
  if (b >= 1024L * 1024 * 1024) return fmt::format("{:.3g} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024L * 1024) return fmt::format("{:.3g} MiB", b / (1024.0 * 1024));
  if (b >= 1024) return fmt::format("{:.3g} KiB", b / 1024.0);
  return fmt::format("{} B", n);
}

std::string ratio(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; }
std::string pct(const std::optional<double>& v) { return v ? fmt::format("{:.0f}%", *v) : "-"; }

}  // namespace

void print_nbc_header(std::ostream& out, const bench::RunContext& ctx) {
  fmt::print(out, "# overlap-bench nbc: {} ({}), P = {}, {} computation thread(s) per rank\n",
             ctx.label, ctx.mpi_library, ctx.size, ctx.threads);
  fmt::print(out,
             "{:<8}{:<22} {:>9} {:>9} {:>10} {:>6} {:>10} {:>10} {:>10} {:>7} {:>6} {:>6} {:>5} "
             "{:>5}  {}\n",
             "impl", "op", "comm", "comp", "msg", "n", "t_comm", "t_comp", "t_meas", "r_ovh",
             "r_comm", "r_slow", "OSU", "IMB", "diagnosis");
}

void print_nbc_point(std::ostream& out, const bench::NbcPointRecord& p) {
  const std::string impl(bench::to_string(p.key.impl));
  const std::string op(bench::to_string(p.key.op));
  const std::string comm = format_duration(p.key.target_comm_s);
  const std::string comp = format_duration(p.key.target_comp_s);
  if (!p.valid) {
    fmt::print(out, "{:<8}{:<22} {:>9} {:>9} invalid: {}\n", impl, op, comm, comp,
               p.invalid_reason);
    return;
  }
  const auto& t = p.times;
  fmt::print(out,
             "{:<8}{:<22} {:>9} {:>9} {:>10} {:>6} {:>10} {:>10} {:>10} {:>7} {:>6} {:>6} {:>5} "
             "{:>5}  {}\n",
             impl, op, comm, comp, p.msg_bytes ? bytes(*p.msg_bytes) : "-",
             p.comp_size ? std::to_string(*p.comp_size) : "-", format_duration(t.t_comm_ref),
             format_duration(t.t_comp_ref), format_duration(t.t_measured), ratio(p.r_overhead),
             ratio(p.r_comm), ratio(p.r_comp_slowdown), pct(p.osu_overlap_pct),
             pct(p.imb_overlap_pct), measure::to_string(p.diagnosis));
}

void print_impact(std::ostream& out, const bench::RunContext& ctx,
                  const std::vector<bench::ImpactPoint>& points) {
  fmt::print(out, "# overlap-bench impact: {} ({}), P = {}, {} computation thread(s) per rank\n",
             ctx.label, ctx.mpi_library, ctx.size, ctx.threads);
  fmt::print(out, "{:>10} {:>12} {:>12} {:>8}  {}\n", "comp", "r_impact max", "median", "n (r0)",
             "per rank: before MPI_Init -> MPI idle");
  for (const auto& p : points) {
    if (!p.valid) {
      fmt::print(out, "{:>10} invalid: {}\n", format_duration(p.target_comp_s), p.invalid_reason);
      continue;
    }
    std::string detail;
    for (const auto& r : p.ranks) {
      detail +=
          fmt::format("{}{}: {} -> {}", detail.empty() ? "" : ", ", r.rank,
                      format_duration(r.t_comp_ref_s), format_duration(r.t_comp_passive_mpi_s));
    }
    fmt::print(out, "{:>10} {:>12.3f} {:>12.3f} {:>8}  {}\n", format_duration(p.target_comp_s),
               p.r_mpi_impact_max, p.r_mpi_impact_median, p.ranks.front().comp_size, detail);
  }
}

}  // namespace overlap::output
