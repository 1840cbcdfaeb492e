#pragma once
// What both physics' MPI drivers do alike on every rank: open the rank's device first, and report
// the rank's own figures (sizes, seconds, memory) to rank 0 for the JSON summary's "per_rank".
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gl/context.hpp"

namespace ss {

// Step 1 of a distributed run: the rank's GPU (local rank mod the EGL devices; `gpu_given`: every
// rank takes gl.gpu) into `context` for backend "gpu", nothing for "cpu". Returns the device's name
// ("renderer (device)", or the CPU reference's). A rank that cannot start throws here, before any
// work, so the job stops at once.
std::string open_rank_device(const std::string& backend, GlContextOptions gl, bool gpu_given,
                             std::optional<GlContext>& context);

// One rank's named figures, in the order recorded (every rank records the same names in the same
// order). Integers (counts, bytes) are written as JSON integers, the rest as numbers; texts (short
// words such as the rank's launch path, at most 63 bytes kept) as strings after them.
class RankFigures {
public:
  void add(std::string name, double value) { figures_.push_back({std::move(name), value, false}); }
  void add_count(std::string name, double value) { figures_.push_back({std::move(name), value, true}); }
  void add_text(std::string name, std::string value) { texts_.push_back({std::move(name), std::move(value)}); }

  // Collective: at rank 0 the array [{"rank": q, "device": its device, <name>: <value>, ...}] over
  // all ranks; null on the others. Throws ss::Error when ranks recorded different figures.
  nlohmann::json gather(const std::string& device) const;

private:
  struct Figure {
    std::string name;
    double value = 0;
    bool integer = false;
  };
  std::vector<Figure> figures_;
  std::vector<std::pair<std::string, std::string>> texts_;
};

// The largest value of figure `name` over the ranks of a gathered "per_rank" array.
double max_over_ranks(const nlohmann::json& per_rank, const std::string& name);

}  // namespace ss
