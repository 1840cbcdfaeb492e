#include "problems/flow_case_problem.hpp"

#include <cmath>
#include <map>

#include "mesh/mesh_groups.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

FlowBoundaryKind kind_of(FlowBoundary::Type type) {
  switch (type) {
    case FlowBoundary::Type::wall:
    case FlowBoundary::Type::velocity: return FlowBoundaryKind::velocity;
    case FlowBoundary::Type::pressure: return FlowBoundaryKind::pressure;
    case FlowBoundary::Type::slip: return FlowBoundaryKind::slip;
  }
  return FlowBoundaryKind::velocity;
}

bool is_zero(const VectorExpression& v) {
  return v.is_constant() && v({0.0, 0.0, 0.0}) == glm::dvec3(0.0);
}

// Each FlowCondition owns a copy of its expressions: std::function copies share nothing.
VelocityFunction velocity_function(const VectorExpression& v) {
  if (is_zero(v)) return nullptr;
  return [v](const glm::dvec3& x, double t) { return v(x, t); };
}

ScalarFunction pressure_function(const Expression& p) {
  if (p.is_constant() && p(0, 0, 0) == 0.0) return nullptr;
  return [p](const glm::dvec3& x, double t) { return p(x, t); };
}

std::string point_text(const glm::dvec3& x) {
  return "(" + std::to_string(x.x) + ", " + std::to_string(x.y) + ", " + std::to_string(x.z) + ")";
}

// The condition's values at t = 0 must be finite on every face it covers.
void require_finite(const FlowCondition& c, const glm::dvec3& x, const std::string& where) {
  if (c.velocity) {
    const glm::dvec3 u = c.velocity(x, 0.0);
    SS_REQUIRE(std::isfinite(u.x) && std::isfinite(u.y) && std::isfinite(u.z),
               where << ": [[boundary]] velocity of group '" << c.label << "' is not finite at " << point_text(x)
                     << ", t = 0");
  }
  if (c.pressure)
    SS_REQUIRE(std::isfinite(c.pressure(x, 0.0)), where << ": [[boundary]] pressure of group '" << c.label
                                                        << "' is not finite at " << point_text(x) << ", t = 0");
}

FlowCondition make_condition(const FlowBoundary& b, std::string label) {
  FlowCondition condition;
  condition.kind = kind_of(b.type);
  condition.label = std::move(label);
  if (condition.kind == FlowBoundaryKind::velocity) condition.velocity = velocity_function(b.velocity);
  if (condition.kind == FlowBoundaryKind::pressure) condition.pressure = pressure_function(b.pressure);
  condition.time_dependent = (condition.velocity && b.velocity.uses_time()) ||
                             (condition.pressure && b.pressure.uses_time());
  return condition;
}

}  // namespace

FlowProblem build_flow_problem_settings(const FlowCase& c) {
  FlowProblem p;
  p.viscosity = c.viscosity;
  p.body_force = c.body_force;
  p.theta = c.theta;
  p.time_scheme = c.crank_nicolson ? TimeScheme::crank_nicolson : TimeScheme::theta;
  p.viscous = c.two_point_viscous ? ViscousScheme::two_point : ViscousScheme::curl_curl;
  p.convection = c.convection == FlowCase::Convection::central ? Convection::central : Convection::upwind;
  p.implicit_convection = c.implicit_convection;
  p.initial_velocity = velocity_function(c.initial_velocity);
  if (c.exact_velocity) {
    const VectorExpression exact = *c.exact_velocity;  // a zero exact field still counts: it is known
    p.exact_velocity = [exact](const glm::dvec3& x, double t) { return exact(x, t); };
  }
  p.time.dt = c.time.dt;
  p.time.steps = c.time.steps;
  p.time.end_time = c.time.end_time;
  p.time.cfl = c.time.cfl;
  p.time.max_dt = c.time.max_dt > 0 ? c.time.max_dt : c.time.dt;
  if (c.steady.enabled) {
    p.steady = FlowSteadySettings{true, c.steady.tolerance, c.steady.cfl_start, c.steady.cfl_max, c.steady.local_time_steps,
                                  c.steady.grad_div, c.steady.momentum_tolerance};
    p.time.steps = c.steady.max_steps, p.time.end_time = 0;
    p.time.cfl = c.steady.cfl_start;
  }
  const auto solver = [](const FlowSolverSettings& s) {
    FlowLinearSolver linear{s.tolerance, s.max_iterations, s.preconditioner == "jacobi",
                            s.preconditioner == "multigrid", parse_cg_variant(s.variant), s.preconditioner == "block_jacobi"};
    if (s.preconditioner == "chebyshev") linear.chebyshev = true, linear.jacobi = false, linear.chebyshev_degree = s.chebyshev_degree;
    if (s.replacement_period >= 0) linear.replacement_period = s.replacement_period;
    linear.extrapolated_guess = s.initial_guess == "extrapolated";
    linear.smoother_degree = s.smoother_degree;
    return linear;
  };
  p.momentum = solver(c.momentum);
  if (c.momentum.preconditioner == "automatic") {
    // Block Jacobi once the point Jacobi's iterations have grown (implicit convection at a CFL
    // target above 10); until then, and at or below that target, a step's few Jacobi iterations
    // cost less than the blocks' builds (docs/performance.md, *Steady mode*).
    const double cfl_target = c.steady.enabled ? c.steady.cfl_max : c.time.cfl;
    p.momentum.block_jacobi = false, p.momentum.jacobi = true;
    p.momentum.block_jacobi_when_slow = c.implicit_convection && cfl_target > kBlockJacobiAboveCfl;
  }
  p.momentum_system = c.momentum.system == "vorticity" ? MomentumSystem::vorticity
                      : c.momentum.system == "flux"    ? MomentumSystem::flux
                                                       : MomentumSystem::automatic;
  p.pressure = solver(c.pressure);
  p.streamfunction = solver(c.streamfunction);
  p.streamfunction_gauge = c.streamfunction.gauge == "grad_div";
  p.streamfunction_preconditioner = c.streamfunction.preconditioner == "ams"      ? StreamfunctionPreconditioner::ams
                                    : c.streamfunction.preconditioner == "jacobi" ? StreamfunctionPreconditioner::jacobi
                                    : c.streamfunction.preconditioner == "none"   ? StreamfunctionPreconditioner::none
                                                                                  : StreamfunctionPreconditioner::automatic;
  p.method = c.exact_method ? FlowMethod::exact : FlowMethod::classical;
  for (const FlowBoundary& b : c.boundaries) p.conditions.push_back(make_condition(b, b.group));
  return p;
}

FlowProblem build_flow_problem(const FlowCase& c, const LoadedMesh& m) { return build_flow_problem(c, m, {}); }

FlowProblem build_flow_problem(const FlowCase& c, const LoadedMesh& m, const FlowPieceFaces& piece) {
  FlowProblem p = build_flow_problem_settings(c);
  // The exact method's streamfunction space on a torus lacks the harmonic fields of its periods.
  SS_REQUIRE(!(is_periodic(m.mesh) && c.exact_method),
             c.where("scheme.method") << ": [scheme] method = \"exact\" does not run on periodic meshes ([[mesh.periodic]]) "
                                         "yet; use the classical method");
  p.conditions.clear();
  // Conditions in case-file order; the group id each one covers.
  std::map<std::int32_t, std::int32_t> condition_of_group;
  std::vector<std::string> where_of_condition;
  for (const FlowBoundary& b : c.boundaries) {
    const std::string where = c.path + ":" + std::to_string(b.line);
    const std::int32_t group = resolve_surface_group(m, b.group, where, piece.groups);
    FlowCondition condition = make_condition(b, surface_group_label(m.mesh, group));
    SS_REQUIRE(!condition_of_group.count(group), where << ": group '" << b.group << "' is "
                                                       << condition.label << ", which already has a [[boundary]]");
    condition_of_group[group] = std::int32_t(p.conditions.size());
    p.conditions.push_back(std::move(condition));
    where_of_condition.push_back(where);
  }

  const std::int32_t cut_condition = std::int32_t(p.conditions.size());
  if (piece.cut) {
    SS_REQUIRE(piece.cut->size() == m.topology.boundary_faces.size(),
               m.mesh.source << ": " << piece.cut->size() << " cut flags for " << m.topology.boundary_faces.size()
                             << " boundary faces");
    FlowCondition at_rest;
    at_rest.label = "partition cut";
    p.conditions.push_back(at_rest);
  }

  // Every boundary face needs a condition: the first group without one is the error.
  p.boundary_condition.reserve(m.topology.boundary_faces.size());
  for (size_t k = 0; k < m.topology.boundary_faces.size(); ++k) {
    const std::int32_t f = m.topology.boundary_faces[k];
    if (piece.cut && (*piece.cut)[k]) {
      p.boundary_condition.push_back(cut_condition);
      continue;
    }
    const std::int32_t group = m.topology.face_groups[size_t(f)];
    const auto it = condition_of_group.find(group);
    if (it == condition_of_group.end()) {
      std::int64_t faces = 0;
      for (std::int32_t g : m.topology.boundary_faces) faces += m.topology.face_groups[size_t(g)] == group;
      SS_THROW(c.path << ": boundary group '" << surface_group_label(m.mesh, group) << "' (" << group << ") of "
                      << c.mesh_file << " has no [[boundary]] condition; its " << faces << " faces (e.g. the one at "
                      << point_text(m.geometry.face_centroids[size_t(f)])
                      << ") would be left open: every boundary face needs one");
    }
    require_finite(p.conditions[size_t(it->second)], m.geometry.face_centroids[size_t(f)],
                   where_of_condition[size_t(it->second)]);
    p.boundary_condition.push_back(it->second);
  }
  // Force groups: any surface group of the mesh, each once.
  for (const FlowForceSpec& f : c.forces) {
    const std::string where = c.path + ":" + std::to_string(f.line);
    FlowForceGroup g;
    g.group = resolve_surface_group(m, f.group, where, piece.groups);
    g.label = surface_group_label(m.mesh, g.group);
    g.reference_velocity = f.reference_velocity;
    g.reference_area = f.reference_area;
    for (const FlowForceGroup& other : p.forces)
      SS_REQUIRE(other.group != g.group, where << ": [[force]] group '" << f.group << "' is " << g.label
                                               << ", which already has a [[force]]");
    p.forces.push_back(g);
  }
  if (p.initial_velocity) {
    for (const glm::dvec3& x : m.geometry.cell_centroids) {
      const glm::dvec3 u = p.initial_velocity(x, 0.0);
      SS_REQUIRE(std::isfinite(u.x) && std::isfinite(u.y) && std::isfinite(u.z),
                 c.where("initial.velocity") << ": [initial] velocity is not finite at " << point_text(x));
    }
  }
  return p;
}

}  // namespace ss
