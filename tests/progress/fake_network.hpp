// An in-memory network for testing task graphs and the scheduler without MPI. Sends
// complete only once a matching receive took the data (rendezvous), so a schedule that
// would only work thanks to eager buffering deadlocks here instead of passing by luck.
// Every post is logged per rank, so tests can check the order tasks started in; the
// tester counts its test_some calls (one per scheduler pass, not one per request).
#pragma once

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "progress/transport.hpp"

namespace overlap::testing {

struct PostRecord {
  bool is_send;
  int peer;
  int context;
  int tag;
  std::size_t bytes;
};

class FakeNetwork {
 public:
  explicit FakeNetwork(int ranks) : log_(static_cast<std::size_t>(ranks)), tester_(*this) {}

  // A transport for `rank`; `context` separates collectives like a communicator + tag
  // space would.
  std::unique_ptr<progress::Transport> endpoint(int rank, int context) {
    return std::make_unique<Endpoint>(*this, rank, context);
  }

  // While held, nothing from `src` to `dst` is delivered (a slow link).
  void hold(int src, int dst, bool on) {
    std::lock_guard lock(mu_);
    if (on)
      held_.emplace_back(src, dst);
    else
      held_.erase(std::remove(held_.begin(), held_.end(), std::pair{src, dst}), held_.end());
  }

  std::vector<PostRecord> log(int rank) const {
    std::lock_guard lock(mu_);
    return log_[static_cast<std::size_t>(rank)];
  }
  progress::RequestTester& tester() { return tester_; }
  std::size_t test_calls() const {
    std::lock_guard lock(mu_);
    return test_calls_;
  }
  // Posted and not finished (cancelled receives count as finished once tested).
  std::size_t operations_open() const {
    std::lock_guard lock(mu_);
    return ops_.size();
  }
  std::size_t messages_delivered() const {
    std::lock_guard lock(mu_);
    return delivered_;
  }
  // Messages posted but never received (a wrong schedule leaves some behind).
  std::size_t messages_pending() const {
    std::lock_guard lock(mu_);
    std::size_t n = 0;
    for (const auto& s : sends_) n += s->delivered ? 0 : 1;
    return n;
  }

 private:
  struct Op {
    bool is_send;
    int src, dst, context, tag;
    const void* data;
    void* target;
    std::size_t bytes;
    bool delivered = false;
    bool cancelled = false;
  };

  class Endpoint : public progress::Transport {
   public:
    Endpoint(FakeNetwork& net, int rank, int context) : net_(net), rank_(rank), context_(context) {}
    progress::RequestSlot post_send(const void* buf, std::size_t bytes, int peer,
                                    int tag) override {
      return net_.post(Op{true, rank_, peer, context_, tag, buf, nullptr, bytes});
    }
    progress::RequestSlot post_recv(void* buf, std::size_t bytes, int peer, int tag) override {
      return net_.post(Op{false, peer, rank_, context_, tag, nullptr, buf, bytes});
    }
    progress::RequestTester& tester() override { return net_.tester_; }

   private:
    FakeNetwork& net_;
    int rank_, context_;
  };

  class Tester : public progress::RequestTester {
   public:
    explicit Tester(FakeNetwork& net) : net_(net) {}
    void test_some(std::span<progress::RequestSlot> slots, std::vector<std::size_t>& done,
                   progress::RequestStatus* statuses) override {
      {
        std::lock_guard lock(net_.mu_);
        ++net_.test_calls_;
      }
      for (std::size_t i = 0; i < slots.size(); ++i) {
        if (!net_.test(slots[i])) continue;
        done.push_back(i);
        if (statuses != nullptr) statuses[i] = progress::RequestStatus{};
      }
    }
    void cancel(progress::RequestSlot slot) override { net_.cancel(slot); }

   private:
    FakeNetwork& net_;
  };

  // A receive not matched yet is cancelled (finishes at its next test); others go on.
  void cancel(progress::RequestSlot slot) {
    std::lock_guard lock(mu_);
    auto it = ops_.find(slot);
    if (it == ops_.end() || it->second->is_send || it->second->delivered) return;
    it->second->delivered = true;
    it->second->cancelled = true;
  }

  progress::RequestSlot post(Op op) {
    std::lock_guard lock(mu_);
    const int me = op.is_send ? op.src : op.dst;
    const int peer = op.is_send ? op.dst : op.src;
    log_[static_cast<std::size_t>(me)].push_back({op.is_send, peer, op.context, op.tag, op.bytes});
    auto owned = std::make_shared<Op>(op);
    (op.is_send ? sends_ : recvs_).push_back(owned);
    ops_[++next_id_] = owned;
    return next_id_;
  }

  bool test(progress::RequestSlot& slot) {
    std::lock_guard lock(mu_);
    auto it = ops_.find(slot);
    if (it == ops_.end()) throw std::logic_error("fake network: test of an unknown request");
    auto op = it->second;
    if (!op->delivered && !op->is_send) match(*op);
    if (!op->delivered && op->is_send) {
      // A send completes when its receive is matched; the receiver may not have tested.
      for (auto& r : recvs_) {
        if (!r->delivered && same_channel(*op, *r) && first_unmatched_send(*r) == op.get()) {
          match(*r);
          break;
        }
      }
    }
    if (!op->delivered) return false;
    ops_.erase(it);
    slot = 0;
    return true;
  }

  static bool same_channel(const Op& s, const Op& r) {
    return s.src == r.src && s.dst == r.dst && s.context == r.context && s.tag == r.tag;
  }
  bool is_held(int src, int dst) const {
    return std::find(held_.begin(), held_.end(), std::pair{src, dst}) != held_.end();
  }
  // MPI's non-overtaking rule: the oldest unmatched send on the channel goes to the
  // oldest unmatched receive.
  Op* first_unmatched_send(const Op& r) {
    for (auto& s : sends_)
      if (!s->delivered && same_channel(*s, r)) return s.get();
    return nullptr;
  }
  Op* first_unmatched_recv(const Op& s) {
    for (auto& r : recvs_)
      if (!r->delivered && same_channel(s, *r)) return r.get();
    return nullptr;
  }
  void match(Op& r) {
    if (is_held(r.src, r.dst)) return;
    Op* s = first_unmatched_send(r);
    if (s == nullptr || first_unmatched_recv(*s) != &r) return;
    if (s->bytes > r.bytes) throw std::logic_error("fake network: message truncated");
    if (s->bytes > 0) std::memcpy(r.target, s->data, s->bytes);
    s->delivered = r.delivered = true;
    ++delivered_;
  }

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<Op>> sends_, recvs_;
  std::map<progress::RequestSlot, std::shared_ptr<Op>> ops_;
  std::vector<std::pair<int, int>> held_;
  std::vector<std::vector<PostRecord>> log_;
  progress::RequestSlot next_id_ = 0;
  std::size_t delivered_ = 0;
  std::size_t test_calls_ = 0;
  Tester tester_;
};

}  // namespace overlap::testing
