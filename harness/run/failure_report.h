// What the console says about a failed experiment, so its cause is not only inside logs/: the failing
// rank's own last lines (rank 0's from the experiment log, another rank's from the ranks log, MLLOG
// lines left out), what an exit status of a container runtime or a shell means (podman/docker 125: the
// runtime itself failed; 126: the command cannot run; 127: not found), and whether two failures are the
// same one (then the set stops: the next runs would fail alike).
#pragma once
#include <string>
#include <vector>

namespace bert::harness {

// The last `n` lines rank `rank` printed (-1 = any rank), from the experiment log and the ranks log texts.
std::vector<std::string> rank_last_lines(const std::string& log_text, const std::string& ranks_text, int rank, size_t n);

// "exit code 125" -> "the container runtime could not start the container (its own error is above)"; "" = nothing to add.
std::string exit_status_meaning(const std::string& status);

// A failure's identity for "the same failure twice": the text with the numbers that differ per run (ranks,
// pids, times) as '#', exit codes kept.
std::string failure_signature(const std::string& message);

}  // namespace bert::harness
