#pragma once
// Halo exchange of nodal values between ranks (thesis §8.3), written once for both backends.
//
// begin(x): one gather pass collects the values every neighbour needs into a send vector (a kernel
//   into a send texture on the GPU) and queues its asynchronous read-back (pixel buffer + fence);
//   nothing waits. The caller queues its interior work now.
// finish(): waits for the read-back only (the GPU goes on with the interior work queued after it),
//   posts MPI_Irecv/MPI_Isend per neighbour and waits for them: the messages fly while the GPU
//   computes. (On a host backend the values are there at once, so begin() posts the messages and
//   they fly during the interior work instead.) The received ghost values are then on the host
//   (received()).
// scatter(x): writes them into x's ghost entries (GPU: point sprites on the fragment path, thesis
//   §5.3, a dispatch on the compute path; the ghost indices sit on the device from the start, so
//   only the values travel).
// begin({&x, &y, ..}) / update({&x, &y, ..}) do the same for several vectors of the entity kind in
//   one round trip: one fence wait, one message per neighbour carrying every vector.
// Host time inside each phase (what the interior work did not hide) is accumulated per component:
// read-back (gather + waiting for the copy), MPI (posting + waiting), upload (scatter, and what the
// caller adds with add_upload_seconds); seconds() is their sum.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include "parallel/message.hpp"
#include "parallel/partition.hpp"

namespace ss {

template <class Backend>
class HaloExchange {
public:
  using Vector = typename Backend::Vector;
  using IndexVector = typename Backend::IndexVector;
  using Value = typename Backend::Value;  // as the device stores it (GPU: float): sent unconverted

  HaloExchange(Backend& backend, const std::vector<HaloLink>& links, MPI_Comm comm)
      : backend_(backend), links_(links), comm_(comm) {
    std::vector<std::int32_t> send, recv;
    for (const HaloLink& l : links_) {
      send_offsets_.push_back(std::int64_t(send.size()));
      send.insert(send.end(), l.send.begin(), l.send.end());
      recv_offsets_.push_back(std::int64_t(recv.size()));
      recv.insert(recv.end(), l.recv.begin(), l.recv.end());
    }
    send_offsets_.push_back(std::int64_t(send.size()));
    recv_offsets_.push_back(std::int64_t(recv.size()));
    send_count_ = std::int64_t(send.size());
    recv_count_ = std::int64_t(recv.size());
    recv_indices_ = recv;
    send_list_ = send;
    if (send_count_ > 0) send_indices_.emplace(backend_.upload_indices(send));
    recv_list_.emplace(backend_.make_scatter_list(recv));
    requests_.resize(2 * links_.size());
  }

  // Queues the gathers and read-backs of every vector in xs (all of this halo's entity kind).
  void begin(std::initializer_list<const Vector*> xs) { begin(std::vector<const Vector*>(xs)); }
  void begin(const Vector& x) { begin({&x}); }
  void begin(const std::vector<const Vector*>& xs) {
    begin_computed(int(xs.size()), [&](const std::vector<Vector*>& send) {
      for (size_t j = 0; j < xs.size(); ++j) backend_.gather(*xs[j], *send_indices_, *send[j]);
    });
  }

  // begin() for send values the caller computes itself: compute(send) writes m vectors' values
  // straight into the send fields (send_list() order: no gather; not called when nothing is sent),
  // whose read-backs are then queued. An operator computes its send rows this way ahead of its full
  // pass, and the exchange overlaps that pass (distributed_flow_operators.hpp).
  template <class Compute>
  void begin_computed(int m, Compute&& compute) {
    const auto t0 = Clock::now();
    in_flight_ = m;
    while (int(slots_.size()) < in_flight_) slots_.emplace_back();
    std::vector<Vector*> send;
    for (int j = 0; j < m; ++j) {
      Slot& slot = slots_[size_t(j)];
      slot.received.resize(size_t(recv_count_));
      if (send_count_ == 0) continue;
      if (!slot.send_field) slot.send_field.emplace(backend_.make_vector(send_count_));
      send.push_back(&*slot.send_field);
    }
    if (send_count_ > 0) {
      compute(send);
      for (int j = 0; j < m; ++j) backend_.begin_download(*slots_[size_t(j)].send_field, slots_[size_t(j)].pending);
    }
    readback_seconds_ += since(t0);
    // A host backend has the values already: send them now, so they fly during the interior work.
    if constexpr (!Backend::asynchronous_download) post();
  }

  void finish() {
    if (!posted_) post();
    const auto t0 = Clock::now();
    if (!requests_.empty())
      mpi_check(MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall (halo)");
    if (in_flight_ > 1) unpack();
    posted_ = false;
    ++exchanges_;
    mpi_seconds_ += since(t0);
  }

  // Writes the received values of the j-th vector of the last begin() into x's ghost entries.
  void scatter(Vector& x, int j = 0) {
    const auto t0 = Clock::now();
    if (recv_count_ > 0) backend_.scatter(x, *recv_list_, slots_[size_t(j)].received);
    upload_seconds_ += since(t0);
  }

  // Brings the ghost entries of every vector in xs up to date in one round trip (no overlap): one
  // message per neighbour carries all of them.
  void update(std::initializer_list<Vector*> xs) {
    begin(std::vector<const Vector*>(xs.begin(), xs.end()));
    finish();
    int j = 0;
    for (Vector* x : xs) scatter(*x, j++);
  }
  void update(Vector& x) { update({&x}); }

  // The values received for the j-th vector of the last begin(), in recv_indices() order.
  const std::vector<Value>& received(int j = 0) const { return slots_[size_t(j)].received; }
  const std::vector<std::int32_t>& recv_indices() const { return recv_indices_; }
  // The local entries sent, neighbour by neighbour (an entry sent to two neighbours appears twice).
  const std::vector<std::int32_t>& send_list() const { return send_list_; }
  // The local entries that receive their owners' values, in message order.
  const std::vector<std::int32_t>& recv_list() const { return recv_indices_; }
  std::int64_t values_sent() const { return send_count_; }
  std::int64_t values_received() const { return recv_count_; }
  // Host seconds not hidden behind interior work, per component, and their sum.
  double readback_seconds() const { return readback_seconds_; }
  double mpi_seconds() const { return mpi_seconds_; }
  double upload_seconds() const { return upload_seconds_; }
  double seconds() const { return readback_seconds_ + mpi_seconds_ + upload_seconds_; }
  // Time a caller spends putting received values onto the device itself (a halo term added into
  // its result instead of scatter()) counts as upload.
  void add_upload_seconds(double s) { upload_seconds_ += s; }
  // Round trips (a batched update of several vectors is one).
  std::int64_t exchanges() const { return exchanges_; }

private:
  // One vector of a batch: its send values on the device, their read-back, what came back.
  struct Slot {
    std::optional<Vector> send_field;
    typename Backend::PendingDownload pending;
    std::vector<Value> received;
  };

  // Waits for the read-backs of the send values, then posts MPI_Irecv/MPI_Isend per neighbour. With
  // m vectors in flight, neighbour k's message holds m blocks of its entries, vector by vector.
  void post() {
    const auto t0 = Clock::now();
    const int m = in_flight_;
    std::vector<const std::vector<Value>*> sent(size_t(m), &no_values_);
    if (send_count_ > 0)
      for (int j = 0; j < m; ++j) sent[size_t(j)] = &backend_.end_download(slots_[size_t(j)].pending);
    const auto t1 = Clock::now();
    readback_seconds_ += seconds_between(t0, t1);
    const Value* send = sent[0]->data();
    Value* recv = slots_[0].received.data();
    if (m > 1) {  // pack: neighbour by neighbour, vector by vector
      send_buffer_.resize(size_t(m * send_count_));
      recv_buffer_.resize(size_t(m * recv_count_));
      for (size_t k = 0; k < links_.size(); ++k) {
        const std::int64_t n = send_offsets_[k + 1] - send_offsets_[k];
        for (int j = 0; j < m; ++j)
          std::copy_n(sent[size_t(j)]->data() + send_offsets_[k], n, send_buffer_.data() + m * send_offsets_[k] + j * n);
      }
      send = send_buffer_.data();
      recv = recv_buffer_.data();
    }
    for (size_t k = 0; k < links_.size(); ++k) {
      const HaloLink& l = links_[k];
      mpi_check(MPI_Irecv(recv + m * recv_offsets_[k], m * int(l.recv.size()), value_type, l.rank, tag, comm_,
                          &requests_[2 * k]),
                "MPI_Irecv (halo)");
      mpi_check(MPI_Isend(send + m * send_offsets_[k], m * int(l.send.size()), value_type, l.rank, tag, comm_,
                          &requests_[2 * k + 1]),
                "MPI_Isend (halo)");
    }
    posted_ = true;
    mpi_seconds_ += since(t1);
  }

  // The received blocks back into each vector's values (m > 1).
  void unpack() {
    const int m = in_flight_;
    for (size_t k = 0; k < links_.size(); ++k) {
      const std::int64_t n = recv_offsets_[k + 1] - recv_offsets_[k];
      for (int j = 0; j < m; ++j)
        std::copy_n(recv_buffer_.data() + m * recv_offsets_[k] + j * n, n,
                    slots_[size_t(j)].received.data() + recv_offsets_[k]);
    }
  }

  using Clock = std::chrono::steady_clock;
  static double seconds_between(Clock::time_point t0, Clock::time_point t1) {
    return std::chrono::duration<double>(t1 - t0).count();
  }
  static double since(Clock::time_point t0) { return seconds_between(t0, Clock::now()); }
  static constexpr int tag = 71;
  static_assert(std::is_same_v<Value, float> || std::is_same_v<Value, double>, "halo values are float or double");
  const MPI_Datatype value_type = std::is_same_v<Value, float> ? MPI_FLOAT : MPI_DOUBLE;

  Backend& backend_;
  std::vector<HaloLink> links_;
  MPI_Comm comm_;
  std::vector<std::int64_t> send_offsets_, recv_offsets_;
  std::int64_t send_count_ = 0, recv_count_ = 0;
  std::vector<std::int32_t> recv_indices_, send_list_;
  std::optional<IndexVector> send_indices_;
  std::optional<typename Backend::ScatterList> recv_list_;
  std::vector<Slot> slots_;
  int in_flight_ = 0;
  const std::vector<Value> no_values_;
  std::vector<Value> send_buffer_, recv_buffer_;
  std::vector<MPI_Request> requests_;
  bool posted_ = false;
  double readback_seconds_ = 0, mpi_seconds_ = 0, upload_seconds_ = 0;
  std::int64_t exchanges_ = 0;
};

}  // namespace ss
