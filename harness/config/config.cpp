#include "harness/config/config.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <filesystem>

#include "harness/config/did_you_mean.h"
#include "harness/config/schema.h"

namespace bert::harness {
namespace {

std::string join(const std::string& prefix, const std::string& key) { return prefix.empty() ? key : prefix + "." + key; }

// Keys that were split or renamed: what to write instead.
const std::map<std::string, std::string>& retired_keys() {
  static const std::map<std::string, std::string> keys{
      {"experiment.walltime",
       "experiment.walltime was split in two: write experiment.run_walltime for the per-experiment limit "
       "(NVIDIA's WALLTIME_RUNANDTIME) or experiment.job_walltime for the whole job's sbatch --time (NVIDIA's WALLTIME)"},
  };
  return keys;
}

std::string unknown_key_message(const std::string& prefix, const std::string& key) {
  if (auto it = retired_keys().find(join(prefix, key)); it != retired_keys().end()) return it->second;
  std::string msg = "unknown key '" + key + "'";
  std::vector<std::string> here = schema_children(prefix);
  if (prefix.empty()) here.insert(here.begin(), "extends");
  std::string near = closest(key, here);
  if (!near.empty()) return msg + "; did you mean '" + join(prefix, near) + "'?";
  // The right name in the wrong place ("mpi:" at top level -> launcher.srun.mpi).
  std::vector<std::string> full;
  for (const SchemaEntry& e : schema()) full.push_back(e.path);
  for (const std::string& p : full) {
    std::string last = p.substr(p.rfind('.') + 1);
    if (edit_distance(last, key) <= 1) return msg + "; did you mean '" + p + "'?";
  }
  std::string all;
  for (const std::string& c : here) {
    if (!all.empty()) all += ", ";
    all += c;
  }
  return msg + " (known here: " + all + ")";
}

bool parse_int(const std::string& s, long long& out) {
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (b != e && *b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && p == e && b != e;
}

bool parse_real(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  return errno == 0 && end == s.c_str() + s.size();
}

bool parse_bool(const std::string& s, bool& out) {
  if (s == "true" || s == "True" || s == "TRUE" || s == "yes" || s == "on") return out = true, true;
  if (s == "false" || s == "False" || s == "FALSE" || s == "no" || s == "off") return out = false, true;
  return false;
}

void check_range(const SchemaEntry& e, double v, const Tree& t) {
  if (std::string problem = e.range.problem(v, t.scalar); !problem.empty()) throw UserError(t.loc, e.path, problem);
}

void check_scalar(const SchemaEntry& e, const Tree& t) {
  if (t.kind != Tree::Kind::Scalar) throw UserError(t.loc, e.path, "must be " + type_name(e));
  long long i = 0;
  double d = 0;
  bool b = false;
  switch (e.type) {
    case ValueType::Int:
      if (!parse_int(t.scalar, i)) throw UserError(t.loc, e.path, "must be an integer, got '" + t.scalar + "'");
      check_range(e, static_cast<double>(i), t);
      break;
    case ValueType::IntOrAuto:
      if (t.scalar == "auto") break;
      if (!parse_int(t.scalar, i)) throw UserError(t.loc, e.path, "must be an integer or auto, got '" + t.scalar + "'");
      check_range(e, static_cast<double>(i), t);
      break;
    case ValueType::Float:
      if (!parse_real(t.scalar, d)) throw UserError(t.loc, e.path, "must be a number, got '" + t.scalar + "'");
      check_range(e, d, t);
      break;
    case ValueType::Bool:
      if (!parse_bool(t.scalar, b)) throw UserError(t.loc, e.path, "must be true or false, got '" + t.scalar + "'");
      break;
    case ValueType::Enum: {
      for (const std::string& c : e.choices)
        if (c == t.scalar) return;
      std::string near = closest(t.scalar, e.choices);
      throw UserError(t.loc, e.path, "'" + t.scalar + "' is not " + type_name(e) + (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }
    default:
      break;
  }
}

void check_value(const SchemaEntry& e, const Tree& t) {
  switch (e.type) {
    case ValueType::StringList:
    case ValueType::IntList:
    case ValueType::Mounts: {
      if (t.kind == Tree::Kind::Null) return;
      if (t.kind != Tree::Kind::Seq) throw UserError(t.loc, e.path, "must be " + type_name(e));
      SchemaEntry item = e;
      item.type = e.type == ValueType::IntList ? ValueType::Int : ValueType::String;
      for (const Tree& x : t.seq) check_scalar(item, x);
      return;
    }
    case ValueType::StringMap:
      if (t.kind == Tree::Kind::Null) return;
      if (t.kind != Tree::Kind::Map) throw UserError(t.loc, e.path, "must be " + type_name(e));
      for (const auto& [k, v] : t.map)
        if (v.kind != Tree::Kind::Scalar) throw UserError(v.loc, e.path + "." + k, "must be a string");
      return;
    case ValueType::String:
      if (t.kind == Tree::Kind::Null) return;
      [[fallthrough]];
    default:
      check_scalar(e, t);
  }
}

void collect(const Tree& t, const std::string& prefix, std::map<std::string, Tree>& out) {
  for (size_t i = 0; i < t.map.size(); ++i) {
    const auto& [key, v] = t.map[i];
    std::string path = join(prefix, key);
    const Loc& kloc = t.key_locs[i];
    if (const SchemaEntry* e = schema_find(path)) {
      check_value(*e, v);
      out[path] = v;
    } else if (schema_is_group(path)) {
      if (v.kind == Tree::Kind::Null) continue;
      if (v.kind != Tree::Kind::Map) throw UserError(v.loc, path, "must be a mapping (keys: " + [&] {
        std::string s;
        for (const std::string& c : schema_children(path)) s += (s.empty() ? "" : ", ") + c;
        return s;
      }() + ")");
      collect(v, path, out);
    } else {
      throw UserError(kloc, prefix, unknown_key_message(prefix, key));
    }
  }
}

// Puts `value` at a dotted path, creating the intermediate mappings.
void put(Tree& root, const std::string& path, Tree value, const Loc& loc) {
  Tree* cur = &root;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos) {
      cur->set(key, std::move(value), loc);
      return;
    }
    Tree* next = cur->find(key);
    if (!next || next->kind != Tree::Kind::Map) {
      Tree m;
      m.kind = Tree::Kind::Map;
      m.loc = loc;
      cur->set(key, std::move(m), loc);
      next = cur->find(key);
    }
    cur = next;
    start = dot + 1;
  }
}

void apply_set(Tree& root, const std::string& set) {
  Loc loc{"--set " + set, 0, 0};
  size_t eq = set.find('=');
  if (eq == std::string::npos || eq == 0) throw UserError(loc, "", "expected key.path=value");
  std::string path = set.substr(0, eq);
  std::string text = set.substr(eq + 1);
  const SchemaEntry* e = schema_find(path);
  std::string parent = path.substr(0, path.rfind('.') == std::string::npos ? 0 : path.rfind('.'));
  bool map_item = !e && !parent.empty() && schema_find(parent) && schema_find(parent)->type == ValueType::StringMap;
  if (!e && !map_item) {
    std::string key = path.substr(parent.empty() ? 0 : parent.size() + 1);
    throw UserError(loc, parent, unknown_key_message(parent, key));
  }
  Tree value = parse_yaml(text.empty() ? "''" : text, loc.file);
  std::vector<Tree*> stack{&value};
  while (!stack.empty()) {  // every value from --set reports the --set as its place
    Tree* t = stack.back();
    stack.pop_back();
    t->loc = loc;
    for (Tree& c : t->seq) stack.push_back(&c);
    for (auto& kv : t->map) stack.push_back(&kv.second);
    for (Loc& l : t->key_locs) l = loc;
  }
  put(root, path, std::move(value), loc);
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& env_override_keys() {
  static const std::vector<std::pair<std::string, std::string>> keys{
      {"NEXP", "experiment.nexp"},
      {"DATADIR", "benchmark.data.train_dir"},
      {"EVALDIR", "benchmark.data.eval_dir"},
      {"CHECKPOINTDIR", "benchmark.data.checkpoint"},
      {"CONT", "container.image"},
      {"LOGDIR", "experiment.output_dir"},
      {"WALLTIME", "experiment.job_walltime"},
      {"WALLTIME_RUNANDTIME", "experiment.run_walltime"},
      {"SLURM_MPI_TYPE", "launcher.srun.mpi"},
  };
  return keys;
}

Config Config::build(Tree root, const std::string& file, const Overrides& ov) {
  for (const auto& [var, path] : env_override_keys()) {
    auto it = ov.env.find(var);
    if (it == ov.env.end() || it->second.empty()) continue;
    Tree v;
    v.kind = Tree::Kind::Scalar;
    v.scalar = it->second;
    v.loc = Loc{"environment variable " + var, 0, 0};
    put(root, path, std::move(v), v.loc);
  }
  for (const std::string& s : ov.sets) apply_set(root, s);
  Config c;
  c.file_ = file;
  collect(root, "", c.values_);
  return c;
}

Config Config::load(const std::string& path, const Overrides& ov) {
  return build(load_yaml_with_extends(path), path, ov);
}

Config Config::from_text(const std::string& text, const std::string& file, const Overrides& ov) {
  Tree t = parse_yaml(text, file);
  if (t.kind == Tree::Kind::Null) t.kind = Tree::Kind::Map;
  if (t.kind != Tree::Kind::Map) throw UserError(t.loc, "", "a system file must be a mapping of keys");
  if (t.find("extends")) throw UserError(t.loc, "extends", "not supported for text input");
  return build(std::move(t), file, ov);
}

const Tree* Config::leaf(const std::string& path) const {
  auto it = values_.find(path);
  if (it != values_.end() && it->second.kind != Tree::Kind::Null) return &it->second;
  return nullptr;
}

namespace {
const SchemaEntry& entry(const std::string& path) {
  const SchemaEntry* e = schema_find(path);
  if (!e) throw std::logic_error("no schema entry for " + path);
  return *e;
}
}  // namespace

std::string Config::str(const std::string& path) const {
  const SchemaEntry& e = entry(path);
  const Tree* t = leaf(path);
  return t ? t->scalar : e.def;
}

long long Config::integer(const std::string& path) const {
  std::string s = str(path);
  long long v = -1;
  if (s == "auto") return -1;
  parse_int(s, v);
  return v;
}

double Config::real(const std::string& path) const {
  double v = 0;
  parse_real(str(path), v);
  return v;
}

bool Config::flag(const std::string& path) const {
  bool b = false;
  parse_bool(str(path), b);
  return b;
}

bool Config::is_auto(const std::string& path) const { return str(path) == "auto"; }

std::vector<std::string> Config::strings(const std::string& path) const {
  entry(path);
  std::vector<std::string> out;
  if (const Tree* t = leaf(path))
    for (const Tree& x : t->seq) out.push_back(x.scalar);
  return out;
}

std::vector<long long> Config::integers(const std::string& path) const {
  std::vector<long long> out;
  for (const std::string& s : strings(path)) {
    long long v = 0;
    parse_int(s, v);
    out.push_back(v);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> Config::string_map(const std::string& path) const {
  entry(path);
  std::vector<std::pair<std::string, std::string>> out;
  if (const Tree* t = leaf(path))
    for (const auto& [k, v] : t->map) out.emplace_back(k, v.scalar);
  return out;
}

bool Config::given(const std::string& path) const { return leaf(path) != nullptr; }

Loc Config::loc(const std::string& path) const {
  if (const Tree* t = leaf(path)) return t->loc;
  auto it = values_.find(path);
  if (it != values_.end()) return it->second.loc;
  return Loc{file_, 0, 0};
}

Loc Config::item_loc(const std::string& path, size_t index) const {
  const Tree* t = leaf(path);
  if (t && index < t->seq.size()) return t->seq[index].loc;
  return loc(path);
}

Loc Config::item_loc(const std::string& path, const std::string& name) const {
  if (const Tree* t = leaf(path))
    for (const auto& [k, v] : t->map)
      if (k == name) return v.loc;
  return loc(path);
}

void Config::fail(const std::string& path, const std::string& msg) const {
  Loc where = loc(path);
  if (where.line == 0 && where.file == file_) where.line = where.col = 1;  // a default: point at the file
  throw UserError(where, path, msg);
}

std::string Config::path(const std::string& key) const {
  std::string v = str(key);
  if (v.empty() || std::filesystem::path(v).is_absolute()) return v;
  Loc where = loc(key);
  if (where.line == 0) return v;
  return (std::filesystem::path(where.file).parent_path() / v).lexically_normal().string();
}

std::string Config::base_dir() const {
  std::filesystem::path p(file_);
  return p.has_parent_path() ? p.parent_path().string() : ".";
}

}  // namespace bert::harness
