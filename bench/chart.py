"""Draws the overhead chart from the overhead benchmark's data.

usage: python3 bench/chart.py .work/bench/overhead.json bench/overhead.png

Median overhead (line), p90 (the bar above each point), mean (dotted) and the median by computation
(hollow markers, when the data has it) against the preparation time,
one line per strategy, and the goal 0.9 × max(250 ms, 10 % of the preparation time); beside it, the status
calls per second of waiting.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

STYLE = {
    "provider": ("tab:blue", "o"),
    "fixed 1 s": ("tab:orange", "s"),
    "naive 5 s": ("tab:red", "^"),
    "candidate": ("tab:green", "D"),
}


def main(src: str, dst: str) -> None:
    with open(src, encoding="utf-8") as f:
        data = json.load(f)
    points = data["points"]
    prep_times = sorted({p["prepMs"] for p in points})

    fig, (ax, cost) = plt.subplots(1, 2, figsize=(12, 5), dpi=110, gridspec_kw={"width_ratios": [3, 2]})
    names = [s["name"] for s in data["strategies"]]
    for k, s in enumerate(data["strategies"]):
        mine = sorted((p for p in points if p["strategy"] == s["name"]), key=lambda p: p["prepMs"])
        # Nudge the strategies apart on the x axis so that their p90 bars do not hide each other.
        nudge = 1.035 ** (k - (len(names) - 1) / 2)
        xs = [p["prepMs"] / 1000 * nudge for p in mine]
        med = [p["medianOverheadMs"] for p in mine]
        p90 = [p["p90OverheadMs"] for p in mine]
        color, marker = STYLE.get(s["name"], ("tab:gray", "x"))
        ax.errorbar(
            xs,
            med,
            yerr=[[0] * len(med), [max(0, b - a) for a, b in zip(med, p90)]],
            color=color,
            marker=marker,
            capsize=4,
            linewidth=2,
            label=f'{s["name"]} (median, bar to p90)',
        )
        # The median the schedule gives by computation (bench/model.ts), hollow: what an idle machine shows.
        model = {m["prepMs"]: m["medianOverheadMs"] for m in data.get("model", []) if m["strategy"] == s["name"]}
        if model:
            ax.plot([p["prepMs"] / 1000 * nudge for p in mine if p["prepMs"] in model],
                    [model[p["prepMs"]] for p in mine if p["prepMs"] in model],
                    linestyle="none", marker=marker, markersize=9, markerfacecolor="none", markeredgecolor=color)
        # The mean, dotted: where a poll lands in the middle of the spread the median jumps to one side.
        ax.plot(xs, [p["meanOverheadMs"] for p in mine], color=color, linestyle=":", linewidth=1.2, alpha=0.8)
        cost.plot([p["prepMs"] / 1000 for p in mine], [p["callsPerSecondWaiting"] for p in mine],
                  color=color, marker=marker, linewidth=2, label=s["name"])

    lo, hi = prep_times[0] / 1000, prep_times[-1] / 1000
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    goals = {"marginFactor": 1.0, "floorMs": 250, "fraction": 0.1, "callsPerSecond": 1.5, **data.get("goals", {})}
    k, floor, frac = goals["marginFactor"], goals["floorMs"], goals["fraction"]
    ax.plot(xs, [k * max(floor, frac * 1000 * x) for x in xs], color="black", linestyle="--", linewidth=1.5,
            label=f"goal: {k:g} × max({floor:g} ms, {frac * 100:g} % of preparation)")
    ax.plot([], [], color="gray", linestyle=":", linewidth=1.2, label="mean (dotted, same colour)")
    if data.get("model"):
        ax.plot([], [], color="gray", linestyle="none", marker="o", markerfacecolor="none",
                label="median by computation (hollow, bench/model.ts)")

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks([p / 1000 for p in prep_times])
    ax.set_xticklabels([f"{p / 1000:g}" for p in prep_times])
    ax.set_xlabel("service preparation time (s)")
    ax.set_ylabel("time-to-running overhead (ms, log scale)")
    m = data.get("machine", {})
    n = data.get("options", {}).get("samples")
    ax.set_title("Noticing a session is running: overhead over the true preparation time", fontsize=11)
    fig.text(0.01, 0.01, f'{n} sessions per point; {m.get("cores", "?")} cores, {m.get("cpu", "")}; Node.js {m.get("node", "")}',
             fontsize=7, color="dimgray")
    ax.grid(True, which="both", alpha=0.3)
    top = max(max(p["p90OverheadMs"] for p in points), 1000)
    bottom = min(min(p["medianOverheadMs"] for p in points), 250)
    ax.set_ylim(max(1, bottom / 2), top * 8)
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.legend(fontsize=7, loc="upper center", ncol=2)

    rate = goals["callsPerSecond"]
    cost.axhline(rate, color="black", linestyle="--", linewidth=1.5, label=f"{rate:g} calls/s (goal, all sessions together)")
    cost.set_xscale("log")
    cost.set_xticks([p / 1000 for p in prep_times])
    cost.set_xticklabels([f"{p / 1000:g}" for p in prep_times])
    cost.set_xlabel("service preparation time (s)")
    cost.set_ylabel("status calls per second of waiting")
    cost.set_title("What it costs the status endpoint", fontsize=11)
    cost.set_ylim(bottom=0)
    cost.grid(True, which="both", alpha=0.3)
    cost.legend(fontsize=8, loc="upper right")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(dst)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
