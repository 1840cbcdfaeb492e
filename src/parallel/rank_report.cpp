#include "parallel/rank_report.hpp"

#include <algorithm>
#include <cstdint>

#include <mpi.h>

#include "cpu/cpu_backend.hpp"
#include "parallel/gpu_select.hpp"
#include "parallel/message.hpp"
#include "parallel/mpi_env.hpp"
#include "util/error.hpp"

namespace ss {

std::string open_rank_device(const std::string& backend, GlContextOptions gl, bool gpu_given,
                             std::optional<GlContext>& context) {
  if (backend != "gpu") return cpu_device_name();
  gl.gpu = choose_gpu(gpu_given ? gl.gpu : -1, mpi::local_rank());
  context.emplace(gl);
  return context->info().renderer + " (" + context->info().device + ")";
}

nlohmann::json RankFigures::gather(const std::string& device) const {
  // Every rank's values and its device name (fixed width) at rank 0; the names are rank 0's.
  constexpr size_t name_width = 256;
  const int ranks = mpi::size();
  int count = int(figures_.size()), least = 0, most = 0;
  mpi_check(MPI_Allreduce(&count, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(&count, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  SS_REQUIRE(least == most, "per-rank figures: ranks recorded " << least << " to " << most << " figures");
  std::vector<double> mine(figures_.size()), all(figures_.size() * size_t(ranks));
  for (size_t k = 0; k < figures_.size(); ++k) mine[k] = figures_[k].value;
  mpi_check(MPI_Gather(mine.data(), count, MPI_DOUBLE, all.data(), count, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<char> my_device(name_width, 0), devices(name_width * size_t(ranks), 0);
  std::copy_n(device.begin(), std::min(device.size(), name_width - 1), my_device.begin());
  mpi_check(MPI_Gather(my_device.data(), int(name_width), MPI_CHAR, devices.data(), int(name_width), MPI_CHAR, 0,
                       MPI_COMM_WORLD),
            "MPI_Gather");
  int text_count = int(texts_.size()), least_texts = 0, most_texts = 0;
  mpi_check(MPI_Allreduce(&text_count, &least_texts, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(&text_count, &most_texts, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  SS_REQUIRE(least_texts == most_texts, "per-rank texts: ranks recorded " << least_texts << " to " << most_texts << " texts");
  constexpr size_t text_width = 64;
  std::vector<char> my_texts(text_width * texts_.size(), 0), texts(text_width * texts_.size() * size_t(ranks), 0);
  for (size_t k = 0; k < texts_.size(); ++k)
    std::copy_n(texts_[k].second.begin(), std::min(texts_[k].second.size(), text_width - 1), my_texts.begin() + text_width * k);
  mpi_check(MPI_Gather(my_texts.data(), int(my_texts.size()), MPI_CHAR, texts.data(), int(my_texts.size()), MPI_CHAR, 0,
                       MPI_COMM_WORLD),
            "MPI_Gather");
  if (mpi::rank() != 0) return nullptr;
  nlohmann::json per_rank = nlohmann::json::array();
  for (int q = 0; q < ranks; ++q) {
    nlohmann::json r = {{"rank", q}, {"device", std::string(devices.data() + name_width * size_t(q))}};
    for (size_t k = 0; k < figures_.size(); ++k) {
      const double v = all[size_t(q) * figures_.size() + k];
      if (figures_[k].integer) r[figures_[k].name] = std::int64_t(v);
      else r[figures_[k].name] = v;
    }
    for (size_t k = 0; k < texts_.size(); ++k)
      r[texts_[k].first] = std::string(texts.data() + text_width * (texts_.size() * size_t(q) + k));
    per_rank.push_back(std::move(r));
  }
  return per_rank;
}

double max_over_ranks(const nlohmann::json& per_rank, const std::string& name) {
  double m = 0;
  for (const nlohmann::json& r : per_rank) m = std::max(m, r.at(name).get<double>());
  return m;
}

}  // namespace ss
