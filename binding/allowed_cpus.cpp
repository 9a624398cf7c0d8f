#include "binding/allowed_cpus.h"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "binding/binding.h"

namespace bert::binding {

IndexList process_allowed_cpus() {
  // Grow the mask until the kernel accepts its size (machines with more than CPU_SETSIZE CPUs).
  for (int ncpus = 1024; ncpus <= (1 << 20); ncpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpus);
    size_t size = CPU_ALLOC_SIZE(ncpus);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      IndexList out;
      for (int i = 0; i < ncpus; ++i)
        if (CPU_ISSET_S(i, size, set)) out.push_back(i);
      CPU_FREE(set);
      return out;
    }
    int err = errno;
    CPU_FREE(set);
    if (err != EINVAL) throw UserError("bind", std::string("sched_getaffinity: ") + std::strerror(err));
  }
  throw UserError("bind", "sched_getaffinity: CPU mask too large");
}

}  // namespace bert::binding
