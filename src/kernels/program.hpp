#pragma once
// A linked GL program with cached uniform locations, and the cache of compiled kernel programs.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <glm/vec2.hpp>

#include "gl/objects.hpp"
#include "kernels/kernel_source.hpp"

namespace ss {

class Program {
public:
  // Compiles and links; a compile or link failure throws ss::Error with `label` and the GL log.
  Program(const std::string& label, const std::string& vertex_source, const std::string& fragment_source);
  // A compute program (one compute shader).
  Program(const std::string& label, const std::string& compute_source);

  GLuint id() const { return name_.id(); }
  const std::string& label() const { return label_; }
  bool is_compute() const { return compute_; }
  // Compute programs: local_size_x, local_size_y of the shader (queried after linking).
  glm::ivec2 work_group_size() const { return work_group_size_; }
  // -1 when the uniform is absent or unused (setting it is then a no-op, as in GL).
  GLint uniform(const std::string& name);

  // glUniform* on this program (binds it).
  void set(const std::string& name, float value);
  void set(const std::string& name, int value);
  void set(const std::string& name, glm::ivec2 value);

private:
  void link(const std::vector<const ShaderName*>& shaders);

  ProgramName name_;
  std::string label_;
  bool compute_ = false;
  glm::ivec2 work_group_size_{0, 0};
  std::map<std::string, GLint> locations_;
};

// Kernel programs compiled once per KernelSpec (fragment or compute, as spec.launch says) and kept
// for the life of the context.
class ProgramCache {
public:
  ProgramCache() = default;
  ProgramCache(const ProgramCache&) = delete;
  ProgramCache& operator=(const ProgramCache&) = delete;
  // Unbinds: a deleted program that stays current would outlive its cache.
  ~ProgramCache();
  Program& get(const KernelSpec& spec);
  std::size_t size() const { return programs_.size(); }

private:
  std::map<std::string, std::unique_ptr<Program>> programs_;
};

}  // namespace ss
