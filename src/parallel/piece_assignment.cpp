#include "parallel/piece_assignment.hpp"

#include <chrono>
#include <fstream>
#include <iterator>

#include "parallel/message.hpp"
#include "parallel/partition.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

constexpr int kAssignmentTag = 11;

template <class Archive, class A>
void transfer_fields(Archive& ar, A& a) {
  transfer_each(ar, a.base, a.levels, a.case_text, a.case_path, a.groups.surface, a.groups.volume);
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

PieceAssignment send_piece_assignments(const LoadedMesh& base, int levels, const std::string& case_path,
                                       MPI_Comm comm, DistributeSeconds* seconds) {
  int ranks = 1;
  mpi_check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  auto t0 = std::chrono::steady_clock::now();
  const BasePartition partition(base, partition_tets(base.mesh, ranks), ranks);
  if (seconds) seconds->partition = since(t0);
  t0 = std::chrono::steady_clock::now();
  std::ifstream file(case_path, std::ios::binary);
  SS_REQUIRE(file, case_path << ": cannot read the case file");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const PresentGroups groups = present_groups(base);
  PieceAssignment mine;
  for (int q = 0; q < ranks; ++q) {
    PieceAssignment a{partition.piece(q), std::int32_t(levels), text, case_path, groups};
    if (q == 0) {
      mine = std::move(a);
      continue;
    }
    Packer p;
    transfer_fields(p, a);
    send_bytes(p.bytes(), q, kAssignmentTag, comm);
  }
  if (seconds) seconds->send = since(t0);
  return mine;
}

PieceAssignment receive_piece_assignment(MPI_Comm comm) {
  const std::vector<char> bytes = recv_bytes(0, kAssignmentTag, comm);
  Unpacker u(bytes);
  PieceAssignment a;
  transfer_fields(u, a);
  return a;
}

}  // namespace ss
