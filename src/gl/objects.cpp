#include "gl/objects.hpp"

#include "gl/check.hpp"

namespace ss {

TextureName make_texture() {
  GLuint id = 0;
  glGenTextures(1, &id);
  SS_GL_CHECK("glGenTextures");
  return TextureName(id);
}

FramebufferName make_framebuffer() {
  GLuint id = 0;
  glGenFramebuffers(1, &id);
  SS_GL_CHECK("glGenFramebuffers");
  return FramebufferName(id);
}

BufferName make_buffer() {
  GLuint id = 0;
  glGenBuffers(1, &id);
  SS_GL_CHECK("glGenBuffers");
  return BufferName(id);
}

VertexArrayName make_vertex_array() {
  GLuint id = 0;
  glGenVertexArrays(1, &id);
  SS_GL_CHECK("glGenVertexArrays");
  return VertexArrayName(id);
}

}  // namespace ss
