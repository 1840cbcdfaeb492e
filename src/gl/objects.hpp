#pragma once
// Move-only RAII owners of GL object names (texture, framebuffer, program, buffer, vertex array).
// Each deletes its object when destroyed; a moved-from owner holds 0 and deletes nothing.
#include <GL/glew.h>

#include <utility>

namespace ss {

template <void (*Delete)(GLuint)>
class GlName {
public:
  GlName() = default;
  explicit GlName(GLuint id) : id_(id) {}
  ~GlName() { reset(); }
  GlName(GlName&& other) noexcept : id_(std::exchange(other.id_, 0)) {}
  GlName& operator=(GlName&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, 0);
    }
    return *this;
  }
  GlName(const GlName&) = delete;
  GlName& operator=(const GlName&) = delete;

  GLuint id() const { return id_; }
  explicit operator bool() const { return id_ != 0; }
  void reset() {
    if (id_) Delete(id_);
    id_ = 0;
  }

private:
  GLuint id_ = 0;
};

namespace gl_delete {
inline void texture(GLuint id) { glDeleteTextures(1, &id); }
inline void framebuffer(GLuint id) { glDeleteFramebuffers(1, &id); }
inline void program(GLuint id) { glDeleteProgram(id); }
inline void shader(GLuint id) { glDeleteShader(id); }
inline void buffer(GLuint id) { glDeleteBuffers(1, &id); }
inline void vertex_array(GLuint id) { glDeleteVertexArrays(1, &id); }
}  // namespace gl_delete

using TextureName = GlName<gl_delete::texture>;
using FramebufferName = GlName<gl_delete::framebuffer>;
using ProgramName = GlName<gl_delete::program>;
using ShaderName = GlName<gl_delete::shader>;
using BufferName = GlName<gl_delete::buffer>;
using VertexArrayName = GlName<gl_delete::vertex_array>;

// Creation helpers (glGen* + error check).
TextureName make_texture();
FramebufferName make_framebuffer();
BufferName make_buffer();
VertexArrayName make_vertex_array();

}  // namespace ss
