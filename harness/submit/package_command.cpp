#include "harness/submit/package_command.h"

#include <iostream>

#include "common/cli_parse.h"
#include "common/user_error.h"
#include "harness/submit/package.h"

namespace bert::harness {
namespace {

struct PackageCli : CliSubcommand<PackageCli> {
  PackageOptions opts;
};

}  // namespace

void register_package_command(CLI::App& app) {
  PackageCli& c = PackageCli::instance();
  c.cmd = app.add_subcommand("package", "lay out experiment sets as an MLCommons submission (systems/, results/, "
                                        "benchmarks/bert/implementations/) and check it");
  c.cmd->add_option("sets", c.opts.sets, "output directories of harness run (their results are numbered in this order)")->required();
  c.cmd->add_option("--org", c.opts.org, "the submitter's folder name")->required();
  c.cmd->add_option("-o,--output", c.opts.out, "where ORG/ is created")->required();
  c.cmd->add_option("--impl", c.opts.impl, "implementation folder name (default: cpp-<backend>, or the external trainer's profile)");
  c.cmd->add_option("--implementation", c.opts.implementation_dir,
                    "copy this folder as the implementation (an external implementation that ran inside an image)");
  c.cmd->add_option("--source", c.opts.source_dir, "the checkout to git archive the set's commit from (default: the one the harness was built from)");
}

int run_package_if_parsed() {
  PackageCli& c = PackageCli::instance();
  if (!c.given()) return -1;
  try {
    PackageResult r = make_package(c.opts);
    for (const auto& n : r.notes) std::cout << "package: " << n << "\n";
    for (const auto& w : r.warnings) std::cout << "package: warning: " << w << "\n";
    std::cout << results::format_report(r.verdict);
    std::cout << "package: " << r.org_dir << (r.verdict.passed ? " passes" : " FAILS") << " the package check\n";
    return r.verdict.passed ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "harness package: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace bert::harness
