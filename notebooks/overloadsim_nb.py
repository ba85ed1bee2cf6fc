"""What the notebooks share: find the repository, build `simulate` once, run it, read its files.

Every notebook runs the simulator itself, so its numbers never go stale: `Simulator` builds
`./cmd/simulate` from the repository that holds this folder into a temporary directory, and
`run` / `sweep` write their result folders there too, never into the repository. The file
formats are documented in the package documentation of `results/` (`go doc overloadsim/results`).

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

#: relative distance from the pre-trigger goodput within which goodput counts as recovered, and
#: within which goodput counts as keeping up with the offered load (DESIGN §6: "within 5 %")
BAND = 0.05
#: whole intervals before a trigger that define its pre-trigger goodput (results.PreTriggerIntervals)
PRE_TRIGGER_INTERVALS = 10


def find_root(start: Path | None = None) -> Path:
    """The repository root: OVERLOADSIM_ROOT if set, else the nearest folder at or above start
    (default: the current directory, which is the notebook's own folder under Jupyter and
    nbconvert) whose go.mod declares module overloadsim."""
    env = os.environ.get("OVERLOADSIM_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        gomod = d / "go.mod"
        if gomod.is_file() and re.search(r"^module\s+overloadsim\s*$", gomod.read_text(), re.M):
            return d
    raise FileNotFoundError(f"no go.mod of module overloadsim at or above {here}; set OVERLOADSIM_ROOT")


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


def per_second(value: str) -> float:
    """A rate as the scenarios write it, "700/s", as a number (700.0)."""
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*/s\s*", str(value))
    if not m:
        raise ValueError(f"not a rate: {value!r}")
    return float(m.group(1))


def read_points(folder: Path) -> pd.DataFrame:
    """points.csv of a sweep: one row per point, a column per swept parameter path (text, as
    written in the scenario), replications, NAME_mean and NAME_ci95 per metric."""
    df = pd.read_csv(folder / "points.csv", dtype=str)
    numeric = [c for c in df.columns if c == "replications" or c.endswith(("_mean", "_ci95"))]
    return pd.concat([df.drop(columns=numeric), df[numeric].apply(pd.to_numeric)], axis=1)


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


def limiter_rate(canonical: str, node: int = 0) -> float | None:
    """A node's ingress request admission rate (requests/s) from a scenario's canonical text (the
    "canonical" field of run.json or of a sweep's header); None when that limiter is disabled."""
    enabled = re.findall(r"^\s*ingressRequestRateLimiterEnabled:\s*(\S+)", canonical, re.M)
    rates = re.findall(r"^\s*ingressRequestAdmissionRatePerSec:\s*(\S+)", canonical, re.M)
    if node >= len(enabled) or enabled[node] != "true":
        return None
    return per_second(rates[node])


def total_goodput(header: dict, ts: pd.DataFrame) -> pd.DataFrame:
    """Total goodput (all groups) per whole interval: columns start, end (seconds), goodput (/s).
    The last interval is dropped when it is shorter than the others, as results.Recoveries does."""
    g = ts[ts["kind"] == "group"].groupby("time", sort=True)["goodput"].sum()
    out = pd.DataFrame({"end": g.index.astype(float), "goodput": g.values})
    out["start"] = out["end"].shift(1, fill_value=0.0)
    whole = (out["end"] - out["start"] - header["interval"]).abs() < 1e-9
    return out[whole][["start", "end", "goodput"]].reset_index(drop=True)


def recovery(goodput: pd.DataFrame, start: float, end: float, next_start: float = math.inf,
             band: float = BAND, pre_intervals: int = PRE_TRIGGER_INTERVALS) -> dict:
    """The recovery after a trigger from start to end (seconds), by the rule of results.Recoveries:
    the pre-trigger level is the mean goodput of the last pre_intervals whole intervals that end
    at or before start; goodput has recovered from the first interval ending after end (and no
    later than next_start) after which every interval is within band of that level; the time is
    from end to that interval's start (0 if the interval holding end is already within).
    Returns {"preGoodput", "outcome" ("recovered", "notRecovered", "noBaseline"), "seconds"}."""
    pre = goodput[goodput["end"] <= start + 1e-9]["goodput"].tail(pre_intervals)
    if pre.empty:
        return {"preGoodput": math.nan, "outcome": "noBaseline", "seconds": math.nan}
    level = pre.mean()
    after = goodput[(goodput["end"] > end + 1e-9) & (goodput["end"] <= next_start + 1e-9)]
    stable = None
    for _, row in after.iterrows():
        if abs(row["goodput"] - level) <= band * level:
            if stable is None:
                stable = row
        else:
            stable = None
    if stable is None:
        return {"preGoodput": level, "outcome": "notRecovered", "seconds": math.nan}
    return {"preGoodput": level, "outcome": "recovered", "seconds": max(0.0, stable["start"] - end)}


def knee(offered, goodput, band: float = BAND):
    """The index of the first point, in the order given, whose goodput falls more than band below
    its offered load; None if goodput keeps up everywhere."""
    for i, (o, g) in enumerate(zip(offered, goodput)):
        if g < (1 - band) * o:
            return i
    return None


def savefig(fig, name: str) -> None:
    """Save fig as $OVERLOADSIM_FIGURES/NAME.png when OVERLOADSIM_FIGURES is set (to look at the
    figures outside Jupyter); otherwise do nothing."""
    folder = os.environ.get("OVERLOADSIM_FIGURES")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        fig.savefig(Path(folder) / f"{name}.png", dpi=110, bbox_inches="tight")
