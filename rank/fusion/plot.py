"""The (graph weight, k) Hit@1 heatmap of a static-RRF grid search, as PNG and markdown."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from rank.fusion.grid import GridResult


def heatmap_png(grid: GridResult, path: Path) -> Path:
    """Draw Hit@1 over (graph weight w, k) with the best cell marked; returns `path`."""
    figure = Figure(figsize=(6.5, 7.0))
    axes = figure.add_subplot(1, 1, 1)
    image = axes.imshow(grid.heatmap, cmap="viridis", aspect="auto", origin="lower")
    row, col = np.unravel_index(int(np.argmax(grid.heatmap)), grid.heatmap.shape)
    axes.scatter([col], [row], marker="*", color="red", s=80)
    axes.set_xticks(range(len(grid.ks)), [f"{k:g}" for k in grid.ks])
    step = max(1, len(grid.weights_axis) // 10)
    ticks = list(range(0, len(grid.weights_axis), step))
    axes.set_yticks(ticks, [f"{grid.weights_axis[i]:.2f}" for i in ticks])
    axes.set_xlabel("RRF constant k")
    axes.set_ylabel("graph (first source) weight w")
    axes.set_title(f"validation Hit@1 of static RRF ({grid.questions} questions)")
    figure.colorbar(image, ax=axes, shrink=0.8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    return path
