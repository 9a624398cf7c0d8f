"""Energy to train: ours (results_cli score --json) against the official result summarizer
(_compute_strong_score_standalone with power, what makes <benchmark>:Energy) on real submissions' power
sets (tests/fixtures/power: Lenovo's v5.0 SR780a V3 8 x B200 AC set, Supermicro's v4.0 H100 AC set) and on
variants of the real v5.0 set that take the official code's other paths (switch files, two nodes, no stop
line, readings outside the window). Every energy must agree to 1e-6 relative, per run and the mean. Where
the official summarizer crashes (the real v4.0 set: every run's stop has its start's time), ours must give
each run no energy and one line naming the file and the flaw. Also: the official package checker's
verdict on each set, and `check` of a results dir naming the power flaws by file:line.
Usage: compare_power.py RESULTS_CLI FIXTURES_DIR WORKDIR"""
import contextlib
import glob
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys

from mlperf_logging.package_checker import package_checker
from mlperf_logging.result_summarizer import result_summarizer

logging.disable(logging.CRITICAL)
REL = 1e-6
LENOVO = ("v5.0-lenovo-sr780a", "SR780aV3-8xB200_SXM_180GB", "5.0.0")
SMC = ("v4.0-smc-ac", "1xSMC-H100-SXM-80GB", "4.0.0")


def official(bench, system, ruleset):
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            _, power_track, _, energy, _ = result_summarizer._compute_strong_score_standalone(
                "bert", system, True, bench, "training", ruleset, return_full_scores=True)
        except Exception as e:  # noqa: BLE001 (the official summarizer crashes on some power logs)
            return {"crash": f"{type(e).__name__}: {e}"}
    return {"energy": energy, "runs": {os.path.basename(k): v for k, v in power_track.items()}}


def official_package(org, ruleset):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        logging.disable(logging.NOTSET)
        lines = []

        class Capture(logging.Handler):
            def emit(self, record):
                lines.append(record.getMessage())

        root = logging.getLogger()
        root.handlers = [Capture()]
        root.setLevel(logging.INFO)
        try:
            package_checker.check_training_package(org, "training", ruleset, False, False, False, False, False, "/dev/null")
        except Exception as e:  # noqa: BLE001
            return f"crash {type(e).__name__}"
        finally:
            logging.disable(logging.CRITICAL)
    return "pass" if any("FOUND NO ERRORS" in l for l in lines) else "fail"


def ours(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"results_cli {' '.join(args)}: exit {p.returncode} {p.stderr}")
    return p


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= REL * max(abs(a), abs(b))


def copy_set(fixtures, work, fixture, name):
    dst = os.path.join(work, name)
    shutil.copytree(os.path.join(fixtures, fixture), dst)
    return dst


def edit_node(path, fn):
    with open(path) as f:
        lines = f.readlines()
    with open(path, "w") as f:
        f.writelines(fn(lines))


def variants(fixtures, work):
    """(name, org, system, ruleset, official_crashes): the real sets and variants of the v5.0 one."""
    fixture, system, ruleset = LENOVO
    yield "lenovo-v5.0", copy_set(fixtures, work, fixture, "lenovo"), system, ruleset, False
    yield "smc-v4.0-stop-at-start", copy_set(fixtures, work, SMC[0], "smc"), SMC[1], SMC[2], True
    # a switch (estimate 450 W, AC 0.9) and a second node (the first one's readings scaled by 0.8)
    org = copy_set(fixtures, work, fixture, "lenovo-sw-2nodes")
    for d in glob.glob(f"{org}/results/{system}/bert/power/result_*"):
        with open(f"{d}/sw_0.txt", "w") as f:
            f.write(':::MLLOG {"namespace": "", "time_ms": 1745514104000, "event_type": "POINT_IN_TIME", '
                    '"key": "conversion_eff", "value": 0.9, "metadata": {"measurement_type": "AC"}}\n'
                    ':::MLLOG {"namespace": "", "time_ms": 1745514104000, "event_type": "POINT_IN_TIME", '
                    '"key": "interconnect_power_est", "value": 450.0, "metadata": {"switch_id": "sw_0"}}\n')
        edit_node(f"{d}/node_0.txt", lambda ls: ls)
        with open(f"{d}/node_0.txt") as f:
            second = [re.sub(r'("value": )([0-9.]+)(, "metadata": \{"host": )"node_0"',
                             lambda m: f'{m.group(1)}{float(m.group(2)) * 0.8}{m.group(3)}"node_1"', l) for l in f]
        with open(f"{d}/node_1.txt", "w") as f:
            f.writelines(second)
    yield "lenovo-switch-and-2-nodes", org, system, ruleset, False
    # no stop line: the summarizer takes the last reading's time; readings before start and after stop
    org = copy_set(fixtures, work, fixture, "lenovo-nostop-outside")
    for n in sorted(glob.glob(f"{org}/results/{system}/bert/power/result_*/node_0.txt"))[:5]:
        edit_node(n, lambda ls: [l for l in ls if "power_measurement_stop" not in l])
    for n in sorted(glob.glob(f"{org}/results/{system}/bert/power/result_*/node_0.txt"))[5:]:
        edit_node(n, lambda ls: [ls[2].replace('"time_ms": 17', '"time_ms": 16')] + ls + [ls[-2].replace('"time_ms": 17', '"time_ms": 18')])
    yield "lenovo-no-stop-and-outside-readings", org, system, ruleset, False
    # official crashes: no start line (ValueError), a reading that is a string (TypeError)
    org = copy_set(fixtures, work, fixture, "lenovo-nostart-string")
    nodes = sorted(glob.glob(f"{org}/results/{system}/bert/power/result_*/node_0.txt"))
    edit_node(nodes[0], lambda ls: [l for l in ls if "power_measurement_start" not in l])
    edit_node(nodes[1], lambda ls: ls[:5] + [re.sub(r'"value": ([0-9.]+)', r'"value": "\1 W"', ls[5])] + ls[6:])
    yield "lenovo-no-start-and-string-value", org, system, ruleset, True


def main():
    cli, fixtures, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    problems = []
    for name, org, system, ruleset, crashes in variants(fixtures, work):
        bench = f"{org}/results/{system}/bert"
        off = official(bench, system, ruleset)
        mine = json.loads(ours(cli, "score", "--json", "--scaling-json", "--ruleset", ruleset, bench).stdout)
        bad = []
        if crashes != ("crash" in off):
            bad.append(f"the official summarizer {'crashed: ' + off['crash'] if 'crash' in off else 'did not crash'}")
        if "crash" in off:
            flawed = [r for r in mine["runs"] if r["energy_j"] is None]
            if not flawed or any(not r["energy_flaw"] or "/power/" not in r["energy_flaw"] for r in flawed):
                bad.append(f"a run without a named flaw: {[(r['file'], r['energy_flaw']) for r in mine['runs']]}")
            for r in flawed:
                if not any(r["file"] in n and r["energy_flaw"] in n for n in mine["energy_notices"]):
                    bad.append(f"{r['file']}: no notice line names its flaw")
            if name.startswith("lenovo") and len(flawed) != 2:
                bad.append(f"not 2 runs without energy: {[r['energy_flaw'] for r in flawed]}")
            if name.startswith("smc") and (len(flawed) != 10 or any("divides by zero" not in r["energy_flaw"] for r in flawed)):
                bad.append(f"the v4.0 set: not every run named for its empty window: {[r['energy_flaw'] for r in flawed]}")
            print(f"{'ok' if not bad else 'MISMATCH':8} {name:36} official crashes ({off['crash'][:60]}); ours: "
                  f"{len(flawed)} run(s) without energy, e.g. {flawed[0]['energy_flaw'][-90:] if flawed else '-'}")
        else:
            if not close(off["energy"], mine["energy_j"]):
                bad.append(f"energy {off['energy']} vs {mine['energy_j']}")
            for r in mine["runs"]:
                if not close(off["runs"].get(r["file"]), r["energy_j"]):
                    bad.append(f"{r['file']}: {off['runs'].get(r['file'])} vs {r['energy_j']} ({r['energy_flaw']})")
            diff = abs(off["energy"] - mine["energy_j"]) / off["energy"] if off["energy"] and mine["energy_j"] else None
            print(f"{'ok' if not bad else 'MISMATCH':8} {name:36} official {off['energy']!r} J, ours {mine['energy_j']!r} J"
                  f" (relative difference {diff})")
        problems += [f"{name}: {b}" for b in bad]

    # The real sets through the official package checker and ours: the same verdict.
    for fixture, system, ruleset in (LENOVO, SMC):
        org = os.path.join(work, "pkg-" + fixture)
        shutil.copytree(os.path.join(fixtures, fixture), org)
        mine_org = org + "_ours"
        shutil.copytree(org, mine_org)
        off = official_package(org, ruleset)
        p = ours(cli, "check", "--package", "--ruleset", ruleset, mine_org)
        mine = "pass" if p.returncode == 0 else "fail"
        print(f"{'ok' if off == mine else 'MISMATCH':8} package {fixture:27} official {off}, ours {mine}")
        if off != mine:
            problems.append(f"package {fixture}: official {off}, ours {mine}\n{p.stdout}")
        # a run's power folder missing: one result fails the power check (accepted under olympic scoring)
        for o in (org, mine_org):
            shutil.rmtree(glob.glob(f"{o}/results/{system}/bert/power/result_*")[0])
        off, p = official_package(org, ruleset), ours(cli, "check", "--package", "--ruleset", ruleset, mine_org)
        mine = "pass" if p.returncode == 0 else "fail"
        named = "Package does not contain power result" in p.stdout
        print(f"{'ok' if off == mine and named else 'MISMATCH':8} package {fixture + ' one folder gone':27} official {off}, ours {mine}")
        if off != mine or not named:
            problems.append(f"package {fixture} without a power folder: official {off}, ours {mine}\n{p.stdout}")

    # check of a results dir: the power flaws by file:line
    p = ours(cli, "check", "--ruleset", SMC[2], f"{fixtures}/{SMC[0]}/results/{SMC[1]}/bert")
    want = re.compile(r"ERROR - .*/power/result_[^/]+/node_0\.txt:\d+: power_measurement_stop time_ms \d+ is not after "
                      r"power_measurement_start's \d+ \(line 1\) \[power stop_after_start\]")
    if p.returncode != 1 or len(want.findall(p.stdout)) != 10:
        problems.append(f"check of the v4.0 set: exit {p.returncode}, {len(want.findall(p.stdout))} stop_after_start findings")
    p = ours(cli, "check", "--ruleset", LENOVO[2], f"{fixtures}/{LENOVO[0]}/results/{LENOVO[1]}/bert")
    if p.returncode != 1 or "without a reading" not in p.stdout or "[power reading_rate]" not in p.stdout:
        problems.append(f"check of the v5.0 set: exit {p.returncode}; its 2 s gaps are not named:\n{p.stdout[-2000:]}")
    for b in problems:
        print("  " + b)
    if problems:
        sys.exit(1)
    print("all energies agree to 1e-6; every official crash is a named flaw")


if __name__ == "__main__":
    main()
