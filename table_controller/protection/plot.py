# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Draw each bet's house edge round by round into a PNG (``replay --plot FILE.png``).

Edge module: writes a file with matplotlib, decides nothing. matplotlib is an optional extra
(``plot``) and is imported only when a plot is drawn, with the ``Agg`` backend (no display).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from os import PathLike
from typing import Any

from table_controller.protection.edge import RoundEdges
from table_controller.protection.replay_edges import ReplayedRound, edge_series


class PlotUnavailableError(RuntimeError):
    """matplotlib is not installed: the ``plot`` extra is needed."""


def _pyplot() -> Any:  # noqa: ANN401 - matplotlib is optional, so it is untyped here
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ImportError:
        raise PlotUnavailableError(
            "drawing a plot needs matplotlib: pip install 'table-controller[plot]'"
        ) from None
    matplotlib.use("Agg")
    return importlib.import_module("matplotlib.pyplot")


def require_matplotlib() -> None:
    """Check now that a plot can be drawn (before any other work is done).

    Raises:
        PlotUnavailableError: matplotlib is not installed.
    """
    _pyplot()


def plot_edges(
    rounds: Sequence[ReplayedRound],
    path: str | PathLike[str],
    *,
    bets: Iterable[str] | None = None,
    title: str | None = None,
    window_ends: Iterable[int] = (),
) -> None:
    """Draw the house edge (%) of each bet per round, with the zero line, and save it at ``path``.

    Rounds on which a bet was not offered are drawn dotted; ``edge_positive`` alarms are marked.
    ``window_ends``: last rounds of the variant's fixed side-bet windows, each marked with a
    dashed line after it (ends past the shoe's last round are left out).

    Raises:
        PlotUnavailableError: matplotlib is not installed.
    """
    plt = _pyplot()
    series = edge_series(rounds, bets)
    offered = {r.round_no: set(r.offer.offered) for r in rounds}
    alarms = [
        (alarm.round_no, alarm.bet_id, alarm.house_edge) for r in rounds for alarm in r.alarms
    ]
    figure, axes = plt.subplots(figsize=(11, 6))
    try:
        for bet_id, points in series.items():
            if not points:
                continue
            xs = [round_no for round_no, _ in points]
            ys = [float(edge) * 100 for _, edge in points]
            (line,) = axes.plot(xs, ys, linestyle=":", linewidth=0.8)
            taken = [
                (x, y) if bet_id in offered.get(x, set()) else (x, float("nan"))
                for x, y in zip(xs, ys, strict=True)
            ]
            axes.plot(
                [x for x, _ in taken],
                [y for _, y in taken],
                color=line.get_color(),
                linewidth=1.6,
                label=bet_id,
            )
        if alarms:
            axes.scatter(
                [round_no for round_no, _, _ in alarms],
                [float(edge) * 100 for _, _, edge in alarms],
                marker="v",
                color="red",
                zorder=3,
                label="edge_positive",
            )
        axes.axhline(0, color="black", linewidth=0.8)
        last_round = max((r.round_no for r in rounds), default=0)
        for number, end in enumerate(sorted({e for e in window_ends if e < last_round})):
            axes.axvline(
                end + 0.5,
                color="grey",
                linestyle="--",
                linewidth=0.9,
                label="fixed window ends" if number == 0 else None,
            )
            axes.annotate(
                f"round {end}",
                xy=(end + 0.5, 0),
                xycoords=("data", "axes fraction"),
                xytext=(3, 4),
                textcoords="offset points",
                fontsize="small",
                color="grey",
            )
        axes.set_xlabel("round")
        axes.set_ylabel("house edge (%)")
        shoe_ids = {r.edges.shoe_id for r in rounds if isinstance(r.edges, RoundEdges)}
        default_title = f"house edge by round, shoe {', '.join(sorted(shoe_ids))}"
        axes.set_title(title or default_title)
        axes.grid(visible=True, alpha=0.3)
        axes.legend(fontsize="small", ncol=2, loc="best")
        figure.tight_layout()
        figure.savefig(path, dpi=100)
    finally:
        plt.close(figure)
