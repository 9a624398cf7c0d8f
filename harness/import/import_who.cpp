// What no config says and only the user can: who submits (never a hardware base's organization), in which
// division, the --set values over everything; and what the YAML still lacks to plan, all of it at once.
#include "common/user_error.h"
#include "harness/config/config.h"
#include "harness/config/schema.h"
#include "harness/config/settings.h"
#include "harness/import/import_state.h"

namespace bert::harness {

std::optional<std::string> ImportState::written(const std::string& key) const {
  YAML::Node n = YAML::Clone(y);
  for (size_t at = 0; at <= key.size();) {
    size_t dot = key.find('.', at);
    if (dot == std::string::npos) dot = key.size();
    const YAML::Node& cn = n;  // const: operator[] does not add the key
    if (!cn.IsMap() || !cn[key.substr(at, dot - at)]) return std::nullopt;
    n.reset(cn[key.substr(at, dot - at)]);
    at = dot + 1;
  }
  return n.IsScalar() ? n.as<std::string>() : "";  // null: written as "not what it extends"
}

std::string ImportState::value_of(const std::string& key) const {
  if (auto w = written(key)) return *w;
  return base_cfg ? base_cfg->str(key) : "";
}

bool ImportState::closed() const {
  return parse_enum(value_of("experiment.division"), kDivisionNames) == Division::Closed;
}

void import_who(ImportState& s) {
  const ImportOptions& o = s.o;
  // Written even when none is given: a base's or an earlier file's organization never speaks for this one.
  s.set("system.submitter", YAML::Node(o.submitter));
  if (!o.submitter.empty())
    s.r.notes.push_back("system.submitter: " + o.submitter + " (" + (o.submitter_from.empty() ? "--submitter" : o.submitter_from) + ")");
  if (!o.division.empty()) {
    if (!parse_enum(o.division, kDivisionNames))
      throw UserError(Loc{"harness import --division"}, "", "'" + o.division + "' is not a division (closed or open)");
    s.set("experiment.division", YAML::Node(o.division));
    s.r.notes.push_back("experiment.division: " + o.division + " (--division)");
  }
}

void import_sets(ImportState& s) {
  for (const std::string& kv : s.o.sets) {  // last: over everything the config gave
    const size_t eq = kv.find('=');
    const std::string key = kv.substr(0, eq);
    const std::string parent = key.substr(0, key.rfind('.') == std::string::npos ? 0 : key.rfind('.'));
    const bool map_item = !parent.empty() && schema_find(parent) && schema_find(parent)->type == ValueType::StringMap;
    if (eq == std::string::npos || eq == 0 || (!schema_find(key) && !map_item))
      throw UserError(Loc{"harness import --set " + kv}, key,
                      eq == std::string::npos ? "expected key.path=value" : "not a system key (harness schema lists them)");
    YAML::Node value;
    try {
      value = YAML::Load(kv.substr(eq + 1).empty() ? "''" : kv.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      throw UserError(Loc{"harness import --set " + kv}, key, std::string("not a YAML value: ") + e.what());
    }
    s.set(key, value);
    s.r.notes.push_back(key + ": " + kv.substr(eq + 1) + " (--set)");
  }
}

void check_missing(ImportState& s) {
  check_gpu_count(s);
  const bool closed = s.closed();
  if (s.value_of("system.submitter").empty()) {
    if (closed)
      s.lacks("system.submitter", "the closed division needs the submitting organization, which no config names (a hardware "
                                  "base describes hardware, not who submits): --submitter ORG (or BERT_SUBMITTER=ORG in the "
                                  "environment, the site's default), or --division open",
              "ORG");
    else
      s.r.origins.push_back("system.submitter: none given: the logs' submission_org and the systems JSON say "
                            "SUBMISSION_ORG_PLACEHOLDER (--submitter ORG)");
  }
  if (closed && s.value_of("benchmark.data.checkpoint").empty() && !s.prof->checkpoint.env.empty())
    s.lacks("benchmark.data.checkpoint", s.prof->checkpoint.env + " is " + (s.vars.count(s.prof->checkpoint.env) ? "empty" : "not set") +
                                             ": the closed division trains from MLPerf's phase-1 checkpoint: --env " +
                                             s.prof->checkpoint.env + "=DIR (the folder of model.ckpt-28252), or --division open",
            "/DIR/model.ckpt-28252");
}

}  // namespace bert::harness
