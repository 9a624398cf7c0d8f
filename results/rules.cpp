#include "results/rules.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

#include "results/rules_embedded.h"

namespace bert::results::rules {
namespace {

[[noreturn]] void bad(std::string_view file, const std::string& what) {
  throw std::runtime_error(std::string(file) + ": " + what);
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", '" : "'") + items[i] + "'";
  return out + "]";
}

json scalar_to_json(const std::string& s) {
  if (s == "true" || s == "True") return true;
  if (s == "false" || s == "False") return false;
  char* end = nullptr;
  const long long i = std::strtoll(s.c_str(), &end, 10);
  if (!s.empty() && *end == '\0') return static_cast<int64_t>(i);
  const double d = std::strtod(s.c_str(), &end);
  if (!s.empty() && *end == '\0') return d;
  return s;
}

// Builds a Step from a one-key map {op: argument}, filling in the official Python text.
Step make_step(std::string_view file, const YAML::Node& node) {
  if (!node.IsMap() || node.size() != 1) bad(file, "a check or action must be a one-key map");
  Step st;
  st.op = node.begin()->first.as<std::string>();
  const YAML::Node arg = node.begin()->second;
  auto field = [&](const char* name) {
    if (!arg.IsMap() || !arg[name]) bad(file, st.op + " needs '" + name + "'");
    return arg[name].as<std::string>();
  };
  const std::string md = "v['metadata']";
  if (st.op == "value_in" || st.op == "metadata_has_any") {
    if (!arg.IsSequence()) bad(file, st.op + " needs a list");
    for (const auto& e : arg) st.args.push_back(e.as<std::string>());
    if (st.op == "value_in") {
      st.python = "v['value'] in " + quoted_list(st.args);
    } else {
      for (size_t i = 0; i < st.args.size(); ++i)
        st.python += (i ? " | ('" : "('") + st.args[i] + "' in " + md + ")";
    }
    return st;
  }
  if (st.op == "metadata_requires") {
    st.args = {field("if"), field("then")};
    st.python = "'" + st.args[1] + "' in " + md + " if '" + st.args[0] + "' in " + md + " else True";
    return st;
  }
  if (st.op == "metadata_above" || st.op == "metadata_at_least") {
    st.args = {field("field"), field("bound")};
    st.python = md + "['" + st.args[0] + "'] " + (st.op == "metadata_above" ? ">" : ">=") + " " + st.args[1] +
                " if '" + st.args[0] + "' in " + md + " else True";
    return st;
  }
  if (st.op == "init_limit_minutes") {
    st.args = {field("open"), field("otherwise")};
    st.python = "s['compile_time_mins'] = " + st.args[0] + " if v['value'] == 'open' else " + st.args[1];
    return st;
  }
  if (st.op == "value_in_range") {
    st.args = {field("min"), field("below")};
    st.python = "(v['value'] >= " + st.args[0] + ") and v['value'] < " + st.args[1];
    return st;
  }
  if (!arg.IsScalar()) bad(file, st.op + " needs one value");
  const std::string a = arg.as<std::string>();
  st.args = {a};
  if (st.op == "value_not") st.python = "v['value'] != '" + a + "'";
  else if (st.op == "value_above") st.python = "v['value'] > " + a;
  else if (st.op == "value_below") st.python = "v['value'] < " + a;
  else if (st.op == "has") st.python = "'" + a + "' in v";
  else if (st.op == "state_true") st.python = "s['" + a + "']";
  else if (st.op == "state_false") st.python = "not s['" + a + "']";
  else if (st.op == "state_is_true") st.python = "( s['" + a + "'] == True )";
  else if (st.op == "metadata_has") st.python = "'" + a + "' in " + md;
  else if (st.op == "init_within_limit")
    st.python = "ll.timestamp - s['" + a + "'] < (s['compile_time_mins']*60*1e3)";
  else if (st.op == "enqueue") st.python = "enqueue_config('" + a + ".yaml')";
  else if (st.op == "set_true") st.python = "s['" + a + "'] = True";
  else if (st.op == "min_timestamp") st.python = "s['" + a + "']=min(s['" + a + "'], ll.timestamp)";
  else if (st.op == "store_value") st.python = "s['" + a + "'] = v['value']";
  else bad(file, "unknown operation '" + st.op + "'");
  return st;
}

void parse_req(std::string_view file, const std::string& req, KeyRule& k) {
  if (req == "EXACTLY_ONE") {
    k.req = Req::ExactlyOne;
  } else if (req == "AT_LEAST_ONE") {
    k.req = Req::AtLeastOne;
  } else if (req == "OPTIONAL") {
    k.req = Req::Optional;
  } else if (req.starts_with("AT_LEAST_ONE_OR(") && req.ends_with(")")) {
    k.req = Req::AtLeastOneOr;
    std::string inner = req.substr(16, req.size() - 17);
    size_t start = 0;
    while (start <= inner.size()) {
      size_t comma = inner.find(',', start);
      if (comma == std::string::npos) comma = inner.size();
      std::string name = inner.substr(start, comma - start);
      name.erase(0, name.find_first_not_of(' '));
      name.erase(name.find_last_not_of(' ') + 1);
      k.alternatives.push_back(name);
      start = comma + 1;
    }
  } else if (req.starts_with("AT_LEAST(") && req.ends_with(")")) {
    k.req = Req::AtLeastN;
    k.at_least = std::atoi(req.c_str() + 9);
  } else {
    bad(file, "unknown REQ '" + req + "' for " + k.name);
  }
}

struct Registry {
  std::map<std::string, Scope, std::less<>> scopes;  // key: "training_5.0.0/common"
  std::vector<std::string> rulesets;
};

const Registry& registry() {
  static const Registry reg = [] {
    Registry r;
    for (const auto& f : embedded_rule_files()) {
      std::string name(f.path);  // "training_5.0.0/common.yaml"
      r.scopes.emplace(name.substr(0, name.size() - 5), parse_scope(name, f.text));
      const std::string rs = name.substr(9, name.find('/') - 9);
      if (std::find(r.rulesets.begin(), r.rulesets.end(), rs) == r.rulesets.end()) r.rulesets.push_back(rs);
    }
    std::sort(r.rulesets.begin(), r.rulesets.end());
    return r;
  }();
  return reg;
}

}  // namespace

const KeyRule* Scope::find(std::string_view key) const {
  for (const auto& k : keys)
    if (k.name == key) return &k;
  return nullptr;
}

Scope parse_scope(std::string_view file, std::string_view yaml_text) {
  Scope sc;
  sc.file = std::string(file);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    bad(file, e.what());
  }
  if (root["begin"])
    for (const auto& kv : root["begin"]) sc.begin[kv.first.as<std::string>()] = scalar_to_json(kv.second.as<std::string>());
  for (const auto& item : root["keys"]) {
    KeyRule k;
    if (!item["name"]) bad(file, "a key rule without a name");
    k.name = item["name"].as<std::string>();
    if (item["req"]) parse_req(file, item["req"].as<std::string>(), k);
    for (const auto& c : item["check"]) k.checks.push_back(make_step(file, c));
    for (const auto& p : item["post"]) k.posts.push_back(make_step(file, p));
    if (item["atleast_one_check"]) k.atleast_one_check = make_step(file, item["atleast_one_check"]);
    // Official semantics: a later record with the same NAME replaces the earlier one in place.
    if (auto* prev = const_cast<KeyRule*>(sc.find(k.name))) *prev = std::move(k);
    else sc.keys.push_back(std::move(k));
  }
  return sc;
}

const Scope* find_scope(std::string_view ruleset, std::string_view scope) {
  const auto& reg = registry();
  auto it = reg.scopes.find("training_" + std::string(ruleset) + "/" + std::string(scope));
  return it == reg.scopes.end() ? nullptr : &it->second;
}

bool has_ruleset(std::string_view ruleset) {
  const auto& rs = registry().rulesets;
  return std::find(rs.begin(), rs.end(), ruleset) != rs.end();
}

std::vector<std::string> rulesets() { return registry().rulesets; }

}  // namespace bert::results::rules
