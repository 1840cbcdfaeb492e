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
// scatter(x): writes them into x's ghost entries (GPU: point sprites, thesis §5.3).
// Host time inside each phase (what the interior work did not hide) is accumulated per component:
// read-back (gather + waiting for the copy), MPI (posting + waiting), upload (scatter, and what the
// caller adds with add_upload_seconds); seconds() is their sum.
#include <chrono>
#include <cstdint>
#include <optional>
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

  HaloExchange(Backend& backend, const std::vector<HaloLink>& links, MPI_Comm comm)
      : backend_(backend), links_(links), comm_(comm) {
    std::vector<std::int32_t> send;
    for (const HaloLink& l : links_) {
      send_offsets_.push_back(std::int64_t(send.size()));
      send.insert(send.end(), l.send.begin(), l.send.end());
      recv_offsets_.push_back(std::int64_t(recv_indices_.size()));
      recv_indices_.insert(recv_indices_.end(), l.recv.begin(), l.recv.end());
    }
    send_offsets_.push_back(std::int64_t(send.size()));
    recv_offsets_.push_back(std::int64_t(recv_indices_.size()));
    send_count_ = std::int64_t(send.size());
    if (send_count_ > 0) {
      send_indices_.emplace(backend_.upload_indices(send));
      send_field_.emplace(backend_.make_vector(send_count_));
    }
    received_.resize(recv_indices_.size());
    requests_.resize(2 * links_.size());
  }

  void begin(const Vector& x) {
    const auto t0 = Clock::now();
    if (send_count_ > 0) {
      backend_.gather(x, *send_indices_, *send_field_);
      backend_.begin_download(*send_field_, pending_);
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
    posted_ = false;
    ++exchanges_;
    mpi_seconds_ += since(t0);
  }

  void scatter(Vector& x) {
    const auto t0 = Clock::now();
    if (!recv_indices_.empty()) backend_.scatter(x, recv_indices_, received_);
    upload_seconds_ += since(t0);
  }

  // Brings x's ghost entries up to date (no overlap).
  void update(Vector& x) {
    begin(x);
    finish();
    scatter(x);
  }

  const std::vector<double>& received() const { return received_; }
  const std::vector<std::int32_t>& recv_indices() const { return recv_indices_; }
  std::int64_t values_sent() const { return send_count_; }
  std::int64_t values_received() const { return std::int64_t(recv_indices_.size()); }
  // Host seconds not hidden behind interior work, per component, and their sum.
  double readback_seconds() const { return readback_seconds_; }
  double mpi_seconds() const { return mpi_seconds_; }
  double upload_seconds() const { return upload_seconds_; }
  double seconds() const { return readback_seconds_ + mpi_seconds_ + upload_seconds_; }
  // Time a caller spends putting received values onto the device itself (a halo term added into
  // its result instead of scatter()) counts as upload.
  void add_upload_seconds(double s) { upload_seconds_ += s; }
  std::int64_t exchanges() const { return exchanges_; }

private:
  // Waits for the read-back of the send values, then posts MPI_Irecv/MPI_Isend per neighbour.
  void post() {
    const auto t0 = Clock::now();
    const std::vector<double>* send = &no_values_;
    if (send_count_ > 0) send = &backend_.end_download(pending_);
    const auto t1 = Clock::now();
    readback_seconds_ += seconds_between(t0, t1);
    for (size_t k = 0; k < links_.size(); ++k) {
      const HaloLink& l = links_[k];
      mpi_check(MPI_Irecv(received_.data() + recv_offsets_[k], int(l.recv.size()), MPI_DOUBLE, l.rank, tag, comm_,
                          &requests_[2 * k]),
                "MPI_Irecv (halo)");
      mpi_check(MPI_Isend(send->data() + send_offsets_[k], int(l.send.size()), MPI_DOUBLE, l.rank, tag, comm_,
                          &requests_[2 * k + 1]),
                "MPI_Isend (halo)");
    }
    posted_ = true;
    mpi_seconds_ += since(t1);
  }

  using Clock = std::chrono::steady_clock;
  static double seconds_between(Clock::time_point t0, Clock::time_point t1) {
    return std::chrono::duration<double>(t1 - t0).count();
  }
  static double since(Clock::time_point t0) { return seconds_between(t0, Clock::now()); }
  static constexpr int tag = 71;

  Backend& backend_;
  std::vector<HaloLink> links_;
  MPI_Comm comm_;
  std::vector<std::int64_t> send_offsets_, recv_offsets_;
  std::vector<std::int32_t> recv_indices_;
  std::int64_t send_count_ = 0;
  std::optional<IndexVector> send_indices_;
  std::optional<Vector> send_field_;
  typename Backend::PendingDownload pending_;
  const std::vector<double> no_values_;
  std::vector<double> received_;
  std::vector<MPI_Request> requests_;
  bool posted_ = false;
  double readback_seconds_ = 0, mpi_seconds_ = 0, upload_seconds_ = 0;
  std::int64_t exchanges_ = 0;
};

}  // namespace ss
