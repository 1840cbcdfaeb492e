#pragma once
// Halo exchange of nodal values between ranks (thesis §8.3), written once for both backends.
//
// begin(x): one gather pass collects the values every neighbour needs into a send vector (on the
//   GPU a fragment kernel into a send texture), which is read back to the host; then MPI_Irecv and
//   MPI_Isend per neighbour. The caller runs its interior work now, while the messages fly.
// finish(): MPI_Waitall; the received ghost values are on the host (received()).
// scatter(x): writes them into x's ghost entries (GPU: point sprites, thesis §5.3).
// Time spent inside begin/finish/scatter (the communication the interior work could not hide) is
// accumulated in seconds().
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
      send_values_ = backend_.download(*send_field_);
    }
    for (size_t k = 0; k < links_.size(); ++k) {
      const HaloLink& l = links_[k];
      mpi_check(MPI_Irecv(received_.data() + recv_offsets_[k], int(l.recv.size()), MPI_DOUBLE, l.rank, tag, comm_,
                          &requests_[2 * k]),
                "MPI_Irecv (halo)");
      mpi_check(MPI_Isend(send_values_.data() + send_offsets_[k], int(l.send.size()), MPI_DOUBLE, l.rank, tag, comm_,
                          &requests_[2 * k + 1]),
                "MPI_Isend (halo)");
    }
    seconds_ += since(t0);
  }

  void finish() {
    const auto t0 = Clock::now();
    if (!requests_.empty())
      mpi_check(MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall (halo)");
    ++exchanges_;
    seconds_ += since(t0);
  }

  void scatter(Vector& x) {
    const auto t0 = Clock::now();
    if (!recv_indices_.empty()) backend_.scatter(x, recv_indices_, received_);
    seconds_ += since(t0);
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
  double seconds() const { return seconds_; }
  std::int64_t exchanges() const { return exchanges_; }

private:
  using Clock = std::chrono::steady_clock;
  static double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
  static constexpr int tag = 71;

  Backend& backend_;
  std::vector<HaloLink> links_;
  MPI_Comm comm_;
  std::vector<std::int64_t> send_offsets_, recv_offsets_;
  std::vector<std::int32_t> recv_indices_;
  std::int64_t send_count_ = 0;
  std::optional<IndexVector> send_indices_;
  std::optional<Vector> send_field_;
  std::vector<double> send_values_, received_;
  std::vector<MPI_Request> requests_;
  double seconds_ = 0;
  std::int64_t exchanges_ = 0;
};

}  // namespace ss
