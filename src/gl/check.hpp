#pragma once
// GL errors become exceptions naming the operation: SS_GL_CHECK("glTexImage2D R32F 4096x4096").
#include <string>

namespace ss {

// Throws ss::Error (reported at `file`:`line`) if glGetError() has anything pending.
void gl_check(const std::string& operation, const char* file, int line);

}  // namespace ss

#define SS_GL_CHECK(operation) ::ss::gl_check((operation), __FILE__, __LINE__)
