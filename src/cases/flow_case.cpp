#include "cases/flow_case.hpp"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "cases/case_reading.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// Every table and key outside arrays, by dotted name, with its line.
void record_lines(const toml::table& table, const std::string& prefix, std::map<std::string, int>& lines) {
  for (const auto& [key, node] : table) {
    const std::string name = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    lines[name] = CaseFile::line_of(node);
    if (const toml::table* sub = node.as_table()) record_lines(*sub, name, lines);
  }
}

enum class SolverKind { pressure, momentum, streamfunction, temperature };

// `defaults`: the solve's settings when not written; multigrid is for the pressure solve only, ams
// for the streamfunction solve only.
FlowSolverSettings read_solver(TableReader& t, const FlowSolverSettings& defaults, SolverKind kind) {
  FlowSolverSettings s = defaults;
  s.tolerance = t.number("tolerance", s.tolerance);
  SS_REQUIRE(s.tolerance > 0.0 && s.tolerance < 1.0,
             t.where_key("tolerance") << ": " << t.name() << " tolerance must be in (0, 1) (got " << s.tolerance << ")");
  s.max_iterations = t.integer("max_iterations", s.max_iterations);
  t.require_at_least("max_iterations", s.max_iterations, 1);
  if (kind == SolverKind::pressure)
    s.preconditioner = t.choice("preconditioner", s.preconditioner, {"multigrid", "jacobi", "none"});
  else if (kind == SolverKind::streamfunction)
    s.preconditioner = t.choice("preconditioner", s.preconditioner, {"automatic", "ams", "jacobi", "none"});
  else if (kind == SolverKind::momentum)
    s.preconditioner = t.choice("preconditioner", s.preconditioner, {"automatic", "jacobi", "chebyshev", "block_jacobi", "none"});
  else
    s.preconditioner = t.choice("preconditioner", s.preconditioner, {"jacobi", "none"});
  s.variant = t.choice("variant", s.variant, {"textbook", "single_sync", "pipelined"});
  if (t.table().get("replacement_period")) {
    SS_REQUIRE(s.variant == "pipelined", t.where_key("replacement_period")
                                             << ": " << t.name() << " replacement_period is for variant = \"pipelined\"");
    s.replacement_period = t.integer("replacement_period", 0);
    t.require_at_least("replacement_period", s.replacement_period, 0);
  }
  return s;
}

FlowBoundary read_boundary(TableReader& t) {
  const CaseFile& file = t.file();
  FlowBoundary b;
  b.line = CaseFile::line_of(t.table());
  b.group = read_group(t);
  SS_REQUIRE(t.table().get("type"), file.at(t.table()) << ": [[boundary]] for group " << b.group
                                                       << " needs type = \"wall\", \"velocity\", \"pressure\" or \"slip\"");
  const std::string type = t.choice("type", "", {"wall", "velocity", "pressure", "slip"});
  b.type = type == "wall"       ? FlowBoundary::Type::wall
           : type == "velocity" ? FlowBoundary::Type::velocity
           : type == "pressure" ? FlowBoundary::Type::pressure
                                : FlowBoundary::Type::slip;

  // velocity: on velocity (required) and wall (moving wall) boundaries only.
  const std::optional<VectorExpression> velocity = t.get_vector_expression("velocity");
  if (b.type == FlowBoundary::Type::velocity)
    SS_REQUIRE(velocity, file.at(t.table()) << ": [[boundary]] for group " << b.group
                                            << " has type = \"velocity\" and needs velocity = [u, v, w]");
  else if (velocity)
    SS_REQUIRE(b.type == FlowBoundary::Type::wall,
               t.where_key("velocity") << ": [[boundary]] velocity is for type = \"velocity\" or \"wall\" (a moving "
                                          "wall), not \"" << type << "\"");
  if (velocity) b.velocity = *velocity;

  // pressure: on pressure boundaries only.
  const std::optional<Expression> pressure = t.get_expression("pressure");
  if (pressure)
    SS_REQUIRE(b.type == FlowBoundary::Type::pressure,
               t.where_key("pressure") << ": [[boundary]] pressure is for type = \"pressure\" only, not \"" << type << "\"");
  if (pressure) b.pressure = *pressure;

  // Thermal condition (checked against [heat] once the whole file is read).
  b.temperature = t.get_expression("temperature");
  b.heat_flux = t.get_expression("heat_flux");
  SS_REQUIRE(!(b.temperature && b.heat_flux), t.where_key("heat_flux") << ": [[boundary]] for group " << b.group
                                                                      << " has both temperature and heat_flux; give one");
  for (const char* key : {"temperature", "heat_flux"}) {
    const std::optional<Expression>& e = std::string(key) == "temperature" ? b.temperature : b.heat_flux;
    SS_REQUIRE(!e || !e->uses_time(), t.where_key(key) << ": [[boundary]] " << key << " = \"" << e->text()
                                                       << "\" depends on t; thermal conditions are constant in time");
  }
  return b;
}

FlowHeatSettings read_heat(TableReader& t) {
  FlowHeatSettings h;
  h.line = CaseFile::line_of(t.table());
  h.conductivity = t.number("conductivity", h.conductivity);
  t.require_positive("conductivity", h.conductivity);
  h.heat_capacity = t.number("heat_capacity", h.heat_capacity);
  t.require_positive("heat_capacity", h.heat_capacity);
  h.advection = t.choice("advection", h.advection, {"upwind", "limited"});
  h.source = t.expression("source", h.source);
  h.initial = t.expression("initial", h.initial);
  for (const char* key : {"source", "initial"}) {
    const Expression& e = std::string(key) == "source" ? h.source : h.initial;
    SS_REQUIRE(!e.uses_time(), t.where_key(key) << ": [heat] " << key << " = \"" << e.text()
                                                << "\" depends on t; it must be a function of x, y, z only");
  }
  const std::optional<double> length = t.get_number("reference_length");
  const std::optional<double> difference = t.get_number("reference_temperature_difference");
  SS_REQUIRE(length.has_value() == difference.has_value(),
             t.where(t.table()) << ": [heat] needs both reference_length and reference_temperature_difference (for "
                                   "the Nusselt numbers q L / (k ΔT)) or neither");
  if (length) {
    h.reference_length = *length, h.reference_temperature_difference = *difference;
    t.require_positive("reference_length", h.reference_length);
    t.require_positive("reference_temperature_difference", h.reference_temperature_difference);
  }
  return h;
}

FlowBuoyancySettings read_buoyancy(TableReader& t) {
  FlowBuoyancySettings b;
  b.line = CaseFile::line_of(t.table());
  const std::optional<glm::dvec3> gravity = t.get_vector("gravity");
  const std::optional<double> expansion = t.get_number("expansion");
  SS_REQUIRE(gravity && expansion, t.where(t.table()) << ": [buoyancy] needs gravity = [gx, gy, gz] and expansion = "
                                                         "β (reference_temperature = T_ref, default 0)");
  b.gravity = *gravity, b.expansion = *expansion;
  t.require_at_least("expansion", b.expansion, 0.0);
  b.reference_temperature = t.number("reference_temperature", 0.0);
  return b;
}

FlowForceSpec read_force(TableReader& t) {
  FlowForceSpec f;
  f.line = CaseFile::line_of(t.table());
  f.group = read_group(t);
  const std::optional<double> velocity = t.get_number("reference_velocity");
  const std::optional<double> area = t.get_number("reference_area");
  SS_REQUIRE(velocity.has_value() == area.has_value(),
             t.where(t.table()) << ": [[force]] needs both reference_velocity and reference_area (for the "
                                   "coefficients 2F/(U²A)) or neither");
  if (velocity) {
    f.reference_velocity = *velocity;
    f.reference_area = *area;
    t.require_positive("reference_velocity", f.reference_velocity);
    t.require_positive("reference_area", f.reference_area);
  }
  return f;
}

FlowCase flow_case_from(const CaseFile& file) {
  FlowCase c;
  c.path = file.path();
  record_lines(file.root(), "", c.lines);
  TableReader top(file, file.root(), "the case file");

  const MeshSettings mesh = read_mesh_table(top);
  c.mesh_file = mesh.file;
  c.refine = mesh.refine;
  c.surfaces = mesh.surfaces;
  c.periodic = mesh.periodic;

  const bool fluid = read_table(top, "fluid", "fluid", [&](TableReader& t) {
    const std::optional<double> viscosity = t.get_number("viscosity");
    SS_REQUIRE(viscosity, file.at(t.table()) << ": [fluid] needs viscosity = ... (kinematic, > 0)");
    c.viscosity = *viscosity;
    t.require_positive("viscosity", c.viscosity);
    c.body_force = t.get_vector("body_force").value_or(glm::dvec3(0.0));
  });
  SS_REQUIRE(fluid, c.path << ": missing [fluid] table with viscosity = ... (kinematic, > 0)");

  if (const toml::node* boundary = top.node("boundary")) {
    const toml::array* list = boundary->as_array();
    SS_REQUIRE(list, file.at(*boundary) << ": boundaries are written as [[boundary]] tables");
    for (const toml::node& entry : *list) {
      TableReader t(file, as_table(entry, "boundary", file.at(entry)), "[[boundary]]");
      const FlowBoundary b = read_boundary(t);
      t.reject_unknown_keys();
      for (const FlowBoundary& other : c.boundaries)
        SS_REQUIRE(other.group != b.group, file.at(entry) << ": group " << b.group
                                                          << " already has a boundary condition (line " << other.line
                                                          << ")");
      c.boundaries.push_back(b);
    }
  }

  if (const toml::node* force = top.node("force")) {
    const toml::array* list = force->as_array();
    SS_REQUIRE(list, file.at(*force) << ": forces are written as [[force]] tables");
    for (const toml::node& entry : *list) {
      TableReader t(file, as_table(entry, "force", file.at(entry)), "[[force]]");
      c.forces.push_back(read_force(t));
      t.reject_unknown_keys();
    }
  }

  if (const toml::node* probe = top.node("probe")) {
    const toml::array* list = probe->as_array();
    SS_REQUIRE(list, file.at(*probe) << ": probes are written as [[probe]] tables");
    for (const toml::node& entry : *list) {
      TableReader t(file, as_table(entry, "probe", file.at(entry)), "[[probe]]");
      FlowProbeSpec p = read_flow_probe(t);
      t.reject_unknown_keys();
      for (const FlowProbeSpec& other : c.probes)
        SS_REQUIRE(other.name != p.name, p.where << ": probe '" << p.name << "' is defined twice (" << other.where << ")");
      c.probes.push_back(std::move(p));
    }
  }

  read_table(top, "heat", "heat", [&](TableReader& t) { c.heat = read_heat(t); });
  read_table(top, "buoyancy", "buoyancy", [&](TableReader& t) { c.buoyancy = read_buoyancy(t); });
  SS_REQUIRE(!c.buoyancy || c.heat, c.where("buoyancy") << ": [buoyancy] needs a temperature: add a [heat] table");
  for (const FlowProbeSpec& p : c.probes)
    SS_REQUIRE(c.heat || std::find(p.fields.begin(), p.fields.end(), "temperature") == p.fields.end(),
               p.where << ": probe '" << p.name << "' samples the temperature but the case has no [heat] table");
  for (const FlowBoundary& b : c.boundaries)
    SS_REQUIRE(c.heat || (!b.temperature && !b.heat_flux),
               c.path << ":" << b.line << ": [[boundary]] for group " << b.group << " has "
                      << (b.temperature ? "temperature" : "heat_flux") << " but the case has no [heat] table");

  read_table(top, "initial", "initial", [&](TableReader& t) {
    c.initial_velocity = t.get_vector_expression("velocity").value_or(c.initial_velocity);
  });
  read_table(top, "exact", "exact", [&](TableReader& t) {
    c.exact_velocity = t.get_vector_expression("velocity");
    SS_REQUIRE(c.exact_velocity, file.at(t.table()) << ": [exact] needs velocity = [u, v, w] (expressions in x, y, z, t)");
  });

  read_table(top, "steady", "steady", [&](TableReader& t) {
    FlowSteady& s = c.steady;
    s.enabled = t.boolean("enabled", true);
    s.tolerance = t.number("tolerance", s.tolerance);
    t.require_positive("tolerance", s.tolerance);
    s.max_steps = t.integer("max_steps", s.max_steps);
    t.require_at_least("max_steps", s.max_steps, 1);
    s.cfl_start = t.number("cfl_start", s.cfl_start);
    t.require_positive("cfl_start", s.cfl_start);
    s.cfl_max = t.number("cfl_max", s.cfl_max);
    t.require_in("cfl_max", s.cfl_max, s.cfl_start, kMaxImplicitCflTarget, "from cfl_start to the implicit limit");
    s.local_time_steps = t.boolean("local_time_steps", s.local_time_steps);
    s.grad_div = t.number("grad_div", s.grad_div);
    t.require_in("grad_div", s.grad_div, 0.0, 100.0, "from 0 (none) to 100");
    s.momentum_tolerance = t.number("momentum_tolerance", s.momentum_tolerance);
    t.require_in("momentum_tolerance", s.momentum_tolerance, 1e-12, 0.5, "from 1e-12 to 0.5");
  });

  const bool time = read_table(top, "time", "time", [&](TableReader& t) {
    FlowTime& s = c.time;
    const std::optional<double> dt = t.get_number("dt");
    SS_REQUIRE(dt, file.at(t.table()) << ": [time] needs dt = ... (the time step; the first one when cfl > 0)");
    s.dt = *dt;
    t.require_positive("dt", s.dt);
    if (c.steady.enabled) {  // the pseudo-time step follows [steady]; only the first one and a cap here
      for (const char* key : {"steps", "end_time", "cfl"})
        SS_REQUIRE(!t.node(key), t.where_key(key) << ": [time] " << key
                                                  << " does not apply in steady mode (it stops on [steady] "
                                                     "tolerance or max_steps; the CFL number follows cfl_start..cfl_max)");
      s.max_dt = t.number("max_dt", 1e300);
      t.require_positive("max_dt", s.max_dt);
      SS_REQUIRE(s.max_dt >= s.dt, t.where_key("max_dt") << ": [time] max_dt must be >= dt");
      return;
    }
    const std::optional<int> steps = t.get_integer("steps");
    const std::optional<double> end_time = t.get_number("end_time");
    SS_REQUIRE(steps.has_value() != end_time.has_value(),
               file.at(t.table()) << ": [time] needs exactly one of steps and end_time"
                                  << (steps ? " (both are given)" : " (neither is given)"));
    if (steps) {
      s.steps = *steps;
      t.require_at_least("steps", s.steps, 1);
    } else {
      s.end_time = *end_time;
      t.require_positive("end_time", s.end_time);
    }
    s.cfl = t.number("cfl", 0.0);
    t.require_at_least("cfl", s.cfl, 0.0);
    s.max_dt = t.number("max_dt", s.dt);
    t.require_positive("max_dt", s.max_dt);
    SS_REQUIRE(s.max_dt >= s.dt, t.where_key("max_dt") << ": [time] max_dt must be >= dt (got max_dt = " << s.max_dt
                                                       << ", dt = " << s.dt << ")");
  });
  SS_REQUIRE(time, c.path << ": missing [time] table with dt and steps or end_time");

  read_table(top, "scheme", "scheme", [&](TableReader& t) {
    c.convection = t.choice("convection", "central", {"central", "upwind"}) == "central" ? FlowCase::Convection::central
                                                                                       : FlowCase::Convection::upwind;
    // time_stepping: crank_nicolson unless steady mode or a θ is given (a θ-scheme case as written before).
    const bool has_theta = t.table().get("theta") != nullptr;
    const std::string stepping =
        t.choice("time_stepping", c.steady.enabled || has_theta ? "theta" : "crank_nicolson", {"crank_nicolson", "theta"});
    c.crank_nicolson = stepping == "crank_nicolson";
    SS_REQUIRE(!(c.crank_nicolson && c.steady.enabled),
               t.where_key("time_stepping") << ": [scheme] time_stepping = \"crank_nicolson\" does not apply in steady "
                                               "mode (its pseudo-time march is the θ-scheme)");
    SS_REQUIRE(!(c.crank_nicolson && has_theta),
               t.where_key("theta") << ": [scheme] theta is for time_stepping = \"theta\" (crank_nicolson has θ = 0.5)");
    c.theta = t.number("theta", c.theta);
    t.require_in("theta", c.theta, 0.5, 1.0, "1: implicit Euler, 0.5: Crank-Nicolson");
    c.two_point_viscous = t.choice("viscous", "curl_curl", {"curl_curl", "two_point"}) == "two_point";
    c.exact_method = t.choice("method", "classical", {"classical", "exact"}) == "exact";
    c.implicit_convection = t.choice("convection_time", "explicit", {"explicit", "implicit"}) == "implicit";
    SS_REQUIRE(!c.steady.enabled || c.implicit_convection || !t.table().get("convection_time"),
               t.where_key("convection_time") << ": [scheme] convection_time = \"explicit\" does not apply in steady "
                                                 "mode (it marches with implicit convection)");
    SS_REQUIRE(!(c.steady.enabled && c.exact_method),
               t.where_key("method") << ": [scheme] method = \"exact\" does not apply in steady mode (it marches "
                                        "the classical method with implicit convection)");
    if (c.steady.enabled) c.implicit_convection = true;
    SS_REQUIRE(!(c.implicit_convection && c.exact_method),
               t.where_key("convection_time") << ": [scheme] convection_time = \"implicit\" is for method = "
                                                 "\"classical\" (the exact method's convection is explicit)");
  });
  if (c.steady.enabled) c.crank_nicolson = false;  // also without a [scheme] table
  if (c.crank_nicolson) c.theta = 0.5;
  if (c.steady.enabled) {
    c.implicit_convection = true;  // also without a [scheme] table
    for (const FlowBoundary& b : c.boundaries)
      SS_REQUIRE(!b.velocity.uses_time() && !b.pressure.uses_time(),
                 c.path << ":" << b.line << ": [[boundary]] for group " << b.group
                        << " depends on t; steady mode needs boundary values that do not change in time");
  }
  // The CFL target's ceiling: explicit convection is unstable beyond about 1 and the solver stops a
  // run past 10; implicit convection is stable beyond, its accuracy (and solver cost) sets the limit.
  const double max_cfl = max_cfl_target(c.implicit_convection);
  SS_REQUIRE(c.time.cfl <= max_cfl, c.where("time.cfl") << ": [time] cfl must be <= " << max_cfl << " with "
                                                        << (c.implicit_convection ? "implicit" : "explicit")
                                                        << " convection (got " << c.time.cfl << ")");

  read_table(top, "solver", "solver", [&](TableReader& t) {
    read_table(t, "pressure", "solver.pressure", [&](TableReader& s) {
      c.pressure = read_solver(s, c.pressure, SolverKind::pressure);
      c.pressure.initial_guess = s.choice("initial_guess", c.pressure.initial_guess, {"zero", "extrapolated"});
      if (s.table().get("smoother_degree")) {
        SS_REQUIRE(c.pressure.preconditioner == "multigrid",
                   s.where_key("smoother_degree") << ": [solver.pressure] smoother_degree is for preconditioner = \"multigrid\"");
        c.pressure.smoother_degree = s.integer("smoother_degree", 0);
        SS_REQUIRE(c.pressure.smoother_degree >= 1 && c.pressure.smoother_degree <= 8,
                   s.where_key("smoother_degree") << ": [solver.pressure] smoother_degree must be from 1 to 8 (got "
                                                  << c.pressure.smoother_degree << ")");
      }
    });
    read_table(t, "momentum", "solver.momentum", [&](TableReader& s) {
      c.momentum = read_solver(s, c.momentum, SolverKind::momentum);
      c.momentum.system = s.choice("system", c.momentum.system, {"automatic", "flux", "vorticity"});
      const char* why_not = c.exact_method          ? "method = \"exact\" solves for the streamfunction"
                            : c.two_point_viscous   ? "it needs viscous = \"curl_curl\""
                            : c.implicit_convection ? "implicit convection makes the momentum system nonsymmetric"
                                                    : nullptr;
      SS_REQUIRE(c.momentum.system != "vorticity" || !why_not,
                 s.where_key("system") << ": [solver.momentum] system = \"vorticity\" does not apply: " << why_not);
      SS_REQUIRE(c.momentum.preconditioner != "chebyshev" || (!why_not && c.momentum.system != "flux"),
                 s.where_key("preconditioner") << ": [solver.momentum] preconditioner = \"chebyshev\" is for the edge "
                                                  "vorticity system: "
                                               << (why_not ? why_not : "system = \"flux\" solves for the face fluxes"));
      if (s.table().get("chebyshev_degree")) {
        SS_REQUIRE(c.momentum.preconditioner == "chebyshev",
                   s.where_key("chebyshev_degree") << ": [solver.momentum] chebyshev_degree is for preconditioner = \"chebyshev\"");
        c.momentum.chebyshev_degree = s.integer("chebyshev_degree", c.momentum.chebyshev_degree);
        SS_REQUIRE(c.momentum.chebyshev_degree >= 1 && c.momentum.chebyshev_degree <= 15 && c.momentum.chebyshev_degree % 2 == 1,
                   s.where_key("chebyshev_degree") << ": [solver.momentum] chebyshev_degree must be odd, from 1 to 15 (got "
                                                   << c.momentum.chebyshev_degree << "): an even degree's polynomial is not positive");
      }
      SS_REQUIRE(c.momentum.preconditioner != "block_jacobi" || c.implicit_convection,
                 s.where_key("preconditioner") << ": [solver.momentum] preconditioner = \"block_jacobi\" needs "
                                                  "[scheme] convection_time = \"implicit\" (or [steady])");
    });
    read_table(t, "streamfunction", "solver.streamfunction",
               [&](TableReader& s) {
                 c.streamfunction = read_solver(s, c.streamfunction, SolverKind::streamfunction);
                 c.streamfunction.gauge = s.choice("gauge", c.streamfunction.gauge, {"grad_div", "none"});
                 SS_REQUIRE(c.streamfunction.preconditioner != "ams" || c.streamfunction.gauge == "grad_div",
                            s.where_key("preconditioner") << ": [solver.streamfunction] preconditioner = \"ams\" needs gauge = \"grad_div\"");
               });
    read_table(t, "temperature", "solver.temperature", [&](TableReader& s) {
      SS_REQUIRE(c.heat, s.where(s.table()) << ": [solver.temperature] needs a [heat] table");
      c.temperature = read_solver(s, c.temperature, SolverKind::temperature);
    });
  });

  const OutputSettings output = read_output_table(top, c.output_every, [&](TableReader& t) {
    c.slice_origin = t.get_vector("slice_origin");
    c.slice_field = t.choice("slice_field", c.slice_field, {"velocity", "temperature"});
    SS_REQUIRE(c.slice_field != "temperature" || c.heat,
               t.where_key("slice_field") << ": [output] slice_field = \"temperature\" needs a [heat] table");
    if (const std::optional<glm::dvec3> normal = t.get_vector("slice_normal")) {
      // Scaled by its largest component first: |[1e200, 1e200, 0]| would overflow to inf (and the
      // normal become zero), |[1e-200, 0, 0]| underflow.
      const double largest = std::max({std::abs(normal->x), std::abs(normal->y), std::abs(normal->z)});
      SS_REQUIRE(largest > 0.0, t.where_key("slice_normal") << ": [output] slice_normal must not be zero");
      const glm::dvec3 scaled = *normal / largest;
      c.slice_normal = scaled / glm::length(scaled);
    }
  });
  c.output_directory = output.directory;
  c.output_every = output.every;
  top.reject_unknown_keys();
  return c;
}

}  // namespace

int FlowCase::line_of(const std::string& key) const {
  const auto it = lines.find(key);
  return it == lines.end() ? 0 : it->second;
}

std::string FlowCase::where(const std::string& key) const {
  const int line = line_of(key);
  return line > 0 ? path + ":" + std::to_string(line) : path;
}

const char* to_string(FlowBoundary::Type type) {
  switch (type) {
    case FlowBoundary::Type::wall: return "wall";
    case FlowBoundary::Type::velocity: return "velocity";
    case FlowBoundary::Type::pressure: return "pressure";
    case FlowBoundary::Type::slip: return "slip";
  }
  return "?";
}

FlowCase parse_flow_case(const std::string& text, const std::string& path) {
  return flow_case_from(CaseFile(text, path));
}

FlowCase read_flow_case(const std::string& path) { return flow_case_from(CaseFile::read(path)); }

}  // namespace ss
