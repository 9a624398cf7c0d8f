// `harness package SET... --org ORG -o DIR`: the MLCommons submission layout from experiment sets
// (output directories of `harness run`), then our package check on it:
//   DIR/ORG/systems/<system>.json                         the set's systems JSON (submitter = ORG when empty)
//   DIR/ORG/results/<system>/bert/result_<N>.txt          every set's results in order, renumbered from 0
//   DIR/ORG/results/<system>/bert/scaling.json            when the RCP check asks for one (a set converging in
//                                                         fewer samples than the RCP mean), as the official one does
//   DIR/ORG/benchmarks/bert/implementations/<impl>/       the code that ran: this project at the plan's
//                                                         source.commit (git archive), or the external
//                                                         implementation's folder
#pragma once
#include <string>
#include <vector>

#include "results/check.h"

namespace bert::harness {

struct PackageOptions {
  std::vector<std::string> sets;   // output directories of `harness run` (plan.json, results/, systems/)
  std::string org;                 // the submitter's folder name
  std::string out;                 // DIR: the package is DIR/ORG
  std::string impl;                // implementation folder name ("" = cpp-<backend>, or the external profile)
  std::string implementation_dir;  // the code to snapshot instead (an external implementation inside an image)
  std::string source_dir;          // the checkout to `git archive` (default: the plan's source.dir)
};

struct PackageResult {
  std::string org_dir;                         // DIR/ORG
  std::vector<std::string> notes;              // what was put where, and why
  std::vector<std::string> warnings;           // e.g. a set ran from uncommitted changes
  results::PackageVerdict verdict;             // our package check of DIR/ORG
};

// Throws UserError naming the file or folder for bad input (no plan.json, sets of different systems or
// code, DIR/ORG already there); nothing is left half-written in DIR/ORG when that happens before copying.
PackageResult make_package(const PackageOptions& opts);

}  // namespace bert::harness
