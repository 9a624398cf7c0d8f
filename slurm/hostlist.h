// Slurm host lists ("gpu[01-03,07],login1") as in SLURM_JOB_NODELIST, expanded like
// `scontrol show hostnames` (which run.sub uses to find the first node for MASTER_ADDR).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace bert::slurm {

// nullopt when the text is not a host list (unbalanced brackets, bad range).
std::optional<std::vector<std::string>> expand_hostlist(const std::string& text);

}  // namespace bert::slurm
