"""Plots of the rate region R (2-D and 3-D) with points marked; matplotlib Agg, returns the Figure.

**Quantity**: R projected onto 2 or 3 chosen clients (the projection of a polymatroid onto coordinates is
the polymatroid of the restricted rank function, so its extreme points are greedy vertices of g|_I).
"""

from __future__ import annotations

import numpy as np

from bounds.core.errors import UserInputError
from rate_region.availability import AvailabilityModel
from rate_region.region import extreme_points


def _figure(projection=None):
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 4.5))
    ax = fig.add_subplot(1, 1, 1, projection=projection)
    return fig, ax


def plot_region(model: AvailabilityModel, k=None, clients=None, points: dict[str, np.ndarray] | None = None,
                title: str | None = None):
    """R (or its projection onto ``clients``, 2 or 3 indices) with labelled points; returns a Figure."""
    from scipy.spatial import ConvexHull

    if clients is None:
        clients = list(range(min(model.n_clients, 3 if model.n_clients == 3 else 2)))
    clients = [int(c) for c in clients]
    if len(clients) not in (2, 3) or len(set(clients)) != len(clients):
        raise UserInputError("plot 2 or 3 distinct clients")
    if any(c < 0 or c >= model.n_clients for c in clients):
        raise UserInputError(f"client indices must lie in 0..{model.n_clients - 1}")
    V = extreme_points(model, k, clients)
    points = points or {}
    if len(clients) == 2:
        fig, ax = _figure()
        hull = ConvexHull(V)
        poly = V[hull.vertices]
        ax.fill(poly[:, 0], poly[:, 1], alpha=0.25, color="tab:blue", label="R")
        ax.plot(np.append(poly[:, 0], poly[0, 0]), np.append(poly[:, 1], poly[0, 1]), color="tab:blue")
        ax.scatter(V[:, 0], V[:, 1], s=12, color="tab:blue")
        for i, (label, pt) in enumerate(points.items()):
            pt = np.asarray(pt, float)[clients]
            ax.scatter([pt[0]], [pt[1]], s=40, marker="o^sDvP*"[i % 7], label=label, zorder=3)
            ax.annotate(label, pt, textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.set_xlabel(f"r_{clients[0]}")
        ax.set_ylabel(f"r_{clients[1]}")
        ax.set_xlim(0, max(1e-9, V[:, 0].max()) * 1.15 + 0.02)
        ax.set_ylim(0, max(1e-9, V[:, 1].max()) * 1.15 + 0.02)
    else:
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        fig, ax = _figure("3d")
        hull = ConvexHull(V)
        faces = [V[s] for s in hull.simplices]
        ax.add_collection3d(Poly3DCollection(faces, alpha=0.2, facecolor="tab:blue", edgecolor="tab:blue", linewidths=0.3))
        ax.scatter(V[:, 0], V[:, 1], V[:, 2], s=10, color="tab:blue")
        for i, (label, pt) in enumerate(points.items()):
            pt = np.asarray(pt, float)[clients]
            ax.scatter([pt[0]], [pt[1]], [pt[2]], s=40, marker="o^sDvP*"[i % 7], label=label)
        ax.set_xlabel(f"r_{clients[0]}")
        ax.set_ylabel(f"r_{clients[1]}")
        ax.set_zlabel(f"r_{clients[2]}")
        top = V.max(0) * 1.1 + 0.02
        ax.set_xlim(0, top[0])
        ax.set_ylim(0, top[1])
        ax.set_zlim(0, top[2])
    if points:
        ax.legend(fontsize=8, loc="upper right")
    ax.set_title(title or f"rate region of {model.name} ({len(clients)} of {model.n_clients} clients)")
    return fig


def plot_trajectory(run, clients=None):
    """r(t) of a SamplerRun (mean over runs) for chosen clients, with r* dashed; returns a Figure."""
    fig, ax = _figure()
    n = run.mean_trajectory.shape[1]
    clients = list(range(min(n, 4))) if clients is None else list(clients)
    for c in clients:
        line, = ax.plot(run.times, run.mean_trajectory[:, c], label=f"r_{c}(t)")
        if run.r_star is not None:
            ax.axhline(run.r_star[c], ls="--", color=line.get_color(), lw=0.8)
    ax.set_xlabel("round t")
    ax.set_ylabel("rate")
    ax.set_title(f"{run.sampler}, beta={run.beta:g} (dashed: r*)")
    ax.legend(fontsize=8)
    return fig
