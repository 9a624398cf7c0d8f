"""Corpus of BERT logs for the checker comparison: valid logs from our writer (results_make_log),
mutations of a passing log (a key dropped, duplicated, reordered, a value changed), malformed
:::MLLOG lines of each kind (truncated JSON, a missing field, a wrong type), and rule-specific edits, for rulesets 3.1.0, 4.0.0, 4.1.0 and 5.0.0, closed and open."""
import json
import re
import subprocess

RULESETS = ["3.1.0", "4.0.0", "4.1.0", "5.0.0"]
DIVISIONS = ["closed", "open"]
TOKEN = ":::MLLOG "


def base_log(make_log, ruleset, division):
    out = subprocess.run([make_log, "--ruleset", ruleset, "--division", division],
                         check=True, capture_output=True).stdout
    return out.decode("latin-1").splitlines()


def payload(line):
    return json.loads(line[line.rindex(TOKEN) + len(TOKEN):])


def emit(obj):
    return TOKEN + json.dumps(obj)


def key_of(line):
    return payload(line)["key"] if TOKEN in line else None


def index(lines, key):
    return next(i for i, l in enumerate(lines) if key_of(l) == key)


def edit(lines, key, fn, every=False):
    """fn(obj) -> obj or None (delete) for the first (or every) line with this key."""
    out, done = [], False
    for l in lines:
        if key_of(l) == key and (every or not done):
            done = True
            obj = fn(payload(l))
            if obj is not None:
                out.append(obj if isinstance(obj, str) else emit(obj))
            continue
        out.append(l)
    return out


def delete(key, every=True):
    return lambda ls: edit(ls, key, lambda o: None, every)


def setv(key, value, every=False):
    def f(o):
        o["value"] = value
        return o
    return lambda ls: edit(ls, key, f, every)


def setmd(key, md_fn, every=False):
    def f(o):
        o["metadata"] = md_fn(o["metadata"])
        return o
    return lambda ls: edit(ls, key, f, every)


def rename_md(key, old, new, every=True):
    return setmd(key, lambda m: {(new if k == old else k): v for k, v in m.items()}, every)


def duplicate(key, value=None):
    def f(ls):
        i = index(ls, key)
        extra = payload(ls[i])
        if value is not None:
            extra["value"] = value
        return ls[:i + 1] + [emit(extra)] + ls[i + 1:]
    return f


def move_after(key, anchor):
    def f(ls):
        line = ls[index(ls, key)]
        rest = [l for l in ls if l is not line]
        j = index(rest, anchor)
        return rest[:j + 1] + [line] + rest[j + 1:]
    return f


def append(text):
    return lambda ls: ls + [text]


def raw_field(key, field, raw):
    """Replace the JSON text of one top-level field of the first `key` line with `raw`."""
    def f(ls):
        i = index(ls, key)
        obj = payload(ls[i])
        parts = []
        for k, v in obj.items():
            if k == field:
                if raw is not None:
                    parts.append(json.dumps(k) + ": " + raw)
            else:
                parts.append(json.dumps(k) + ": " + json.dumps(v))
        return ls[:i] + [TOKEN + "{" + ", ".join(parts) + "}"] + ls[i + 1:]
    return f


def init_stop_late(minutes):
    def f(o):
        o["time_ms"] = o["time_ms"] + int(minutes * 60000)
        return o
    return lambda ls: edit(ls, "init_stop", f)


MUTATIONS = {
    # section 12
    "base": lambda ls: ls,
    "dup_run_start": duplicate("run_start"),
    "del_run_start": delete("run_start"),
    "run_stop_aborted": setmd("run_stop", lambda m: {**m, "status": "aborted"}),
    "run_stop_no_status": rename_md("run_stop", "status", "state"),
    "eval_acc_samples_count": rename_md("eval_accuracy", "epoch_num", "samples_count"),
    "block_start_epoch_count_str": setmd("block_start", lambda m: {**m, "epoch_count": "1"}),
    "division_after_init_stop": move_after("submission_division", "init_stop"),
    "del_division": delete("submission_division"),
    "malformed_json": append(TOKEN + '{"namespace": "", "time_ms": 1, "key": "x", '),
    "time_ms_12x": append(TOKEN + '{"namespace": "", "time_ms": "12x", "event_type": "POINT_IN_TIME", '
                          '"key": "foo", "value": null, "metadata": {}}'),
    "junk_prefix": lambda ls: ["garbage :::MLLOG junk " + l for l in ls],
    "rank_prefix": lambda ls: ["0: " + l for l in ls],
    "cr_before_token": lambda ls: ["\r" + l for l in ls],
    "crlf": lambda ls: ["\r\n".join(ls)],
    "lone_cr": lambda ls: ["\r".join(ls)],
    "empty": lambda ls: [],
    "no_mllog_lines": lambda ls: ["hello", "world :::MLLOG"],
    # section 11: lines the official parser raises on (it crashes; we must FAIL cleanly)
    "missing_key": raw_field("seed", "key", None),
    "missing_value": raw_field("seed", "value", None),
    "missing_metadata": raw_field("seed", "metadata", None),
    "time_ms_null": raw_field("seed", "time_ms", "null"),
    "time_ms_list": raw_field("seed", "time_ms", "[1]"),
    "top_level_list": append(TOKEN + "[1, 2]"),
    "top_level_string": append(TOKEN + '"text"'),
    "eval_acc_null": setv("eval_accuracy", None),
    "eval_acc_string": setv("eval_accuracy", "0.73"),
    "benchmark_foo": setv("submission_benchmark", "foo"),
    "division_foo": setv("submission_division", "foo"),
    "too_deep": append(TOKEN + "[" * 3000),
    # soft parse errors and Python number quirks
    "time_ms_string_ok": raw_field("seed", "time_ms", '"1700000000000"'),
    "time_ms_underscore": raw_field("seed", "time_ms", '" 1_700_000_000_000 "'),
    "time_ms_bool": raw_field("seed", "time_ms", "true"),
    "time_ms_nan_init_stop": raw_field("init_stop", "time_ms", '"nan"'),
    "time_ms_huge_int": raw_field("seed", "time_ms", "1" * 400),
    "int_5000_digits": raw_field("seed", "value", "7" * 5000),
    "int_4300_digits": raw_field("seed", "value", "7" * 4300),
    "time_ms_bad_underscore": raw_field("seed", "time_ms", '"1__0"'),
    "nan_literal_value": setv("opt_base_learning_rate", float("nan")),
    "trailing_text": append(TOKEN + '{"time_ms": 1, "key": "a", "value": 1, "metadata": {}} x'),
    "single_quotes": append(TOKEN + "{'time_ms': 1}"),
    "empty_payload": append(TOKEN),
    "control_char": append(TOKEN + '{"time_ms": 1, "key": "a\tb", "value": 1, "metadata": {}}'),
    "latin1_value": lambda ls: ls + [TOKEN + '{"time_ms": 1, "key": "note", "value": "caf\xe9", "metadata": {}}'],
    "deep_value_ok": append(TOKEN + '{"time_ms": 1, "key": "note", "value": ' + "[" * 60 + "]" * 60 +
                            ', "metadata": {}}'),
    "key_not_string": append(TOKEN + '{"time_ms": 1, "key": 5, "value": 1, "metadata": {}}'),
    "key_list": append(TOKEN + '{"time_ms": 1, "key": ["seed"], "value": 1, "metadata": {}}'),
    # rules
    "acc_below_target": setv("eval_accuracy", 0.70, every=True),
    "acc_one": lambda ls: edit(ls, "eval_accuracy", lambda o: {**o, "value": 1.0}, every=True),
    "acc_inf_plus_valid": duplicate("eval_accuracy", float("inf")),
    "acc_bool": setv("eval_accuracy", True, every=True),
    "init_31_min": init_stop_late(29.5),
    "init_exactly_30": init_stop_late(28),
    "del_cache_clear": delete("cache_clear"),
    "del_init_start": delete("init_start"),
    "init_start_after_run_start": move_after("init_start", "run_start"),
    "run_stop_before_run_start": move_after("run_stop", "init_stop"),
    "del_train_samples": delete("train_samples"),
    "train_samples_empty": setv("train_samples", ""),
    "eval_samples_dup_diff": duplicate("eval_samples", 10080),
    "eval_samples_dup_same": duplicate("eval_samples"),
    "ga_zero": setv("gradient_accumulation_steps", 0),
    "ga_string": setv("gradient_accumulation_steps", "x"),
    "del_ga": delete("gradient_accumulation_steps"),
    "del_lamb_epsilon": delete("opt_lamb_epsilon"),
    "del_start_warmup": delete("start_warmup_step"),
    "gbs_dup_diff": duplicate("global_batch_size", 2048),
    "del_block_and_epoch_start": lambda ls: delete("epoch_start")(delete("block_start")(ls)),
    "del_all_blocks_epochs": lambda ls: delete("epoch_stop")(delete("epoch_start")(delete("block_stop")(delete("block_start")(ls)))),
    "del_evals": lambda ls: delete("eval_stop")(delete("eval_start")(ls)),
    "epoch_start_samples_count": rename_md("epoch_start", "epoch_num", "samples_count"),
    "block_start_samples_neg": setmd("block_start", lambda m: {"samples_count": -1}),
    "block_start_step_num": setmd("block_start", lambda m: {"step_num": 3}),
    "eval_start_step_num": rename_md("eval_start", "epoch_num", "step_num"),
    "eval_acc_md_string": setmd("eval_accuracy", lambda m: "has epoch_num inside", every=True),
    "run_stop_md_null": setmd("run_stop", lambda m: None),
    "block_start_md_list": setmd("block_start", lambda m: ["epoch_count", "first_epoch_num"]),
    "org_empty": setv("submission_org", ""),
    "status_weird": setv("submission_status", "weird"),
    "division_dup_same": duplicate("submission_division"),
    "division_dup_open": duplicate("submission_division", "open"),
    "benchmark_dup_same": duplicate("submission_benchmark"),
    "benchmark_lowercase_bad": setv("submission_benchmark", "BERT"),
    "platform_missing": delete("submission_platform"),
    "cache_clear_dup": duplicate("cache_clear"),
}


def corpus(make_log):
    """Yields (name, ruleset, bytes)."""
    for rs in RULESETS:
        for div in DIVISIONS:
            base = base_log(make_log, rs, div)
            for name, fn in MUTATIONS.items():
                try:
                    lines = fn(list(base))
                except StopIteration:
                    continue  # the key does not exist in this ruleset's log (e.g. submission_org)
                text = "\n".join(lines) + ("\n" if lines else "")
                yield f"{rs}_{div}_{name}", rs, text.encode("latin-1")
