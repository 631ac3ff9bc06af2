// The tasks something waits on, as the collective builders pass them around: a short list
// of task ids, kept inside the object up to kInline ids and on the heap beyond.
//
// Why not std::vector: builders make and copy many such lists while building a graph
// (`Deps acc = {s.copy(...)}`, one per step), almost all of one or two ids; as vectors
// they were five of the heap allocations of an 8-byte allreduce (docs/liboverlap.md,
// "The fixed cost of a collective").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>

#include "progress/task.hpp"

namespace overlap::collectives {

class Deps {
 public:
  using value_type = progress::TaskId;
  using iterator = value_type*;
  using const_iterator = const value_type*;
  static constexpr std::size_t kInline = 6;

  Deps() = default;
  Deps(std::initializer_list<value_type> ids) { append(ids.begin(), ids.end()); }
  Deps(const Deps& other) { append(other.begin(), other.end()); }
  Deps(Deps&& other) noexcept { take(other); }
  Deps& operator=(const Deps& other) {
    if (this != &other) {
      clear();
      append(other.begin(), other.end());
    }
    return *this;
  }
  Deps& operator=(Deps&& other) noexcept {
    if (this != &other) take(other);
    return *this;
  }
  Deps& operator=(std::initializer_list<value_type> ids) {
    clear();
    append(ids.begin(), ids.end());
    return *this;
  }
  ~Deps() = default;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  iterator begin() { return data(); }
  iterator end() { return data() + size_; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size_; }
  value_type& operator[](std::size_t i) { return data()[i]; }
  value_type operator[](std::size_t i) const { return data()[i]; }
  value_type back() const { return data()[size_ - 1]; }

  void clear() { size_ = 0; }
  void push_back(value_type id) {
    reserve(size_ + 1);
    data()[size_++] = id;
  }
  template <class It>
  void append(It first, It last) {
    reserve(size_ + static_cast<std::size_t>(std::distance(first, last)));
    for (; first != last; ++first) data()[size_++] = *first;
  }

 private:
  value_type* data() { return heap_ ? heap_.get() : inline_; }
  const value_type* data() const { return heap_ ? heap_.get() : inline_; }
  std::size_t capacity() const { return heap_ ? heap_capacity_ : kInline; }
  void reserve(std::size_t n) {
    if (n <= capacity()) return;
    const std::size_t grown = std::max(n, 2 * capacity());
    auto bigger = std::make_unique_for_overwrite<value_type[]>(grown);
    std::copy(begin(), end(), bigger.get());
    heap_ = std::move(bigger);
    heap_capacity_ = grown;
  }
  void take(Deps& other) {
    if (other.heap_) {
      heap_ = std::move(other.heap_);
      heap_capacity_ = other.heap_capacity_;
      size_ = other.size_;
    } else {
      heap_.reset();
      std::copy(other.begin(), other.end(), inline_);
      size_ = other.size_;
    }
    other.size_ = 0;
  }

  std::size_t size_ = 0;
  std::size_t heap_capacity_ = 0;
  std::unique_ptr<value_type[]> heap_;
  value_type inline_[kInline];
};

}  // namespace overlap::collectives
