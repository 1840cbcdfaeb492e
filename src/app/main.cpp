// streamsolve — PDE solvers on unstructured tetrahedral meshes with OpenGL fragment shaders.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "app/commands.hpp"
#include "util/error.hpp"

int main(int argc, char** argv) {
  ss::GlobalOptions globals;
  CLI::App app{"streamsolve: GPU PDE solvers on tetrahedral meshes with OpenGL (heat, flow)"};
  app.set_version_flag("--version", std::string("streamsolve ") + SS_VERSION);
  app.require_subcommand(1);
  app.fallthrough();

  auto* gl = app.add_option_group("GL device");
  gl->add_option("--gpu", globals.gl.gpu, "EGL device index to run on (default 0)")->check(CLI::NonNegativeNumber);
  gl->add_flag("--window", globals.gl.window, "open a visible GLFW window instead of headless EGL");
  gl->add_flag("--glfw", globals.gl.use_glfw, "use a hidden GLFW window instead of headless EGL");
  gl->add_flag("-v,--verbose", globals.gl.verbose, "print GL vendor, renderer, version and the chosen device");

  ss::add_bench_commands(app, globals);
  ss::add_mesh_commands(app);
  ss::add_heat_command(app, globals);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const ss::Error& e) {
    std::fprintf(stderr, "streamsolve: error: %s (%s:%d)\n", e.what(), e.file(), e.line());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamsolve: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
