// Where this build's own programs (bind, trainer, bert-data) and installed system files are on the host.
#pragma once
#include <string>

namespace bert::harness {

// The directory of the running executable (/proc/self/exe).
std::string executable_dir();
// A host tool: bin_dir/name when bin_dir is given, else found next to this executable (or in bin/
// below it, or one level up from a bin/ it sits in: build trees).
std::string host_tool(const std::string& bin_dir, const std::string& name);

// A system file as given, or, when that path does not exist and is relative, the one installed with this
// executable (<prefix>/share/bert-harness/<given>, then .../systems/<given>): `harness run local.yaml`
// and `harness run systems/local.yaml` work from any directory once installed.
std::string find_system_file(const std::string& given);

}  // namespace bert::harness
