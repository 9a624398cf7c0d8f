// bert-data: MLPerf BERT dataset and checkpoint tools (see commands.h).
#include <fmt/core.h>

#include "trainer/data/cli/commands.h"
#include "trainer/data/crash_guard.h"
#include "trainer/data/data_error.h"

namespace bert::data::cli {
void progress_line(const char* what, int64_t done, int64_t total) {
  fmt::print(stderr, "  [{}/{}] {}\n", done, total, what);
}
}  // namespace bert::data::cli

int main(int argc, char** argv) {
  CLI::App app{"bert-data: MLPerf BERT datasets from text (create) and HDF5 tools (synth, info, verify, reshard, "
               "to-varlength, split4bin, pack), TF1 checkpoint conversion"};
  app.require_subcommand(1);
  bert::data::install_hdf5_crash_guard("bert-data");
  using namespace bert::data::cli;
  add_synth(app);
  add_grammar_stats(app);
  add_info_verify(app);
  add_transforms(app);
  add_convert_checkpoint(app);
  add_create(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const bert::data::DataError& e) {
    fmt::print(stderr, "bert-data: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "bert-data: {}\n", e.what());
    return 1;
  }
  return 0;
}
