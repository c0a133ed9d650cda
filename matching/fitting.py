"""Fitting the parts found at a place: a position and a scale for all of them together, the
score, where they put the target, and whether they put it there surely enough.

Each part found says where the recorded neighbourhood is and at what scale; a least-squares
fit over them throws out those that disagree with the rest (parts.py cuts and looks for the
parts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .params import PARAMS as P
from .search import Point, Scores

__all__ = ["PartsFit", "Table", "sharpness"]

# One row per part: score, x, y (found), ox, oy (recorded), and how sharply the score peaks
# along x and along y.
Table = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class PartsFit:
    """The parts found at a place, fitted together: x0, y0, s with found = (x0, y0) + s *
    recorded place, and which parts the fit keeps."""

    table: Table
    good: npt.NDArray[np.bool_]  # the parts the fit keeps
    solution: npt.NDArray[np.float64]  # x0, y0, s
    held: float | None  # the scale the fit was held to, if it was
    centres: npt.NDArray[np.float64]  # of the parts on the recorded neighbourhood
    target: Point  # the recorded target, on the recorded neighbourhood

    @classmethod
    def of(cls, table: Table, target: Point, side: int, held: float | None) -> PartsFit | None:
        """The fit of the parts in `table` (`side` px square, around `target`), held to the
        scale `held` when given: twice, the second time without the parts that the first
        fit puts more than P.fit_slack px off. None when fewer than two parts are left, or the
        scale is not a sane one."""
        good = table[:, 0] >= P.part_fit
        fit = None
        for _ in range(2):
            if good.sum() < 2:
                break
            fit = _solve(table[good], held)[0]
            off = np.abs(table[:, 1:3] - _predict(fit, table[:, 3:5])) * table[:, 5:7]
            good = (table[:, 0] >= P.part_fit) & (off.max(axis=1) <= P.fit_slack)
        if fit is None or good.sum() < 2 or not P.sane_scales[0] <= fit[2] <= P.sane_scales[1]:
            return None
        return cls(table, good, fit, held, table[:, 3:5] + side / 2, target)

    @property
    def scale(self) -> np.float64:
        """The scale the parts fit best."""
        scale: np.float64 = self.solution[2]
        return scale

    def score(self) -> float:
        """The share of the parts found where the fit puts them, score-weighted."""
        # Parts near the target count for more: a neighbouring row of a list fits most
        # parts of a wide crop, but not the ones on the target's own text.
        table, centres, (tx, ty) = self.table, self.centres, self.target
        near = P.say_floor + np.exp(
            -np.hypot(centres[:, 0] - tx, centres[:, 1] - ty) / P.say_falloff
        )
        return float((np.clip(table[:, 0], 0, 1) * self.good * near).sum() / near.sum())

    def says(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Where each part says the target is (every part, kept or not), and where the kept
        parts say it is together."""
        # Each found part says where the target is relative to itself, along the axes it is
        # sure of; nearer parts say it with more weight.
        table, good, (tx, ty) = self.table, self.good, self.target
        kept = table[good]
        weight = (kept[:, 0] * np.exp(-self._distance() / P.near_part))[:, None] * kept[
            :, 5:7
        ] + 1e-9
        says_all = table[:, 1:3] + (np.array([tx, ty]) - table[:, 3:5]) * self.scale
        says = says_all[good]
        return says_all, (says * weight).sum(axis=0) / weight.sum(axis=0)

    def pins(
        self,
        level: npt.NDArray[np.bool_],
        says_all: npt.NDArray[np.float64],
        point: npt.NDArray[np.float64],
        spanned: list[bool | None],
    ) -> tuple[float, float, bool]:
        """How surely the parts place the target at `point`: along the worse axis, how far
        it is from the nearest part that pins it down and how surely the fit of all of them
        places it (px); and whether it is placed surely enough along both.

        `level` says, per part and axis, whether the part is level with the target in its
        widget; `says_all` is where each part says the target is (says()); `spanned`, per
        axis, whether the flat stretch the target was in placed it (None: there was none).
        """
        # Along each axis: how far the target is from the nearest part that pins it down,
        # how surely the fit of all of them places it (one standard deviation, px), and
        # whether that is sure enough: a part near it, the flat stretch it was in, or a
        # tight fit; and no part level with the target contradicts it.
        table, kept, (tx, ty) = self.table, self.table[self.good], self.target
        distance = self._distance()
        _, covariance = _solve(kept, self.held)
        reach, spread, sure = [], [], []
        for axis, v in enumerate(((1.0, 0.0, tx), (0.0, 1.0, ty))):
            pin = distance[kept[:, 5 + axis] >= 0.5]
            reach.append(float(pin.min()) if pin.size else math.inf)
            spread.append(math.sqrt(max(0.0, float(np.array(v) @ covariance @ np.array(v)))))
            # A part level with the target along this axis places it there whatever the
            # scale is, even one the fit threw out: a list's rows keep to the font while the
            # list's box scales, and a target far from every part is placed by the box.
            along = level[:, axis] & (table[:, 5 + axis] >= 0.5) & (table[:, 0] >= P.part_fit)
            off = (
                float(np.abs(says_all[along, axis] - point[axis]).max())
                if along.any() and reach[axis] > P.near_part
                else 0.0
            )
            # A tight fit of far parts does not place it where the stretch it was in is not
            # found today (the fit may be a row off, or the stretch gone).
            sure.append(
                (
                    reach[axis] <= P.pin_reach
                    or spanned[axis] is True
                    or (spread[axis] <= P.pin_spread and spanned[axis] is None)
                )
                and off <= P.far_off
            )
        return max(reach), max(spread), all(sure)

    def _distance(self) -> npt.NDArray[np.float64]:
        """How far each kept part's centre is from the target, on the recorded screen."""
        centres, good, (tx, ty) = self.centres, self.good, self.target
        distance: npt.NDArray[np.float64] = np.hypot(centres[good, 0] - tx, centres[good, 1] - ty)
        return distance


def sharpness(result: Scores, x: int, y: int, score: float) -> tuple[float, float]:
    """How surely a peak of a correlation map is placed along x and along y, 0 to 1: the
    drop in score 2 px to either side (a drop of 0.2 or more is sure)."""
    h, w = result.shape
    across = [float(result[y, i]) for i in (x - 2, x + 2) if 0 <= i < w]
    down = [float(result[j, x]) for j in (y - 2, y + 2) if 0 <= j < h]
    along_x, along_y = (
        min(1.0, max(0.0, score - max(side, default=score - 0.2)) / 0.2) for side in (across, down)
    )
    return along_x, along_y


def _solve(
    rows: Table, scale: float | None = None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Least squares x0, y0, s with found = (x0, y0) + s * place, each axis weighted by the
    part's score and how sure it is along that axis, and its covariance (from the weighted
    residuals); with `scale`, s is that and only x0, y0 are fitted (s's variance is 0)."""
    n = len(rows)
    a: npt.NDArray[np.float64] = np.zeros((2 * n, 3))
    a[:n, 0], a[n:, 1] = 1, 1
    a[:n, 2], a[n:, 2] = rows[:, 3], rows[:, 4]
    b = np.concatenate([rows[:, 1], rows[:, 2]])
    w = np.sqrt(np.concatenate([rows[:, 0] * rows[:, 5], rows[:, 0] * rows[:, 6]]) + 1e-9)
    if scale is not None:
        b, a = b - scale * a[:, 2], a[:, :2]
    aw, bw = a * w[:, None], b * w
    solution, *_ = np.linalg.lstsq(aw, bw, rcond=None)
    residual = bw - aw @ solution
    dof = max(1, int((w > 0.1).sum()) - a.shape[1])
    # A floor on the residual: parts are placed to the whole pixel.
    variance = max(float(residual @ residual) / dof, 0.25)
    covariance = np.zeros((3, 3))
    try:
        covariance[: a.shape[1], : a.shape[1]] = variance * np.linalg.inv(aw.T @ aw)
    except np.linalg.LinAlgError:
        covariance[:] = np.inf
    if scale is not None:
        solution = np.append(solution, scale)
    return solution, covariance


def _predict(fit: npt.NDArray[np.float64], places: Table) -> npt.NDArray[np.float64]:
    predicted: npt.NDArray[np.float64] = fit[:2] + fit[2] * places
    return predicted
