"""Figures for the report (matplotlib, drawn off screen), returned as PNG bytes."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from simeval.report.format import plot_text


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover
        raise ImportError("plots need matplotlib: pip install 'simeval[report]'") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _image(fig: Any, fmt: str = "png") -> bytes:
    """The figure as PNG (the report inlines it) or SVG (the docs' pages), closed after.

    Laid out once, here, by ``tight_layout`` (legends outside the axes included), then saved
    at its own size: ``savefig(bbox_inches="tight")`` would measure every text again before
    drawing (about a fifth of a figure's time)."""
    fig.tight_layout()
    # tight_layout leaves a placeholder layout engine, and savefig draws a figure that has one
    # twice (once unrendered, for the engine): with none, the layout above is the only one
    fig.set_layout_engine(None)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, dpi=90, metadata=_metadata(fmt))
    _pyplot().close(fig)
    return buffer.getvalue()


def _metadata(fmt: str) -> dict[str, Any]:
    """No date in an SVG: the same figure, the same bytes."""
    return {"Date": None} if fmt == "svg" else {}


def panels_by_metric(metrics: Sequence[str]) -> dict[str, list[int]]:
    """The groups' indices under each metric, in order of first appearance: one axis (one
    scale) per metric, so a sum never shares an axis with average precisions."""
    out: dict[str, list[int]] = {}
    for i, m in enumerate(metrics):
        out.setdefault(m, []).append(i)
    return out


def bars(
    title: str,
    groups: Sequence[str],
    series: Mapping[str, Sequence[tuple[float, float, float]]],
    metrics: Sequence[str] | str,
    references: Mapping[str, float] | None = None,
    hollow: Mapping[str, Sequence[bool]] | None = None,
    fmt: str = "png",
) -> bytes:
    """Grouped bars: for each system, (value, low, high) per group, drawn with whiskers, in
    one panel per metric (``metrics``: each group's, or one for all; :func:`panels_by_metric`);
    ``references`` are horizontal lines (agreement ceilings) on the first panel; ``hollow``
    marks, per system and group, scores that carry no information (hatched, faint)."""
    plt = _pyplot()
    names = [metrics] * len(groups) if isinstance(metrics, str) else list(metrics)
    panels = panels_by_metric(names)
    slots = max(1, len(series))
    widths = [max(1.6, 0.55 * len(ix) * slots) for ix in panels.values()]
    fig, axes = plt.subplots(
        1,
        len(panels),
        figsize=(max(5.0, sum(widths)), 3.4),
        squeeze=False,
        gridspec_kw={"width_ratios": [len(ix) for ix in panels.values()]},
    )
    width = 0.8 / slots
    for p, (ax, (metric, index)) in enumerate(zip(axes[0], panels.items(), strict=True)):
        x = np.arange(len(index))
        for k, (system, values) in enumerate(series.items()):
            picked = [values[i] for i in index]
            v = np.array([t[0] for t in picked], dtype=float)
            low = np.array([t[1] for t in picked], dtype=float)
            high = np.array([t[2] for t in picked], dtype=float)
            err = np.nan_to_num(np.vstack([np.clip(v - low, 0, None), np.clip(high - v, 0, None)]))
            faint = [bool((hollow or {}).get(system, [False] * len(groups))[i]) for i in index]
            drawn = ax.bar(
                x + (k - (slots - 1) / 2) * width,
                np.nan_to_num(v),
                width,
                yerr=err,
                capsize=2,
                color=f"C{k}",
                label=_short(system) if p == 0 else None,
            )
            for bar, off in zip(drawn, faint, strict=True):
                if off:
                    bar.set_alpha(0.35)
                    bar.set_hatch("///")
        if p == 0:
            styles = iter(["--", ":", "-."])
            for label, value in (references or {}).items():
                ax.axhline(
                    value,
                    color="black",
                    linestyle=next(styles, "--"),
                    linewidth=1,
                    label=f"{plot_text(label)} {value:.3f}",
                )
        labels = [groups[i] for i in index]
        slanted = max(map(len, labels)) > 6
        ax.set_xticks(x, labels, rotation=20 if slanted else 0, ha="right" if slanted else "center")
        ax.set_ylabel(plot_text(metric))
        ax.axhline(0, color="grey", linewidth=0.5)
    handles, texts = axes[0][0].get_legend_handles_labels()
    if hollow and any(any(v) for v in hollow.values()):
        from matplotlib.patches import Patch

        handles.append(Patch(facecolor="white", edgecolor="grey", hatch="///"))
        texts.append("hatched: no information (ties)")
    axes[0][-1].legend(
        handles, texts, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0
    )
    fig.suptitle(plot_text(title))
    return _image(fig, fmt)


def pr_curves(
    title: str, curves: Mapping[str, tuple[np.ndarray, np.ndarray, float]], fmt: str = "png"
) -> bytes:
    """Precision against recall, one step curve per system: (precision, recall, AP)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 3.8))  # the legend takes about 2 in of it
    for system, (precision, recall, ap) in curves.items():
        ax.step(
            np.r_[0, recall],
            np.r_[precision[:1], precision],
            where="pre",
            label=f"{_short(system)} (AP {ap:.3f})",
        )
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_title(plot_text(title))
    _legend_outside(ax)
    return _image(fig, fmt)


def scatter(
    title: str, panels: Sequence[tuple[str, np.ndarray, np.ndarray, str]], fmt: str = "png"
) -> bytes:
    """Human (gold) against system scores, a panel per system: (system, gold, score, label)."""
    plt = _pyplot()
    cols = min(4, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.9 * rows), squeeze=False)
    for ax, (system, gold, score, label) in zip(axes.flat, panels, strict=False):
        ax.scatter(gold, score, s=4, alpha=0.4)
        ax.set_title(f"{_short(system)}\n{plot_text(label)}", fontsize=8)
        ax.set_xlabel("gold", fontsize=8)
        ax.set_ylabel("system", fontsize=8)
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    fig.suptitle(plot_text(title))
    return _image(fig, fmt)


def _legend_outside(ax: Any) -> None:
    """The legend to the right of the axes, where it covers no bar or curve."""
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def _short(name: str, width: int = 28) -> str:
    """A system's name as a label: cut to ``width``, its ``$`` kept literal."""
    return plot_text(name if len(name) <= width else name[: width - 1] + "…")


def curves(
    title: str,
    series: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    xlabel: str,
    ylabel: str,
) -> bytes:
    """Lines, one per (x, y) series named ``"STYLE, COLOUR"``: series sharing the part after
    the comma share a colour, those sharing the part before it a line style (the campaign
    simulation: mode, target)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.6, 3.6))  # the legend beside it included
    colours = list(dict.fromkeys(label.partition(", ")[2] for label in series))
    styles = list(dict.fromkeys(label.partition(", ")[0] for label in series))
    for label, (x, y) in series.items():
        style, _, colour = label.partition(", ")
        ax.plot(
            x,
            y,
            label=_short(label),
            color=f"C{colours.index(colour)}",
            linestyle=("--", "-", ":", "-.")[styles.index(style) % 4],
        )
    ax.set_title(plot_text(title), fontsize=10)
    ax.set_xlabel(plot_text(xlabel))
    ax.set_ylabel(plot_text(ylabel))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return _image(fig)
