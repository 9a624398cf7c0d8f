// The CPUs this process may run on (sched_getaffinity: a Slurm cgroup or taskset narrows it).
#pragma once
#include "binding/cpu_list.h"

namespace bert::binding {

IndexList process_allowed_cpus();

}  // namespace bert::binding
