#include "gl/check.hpp"

#include <GL/glew.h>

#include "util/error.hpp"

namespace ss {

static const char* gl_error_name(GLenum error) {
  switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY (out of GPU memory)";
    default: return "unknown GL error";
  }
}

void gl_check(const std::string& operation, const char* file, int line) {
  GLenum error = glGetError();
  if (error == GL_NO_ERROR) return;
  std::string what = std::string(gl_error_name(error)) + " in " + operation;
  // Drain the queue so one failure is reported once.
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {}
  throw Error(what, source_basename(file), line);
}

}  // namespace ss
