#include "parallel/gpu_select.hpp"

#include <cstring>

#include <GL/glew.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>

namespace ss {

int egl_device_count() {
  const char* ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!ext || (!std::strstr(ext, "EGL_EXT_device_enumeration") && !std::strstr(ext, "EGL_EXT_device_base"))) return 0;
  auto query = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  EGLint count = 0;
  if (!query || !query(0, nullptr, &count)) return 0;
  return int(count);
}

int choose_gpu(int requested, int local_rank) {
  if (requested >= 0) return requested;
  const int count = egl_device_count();
  return count > 0 ? local_rank % count : 0;
}

void gl_flush() { glFlush(); }

}  // namespace ss
