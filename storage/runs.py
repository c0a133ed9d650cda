"""Reading and writing replay runs and the result of each of their steps. `Store` has these
methods; each is a transaction of its own."""

from __future__ import annotations

import json
import socket
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, case, func, select

from . import schema as s
from .rows import inserted_id, result_of, result_row, utc
from .values import Run, StepResult

__all__ = ["RunMethods"]


class RunMethods:
    """The run half of `Store`."""

    engine: Engine

    def start_run(self, recording_id: int, *, mode: str, options: dict[str, Any]) -> int:
        with self.engine.begin() as conn:
            return inserted_id(
                conn.execute(
                    s.runs.insert().values(
                        recording_id=recording_id,
                        started=datetime.now(UTC),
                        status="running",
                        mode=mode,
                        host=socket.gethostname(),
                        options=json.dumps(options),
                    )
                )
            )

    def add_step_results(self, run_id: int, results: Sequence[StepResult]) -> None:
        """Store the outcomes of a run's steps in one transaction."""
        if not results:
            return
        with self.engine.begin() as conn:
            conn.execute(s.step_results.insert(), [result_row(run_id, r) for r in results])

    def finish_run(self, run_id: int, status: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                s.runs.update()
                .where(s.runs.c.id == run_id)
                .values(status=status, ended=datetime.now(UTC))
            )

    def runs(self, recording_id: int | None = None) -> list[Run]:
        r, sr = s.runs.c, s.step_results.c
        passed = func.sum(case((sr.status == "passed", 1), else_=0))
        failed = func.sum(case((sr.status == "failed", 1), else_=0))
        query = (
            select(
                r.id,
                r.recording_id,
                r.started,
                r.ended,
                r.status,
                r.mode,
                func.coalesce(passed, 0),
                func.coalesce(failed, 0),
            )
            .select_from(s.runs.outerjoin(s.step_results, sr.run_id == r.id))
            .group_by(r.id)
            .order_by(r.id)
        )
        if recording_id is not None:
            query = query.where(r.recording_id == recording_id)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [
            Run(id_, rec, utc(started), utc(ended), *rest)
            for id_, rec, started, ended, *rest in rows
        ]

    def step_results(self, run_id: int) -> list[StepResult]:
        sr = s.step_results.c
        with self.engine.connect() as conn:
            rows = (
                conn.execute(select(s.step_results).where(sr.run_id == run_id).order_by(sr.step))
                .mappings()
                .all()
            )
        return [result_of(row) for row in rows]
