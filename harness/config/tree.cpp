#include "harness/config/tree.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace bert::harness {
namespace fs = std::filesystem;

const Tree* Tree::find(const std::string& key) const {
  for (const auto& [k, v] : map)
    if (k == key) return &v;
  return nullptr;
}

Tree* Tree::find(const std::string& key) {
  for (auto& [k, v] : map)
    if (k == key) return &v;
  return nullptr;
}

void Tree::set(const std::string& key, Tree value, const Loc& key_loc) {
  if (Tree* t = find(key)) {
    *t = std::move(value);
    return;
  }
  map.emplace_back(key, std::move(value));
  key_locs.push_back(key_loc);
}

void Tree::erase(const std::string& key) {
  for (size_t i = 0; i < map.size(); ++i) {
    if (map[i].first == key) {
      map.erase(map.begin() + static_cast<long>(i));
      key_locs.erase(key_locs.begin() + static_cast<long>(i));
      return;
    }
  }
}

namespace {

Loc mark_loc(const std::string& file, const YAML::Mark& m) { return Loc{file, m.line + 1, m.column + 1}; }

Tree convert(const YAML::Node& n, const std::string& file) {
  Tree t;
  t.loc = mark_loc(file, n.Mark());
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      t.kind = Tree::Kind::Null;
      break;
    case YAML::NodeType::Scalar:
      t.kind = Tree::Kind::Scalar;
      t.scalar = n.Scalar();
      break;
    case YAML::NodeType::Sequence:
      t.kind = Tree::Kind::Seq;
      for (const auto& item : n) t.seq.push_back(convert(item, file));
      break;
    case YAML::NodeType::Map:
      t.kind = Tree::Kind::Map;
      for (const auto& kv : n) {
        Loc kl = mark_loc(file, kv.first.Mark());
        if (!kv.first.IsScalar()) throw UserError(kl, "", "mapping keys must be plain names");
        std::string key = kv.first.Scalar();
        if (t.find(key)) throw UserError(kl, key, "duplicate key");
        t.map.emplace_back(key, convert(kv.second, file));
        t.key_locs.push_back(kl);
      }
      break;
  }
  return t;
}

Tree load_chain(const fs::path& path, std::vector<fs::path>& chain, const Loc& from) {
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(path, ec);
  if (ec) canon = path;
  for (const fs::path& p : chain) {
    if (p == canon) {
      std::string msg = "extends cycle: ";
      for (const fs::path& q : chain) msg += q.filename().string() + " -> ";
      throw UserError(from, "extends", msg + canon.filename().string());
    }
  }
  const std::string key = chain.empty() ? "" : "extends";
  if (fs::is_directory(path, ec)) throw UserError(from, key, "'" + path.string() + "' is a directory, not a YAML file");
  std::ifstream in(path);
  if (!in) throw UserError(from, key, "cannot read '" + path.string() + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  Tree t = parse_yaml(ss.str(), path.string());
  if (t.kind == Tree::Kind::Null) {
    t.kind = Tree::Kind::Map;
    t.loc = Loc{path.string(), 1, 1};
  }
  if (t.kind != Tree::Kind::Map) throw UserError(t.loc, "", "a system file must be a mapping of keys");
  const Tree* ext = t.find("extends");
  if (!ext) return t;
  std::vector<const Tree*> bases;
  if (ext->kind == Tree::Kind::Scalar) bases.push_back(ext);
  else if (ext->kind == Tree::Kind::Seq)
    for (const Tree& b : ext->seq) bases.push_back(&b);
  for (const Tree* b : bases)
    if (b->kind != Tree::Kind::Scalar || b->scalar.empty())
      throw UserError(b->loc, "extends", "must be a file name or a list of file names");
  if (bases.empty()) throw UserError(ext->loc, "extends", "must be a file name or a list of file names");

  chain.push_back(canon);
  Tree merged;
  merged.kind = Tree::Kind::Map;
  merged.loc = t.loc;
  for (const Tree* b : bases) {
    fs::path bp = fs::path(b->scalar).is_absolute() ? fs::path(b->scalar) : path.parent_path() / b->scalar;
    merge_into(merged, load_chain(bp, chain, b->loc));
  }
  chain.pop_back();
  t.erase("extends");
  merge_into(merged, t);
  merged.loc = t.loc;
  return merged;
}

}  // namespace

Tree parse_yaml(const std::string& text, const std::string& file) {
  try {
    return convert(YAML::Load(text), file);
  } catch (const YAML::Exception& e) {
    throw UserError(mark_loc(file, e.mark), "", "malformed YAML: " + e.msg);
  }
}

void merge_into(Tree& base, const Tree& over) {
  if (base.kind != Tree::Kind::Map || over.kind != Tree::Kind::Map) {
    base = over;
    return;
  }
  for (size_t i = 0; i < over.map.size(); ++i) {
    const auto& [k, v] = over.map[i];
    if (Tree* b = base.find(k)) merge_into(*b, v);
    else base.set(k, v, over.key_locs[i]);
  }
}

Tree load_yaml_with_extends(const std::string& path) {
  std::vector<fs::path> chain;
  return load_chain(fs::path(path), chain, Loc{path, 0, 0});
}

}  // namespace bert::harness
