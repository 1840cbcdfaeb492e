#include "run/step_csv.hpp"

#include <cstdlib>
#include <fstream>

#include "run/outputs.hpp"
#include "util/atomic_file.hpp"

namespace ss {

void StepCsv::clear_previous_run() {
  remove_left_file(path_);
  rows_.clear();
}

void StepCsv::continue_from(int step) {
  rows_.clear();
  std::ifstream in(path_);
  std::string row;
  if (!std::getline(in, row)) return;
  while (std::getline(in, row))
    if (!row.empty() && std::atoi(row.c_str()) <= step) rows_.push_back(row);
}

void StepCsv::write() const {
  std::string text = header_ + "\n";
  for (const std::string& row : rows_) text += row + "\n";
  write_file_atomically(path_, text);
}

}  // namespace ss
