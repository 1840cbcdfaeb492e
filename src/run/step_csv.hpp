#pragma once
// A CSV file of a run's history whose rows begin with their step (heat.csv, energy.csv): rewritten
// whole and atomically on every write, so that a restart from a checkpoint finds the rows up to it.
#include <string>
#include <vector>

namespace ss {

class StepCsv {
public:
  StepCsv(std::string path, std::string header) : path_(std::move(path)), header_(std::move(header)) {}
  // A fresh run: the previous run's file goes.
  void clear_previous_run();
  // --restart from the checkpoint of `step`: the file's rows up to it are kept.
  void continue_from(int step);
  void add(std::string row) { rows_.push_back(std::move(row)); }
  // Writes the header and every row.
  void write() const;

private:
  std::string path_, header_;
  std::vector<std::string> rows_;
};

}  // namespace ss
