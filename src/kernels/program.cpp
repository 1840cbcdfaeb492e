#include "kernels/program.hpp"

#include <vector>

#include "gl/check.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

ShaderName compile(GLenum stage, const std::string& source, const std::string& label) {
  ShaderName shader(glCreateShader(stage));
  const char* text = source.c_str();
  glShaderSource(shader.id(), 1, &text, nullptr);
  glCompileShader(shader.id());
  GLint ok = 0;
  glGetShaderiv(shader.id(), GL_COMPILE_STATUS, &ok);
  if (!ok) {
    GLint length = 0;
    glGetShaderiv(shader.id(), GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(size_t(std::max(length, 1)));
    glGetShaderInfoLog(shader.id(), GLsizei(log.size()), nullptr, log.data());
    const char* stage_name = stage == GL_VERTEX_SHADER ? "vertex" : stage == GL_COMPUTE_SHADER ? "compute" : "fragment";
    SS_THROW("shader '" << label << "' (" << stage_name << ") does not compile: " << log.data());
  }
  return shader;
}

}  // namespace

Program::Program(const std::string& label, const std::string& vertex_source, const std::string& fragment_source)
    : name_(glCreateProgram()), label_(label) {
  ShaderName vs = compile(GL_VERTEX_SHADER, vertex_source, label);
  ShaderName fs = compile(GL_FRAGMENT_SHADER, fragment_source, label);
  link({&vs, &fs});
}

Program::Program(const std::string& label, const std::string& compute_source)
    : name_(glCreateProgram()), label_(label), compute_(true) {
  ShaderName cs = compile(GL_COMPUTE_SHADER, compute_source, label);
  link({&cs});
  GLint size[3] = {0, 0, 0};
  glGetProgramiv(name_.id(), GL_COMPUTE_WORK_GROUP_SIZE, size);
  work_group_size_ = {size[0], size[1]};
  SS_GL_CHECK("querying the work-group size of " + label);
}

void Program::link(const std::vector<const ShaderName*>& shaders) {
  for (const ShaderName* shader : shaders) glAttachShader(name_.id(), shader->id());
  glLinkProgram(name_.id());
  GLint ok = 0;
  glGetProgramiv(name_.id(), GL_LINK_STATUS, &ok);
  if (!ok) {
    std::vector<char> log(4096);
    glGetProgramInfoLog(name_.id(), GLsizei(log.size()), nullptr, log.data());
    SS_THROW("program '" << label_ << "' does not link: " << log.data());
  }
  for (const ShaderName* shader : shaders) glDetachShader(name_.id(), shader->id());
  SS_GL_CHECK("building program " + label_);
}

GLint Program::uniform(const std::string& name) {
  auto it = locations_.find(name);
  if (it != locations_.end()) return it->second;
  const GLint location = glGetUniformLocation(name_.id(), name.c_str());
  locations_.emplace(name, location);
  return location;
}

void Program::set(const std::string& name, float value) {
  glUseProgram(name_.id());
  glUniform1f(uniform(name), value);
}
void Program::set(const std::string& name, int value) {
  glUseProgram(name_.id());
  glUniform1i(uniform(name), value);
}
void Program::set(const std::string& name, glm::ivec2 value) {
  glUseProgram(name_.id());
  glUniform2i(uniform(name), value.x, value.y);
}

ProgramCache::~ProgramCache() {
  if (!programs_.empty()) glUseProgram(0);
}

Program& ProgramCache::get(const KernelSpec& spec) {
  const std::string key = spec.key();
  auto it = programs_.find(key);
  if (it != programs_.end()) return *it->second;
  auto program = spec.launch == LaunchPath::compute
                     ? std::make_unique<Program>(key, compute_program_source(spec))
                     : std::make_unique<Program>(key, fullscreen_vertex_source(), fragment_program_source(spec));
  return *programs_.emplace(key, std::move(program)).first->second;
}

}  // namespace ss
