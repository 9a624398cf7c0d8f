// The tags a launcher puts before each line of its tasks' output, and how they are read back: the
// executor finds rank 0's lines (the experiment log) and the preflight splits its probe's output per
// node with them. Each launcher says which style it uses (Launcher::tag_style).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace bert::harness {

// How the rank of a line is known: by its source (the executor starts each rank itself, one pipe per
// rank), from a task-id prefix ("0: ..."; `srun -l`), or from Open MPI's `--tag-output` tags
// ("[1,0]<stdout>:...").
enum class RankTagStyle { BySource, TaskPrefix, OpenMpi };

// Returns the rank a tagged line belongs to and strips the tag, or -1 (untagged, line unchanged).
int strip_rank_tag(RankTagStyle style, std::string& line);

// Open MPI's --tag-output prefixes every fragment it forwards, so a line a rank wrote in pieces
// arrives with tags inside it ('..."POINT_IN_TIME", [1,0]<stdout>:"key": ...'). This reassembles
// whole lines per rank from the byte stream; text outside any tag (mpirun's own) has rank -1.
class MpirunDemux {
 public:
  explicit MpirunDemux(std::function<void(int rank, std::string line)> on_line);
  void feed(std::string_view data);
  void finish();

 private:
  void deliver(std::string_view text);
  std::function<void(int, std::string)> on_line_;
  std::string pending_;                     // bytes that may start a tag cut by a read boundary
  std::pair<int, int> cur_{-1, 0};          // (rank, stream) of the text being read
  std::map<std::pair<int, int>, std::string> partial_;
};

}  // namespace bert::harness
