#pragma once
// The boundary values of a flow step on the backend (problems/flow_problem.hpp evaluates them on the
// host): u_b and p_b per boundary face (at least one entry each: a periodic box has no boundary), and the
// prescribed flux U_b per face. Made once at the start and again each step when they depend on t.
#include <vector>

#include "problems/flow_problem.hpp"

namespace ss {

template <class Backend>
class FlowBoundaryVectors {
public:
  using Vector = typename Backend::Vector;

  FlowBoundaryVectors(Backend& backend, const FlowProblem& problem, const LoadedMesh& mesh)
      : backend_(backend), problem_(problem), mesh_(mesh) {}

  // The values at time t, uploaded; the host values are returned for the parts that derive their own.
  FlowBoundaryValues update(double t) {
    FlowBoundaryValues b = evaluate_boundary(problem_, mesh_, t);
    const auto at_least_one = [](std::vector<double> v) { return v.empty() ? std::vector<double>{0.0} : v; };
    velocity_x_ = backend_.upload(at_least_one(b.bx)), velocity_y_ = backend_.upload(at_least_one(b.by));
    velocity_z_ = backend_.upload(at_least_one(b.bz));
    pressure_ = backend_.upload(at_least_one(b.pressure));
    flux_ = backend_.upload(b.flux);
    return b;
  }

  const Vector& velocity_x() const { return velocity_x_; }
  const Vector& velocity_y() const { return velocity_y_; }
  const Vector& velocity_z() const { return velocity_z_; }
  const Vector& pressure() const { return pressure_; }
  const Vector& flux() const { return flux_; }

private:
  Backend& backend_;
  const FlowProblem& problem_;
  const LoadedMesh& mesh_;
  Vector velocity_x_, velocity_y_, velocity_z_, pressure_, flux_;
};

}  // namespace ss
