#include "trainer/run_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <type_traits>
#include <utility>
#include <yaml-cpp/yaml.h>

#include "trainer/run_config_keys.h"

namespace bert::trainer {
namespace {

std::string names(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, ", ")); }

// A word that is not one of an enum key's (the message names the words).
struct BadWord : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Sets a RunConfig field from a scalar's text (a default) or a YAML node (a value read); false when the
// text is not one of a Precision's names ("" keeps the field: run.precision's default is the backend's).
struct FieldSetter {
  RunConfig& c;
  const YAML::Node& n;
  template <class T>
  bool operator()(T RunConfig::*m) const {
    c.*m = n.as<T>();
    return true;
  }
  bool operator()(Precision RunConfig::*m) const {
    if (n.Scalar().empty()) return true;
    const auto p = parse_precision(n.Scalar());
    if (p) c.*m = *p;
    return p.has_value();
  }
  bool operator()(Backend RunConfig::*m) const { return word(c.*m, kBackendNames); }
  bool operator()(data::Format RunConfig::*m) const { return word(c.*m, data::kFormatNames); }
  bool operator()(model::ModelSize RunConfig::*m) const { return word(c.*m, model::kModelSizeNames); }
  template <class E, std::size_t N>
  bool word(E& field, const EnumNames<E, N>& table) const {
    const auto v = parse_enum(n.Scalar(), table);
    if (!v) throw BadWord("'" + n.Scalar() + "' is not one of " + names(enum_choices(table)));
    field = *v;
    return true;
  }
};

const char* expected(const Member& m) {
  return std::visit(
      [](auto RunConfig::*field) -> const char* {
        using T = std::remove_reference_t<decltype(std::declval<RunConfig&>().*field)>;
        if constexpr (std::is_same_v<T, Precision>) {
          static const std::string one_of = "one of " + names(precision_names());
          return one_of.c_str();
        } else if constexpr (std::is_same_v<T, std::string> || std::is_enum_v<T>) {
          return "a string";
        } else if constexpr (std::is_same_v<T, double>) {
          return "a number";
        } else if constexpr (std::is_same_v<T, bool>) {
          return "true or false";
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          return "a non-negative integer";
        } else {
          return "an integer";
        }
      },
      m);
}

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& msg) const {
    const YAML::Mark m = n.Mark();
    throw UserError(m.line >= 0 ? Loc{path_, m.line + 1, m.column + 1} : Loc{path_}, key, msg);
  }

  void set(const RunConfigKey& k, const YAML::Node& n, RunConfig& c) const {
    if (n.IsNull()) return;  // null keeps the default
    if (!n.IsScalar()) fail(n, k.name, std::string("expected ") + expected(k.member));
    bool ok = false;
    try {
      ok = std::visit(FieldSetter{c, n}, k.member);
    } catch (const YAML::Exception&) {
    } catch (const BadWord& e) {
      fail(n, k.name, e.what());
    }
    if (!ok) fail(n, k.name, std::string("expected ") + expected(k.member) + ", got '" + n.Scalar() + "'");
  }

 private:
  std::string path_;
};

void validate(const Reader& r, const YAML::Node& root, const RunConfig& c) {
  auto node_of = [&](const std::string& dotted) {
    const auto dot = dotted.find('.');
    const YAML::Node g = root[dotted.substr(0, dot)];
    if (g && g.IsMap() && g[dotted.substr(dot + 1)]) return g[dotted.substr(dot + 1)];
    return g ? g : root;
  };
  auto require = [&](bool ok, const std::string& key, const std::string& msg) {
    if (!ok) r.fail(node_of(key), key, msg);
  };
  for (const RunConfigKey& k : run_config_keys()) {
    const std::string problem = k.problem(c);
    require(problem.empty(), k.name, problem);
  }
  require(c.model_size != model::ModelSize::Custom || !c.bert_config.empty(), "model.bert_config", "size custom needs a bert_config.json");
  require(c.eval_interval_samples == -1 || c.eval_interval_samples > 0, "stopping.eval_interval_samples",
          "must be -1 (formula) or positive");
}

}  // namespace

RunConfig::RunConfig() {
  for (const RunConfigKey& k : run_config_keys()) std::visit(FieldSetter{*this, YAML::Node(k.def)}, k.member);
  precision = resolve_precision(std::nullopt, backend);
}

RunConfig load_run_config(const std::string& path) {
  Reader r(path);
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw UserError(path + ": cannot open run config");
  } catch (const YAML::ParserException& e) {
    throw UserError(Loc{path, e.mark.line + 1, e.mark.column + 1}, "", "not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) throw UserError(path + ": run config must be a mapping of groups (model, data, ...)");
  const std::string groups = names(run_config_groups());
  RunConfig c;
  for (const auto& group : root) {
    const std::string g = group.first.as<std::string>();
    bool known = false;
    for (const std::string& x : run_config_groups()) known = known || x == g;
    if (!known) r.fail(group.first, g, "unknown group (expected " + groups + ")");
    if (group.second.IsNull()) continue;
    if (!group.second.IsMap()) r.fail(group.second, g, "must be a mapping");
    for (const auto& kv : group.second) {
      const std::string name = g + "." + kv.first.as<std::string>();
      const RunConfigKey* k = find_run_config_key(name);
      if (!k) r.fail(kv.first, name, "unknown key");
      r.set(*k, kv.second, c);
    }
  }
  const YAML::Node run = root["run"];
  const YAML::Node given = run && run.IsMap() ? run["precision"] : YAML::Node();
  if (!given || given.IsNull() || given.Scalar().empty()) c.precision = resolve_precision(std::nullopt, c.backend);
  validate(r, root, c);
  return c;
}

}  // namespace bert::trainer
