#pragma once
// One GPU per rank: the EGL device of a rank is its local rank modulo the number of EGL devices
// (`--gpu` overrides).
namespace ss {

// Number of devices the EGL device platform lists (0 when it has no device enumeration, e.g. an
// old Mesa: then device 0 means the surfaceless platform).
int egl_device_count();
// The device for this rank: `requested` when >= 0, else local_rank % max(1, egl_device_count()).
int choose_gpu(int requested, int local_rank);
// glFlush: hands queued GL work to the GPU so it runs while the host waits on MPI.
void gl_flush();

}  // namespace ss
