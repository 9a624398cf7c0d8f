// `bert-data` subcommands. Each add_* registers one or more subcommands on the app; their
// callbacks throw DataError for user-caused problems (main prints it and exits 2).
#pragma once
#include <CLI/CLI.hpp>

#include "dataset/output_folder.h"  // into_new_folder: every folder output is OUT.partial until complete
#include "dataset/text/pretraining_data.h"
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bert::data::cli {

void add_synth(CLI::App& app);
void add_grammar_stats(CLI::App& app);
void add_info_verify(CLI::App& app);
void add_transforms(CLI::App& app);  // reshard, chop, shuffle, pick-eval, to-varlength, split4bin, pack
void add_convert_checkpoint(CLI::App& app);
void add_create(CLI::App& app);  // create
void add_from_tfrecord(CLI::App& app);
void add_prepare(CLI::App& app);

// Progress on stderr: "  [done/total] what", one line per step.
void progress_line(const char* what, int64_t done, int64_t total);

// The generator's flags (seed, dupe factor, lengths, probabilities, lower case) on a command.
void add_generator_options(CLI::App* cmd, text::GeneratorOptions& g);

// A file, or the regular files of a directory (not hidden) in name order; DataError if none.
std::vector<std::string> regular_files(const std::string& path);

}  // namespace bert::data::cli
