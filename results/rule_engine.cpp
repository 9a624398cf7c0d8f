// The compliance engine: runs the scopes of a ruleset over parsed log records with the official
// checker's semantics (mlp_compliance.py): a config queue, a fresh state per scope, keyed messages
// that later scopes can replace, REQ counting, first-occurrence-only for submission_* keys.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "results/check.h"
#include "results/log_parser.h"
#include "results/pyvalue.h"
#include "results/result_files.h"
#include "results/rules.h"

namespace bert::results {
namespace {

using py::Outcome;
using rules::KeyRule;
using rules::Req;
using rules::Scope;
using rules::Step;

// A scope file naming another that does not exist, or a scope queue that never ends: where the
// official checker raises (FileNotFoundError) or loops forever.
constexpr int kMaxScopes = 16;

struct Messages {
  std::vector<std::pair<std::string, std::string>> warnings, keyed;
  std::vector<std::string> unkeyed;
  bool werror = false, quiet = false;

  static void put(std::vector<std::pair<std::string, std::string>>& m, const std::string& key, std::string msg) {
    for (auto& [k, v] : m)
      if (k == key) {
        v = std::move(msg);
        return;
      }
    m.emplace_back(key, std::move(msg));
  }
  void message(std::string msg, const std::string& key = "") {
    if (key.empty()) unkeyed.push_back(std::move(msg));
    else put(keyed, key, std::move(msg));
  }
  void warning(std::string msg, const std::string& key) {
    if (werror) message(std::move(msg), key);
    else if (!quiet) put(warnings, key, std::move(msg));
  }
  void drop_keyed(const Scope& sc) {
    std::erase_if(keyed, [&](const auto& kv) { return sc.find(kv.first) != nullptr; });
  }
};

// A number literal of the rule data as Python reads it: "30" is an int, "0.720" a float.
json bound(const std::string& text) {
  char* end = nullptr;
  const long long i = std::strtoll(text.c_str(), &end, 10);
  if (!text.empty() && *end == '\0') return static_cast<int64_t>(i);
  return std::strtod(text.c_str(), nullptr);
}

struct ScopeRun {
  const Scope& scope;
  json s;  // the rules' global state `s`
  const LogRecord* ll = nullptr;

  const json& value() const { return ll->value["value"]; }
  const json& metadata() const { return ll->value["metadata"]; }

  // s[name], or Raised (KeyError) when absent.
  std::optional<json> state(const std::string& name) const {
    auto it = s.find(name);
    if (it == s.end()) return std::nullopt;
    return *it;
  }

  Outcome md_has(const std::string& field) const { return py::contains(metadata(), field); }

  Outcome check(const Step& st) const {
    const auto& a = st.args;
    if (st.op == "value_in") {
      for (const auto& item : a)
        if (py::equal(value(), json(item))) return Outcome::True;
      return Outcome::False;
    }
    if (st.op == "value_not") return py::of(!py::equal(value(), json(a[0])));
    if (st.op == "value_above") return py::compare(value(), ">", bound(a[0]));
    if (st.op == "value_below") return py::compare(value(), "<", bound(a[0]));
    if (st.op == "value_in_range") {
      Outcome lo = py::compare(value(), ">=", bound(a[0]));
      if (lo != Outcome::True) return lo;
      return py::compare(value(), "<", bound(a[1]));
    }
    if (st.op == "has") return py::of(ll->value.contains(a[0]));
    if (st.op == "state_true" || st.op == "state_false" || st.op == "state_is_true") {
      auto v = state(a[0]);
      if (!v) return Outcome::Raised;
      if (st.op == "state_true") return py::of(py::truthy(*v));
      if (st.op == "state_false") return py::of(!py::truthy(*v));
      return py::of(py::equal(*v, json(true)));
    }
    if (st.op == "metadata_has") return md_has(a[0]);
    if (st.op == "metadata_has_any") {  // `|` evaluates every operand
      bool any = false;
      for (const auto& f : a) {
        Outcome o = md_has(f);
        if (o == Outcome::Raised) return o;
        any = any || o == Outcome::True;
      }
      return py::of(any);
    }
    if (st.op == "metadata_requires" || st.op == "metadata_above" || st.op == "metadata_at_least") {
      const std::string& cond_field = a[0];
      Outcome cond = md_has(cond_field);
      if (cond != Outcome::True) return cond == Outcome::Raised ? cond : Outcome::True;
      if (st.op == "metadata_requires") return md_has(a[1]);
      if (!metadata().is_object()) return Outcome::Raised;  // str / list subscripted by a str
      return py::compare(metadata()[cond_field], st.op == "metadata_above" ? ">" : ">=", bound(a[1]));
    }
    if (st.op == "init_within_limit") {
      auto first = state(a[0]), mins = state("compile_time_mins");
      if (!first || !mins || !py::is_number(*first) || !py::is_number(*mins)) return Outcome::Raised;
      const double limit = mins->get<double>() * 60 * 1e3;
      return py::of(ll->timestamp - first->get<double>() < limit);
    }
    return Outcome::Raised;
  }

  // Runs a POST block; false when it raised (the remaining statements are skipped, as in exec).
  bool post(const std::vector<Step>& steps, std::vector<std::string>& queue) {
    for (const auto& st : steps) {
      const auto& a = st.args;
      if (st.op == "set_true") {
        s[a[0]] = true;
      } else if (st.op == "store_value") {
        s[a[0]] = value();
      } else if (st.op == "min_timestamp") {
        auto cur = state(a[0]);
        if (!cur || !py::is_number(*cur)) return false;
        if (ll->timestamp < cur->get<double>()) s[a[0]] = ll->timestamp;  // Python min(cur, ts)
      } else if (st.op == "enqueue") {
        std::string name = a[0];
        const auto pos = name.find("{value}");
        if (pos != std::string::npos) name.replace(pos, 7, py::str(value()));
        queue.push_back(name);
      } else if (st.op == "init_limit_minutes") {
        s["compile_time_mins"] = bound(py::equal(value(), json("open")) ? a[0] : a[1]);
      } else {
        return false;
      }
    }
    return true;
  }
};

std::string check_failed_text(const LogRecord& ll, const Step& st, const json& s, const std::string& key) {
  return "CHECK for '" + key + "' failed in line " + std::to_string(ll.lineno) + ":\n" + latin1_to_utf8(ll.line) +
         "\nfailed test: " + st.python + "\ncurrent context[s]=" + pyjson::dumps_pretty(s) +
         "\ncurrent line[v]=" + pyjson::dumps_pretty(ll.value);
}

std::string check_raised_text(const LogRecord& ll, const Step& st, const json& s) {
  return "Failed executing CHECK code:\n" + st.python + "\ntriggered by line:\n" + latin1_to_utf8(ll.line) +
         "\ncurrent context[s]=" + pyjson::dumps_pretty(s);
}

// Runs one scope over all records. Returns a non-empty reason where the official checker crashes.
std::string run_scope(const Scope& sc, const std::vector<LogRecord>& records, Messages& msgs,
                      std::vector<std::string>& queue) {
  ScopeRun run{sc, sc.begin, nullptr};
  msgs.drop_keyed(sc);

  std::map<std::string, std::vector<const json*>> reported;
  for (const auto& k : sc.keys) reported[k.name];
  std::set<std::string> has_been_exec;
  std::vector<std::pair<const KeyRule*, int>> atleast;  // in first-seen order

  for (const auto& rec : records) {
    const std::string* key = rec.key_str();
    if (!key) continue;
    const KeyRule* rule = sc.find(*key);
    if (!rule) continue;
    run.ll = &rec;
    reported[*key].push_back(&rec.value["value"]);
    if (!has_been_exec.contains(*key)) {
      for (const auto& st : rule->checks) {
        Outcome o = run.check(st);
        if (o == Outcome::False) msgs.message(check_failed_text(rec, st, run.s, *key), *key);
        else if (o == Outcome::Raised) msgs.message(check_raised_text(rec, st, run.s), *key);
      }
      if (!rule->posts.empty() && !run.post(rule->posts, queue))
        msgs.message("Failed executing code POST code triggered by line :\n" + latin1_to_utf8(rec.line), *key);
    }
    if (rule->atleast_one_check) {
      auto it = std::find_if(atleast.begin(), atleast.end(), [&](const auto& p) { return p.first == rule; });
      if (it == atleast.end()) {
        atleast.emplace_back(rule, 0);
        it = atleast.end() - 1;
      }
      Outcome o = run.check(*rule->atleast_one_check);
      if (o == Outcome::Raised)
        return "line " + std::to_string(rec.lineno) + ": the at-least-one test `" + rule->atleast_one_check->python +
               "` cannot be evaluated on value " + py::repr(rec.value["value"]) +
               " (the official checker stops with a TypeError here)";
      if (o == Outcome::True) ++it->second;
    }
    if (key->find("submission_") != std::string::npos) has_been_exec.insert(*key);
  }
  for (const auto& [rule, n] : atleast)
    if (n == 0) msgs.message("Failed checks for " + rule->name + " : " + rule->atleast_one_check->python);

  std::vector<std::set<std::string>> groups;
  for (const auto& k : sc.keys) {
    const auto& vals = reported[k.name];
    const std::string n = std::to_string(vals.size());
    switch (k.req) {
      case Req::ExactlyOne:
        if (vals.size() != 1) {
          const bool same = !vals.empty() && std::all_of(vals.begin() + 1, vals.end(),
                                                         [&](const json* v) { return py::equal(*v, *vals[0]); });
          std::string msg = "Required EXACTLY_ONE occurrence of '" + k.name + "' but found " + n;
          if (same) {
            msgs.warning(msg, k.name);
          } else {
            if (!vals.empty()) {
              std::vector<std::string> distinct;
              for (const json* v : vals)
                if (auto s = py::str(*v); std::find(distinct.begin(), distinct.end(), s) == distinct.end())
                  distinct.push_back(s);
              msg += " with different values: [";
              for (size_t i = 0; i < distinct.size(); ++i) msg += (i ? ", " : "") + distinct[i];
              msg += "]";
            }
            msgs.message(msg, k.name);
          }
        }
        break;
      case Req::AtLeastOne:
        if (vals.empty()) msgs.message("Required AT_LEAST_ONE occurrence of '" + k.name + "' but found 0", k.name);
        break;
      case Req::AtLeastN:
        if (static_cast<int>(vals.size()) < k.at_least)
          msgs.message("Required AT_LEAST(" + std::to_string(k.at_least) + ") occurrence of '" + k.name +
                           "' but found " + n,
                       k.name);
        break;
      case Req::AtLeastOneOr: {
        std::set<std::string> g{k.name};
        g.insert(k.alternatives.begin(), k.alternatives.end());
        if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
        break;
      }
      case Req::Optional:
      case Req::None: break;
    }
  }
  for (const auto& g : groups) {
    bool any = false;
    for (const auto& name : g) {
      auto it = reported.find(name);
      if (it == reported.end())
        return "AT_LEAST_ONE_OR names '" + name + "', which has no rule in " + sc.file + " (KeyError)";
      any = any || !it->second.empty();
    }
    if (!any) {
      std::string msg = "Required AT_LEAST_ONE occurrence of ";
      bool first = true;
      for (const auto& name : g) {
        msg += (first ? "'" : " or '") + name + "'";
        first = false;
      }
      msgs.message(msg);
    }
  }
  return {};
}

}  // namespace

std::vector<std::string> supported_rulesets() { return rules::rulesets(); }

LogVerdict check_log_text(std::string_view bytes, const CheckOptions& opts, std::string path) {
  if (!rules::has_ruleset(opts.ruleset)) {
    std::string known;
    for (const auto& r : rules::rulesets()) known += (known.empty() ? "" : ", ") + r;
    throw UserError("unknown ruleset '" + opts.ruleset + "' for BERT (known: " + known + ")");
  }
  LogVerdict v;
  v.path = std::move(path);
  ParsedLog parsed = parse_log(bytes);
  v.mllog_lines = parsed.mllog_lines;
  if (!parsed.fatal.empty()) {
    v.checker_error = parsed.fatal;
    return v;
  }
  Messages msgs;
  msgs.werror = opts.werror;
  msgs.quiet = opts.quiet;
  for (const auto& [line, err] : parsed.errors) v.parse_errors.push_back(latin1_to_utf8(line) + "\n   ^^  " + err);
  if (!parsed.errors.empty()) msgs.message("Log lines had parsing errors.");
  if (parsed.records.empty()) msgs.message("No log lines detected");

  std::vector<std::string> queue{"common"};
  for (size_t i = 0; i < queue.size() && v.checker_error.empty(); ++i) {
    const std::string file = "training_" + opts.ruleset + "/" + queue[i] + ".yaml";
    v.configs.push_back(file);
    if (static_cast<int>(i) >= kMaxScopes) {
      v.checker_error = "rule files enqueue each other without end (the official checker never finishes)";
      break;
    }
    const Scope* sc = rules::find_scope(opts.ruleset, queue[i]);
    if (!sc) {
      v.checker_error = "Could not find config file: " + file +
                        " (the official checker stops here with FileNotFoundError; only BERT rules exist here)";
      break;
    }
    v.checker_error = run_scope(*sc, parsed.records, msgs, queue);
  }
  for (auto& [k, m] : msgs.warnings) v.warnings.push_back({k, m});
  for (auto& [k, m] : msgs.keyed) v.failures.push_back({k, m});
  for (auto& m : msgs.unkeyed) v.failures.push_back({"", m});
  v.passed = v.checker_error.empty() && v.failures.empty();
  return v;
}

LogVerdict check_log_file(const std::filesystem::path& file, const CheckOptions& opts) {
  return check_log_text(read_file_bytes(file), opts, file.string());
}

}  // namespace bert::results
