// liboverlap's partitioned layer against what MPI-4 partitioned communication promises.
// Modes:
//   cases SEED N [AGG]  randomised cases on 2 or more ranks in a ring (each rank sends to
//                  the next and receives from the previous one, so on 2 ranks both ways
//                  at once): 1..64 partitions on each side (different counts), 0 to
//                  several MiB with partitions of any size, aggregation policies (AGG
//                  `random`, the default, draws none, count, bytes or adaptive per case;
//                  `adaptive` draws adaptive with or without a byte bound),
//                  Pready/Pready_range/Pready_list from many threads in random order,
//                  Parrived polling (a partition reported arrived must already hold its
//                  data), 1..3 epochs on the same requests, 1..3 requests between each pair
//                  on one tag (matched in posting order), and ordinary point-to-point on
//                  the same communicator in between. Data compared byte for byte.
// The other modes run on 2 ranks (rank 0 sends, rank 1 receives):
//   early FILE     early transfer is real: partition 0 must arrive (Parrived true on the
//                  receiver) while the sender's other partitions wait, making no MPI call,
//                  for FILE, which the receiver creates only after seeing partition 0.
//                  (The aggregation is OVERLAP_PART_AGGREGATION's.)
//   cxx            the C++ layer (overlap::PartitionedSend/PartitionedRecv): two epochs, 3
//                  partitions against 4, and a size that does not cut evenly refused.
//   types          derived datatypes chosen apart on each side (packed by the layer), and
//                  more partitions than message tags when no aggregation is asked for.
//   errors         every bad input returns an MPI error whose string names the value;
//                  beyond the tag space, none asked for is refused and adaptive carries the
//                  data.
// Prints PASS or the failures.
#include <overlap/overlap.h>
#include <overlap/overlap.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "verdict.hpp"
#include "watchdog.hpp"

namespace {

using ovx_test::expect;

std::uint8_t pattern(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL + i * 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return static_cast<std::uint8_t>(x * 0x94D049BB133111EBULL >> 56);
}

struct Case {
  int send_partitions = 1;
  int recv_partitions = 1;
  int elem = 1;  // bytes per element: 1 (MPI_BYTE) or 4 (MPI_INT)
  long long elements = 0;
  int requests = 1;
  int epochs = 1;
  int aggregation = 0;  // 0 none, 1 count, 2 bytes, 3 adaptive (value 0: no byte bound)
  int aggregation_value = 1;
  int threads = 1;
  std::uint64_t seed = 0;
};

Case draw(std::mt19937_64& rng, int index, bool adaptive_only) {
  Case c;
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  c.send_partitions = pick(1, 64);
  c.recv_partitions = pick(0, 3) == 0 ? c.send_partitions : pick(1, 64);
  c.elem = pick(0, 1) == 0 ? 1 : 4;
  const long long unit = std::lcm(static_cast<long long>(c.send_partitions), c.recv_partitions);
  // Bytes: a few zero-size cases, mostly up to 256 KiB, some of several MiB.
  long long target = 0;
  const int size_class = pick(0, 9);
  if (size_class == 0)
    target = 0;
  else if (size_class < 8)
    target = pick(1, 256 * 1024);
  else
    target = pick(1, 6 * 1024 * 1024);
  c.elements = unit * ((target / c.elem + unit - 1) / unit);
  c.requests = pick(1, 3);
  c.epochs = pick(1, 3);
  c.aggregation = adaptive_only ? 3 : pick(0, 3);
  c.aggregation_value = c.aggregation == 1 ? pick(1, 8) : pick(1, 64 * 1024);
  if (c.aggregation == 3 && pick(0, 1) == 0) c.aggregation_value = 0;
  c.threads = std::min(c.send_partitions, pick(1, 8));
  c.seed = static_cast<std::uint64_t>(index) * 7919 + rng();
  return c;
}

std::string describe(const Case& c) {
  return "send_partitions=" + std::to_string(c.send_partitions) +
         " recv_partitions=" + std::to_string(c.recv_partitions) +
         " bytes=" + std::to_string(c.elements * c.elem) +
         " requests=" + std::to_string(c.requests) + " epochs=" + std::to_string(c.epochs) +
         " aggregation=" + std::to_string(c.aggregation) + ":" +
         std::to_string(c.aggregation_value) + " threads=" + std::to_string(c.threads);
}

// Marks every partition ready from `threads` threads, each taking a random share in random
// order and using Pready, Pready_range or Pready_list for it.
void ready_all(OVX_Prequest req, int partitions, int threads, std::mt19937_64& rng) {
  std::vector<int> order(static_cast<std::size_t>(partitions));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::vector<int>> share(static_cast<std::size_t>(threads));
  for (std::size_t i = 0; i < order.size(); ++i) share[i % share.size()].push_back(order[i]);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const std::uint64_t thread_seed = rng();
    pool.emplace_back([&, t, thread_seed] {
      std::mt19937_64 local(thread_seed);
      auto& mine = share[static_cast<std::size_t>(t)];
      std::size_t i = 0;
      while (i < mine.size()) {
        const int how = static_cast<int>(local() % 3);
        int rc = MPI_SUCCESS;
        if (how == 1 && i + 1 < mine.size() && mine[i + 1] == mine[i] + 1) {
          rc = OVX_Pready_range(mine[i], mine[i + 1], req);
          i += 2;
        } else if (how == 2 && i + 1 < mine.size()) {
          const int list[2] = {mine[i + 1], mine[i]};
          rc = OVX_Pready_list(2, list, req);
          i += 2;
        } else {
          rc = OVX_Pready(mine[i], req);
          i += 1;
        }
        expect(rc == MPI_SUCCESS, "Pready returned an error");
        if (local() % 4 == 0) std::this_thread::yield();
      }
    });
  }
  for (auto& th : pool) th.join();
}

MPI_Info aggregation_info(const Case& c) {
  if (c.aggregation == 0) return MPI_INFO_NULL;
  MPI_Info info;
  MPI_Info_create(&info);
  std::string v = (c.aggregation == 1   ? "count:"
                   : c.aggregation == 2 ? "bytes:"
                                        : "adaptive:") +
                  std::to_string(c.aggregation_value);
  if (c.aggregation == 3 && c.aggregation_value == 0) v = "adaptive";
  MPI_Info_set(info, "overlap_aggregation", v.c_str());
  return info;
}

// Polls Parrived on `req` in random order until every partition arrived; a partition
// reported arrived must already hold its data.
void poll_arrived(OVX_Prequest req, const std::vector<std::uint8_t>& buf, int partitions,
                  const std::function<std::uint8_t(std::size_t)>& value, const Case& c,
                  std::mt19937_64& rng) {
  const std::size_t per = (buf.size() - 1) / static_cast<std::size_t>(partitions);
  std::vector<int> left(static_cast<std::size_t>(partitions));
  std::iota(left.begin(), left.end(), 0);
  while (!left.empty()) {
    const std::size_t k = rng() % left.size();
    int flag = 0;
    expect(OVX_Parrived(req, left[k], &flag) == MPI_SUCCESS, "Parrived");
    if (!flag) {
      std::this_thread::yield();  // 3 or 4 ranks share two cores
      continue;
    }
    const std::size_t from = per * static_cast<std::size_t>(left[k]);
    for (std::size_t i = from; i < from + per; ++i) {
      if (buf[i] != value(i)) {
        expect(false, "partition " + std::to_string(left[k]) + " reported arrived but byte " +
                          std::to_string(i) + " differs: " + describe(c));
        break;
      }
    }
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(k));
  }
}

// One case on a ring: this rank sends c.requests partitioned requests to the next rank and
// receives as many from the previous one (on 2 ranks: both ways with the same peer).
void run_case(const Case& c, int rank, int size, std::mt19937_64& rng) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const MPI_Datatype type = c.elem == 1 ? MPI_BYTE : MPI_INT;
  const std::size_t bytes = static_cast<std::size_t>(c.elements) * static_cast<std::size_t>(c.elem);
  const auto n = static_cast<std::size_t>(c.requests);
  std::vector<std::vector<std::uint8_t>> out(n, std::vector<std::uint8_t>(bytes));
  std::vector<std::vector<std::uint8_t>> in(n, std::vector<std::uint8_t>(bytes + 1));
  std::vector<OVX_Prequest> sends(n, OVX_PREQUEST_NULL), recvs(n, OVX_PREQUEST_NULL);
  const int tag = 7;
  MPI_Info info = aggregation_info(c);
  for (std::size_t r = 0; r < n; ++r) {
    expect(OVX_Psend_init(out[r].data(), c.send_partitions, c.elements / c.send_partitions, type,
                          next, tag, MPI_COMM_WORLD, info, &sends[r]) == MPI_SUCCESS &&
               OVX_Precv_init(in[r].data(), c.recv_partitions, c.elements / c.recv_partitions, type,
                              prev, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &recvs[r]) == MPI_SUCCESS,
           "init failed: " + describe(c));
  }
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  for (int e = 0; e < c.epochs; ++e) {
    // What `from` sends on request r in this epoch.
    auto value = [&](int from, std::size_t r, std::size_t i) {
      return pattern(
          c.seed + static_cast<std::uint64_t>(from) * 7 + r * 131 + static_cast<std::uint64_t>(e),
          i);
    };
    std::vector<MPI_Request> send_epochs(n, MPI_REQUEST_NULL), recv_epochs(n, MPI_REQUEST_NULL);
    // Ordinary point-to-point on the same communicator, posted around the partitioned
    // epochs; it must neither disturb them nor be disturbed.
    int plain_out = rank * 100000 + e * 1000 + 5, plain_in = -1;
    MPI_Request plain[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t i = 0; i < bytes; ++i) out[r][i] = value(rank, r, i);
      std::fill(in[r].begin(), in[r].end(), std::uint8_t{0xEE});
    }
    MPI_Irecv(&plain_in, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &plain[0]);
    expect(OVX_Startall(c.requests, recvs.data(), recv_epochs.data()) == MPI_SUCCESS, "Startall");
    expect(OVX_Startall(c.requests, sends.data(), send_epochs.data()) == MPI_SUCCESS, "Startall");
    MPI_Isend(&plain_out, 1, MPI_INT, next, tag, MPI_COMM_WORLD, &plain[1]);
    // Requests readied in reverse order: matching must still follow posting order.
    for (std::size_t r = n; r-- > 0;) ready_all(sends[r], c.send_partitions, c.threads, rng);
    for (std::size_t r = 0; r < n; ++r)
      poll_arrived(
          recvs[r], in[r], c.recv_partitions, [&](std::size_t i) { return value(prev, r, i); }, c,
          rng);
    MPI_Status st[3];
    expect(MPI_Waitall(c.requests, send_epochs.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS,
           "Waitall on the send epochs");
    expect(MPI_Waitall(c.requests, recv_epochs.data(), st) == MPI_SUCCESS,
           "Waitall on the receive epochs");
    MPI_Waitall(2, plain, MPI_STATUSES_IGNORE);
    expect(plain_in == prev * 100000 + e * 1000 + 5, "ordinary message disturbed: " + describe(c));
    for (std::size_t r = 0; r < n; ++r) {
      int count = -1;
      MPI_Get_count(&st[r], MPI_BYTE, &count);
      expect(st[r].MPI_SOURCE == prev && st[r].MPI_TAG == tag && count == static_cast<int>(bytes),
             "epoch status (source, tag, bytes): " + describe(c));
      for (std::size_t i = 0; i < bytes; ++i) {
        if (in[r][i] != value(prev, r, i)) {
          expect(false, "request " + std::to_string(r) + " epoch " + std::to_string(e) + " byte " +
                            std::to_string(i) + " differs: " + describe(c));
          break;
        }
      }
      expect(in[r][bytes] == 0xEE, "wrote past the buffer: " + describe(c));
    }
  }
  for (auto* reqs : {&sends, &recvs})
    for (auto& r : *reqs)
      expect(OVX_Prequest_free(&r) == MPI_SUCCESS && r == OVX_PREQUEST_NULL, "free");
}

void cases(std::uint64_t seed, int n, bool adaptive_only, int rank, int size) {
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 shared(seed);
  std::mt19937_64 local(seed + 1000003ULL * static_cast<std::uint64_t>(rank));
  for (int i = 0; i < n; ++i) {
    const Case c = draw(shared, i, adaptive_only);
    if (rank == 0) std::printf("case %d: %s\n", i, describe(c).c_str());
    std::fflush(stdout);
    run_case(c, rank, size, local);
    if (ovx_test::failures > 0) {
      std::fprintf(stderr, "rank %d: case %d failed: %s\n", rank, i, describe(c).c_str());
      break;
    }
  }
}

void early(const std::string& file, int rank) {
  constexpr int kParts = 4;
  constexpr int kCount = 1 << 20;  // 1 MiB per partition: beyond eager sizes
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(kParts) * kCount);
  OVX_Prequest req = OVX_PREQUEST_NULL;
  MPI_Request epoch = MPI_REQUEST_NULL;
  if (rank == 0) {
    std::filesystem::remove(file);
    for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = pattern(42, i);
    OVX_Psend_init(buf.data(), kParts, kCount, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    OVX_Start(req, &epoch);
    OVX_Pready(0, req);
    // The other partitions' threads compute until the receiver saw partition 0: no MPI
    // call on this process meanwhile, except the progress engine's.
    bool seen = false;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!(seen = std::filesystem::exists(file)) && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    expect(seen, "partition 0 did not arrive at the receiver within 60 s before the last Pready");
    std::vector<std::thread> pool;
    for (int p = 1; p < kParts; ++p) pool.emplace_back([&, p] { OVX_Pready(p, req); });
    for (auto& t : pool) t.join();
    MPI_Wait(&epoch, MPI_STATUS_IGNORE);
  } else {
    OVX_Precv_init(buf.data(), kParts, kCount, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    OVX_Start(req, &epoch);
    int flag = 0;
    while (!flag) OVX_Parrived(req, 0, &flag);
    bool ok = true;
    for (std::size_t i = 0; i < static_cast<std::size_t>(kCount) && ok; ++i)
      ok = buf[i] == pattern(42, i);
    expect(ok, "partition 0 arrived with wrong data");
    for (int p = 1; p < kParts; ++p) {
      int other = 0;
      OVX_Parrived(req, p, &other);
      expect(!other,
             "partition " + std::to_string(p) + " reported arrived before the sender readied it");
    }
    std::ofstream(file) << "arrived\n";
    MPI_Wait(&epoch, MPI_STATUS_IGNORE);
    ok = true;
    for (std::size_t i = 0; i < buf.size() && ok; ++i) ok = buf[i] == pattern(42, i);
    expect(ok, "data differ after the epoch");
    std::filesystem::remove(file);
  }
  OVX_Prequest_free(&req);
}

void cxx(int rank) {
  std::vector<int> data(12);
  if (rank == 0) {
    overlap::PartitionedSend<int> send(std::span<const int>(data), 3, overlap::Rank{1}, 5,
                                       MPI_COMM_WORLD);
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::iota(data.begin(), data.end(), epoch * 100);
      overlap::Request r = send.start();
      send.ready(2);
      send.ready_range(0, 0);
      const int last[] = {1};
      send.ready_list(last);
      r.wait();
    }
    bool refused = false;
    try {
      std::vector<int> ten(10);
      overlap::PartitionedSend<int> bad(std::span<const int>(ten), 3, overlap::Rank{1}, 6,
                                        MPI_COMM_WORLD);
    } catch (const std::invalid_argument& e) {
      refused = std::string(e.what()).find("10 elements cannot be cut into 3") != std::string::npos;
    }
    expect(refused, "10 elements in 3 partitions must be refused, naming both");
  } else {
    overlap::PartitionedRecv<int> recv(std::span<int>(data), 4, overlap::Rank{0}, 5,
                                       MPI_COMM_WORLD);
    for (int epoch = 0; epoch < 2; ++epoch) {
      overlap::Request r = recv.start();
      for (int p = 0; p < 4; ++p)
        while (!recv.arrived(p)) {
        }
      r.wait();
      for (int i = 0; i < 12; ++i)
        expect(data[static_cast<std::size_t>(i)] == epoch * 100 + i, "C++ epoch data");
    }
  }
}

void expect_refused(const char* what, int rc, const std::string& needle) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &len);
  const std::string message(text, static_cast<std::size_t>(len));
  expect(rc != MPI_SUCCESS && message.find(needle) != std::string::npos,
         std::string(what) + ": rc=" + std::to_string(rc) + ", message '" + message +
             "', expected it to contain '" + needle + "'");
}

// More partitions than a tag per message allows (at most 4096 on any MPI_TAG_UB): `none`
// is refused with a message naming the count; `adaptive` (two tags whatever the count)
// carries them, once as one Pready_range and once as single Preadys in random order (many
// runs, several descriptors per batch), into 8 receiver partitions.
void beyond_the_tag_space(int rank) {
  constexpr int kParts = 20000;
  std::vector<int> data(kParts);
  OVX_Prequest req = OVX_PREQUEST_NULL;
  MPI_Request epoch = MPI_REQUEST_NULL;
  if (rank == 0) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "overlap_aggregation", "none");  // asked for: refused
    expect_refused(
        "one message per partition beyond the tag space",
        OVX_Psend_init(data.data(), kParts, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, info, &req),
        "partitions=20000 with aggregation none makes 20000 messages per epoch");
    MPI_Info_set(info, "overlap_aggregation", "adaptive");
    expect(OVX_Psend_init(data.data(), kParts, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, info, &req) ==
               MPI_SUCCESS,
           "adaptive with 20000 partitions");
    MPI_Info_free(&info);
    std::vector<int> order(kParts);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(5));
    for (int e = 0; e < 2; ++e) {
      std::iota(data.begin(), data.end(), e * kParts);
      expect(OVX_Start(req, &epoch) == MPI_SUCCESS, "Start");
      if (e == 0) {
        expect(OVX_Pready_range(0, kParts - 1, req) == MPI_SUCCESS, "Pready_range");
      } else {
        for (const int p : order) expect(OVX_Pready(p, req) == MPI_SUCCESS, "Pready");
      }
      expect(MPI_Wait(&epoch, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait (adaptive send)");
    }
  } else {
    expect(OVX_Precv_init(data.data(), 8, kParts / 8, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &req) == MPI_SUCCESS,
           "receive of 20000 partitions in 8");
    for (int e = 0; e < 2; ++e) {
      std::fill(data.begin(), data.end(), -1);
      expect(OVX_Start(req, &epoch) == MPI_SUCCESS, "Start");
      expect(MPI_Wait(&epoch, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait (adaptive receive)");
      bool same = true;
      for (int i = 0; i < kParts && same; ++i)
        same = data[static_cast<std::size_t>(i)] == e * kParts + i;
      expect(same, "data of 20000 adaptive partitions, epoch " + std::to_string(e));
    }
  }
  expect(OVX_Prequest_free(&req) == MPI_SUCCESS, "free");
  MPI_Barrier(MPI_COMM_WORLD);
}

// Any datatype, chosen apart on each side: a vector with holes (2 ints 2 apart, extent 3
// ints) sent, a resized type (1 int, extent 2 ints) and plain ints received, with
// different partition counts; and, with no aggregation asked for, more partitions than the
// layer has message tags (grouped). The bytes between the elements stay as they were.
void types(int rank) {
  MPI_Datatype strided, spaced;
  MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  MPI_Datatype one;
  MPI_Type_contiguous(1, MPI_INT, &one);
  MPI_Type_create_resized(one, 0, 2 * sizeof(int), &spaced);
  MPI_Type_free(&one);
  MPI_Type_commit(&spaced);
  constexpr int kInts = 8 * 6 * 2;  // 8 sender partitions of 6 vectors of 2 ints
  OVX_Prequest req = OVX_PREQUEST_NULL;
  MPI_Request epoch = MPI_REQUEST_NULL;
  std::vector<int> sent(kInts / 2 * 3);  // 48 vectors, extent 3 ints each
  std::vector<int> got(2 * kInts);       // 96 elements 2 ints apart
  if (rank == 0)
    expect(OVX_Psend_init(sent.data(), 8, 6, strided, 1, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
               MPI_SUCCESS,
           "send of a vector with holes");
  else
    expect(OVX_Precv_init(got.data(), 3, kInts / 3, spaced, 0, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &req) == MPI_SUCCESS,
           "receive into a resized type");
  for (int e = 0; e < 2; ++e) {
    if (rank == 0) {
      for (std::size_t i = 0; i < sent.size(); ++i) sent[i] = static_cast<int>(1000 * e + i);
      expect(OVX_Start(req, &epoch) == MPI_SUCCESS, "Start");
      for (int p = 7; p >= 0; --p) expect(OVX_Pready(p, req) == MPI_SUCCESS, "Pready");
      expect(MPI_Wait(&epoch, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
    } else {
      std::fill(got.begin(), got.end(), -1);
      expect(OVX_Start(req, &epoch) == MPI_SUCCESS, "Start");
      MPI_Status st;
      expect(MPI_Wait(&epoch, &st) == MPI_SUCCESS, "Wait");
      int count = -1;
      MPI_Get_count(&st, spaced, &count);
      expect(count == kInts, "count " + std::to_string(count) + " of the resized type");
      bool same = true;
      for (int i = 0; i < kInts && same; ++i) {
        // Sent element i is int i % 2 of vector i / 2: index 3 * (i / 2) + 2 * (i % 2).
        const int want = 1000 * e + 3 * (i / 2) + 2 * (i % 2);
        same = got[static_cast<std::size_t>(2 * i)] == want &&
               got[static_cast<std::size_t>(2 * i + 1)] == -1;
      }
      expect(same, "strided data into spaced elements, epoch " + std::to_string(e));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  expect(OVX_Prequest_free(&req) == MPI_SUCCESS, "free");
  MPI_Type_free(&strided);
  MPI_Type_free(&spaced);
  // Default aggregation beyond the tag space: grouped, the data arrives.
  constexpr int kParts = 20000;
  std::vector<int> data(kParts, -1);
  if (rank == 0) {
    std::iota(data.begin(), data.end(), 7);
    expect(OVX_Psend_init(data.data(), kParts, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &req) == MPI_SUCCESS,
           "20000 partitions, no aggregation asked for");
    expect(OVX_Start(req, &epoch) == MPI_SUCCESS, "Start");
    expect(OVX_Pready_range(0, kParts - 1, req) == MPI_SUCCESS, "Pready_range");
  } else {
    expect(OVX_Precv_init(data.data(), 1, kParts, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &req) == MPI_SUCCESS,
           "receive of 20000 partitions in 1");
    expect(OVX_Start(req, &epoch) == MPI_SUCCESS, "Start");
  }
  expect(MPI_Wait(&epoch, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait (grouped)");
  if (rank == 1) expect(data.front() == 7 && data.back() == kParts + 6, "grouped data");
  expect(OVX_Prequest_free(&req) == MPI_SUCCESS, "free");
}

void errors(int rank) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::vector<int> buf(64);
  OVX_Prequest req = OVX_PREQUEST_NULL;
  const int peer = 1 - rank;
  expect_refused(
      "partitions 0",
      OVX_Psend_init(buf.data(), 0, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
      "partitions=0 is not allowed");
  expect(req == OVX_PREQUEST_NULL, "a refused init must leave no request");
  expect_refused("wildcard source",
                 OVX_Precv_init(buf.data(), 4, 4, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &req),
                 "source=MPI_ANY_SOURCE");
  expect_refused("wildcard tag",
                 OVX_Precv_init(buf.data(), 4, 4, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &req),
                 "tag=MPI_ANY_TAG");
  expect_refused(
      "dest out of range",
      OVX_Psend_init(buf.data(), 4, 4, MPI_INT, 5, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
      "dest=5 is not a rank");
  expect_refused(
      "tag too large",
      OVX_Psend_init(buf.data(), 4, 4, MPI_INT, peer, 1 << 30, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
      "tag=" + std::to_string(1 << 30) + " is out of range");
  expect_refused(
      "negative count",
      OVX_Psend_init(buf.data(), 4, -2, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
      "count=-2");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "overlap_aggregation", "sometimes");
  expect_refused("bad aggregation",
                 OVX_Psend_init(buf.data(), 4, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, info, &req),
                 "aggregation 'sometimes' is not allowed");
  MPI_Info_set(info, "overlap_aggregation", "adaptive:0");
  expect_refused("adaptive without bytes",
                 OVX_Psend_init(buf.data(), 4, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, info, &req),
                 "aggregation 'adaptive:0' is not allowed");
  MPI_Info_free(&info);
  expect_refused("null request", OVX_Pready(0, OVX_PREQUEST_NULL), "request is NULL");

  // A valid pair (rank 0 sends on tag 2) to misuse.
  std::vector<int> data(64, rank + 1);
  const int rc =
      rank == 0
          ? OVX_Psend_init(data.data(), 4, 16, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &req)
          : OVX_Precv_init(data.data(), 8, 8, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  expect(rc == MPI_SUCCESS, "valid init");
  MPI_Request epoch = MPI_REQUEST_NULL;
  if (rank == 0) {
    expect_refused("Pready before Start", OVX_Pready(1, req),
                   "partition=1: the request has no active epoch");
    expect(OVX_Start(req, &epoch) == MPI_SUCCESS, "Start");
    expect_refused("Start while active", OVX_Start(req, &epoch), "previous epoch is still active");
    expect_refused("free while active", OVX_Prequest_free(&req), "active epoch");
    expect_refused("Pready out of range", OVX_Pready(4, req),
                   "partition=4 is out of range (allowed: 0..3)");
    expect_refused("Pready negative", OVX_Pready(-1, req), "partition=-1 is out of range");
    expect_refused("bad range", OVX_Pready_range(2, 1, req), "partition_low=2, partition_high=1");
    expect(OVX_Pready(1, req) == MPI_SUCCESS, "Pready 1");
    expect_refused("Pready twice", OVX_Pready(1, req),
                   "partition=1 was already marked ready in this epoch");
    const int list[2] = {0, 1};
    expect_refused("Pready_list twice", OVX_Pready_list(2, list, req),
                   "partition=1 was already marked ready");
    expect_refused("Parrived on a send", OVX_Parrived(req, 0, nullptr), "Parrived is for receives");
    expect(OVX_Pready_range(2, 3, req) == MPI_SUCCESS, "Pready_range 2..3");
    expect(MPI_Wait(&epoch, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
    expect_refused("Pready after the epoch", OVX_Pready(0, req), "no active epoch");
  } else {
    int flag = 0;
    expect_refused("Parrived before Start", OVX_Parrived(req, 0, &flag), "never started");
    expect(OVX_Start(req, &epoch) == MPI_SUCCESS, "Start");
    expect_refused("Parrived out of range", OVX_Parrived(req, 8, &flag),
                   "partition=8 is out of range (allowed: 0..7)");
    expect_refused("Pready on a receive", OVX_Pready(0, req), "Pready is for sends");
    expect(MPI_Wait(&epoch, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
    bool same = true;
    for (int v : data) same = same && v == 1;
    expect(same, "data of the valid pair");
  }
  expect(OVX_Prequest_free(&req) == MPI_SUCCESS, "free");

  // Sizes that do not match: the receive's epoch fails with an error, Parrived names it.
  if (rank == 0) {
    OVX_Psend_init(data.data(), 2, 8, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    OVX_Start(req, &epoch);
    OVX_Pready_range(0, 1, req);
    expect(MPI_Wait(&epoch, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait (mismatched send)");
  } else {
    OVX_Precv_init(data.data(), 2, 4, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    OVX_Start(req, &epoch);
    expect(MPI_Wait(&epoch, MPI_STATUS_IGNORE) != MPI_SUCCESS, "a mismatched receive must fail");
    int flag = 0;
    expect_refused("mismatched sizes", OVX_Parrived(req, 0, &flag),
                   "has 64 bytes but this receive has 32");
  }
  OVX_Prequest_free(&req);
  MPI_Barrier(MPI_COMM_WORLD);
  beyond_the_tag_space(rank);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string mode = argc > 1 ? argv[1] : "";
  const std::string aggregation = mode == "cases" && argc > 4 ? argv[4] : "random";
  if ((mode == "cases" ? size < 2 : size != 2) || provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) std::printf("FAIL: needs 2 ranks (cases: 2 or more) and MPI_THREAD_MULTIPLE\n");
    MPI_Finalize();
    return 1;
  }
  {
    ovx_test::Watchdog dog(300, [&] { return "ovx-partitioned " + mode; });
    if (mode == "cases" && argc > 3 && (aggregation == "random" || aggregation == "adaptive")) {
      cases(std::stoull(argv[2]), std::stoi(argv[3]), aggregation == "adaptive", rank, size);
    } else if (mode == "early" && argc > 2) {
      early(argv[2], rank);
    } else if (mode == "cxx") {
      cxx(rank);
    } else if (mode == "errors") {
      errors(rank);
    } else if (mode == "types") {
      types(rank);
    } else {
      if (rank == 0)
        std::printf(
            "usage: ovx-partitioned cases SEED N [random|adaptive] | early FILE | cxx | errors | "
            "types\n");
      MPI_Finalize();
      return 2;
    }
  }
  const int rc = ovx_test::verdict(mode.c_str());
  MPI_Finalize();
  return rc;
}
