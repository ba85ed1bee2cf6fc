"""What the notebooks share: find the repository, build `simulate` once, run it, read its files.

Every notebook runs the simulator itself, so its numbers never go stale: `Simulator` builds
`./cmd/simulate` from the repository that holds this folder into a temporary directory, and
`run` / `sweep` write their result folders there too, never into the repository. The file
formats are documented in the package documentation of `results/` (`go doc ./results`).

Environment (all optional):
  OVERLOADSIM_ROOT      the repository, if the notebook is not run from inside it
  OVERLOADSIM_SIMULATE  a simulate binary to use instead of building one (it must match the
                        repository's source, or the notebook answers for another version)
  OVERLOADSIM_FIGURES   a folder: every figure is also saved there as NAME.png (see `savefig`)
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pandas as pd

# The recovery rule's defaults (results.DefaultRecovery…, results.PreTriggerIntervals); a
# scenario's recovery block overrides K, Floor, Hold and Window (see `recovery_rule`).
#: the band's half-width in standard deviations of one interval's goodput
K = 3
#: the band's smallest half-width, relative to the pre-trigger level
FLOOR = 0.05
#: consecutive whole intervals in the band that make a recovery
HOLD_INTERVALS = 5
#: whole intervals below the band, at the end of the examined span, that can make a stuck state
WINDOW_INTERVALS = 10
#: whole intervals before a trigger that define its pre-trigger goodput (results.PreTriggerIntervals)
PRE_TRIGGER_INTERVALS = 10
#: the outcomes of the recovery rule (results.RecoveryOutcome)
OUTCOMES = ("recovered", "stuck", "relapsed", "undecided", "noBaseline")
# What sustains a stuck state (results.Sustain…), each over the stuck window.
SUSTAIN_RETRIES = 1.5        # attempts per operation at least this
SUSTAIN_WASTED = 0.25        # share of server capacity wasted at least this
SUSTAIN_REJECTIONS = 0.5     # share of attempts refused by limiters at least this
SUSTAIN_EMPTY_TOKENS = 1.0   # mean retry-token level below this
#: the words for a stuck state's sustainedBy names, as simulate's summaries write them
SUSTAINED_BY_WORDS = {"retries": "retries", "abandonedWork": "abandoned work",
                      "rejections": "limiter rejections", "emptyRetryBuckets": "empty retry buckets"}

# Times are compared with this slack: the files write them as exact decimal seconds, but sums of
# floats need not be exact.
_EPS = 1e-9


def find_root(start: Path | None = None) -> Path:
    """The repository root: OVERLOADSIM_ROOT if set, else the nearest folder at or above start
    (default: the current directory, which is the notebook's own folder under Jupyter and
    nbconvert) whose go.mod declares module github.com/overloadsim/overloadsim."""
    env = os.environ.get("OVERLOADSIM_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        gomod = d / "go.mod"
        if gomod.is_file() and re.search(r"^module\s+github\.com/overloadsim/overloadsim\s*$", gomod.read_text(), re.M):
            return d
    raise FileNotFoundError(f"no go.mod of module github.com/overloadsim/overloadsim at or above {here}; set OVERLOADSIM_ROOT")


class Simulator:
    """`simulate`, built once from the repository into a temporary directory that also holds
    every result folder. The directory is removed when the object is garbage-collected (at the
    latest when the kernel exits)."""

    def __init__(self, root: Path | None = None):
        self.root = root or find_root()
        self._tmp = tempfile.TemporaryDirectory(prefix="overloadsim-nb-")
        self.tmp = Path(self._tmp.name)
        prebuilt = os.environ.get("OVERLOADSIM_SIMULATE")
        if prebuilt:
            self.binary = Path(prebuilt).resolve()
        else:
            go = shutil.which("go")
            if go is None:
                raise RuntimeError("the Go toolchain (go) is not on PATH: the notebooks build ./cmd/simulate")
            self.binary = self.tmp / "simulate"
            self._call([go, "build", "-o", str(self.binary), "./cmd/simulate"])
        version = self._call([str(self.binary), "version"]).strip()
        how = "using" if prebuilt else "built"
        print(f"{how} {self.binary} ({version}); results go to {self.tmp}")

    def _call(self, argv: list[str]) -> str:
        p = subprocess.run(argv, cwd=self.root, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(
                f"exit status {p.returncode}: {' '.join(argv)}\n{p.stderr.strip()[-3000:]}"
            )
        return p.stdout

    def _out(self, name: str) -> Path:
        out = self.tmp / name
        if out.exists():
            shutil.rmtree(out)
        return out

    def run(self, scenario: str, name: str, sets=(), seed: int | None = None) -> Path:
        """`simulate run SCENARIO --set … [--seed N]` into a fresh folder; returns the folder.
        --set overrides apply in order, and each must leave a valid scenario."""
        out = self._out(name)
        argv = [str(self.binary), "run", scenario, "--out", str(out)]
        for s in sets:
            argv += ["--set", s]
        if seed is not None:
            argv += ["--seed", str(seed)]
        self._call(argv)
        return out

    def sweep(self, scenario: str, name: str, vary=(), sets=(), replications: int = 3,
              workers: int | None = None) -> Path:
        """`simulate sweep SCENARIO --vary … --set … --replications N` into a fresh folder, on
        every core (the results do not depend on the number of workers); returns the folder."""
        out = self._out(name)
        argv = [str(self.binary), "sweep", scenario, "--out", str(out),
                "--replications", str(replications), "--workers", str(workers or os.cpu_count() or 2)]
        for s in sets:
            argv += ["--set", s]
        for v in vary:
            argv += ["--vary", v]
        self._call(argv)
        return out

    def map_(self, scenario: str, name: str, vary=(), sets=(), replications: int = 5,
             trigger: str | None = None, seed: int | None = None,
             workers: int | None = None) -> tuple[Path, str]:
        """`simulate map SCENARIO --vary … --set … --replications N [--trigger T] [--seed N]` (a
        metastability map: P(stuck) after the trigger over a grid of two or three parameters; the
        first --vary is its y axis, the second its x axis) into a fresh folder, on every core (the
        results do not depend on the number of workers). Returns the folder, which holds map.json
        and map.csv (`read_map`), and what simulate printed: a table of the cells and a paragraph
        that says where the outcome flips (`map_paragraph`)."""
        out = self._out(name)
        argv = [str(self.binary), "map", scenario, "--out", str(out),
                "--replications", str(replications), "--workers", str(workers or os.cpu_count() or 2)]
        for s in sets:
            argv += ["--set", s]
        for v in vary:
            argv += ["--vary", v]
        if trigger is not None:
            argv += ["--trigger", trigger]
        if seed is not None:
            argv += ["--seed", str(seed)]
        return out, self._call(argv)

    def tip(self, scenario: str, name: str, param: str, range_: str, precision: str, sets=(),
            sticks: str = "above", batch: int | None = None, max_reps: int | None = None,
            trigger: str | None = None, seed: int | None = None,
            workers: int | None = None) -> tuple[Path, str]:
        """`simulate tip SCENARIO --param PATH --range FROM:TO --precision STEP …` (the value of
        one parameter at which P(stuck) after the trigger crosses 1/2, by noisy bisection) into a
        fresh folder, on every core. Returns the folder, which holds tip.json (`read_tip`), and
        what simulate printed (its one-line answer, then the probes)."""
        out = self._out(name)
        argv = [str(self.binary), "tip", scenario, "--out", str(out), "--param", param,
                "--range", range_, "--precision", precision, "--sticks", sticks,
                "--workers", str(workers or os.cpu_count() or 2)]
        for s in sets:
            argv += ["--set", s]
        for flag, value in (("--batch", batch), ("--max-reps", max_reps), ("--trigger", trigger),
                            ("--seed", seed)):
            if value is not None:
                argv += [flag, str(value)]
        return out, self._call(argv)


def per_second(value: str) -> float:
    """A rate as the scenarios write it, "700/s", as a number (700.0)."""
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*/s\s*", str(value))
    if not m:
        raise ValueError(f"not a rate: {value!r}")
    return float(m.group(1))


_DURATION_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6,
                   "ns": 1e-9}


def seconds(value: str) -> float:
    """A duration as the scenarios and Go write it ("8s", "250ms", "1m0s", "20µs") in seconds."""
    text = str(value).strip()
    parts = re.findall(r"([0-9]*\.?[0-9]+)(ns|us|µs|μs|ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"not a duration: {value!r}")
    return sum(float(n) * _DURATION_UNITS[u] for n, u in parts)


def parse_value(value: str) -> tuple[float, str]:
    """A scenario value as a number and its unit: a duration in seconds ("8s" → (8.0, "s")), a
    rate per second ("960/s" → (960.0, "/s")) or a plain number ("0.5" → (0.5, ""))."""
    text = str(value).strip()
    if text.endswith("/s"):
        return per_second(text), "/s"
    try:
        return float(text), ""
    except ValueError:
        return seconds(text), "s"


def read_points(folder: Path) -> pd.DataFrame:
    """points.csv of a sweep: one row per point, a column per swept parameter path, replications,
    then NAME_mean, NAME_ci95 and NAME_n per metric (the mean over replications, the half-width of
    its 95 % confidence interval, and the number of replications where the metric has a value: a
    fault's recovery_time_n counts the replications that recovered). A metric without a value is
    NaN. A numeric parameter is a number with its unit in the column's name (PATH_per_s for a
    rate, PATH_s, PATH_ms or PATH_us for a duration, PATH for a plain number); any other is its
    text, as the scenario writes it."""
    df = pd.read_csv(folder / "points.csv", dtype=str)
    numeric = [c for c in df.columns if c == "replications" or c.endswith(("_mean", "_ci95", "_n"))]
    out = pd.concat([df.drop(columns=numeric), df[numeric].apply(pd.to_numeric)], axis=1)
    for c in df.columns:
        if c not in numeric:
            try:
                out[c] = pd.to_numeric(df[c])
            except ValueError:
                pass  # a policy name, a driver block: text
    return out


def read_run(folder: Path) -> tuple[dict, pd.DataFrame, dict]:
    """A run folder: (run.json header, timeseries.csv, summary.json)."""
    header = json.loads((folder / "run.json").read_text())
    ts = pd.read_csv(folder / "timeseries.csv")
    summary = json.loads((folder / "summary.json").read_text())
    return header, ts, summary


def read_sweep_header(folder: Path) -> dict:
    """The header of a sweep's sweep.json: tool, version, scenario, canonical (the base scenario,
    before the swept values), seed, …"""
    return json.loads((folder / "sweep.json").read_text())["header"]


def read_sweep_answers(folder: Path) -> tuple[dict, list[dict]]:
    """A load sweep's answers from its sweep.json: (context, answers). The context is what the
    sweep is judged against (today, ceiling, ceilingSource, slo); each answer is one line's
    safe load and what lies beyond it, headroom, knee, lastServed, kneeBracket, latencyKnee,
    latencyBracket and latencyRule, computed by the simulator's own rules (sweep.AnswerLoad,
    docs/metrics.md §17), never again here."""
    doc = json.loads((folder / "sweep.json").read_text())
    if "answers" not in doc:
        raise ValueError(f"{folder}: the sweep has no answers: it does not vary a workload's rate")
    return doc["context"], doc["answers"]


def number(x) -> float:
    """A number of summary.json, map.json or tip.json, with null (a missing value) as NaN."""
    return math.nan if x is None else float(x)


def read_map(folder: Path) -> tuple[dict, pd.DataFrame]:
    """A metastability map's folder (`Simulator.map_`): (map.json as a dict: header, trigger,
    axes [{path, values}], cells, partial; and its cells as a table). The table has one row per
    cell in grid order (the first axis slowest): a column per axis path (the value as text), the
    same value as a number per axis ("PATH#": seconds for durations, per second for rates), then
    replications, recovered, stuck, undecided, noBaseline, pStuck with its 95 % Wilson interval
    pStuckLo–pStuckHi, and recoveryMedian (seconds, over the replications that recovered; NaN if
    none did)."""
    m = json.loads((folder / "map.json").read_text())
    rows = []
    for c in m["cells"]:
        row = {p["path"]: p["value"] for p in c["params"]}
        row.update({p["path"] + "#": parse_value(p["value"])[0] for p in c["params"]})
        for key in ("replications", "recovered", "stuck", "undecided", "noBaseline"):
            row[key] = int(c[key])
        for key in ("pStuck", "pStuckLo", "pStuckHi", "recoveryMedian"):
            row[key] = number(c[key])
        rows.append(row)
    return m, pd.DataFrame(rows)


def map_paragraph(stdout: str) -> str:
    """The paragraph in words that `simulate map` prints after its table of cells (results.MapSummary):
    where the outcome flips along the map's second axis, per value of the first."""
    return stdout.strip().split("\n\n")[-1].strip()


def map_boundary(cells: pd.DataFrame, along: str, across: str) -> pd.DataFrame:
    """Where P(stuck) crosses 1/2 along the axis `along`, for each value of the axis `across` (both
    axis paths of a map read by `read_map`), by the rule of results.MapBoundary: between two
    neighbouring cells in numeric order (cells that did not run skipped) of which one is below 1/2
    and the other at or above it, by linear interpolation. One row per crossing (a line can cross
    more than once), or one per line that does not cross: columns `across` (text) and `across#`,
    kind ("crossing", "neverStuck", "alwaysStuck", "notRun"), at (NaN unless a crossing), lo, hi
    (the bracketing values; the lowest and highest value that ran otherwise), pLo, pHi, rising."""
    rows = []
    for value in dict.fromkeys(cells[across]):
        line = cells[(cells[across] == value) & (cells["replications"] > 0) & cells["pStuck"].notna()]
        line = line.sort_values(along + "#", kind="stable")
        xs, ps = list(line[along + "#"]), list(line["pStuck"])
        base = {across: value, across + "#": parse_value(value)[0], "kind": "notRun", "at": math.nan,
                "lo": math.nan, "hi": math.nan, "pLo": math.nan, "pHi": math.nan, "rising": False}
        if not xs:
            rows.append(base)
            continue
        crossed = False
        for i in range(1, len(xs)):
            if (ps[i - 1] >= 0.5) == (ps[i] >= 0.5):
                continue
            crossed = True
            at = xs[i - 1] + (0.5 - ps[i - 1]) / (ps[i] - ps[i - 1]) * (xs[i] - xs[i - 1])
            rows.append({**base, "kind": "crossing", "at": at, "lo": xs[i - 1], "hi": xs[i],
                         "pLo": ps[i - 1], "pHi": ps[i], "rising": ps[i] > ps[i - 1]})
        if not crossed:
            rows.append({**base, "kind": "alwaysStuck" if ps[0] >= 0.5 else "neverStuck",
                         "lo": xs[0], "hi": xs[-1]})
    return pd.DataFrame(rows)


def read_tip(folder: Path) -> tuple[dict, pd.DataFrame]:
    """A tipping-point search's folder (`Simulator.tip`): (tip.json as a dict: header, trigger,
    param, unit, sticks, boundary, its interval lo–hi at the confidence level, converged,
    replications, a logistic fit fitX50 with fitLo–fitHi, probes, warnings; and its probes as a
    table in the order they were run: value, x (in the unit), replications, stuck, recovered,
    undecided, verdict, and pLo–pHi, the bounds on P(stuck) at the test's level)."""
    t = json.loads((folder / "tip.json").read_text())
    for key in ("boundary", "lo", "hi", "fitX50", "fitLo", "fitHi"):
        t[key] = number(t.get(key))
    probes = pd.DataFrame(t["probes"])
    probes.insert(0, "probe", range(1, len(probes) + 1))
    return t, probes


def limiter_rate(canonical: str, node: int = 0) -> float | None:
    """A node's ingress request admission rate (requests/s) from a scenario's canonical text (the
    "canonical" field of run.json or of a sweep's header); None when that limiter is disabled."""
    enabled = re.findall(r"^\s*ingressRequestRateLimiterEnabled:\s*(\S+)", canonical, re.M)
    rates = re.findall(r"^\s*ingressRequestAdmissionRatePerSec:\s*(\S+)", canonical, re.M)
    if node >= len(enabled) or enabled[node] != "true":
        return None
    return per_second(rates[node])


def recovery_rule(canonical: str, interval: float) -> dict:
    """The recovery rule of a scenario, from its canonical text (run.json's "canonical"; its
    `recovery:` block, defaults where it has none or a field is 0) and its interval in seconds, as
    keyword arguments of `recovery`: k, floor, and hold and window in whole intervals (rounded
    up, at least 1)."""
    rule = {"k": float(K), "floor": FLOOR, "hold": HOLD_INTERVALS, "window": WINDOW_INTERVALS}
    m = re.search(r"^recovery:(.*(?:\n[ \t]+.*)*)", canonical, re.M)
    if not m:
        return rule
    fields = dict(re.findall(r"\b(k|floor|hold|window):\s*([^,}\s]+)", m.group(1)))
    if float(fields.get("k", 0)):
        rule["k"] = float(fields["k"])
    if float(fields.get("floor", 0)):
        rule["floor"] = float(fields["floor"])
    for key in ("hold", "window"):
        d = seconds(fields.get(key, "0s"))
        if d > 0:
            rule[key] = max(1, math.ceil(d / interval - _EPS))
    return rule


def group_sizes(canonical: str) -> dict[str, int]:
    """The number of clients in each client group, from a scenario's canonical text."""
    return {name.strip("'\""): int(n)
            for name, n in re.findall(r"^  - name: (.+)\n    count: (\d+)$", canonical, re.M)}


def interval_totals(header: dict, ts: pd.DataFrame) -> pd.DataFrame:
    """Every group and server together per whole interval of timeseries.csv, as results.Recoveries
    sums them (the last interval is dropped when it is shorter than the others): columns start,
    end (seconds), goodput (/s, all groups), and the counts and areas the stuck state is measured
    from — issued and attempts (operations, attempts), queue_area (job·s), driver_queue (the
    operations waiting in the drivers at the interval's end, all groups), cap_area and wasted
    (worker·s, from busy ÷ utilisation and wasted_share), rejections (all limiters), tokens_sum
    and tokens_n (retry tokens summed over the clients that have a bucket, and their number: a
    group's mean weighted by its client count from the canonical text, since a group's clients
    share one driver). Counts are rebuilt from the file's per-second rates, which keep six
    significant digits, so they are exact below a million per interval; the areas agree with
    simulate's to about that precision."""
    step = header["interval"]
    sizes = group_sizes(header["canonical"])
    times = sorted(ts["time"].unique())
    starts = dict(zip(times, [0.0] + times[:-1]))
    rows = {t: {"start": starts[t], "end": t, "succeeded": 0, "issued": 0, "attempts": 0,
                "queue_area": 0.0, "driver_queue": 0.0, "cap_area": 0.0, "wasted": 0.0, "rejections": 0,
                "tokens_sum": 0.0, "tokens_n": 0}
            for t in times if abs(t - starts[t] - step) < _EPS}
    for g in ts[ts["kind"] == "group"].itertuples(index=False):
        r = rows.get(g.time)
        if r is None:
            continue
        r["succeeded"] += round(g.goodput * step)
        r["issued"] += round(g.offered * step)
        r["attempts"] += round(g.attempts * step)
        r["driver_queue"] += float(getattr(g, "driver_queue", 0.0))  # files before it have none
        if not math.isnan(g.retry_tokens_mean):
            n = sizes.get(g.name, 1)
            r["tokens_sum"] += g.retry_tokens_mean * n
            r["tokens_n"] += n
    for s in ts[ts["kind"] == "server"].itertuples(index=False):
        r = rows.get(s.time)
        if r is None:
            continue
        cap = s.busy * step / s.utilisation if s.utilisation > 0 else s.workers * step * (1 - s.down)
        r["queue_area"] += s.queue * step
        r["cap_area"] += cap
        r["wasted"] += (0.0 if math.isnan(s.wasted_share) else s.wasted_share) * cap
        r["rejections"] += round(s.rejections * step)
    out = pd.DataFrame(list(rows.values()))
    out.insert(2, "goodput", out.pop("succeeded") / step)
    return out


def total_goodput(header: dict, ts: pd.DataFrame) -> pd.DataFrame:
    """Total goodput (all groups) per whole interval: columns start, end (seconds), goodput (/s).
    The last interval is dropped when it is shorter than the others, as results.Recoveries does."""
    return interval_totals(header, ts)[["start", "end", "goodput"]]


def _mean_sd(xs: list[float]) -> tuple[float, float]:
    """The mean and the sample standard deviation (0 for fewer than two values), summed in order
    as results does, so that the band comes out bit for bit the same."""
    total = 0.0
    for x in xs:
        total += x
    mean = total / len(xs)
    if len(xs) < 2:
        return mean, 0.0
    ss = 0.0
    for x in xs:
        ss += (x - mean) * (x - mean)
    return mean, math.sqrt(ss / (len(xs) - 1))


def _trend(ys: list[float], dt: float) -> tuple[float, float, float]:
    """The least-squares line y = a + slope·t through ys (one interval of dt apart): its slope
    (per second), its value at the last interval, and the slope's standard error (inf for fewer
    than three points)."""
    n = float(len(ys))
    tm = sum(i * dt for i in range(len(ys))) / n
    ym = sum(ys) / n
    sxx = sum((i * dt - tm) ** 2 for i in range(len(ys)))
    if sxx == 0:
        return 0.0, ym, math.inf
    slope = sum((i * dt - tm) * (y - ym) for i, y in enumerate(ys)) / sxx
    end = ym + slope * ((len(ys) - 1) * dt - tm)
    if len(ys) < 3:
        return slope, end, math.inf
    sse = sum((y - (ym + slope * (i * dt - tm))) ** 2 for i, y in enumerate(ys))
    return slope, end, math.sqrt(sse / (n - 2) / sxx)


#: standard errors below zero the backlog's slope over the stuck window must lie for the backlog
#: to count as draining, a long outage rather than a stuck state (results.DrainT)
DRAIN_T = 3


def _no_stuck() -> dict:
    return {"goodputShare": math.nan, "amplification": math.nan, "backlog": math.nan,
            "driverBacklog": math.nan, "wastedShare": math.nan, "rejectShare": math.nan, "retryTokens": math.nan, "sustainedBy": []}


def stuck_state(window: pd.DataFrame, level: float) -> dict:
    """The stuck state over the stuck window (rows of `interval_totals`), as results measures it:
    goodputShare (goodput ÷ the pre-trigger level), amplification (attempts ÷ operations issued),
    backlog (time-average worker-queue length, all servers), driverBacklog (the mean over the
    window of the operations waiting in the drivers), wastedShare, rejectShare (limiter
    rejections ÷ attempts), retryTokens (mean level over the clients with a bucket; NaN without),
    and sustainedBy: the mechanisms whose thresholds (SUSTAIN_…) the window passes. Needs the
    columns of `interval_totals`; with goodput alone every field but goodputShare is NaN."""
    st = _no_stuck()
    n = len(window)
    good = 0.0
    for g in window["goodput"]:
        good += g
    st["goodputShare"] = good / n / level
    if "issued" not in window:
        return st
    secs = n * float(window["end"].iloc[0] - window["start"].iloc[0])
    issued, attempts = int(window["issued"].sum()), int(window["attempts"].sum())
    cap, tokens_n = float(window["cap_area"].sum()), int(window["tokens_n"].sum())
    st["amplification"] = attempts / issued if issued else math.nan
    st["backlog"] = float(window["queue_area"].sum()) / secs if secs > 0 else math.nan
    st["driverBacklog"] = float(window["driver_queue"].sum()) / n
    st["wastedShare"] = float(window["wasted"].sum()) / cap if cap > 0 else math.nan
    st["rejectShare"] = int(window["rejections"].sum()) / attempts if attempts else math.nan
    if tokens_n > 0:
        st["retryTokens"] = float(window["tokens_sum"].sum()) / tokens_n
    if st["amplification"] >= SUSTAIN_RETRIES:
        st["sustainedBy"].append("retries")
    if st["wastedShare"] >= SUSTAIN_WASTED:
        st["sustainedBy"].append("abandonedWork")
    if st["rejectShare"] >= SUSTAIN_REJECTIONS:
        st["sustainedBy"].append("rejections")
    if tokens_n > 0 and st["retryTokens"] < SUSTAIN_EMPTY_TOKENS:
        st["sustainedBy"].append("emptyRetryBuckets")
    return st


def recovery(totals: pd.DataFrame, start: float, end: float, next_start: float = math.inf, *,
             interval: float = 1.0, horizon: float = math.inf, k: float = K, floor: float = FLOOR,
             hold: int = HOLD_INTERVALS, window: int = WINDOW_INTERVALS,
             pre_intervals: int = PRE_TRIGGER_INTERVALS) -> dict:
    """The outcome after a trigger from start to end (seconds), by the rule of results.Recoveries,
    reimplemented (`go doc ./results Recoveries`). totals has a row per whole interval
    of `interval` seconds (`interval_totals`, or `total_goodput` for goodput alone); horizon is
    the end of the run's last interval, whole or not; next_start is when the next trigger starts.

    - Baseline: μ is the mean goodput of the last pre_intervals whole intervals that end at or
      before start ("noBaseline" if none). σ = max(their sample standard deviation, √(μ/Δt)),
      the second the Poisson spread of one interval's count; the band is
      μ ± max(k·σ, floor·μ).
    - Examined span: the whole intervals that end after end and no later than next_start.
    - "recovered": the first run of `hold` consecutive intervals in the band, and the span does
      not end below the band after it; the time runs from end to the start of that run's first
      interval (0 if it holds end).
    - "relapsed": such a run, then a span that ends in a stuck state (below): recoveredSeconds
      is when the run began, relapseSeconds when the last run of intervals below the band began.
    - "stuck": no such run, and the span's last `window` intervals all lie below the band, their
      goodput's least-squares trend would not reach the band's lower edge within another
      `window`, and the total backlog (worker queues plus the drivers' queues) is not draining
      (its least-squares slope over the window is not below zero by DRAIN_T standard errors).
    - "undecided": otherwise (after a recovery too, with recoveredSeconds and relapseSeconds,
      when the span ends below the band but not stuck); moreSeconds is the extra span the rule
      needs (the rest of a hold or of a stuck window that has begun, the trend's time to the
      band, or the backlog's time to drain to its pre-trigger level, plus a hold; or a whole
      window when the span ends above the band), NaN when the trigger lasts to the horizon.

    Returns {"preGoodput", "band" (the half-width, /s), "outcome", "seconds" (NaN unless
    recovered), "recoveredSeconds" and "relapseSeconds", "moreSeconds" (NaN unless undecided),
    "stuck" (`stuck_state`, NaN fields unless stuck or relapsed)} — the fields of summary.json's
    recoveries."""
    out = {"preGoodput": math.nan, "band": math.nan, "outcome": "noBaseline", "seconds": math.nan,
           "recoveredSeconds": math.nan, "relapseSeconds": math.nan,
           "moreSeconds": math.nan, "stuck": _no_stuck()}
    before = totals[totals["end"] <= start + _EPS].iloc[-pre_intervals:]
    pre = list(before["goodput"])
    if not pre:
        return out
    level, sd = _mean_sd(pre)
    band = max(k * max(sd, math.sqrt(level / interval)), floor * level)
    out.update(preGoodput=level, band=band)
    lo, hi = level - band, level + band
    span = totals[(totals["end"] > end + _EPS) & (totals["end"] <= next_start + _EPS)].reset_index(drop=True)
    goodput = list(span["goodput"])

    run, held = 0, -1
    for i, g in enumerate(goodput):
        run = run + 1 if lo <= g <= hi else 0
        if run == hold:
            held = i - hold + 1
            break
    out["outcome"] = "undecided"
    if held < 0 and end >= horizon - _EPS:
        return out  # a trigger to the end of the run leaves nothing to examine

    def side(g):
        return -1 if g < lo else (1 if g > hi else 0)

    tail, last_side = 0, 0  # the trailing run of intervals on one side of the band
    for g in reversed(goodput):
        if tail > 0 and side(g) != last_side:
            break
        tail, last_side = tail + 1, side(g)
    if held >= 0:
        since = max(0.0, float(span["start"][held]) - end)
        if last_side >= 0:  # the recovery lasts to the end of the span
            out.update(outcome="recovered", seconds=since)
            return out
        out.update(recoveredSeconds=since, relapseSeconds=max(0.0, float(span["start"][len(goodput) - tail]) - end))
    if not goodput:
        out["moreSeconds"] = hold * interval
    elif last_side == 0:  # a hold has begun
        out["moreSeconds"] = (hold - tail) * interval
    elif last_side < 0 and tail < window:  # a stuck window has begun
        out["moreSeconds"] = (window - tail) * interval
    elif last_side < 0:
        slope, fitted, _ = _trend(goodput[-window:], interval)
        reach = (lo - fitted) / slope if slope > 0 else math.inf
        if reach <= window * interval:  # climbing back: a slow recovery
            out["moreSeconds"] = math.ceil(reach / interval) * interval + hold * interval
            return out
        q_slope, q_end, q_se = math.nan, math.nan, math.inf
        if "queue_area" in span:  # a backlog that drains steadily is a long outage, not stuck
            # the total backlog: the servers' worker queues and the drivers' wait queues
            backlog = list(span["queue_area"].iloc[-window:] / interval + span["driver_queue"].iloc[-window:])
            q_slope, q_end, q_se = _trend(backlog, interval)
        if q_slope < 0 and q_slope < -DRAIN_T * q_se:
            pre_backlog = float((before["queue_area"] / interval + before["driver_queue"]).mean())
            drain = max(0.0, q_end - pre_backlog) / -q_slope
            out["moreSeconds"] = math.ceil(drain / interval) * interval + hold * interval
        else:
            out.update(outcome="stuck" if held < 0 else "relapsed", stuck=stuck_state(span.iloc[-window:], level))
    else:  # above the band: a backlog still draining
        out["moreSeconds"] = window * interval
    return out


def recoveries(header: dict, ts: pd.DataFrame, triggers) -> list[dict]:
    """The outcome after each trigger of a run, as results.Recoveries decides it, by `recovery`
    with the scenario's rule (`recovery_rule`): triggers is a list of {"fault", "start", "end"}
    (summary.json's recoveries will do: the triggers are the faults and load changes there). The
    next trigger of each is the earliest other one that starts at or after its end and after its
    start. Returns, per trigger, its fault, start and end and `recovery`'s fields."""
    totals = interval_totals(header, ts)
    step = header["interval"]
    horizon = float(ts["time"].max())
    rule = recovery_rule(header["canonical"], step)
    out = []
    for i, f in enumerate(triggers):
        nxt = min((o["start"] for j, o in enumerate(triggers)
                   if j != i and o["start"] >= f["end"] and o["start"] > f["start"]), default=math.inf)
        r = recovery(totals, f["start"], f["end"], nxt, interval=step, horizon=horizon, **rule)
        out.append({"fault": f["fault"], "start": f["start"], "end": f["end"], **r})
    return out


def recovery_differences(ours: list[dict], theirs: list[dict], rel: float = 2e-5) -> list[str]:
    """Where the notebook's recoveries (`recoveries`) and simulate's (summary.json's recoveries)
    differ, in words; empty when they agree. Numbers agree within rel (the files keep six
    significant digits); a missing value (JSON null) agrees only with NaN."""
    def same(a, b):
        a, b = number(a), number(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= rel * max(abs(a), abs(b), 1e-9)

    problems = []
    if len(ours) != len(theirs):
        return [f"{len(ours)} recoveries, simulate has {len(theirs)}"]
    for a, b in zip(ours, theirs):
        name = f"{b['fault']} ({b['start']} s to {b['end']} s)"
        if a["outcome"] != b["outcome"]:
            problems.append(f"{name}: outcome {a['outcome']}, simulate {b['outcome']}")
        for key in ("start", "end", "preGoodput", "band", "seconds", "recoveredSeconds", "relapseSeconds", "moreSeconds"):
            if not same(a[key], b[key]):
                problems.append(f"{name}: {key} {a[key]}, simulate {b[key]}")
        for key, value in a["stuck"].items():
            theirs_value = b["stuck"].get(key, [])
            if key == "sustainedBy":
                if list(value) != list(theirs_value or []):
                    problems.append(f"{name}: stuck.sustainedBy {value}, simulate {theirs_value}")
            elif not same(value, theirs_value):
                problems.append(f"{name}: stuck.{key} {value}, simulate {theirs_value}")
    return problems


def savefig(fig, name: str) -> None:
    """Save fig as $OVERLOADSIM_FIGURES/NAME.png when OVERLOADSIM_FIGURES is set (to look at the
    figures outside Jupyter); otherwise do nothing."""
    folder = os.environ.get("OVERLOADSIM_FIGURES")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        fig.savefig(Path(folder) / f"{name}.png", dpi=110, bbox_inches="tight")
