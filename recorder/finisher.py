"""The finisher: a thread that gives the reduced steps their frames, anchors and windows,
and stores them.

Encoding frames takes seconds, so it runs apart from the writer loop, which meanwhile
keeps committing raw events and hears a stop. Jobs come through a queue; None ends it.
An exception here stops storing steps; `check` re-raises it on the loop's thread.

When it falls behind (another job waits while it starts one), or is told to hurry (a second
Ctrl-C after the stop), it sheds what matters least: the look at rest of a pointer step's
target (its anchor is then cut from the hovered look alone) and the animation masks. It
never sheds a step or a step's before- and after-frames. `shed` counts the steps each was
shed for; the recording's `extra` keeps it.
"""

from __future__ import annotations

import functools
import threading
from collections import Counter
from dataclasses import replace
from collections.abc import Callable
from typing import Any, NamedTuple

from deskreel.xsession.images import encode_png, encode_webp, pixel_hash
from deskreel.storage import Anchor, Step, Widget
from deskreel.storage.widgets import Box
from deskreel.storage.vocabulary import Action
from deskreel.storage.told import StepTold

from .jobs import JobQueue
from .pieces import Job
from .privacy import TypingRedaction
from .reduce import Reduced
from .aiming import object_of_press
from .meaning import said_after
from .told import told_for_step
from .animation import StepFrames, animated_masks
from .animating import widened
from .still import animating_before, still_apart
from .rest import anchor_in_two_looks, at_rest, calm_since, meets, pointer_path
from .screen import Frame, FrameTimeline
from .writing import StoreWrites

__all__ = ["SHED_MASKS", "SHED_REST", "Finisher"]

SHED_REST = "looks at rest"  # what `shed` counts, as `show` says it
SHED_MASKS = "animation masks"


class Framed(NamedTuple):
    """A step's frames: its before- and after-frame as stored (their keys), its anchor, when
    the after-frame was on screen (_on_screen), and the two frames as chosen, before
    redaction, with whether the screen was seen to settle in the after-frame (not when the
    next step began or the recording ended while it still changed); `calm`: the boxes of
    the animating objects the after-frame settled apart from (still.py), masked for it."""

    before: str | None
    after: str | None
    anchor: Anchor | None
    shown: tuple[float, float] | None
    chosen: StepFrames
    calm: tuple[Box, ...] = ()


class Finisher:
    """Stores each job's steps: as a context manager, the thread runs inside the block, and
    leaving it waits for every job handed on before."""

    def __init__(
        self,
        jobs: JobQueue,
        writes: StoreWrites,
        recording_id: int,
        *,
        frames: bool,
        settle: float,
        settle_cap: float,
        redaction: TypingRedaction,
        objects: Callable[[tuple[int, int]], Widget | None] | None = None,
    ):
        self.jobs, self.writes, self.recording_id = jobs, writes, recording_id
        self.frames, self.settle, self.settle_cap = frames, settle, settle_cap
        self.redaction = redaction
        # the object at a point of the screen (animating.ObjectsAt), which tells an animated
        # region's whole box; None: regions stay as seen
        self.objects = objects
        self._at: Callable[[tuple[int, int]], Widget | None] | None = None  # one job's
        self._frame_keys: dict[int, str] = {}  # id(Frame) -> stored hash
        self._latest: tuple[Frame | None, Any] = (None, None)  # last stored, its pixels as stored
        self.frames_stored = self.frame_bytes = 0
        self.hurry = threading.Event()  # shed what may be shed, whether behind or not
        self.shed: Counter[str] = Counter()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="deskreel-finisher", daemon=True)

    def __enter__(self) -> Finisher:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.jobs.put(None)
        self._thread.join()

    def check(self) -> None:
        """Re-raise what stopped the finisher, if anything did."""
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        while (job := self.jobs.get()) is not None:
            if self._error is not None:
                continue  # stopped storing: the loop reports it
            try:
                self._store_steps(job)
            except BaseException as err:
                self._error = err
            finally:
                self.jobs.done()

    def _store_steps(self, job: Job) -> None:
        behind = self.jobs.waiting() > 0
        steps, chosen = [], {}
        calm: dict[int, tuple[Box, ...]] = {}
        self._at = self._objects_at()
        previous: float | None = None  # when the input step before ended
        for n, (number, r) in enumerate(job.numbered):
            following = _next_input(job.numbered[n + 1 :])
            lean = behind or self.hurry.is_set()
            step, framed = self._step(number, r, job, (previous, following), lean=lean)
            steps.append(step)
            if framed is not None:
                chosen[number] = framed.chosen
                calm[number] = framed.calm
            if r.action.action != "wait":
                previous = r.t_end
        self.writes.call(self.writes.store.add_steps, self.recording_id, steps)
        self.writes.steps += len(steps)
        self._frame_keys.clear()
        masks: dict[int, list[Box]] = {}
        if self.frames and (behind or self.hurry.is_set()):
            self.shed[SHED_MASKS] += sum(r.action.action != "wait" for _, r in job.numbered)
        elif self.frames:  # what moved while nobody touched anything: no step's effect
            at = self._at
            for number, boxes in animated_masks(
                job, settled=self.settle_cap, frames=chosen
            ).items():
                masks[number] = widened(boxes, at) if at is not None else boxes
        for number, held in calm.items():  # an after-frame taken as settled masks them
            mine = masks.setdefault(number, [])
            mine += [b for b in held if b not in mine]
        for number, stored in masks.items():
            for box in stored:
                self.writes.call(self.writes.store.add_mask, self.recording_id, box, step=number)

    def _objects_at(self) -> Callable[[tuple[int, int]], Widget | None] | None:
        """`objects`, each point asked once for one job."""
        return None if self.objects is None else functools.cache(self.objects)

    def _step(
        self,
        number: int,
        r: Reduced,
        job: Job,
        around: tuple[float | None, float | None],
        *,
        lean: bool,
    ) -> tuple[Step, Framed | None]:
        """The step to store, and its frames (None for a wait, or without frames).
        `around`: when the input step before it ended and the one after it began (None:
        not in this job)."""
        following = around[1]
        events = (job.first_seq + r.first, job.first_seq + r.last) if r.first >= 0 else None
        window = job.timeline.window_at(job.t0 + r.t_start)
        action = self.redaction.action(r.action)
        framed = None
        if self.frames and action.action != "wait":
            framed = self._frames(r, action, job, around, lean=lean)
        after = framed.after if framed else None
        step = Step(
            step=number,
            action=action,
            t_start=r.t_start,
            t_end=r.t_end,
            events=events,
            before_frame=framed.before if framed else None,
            after_frame=after,
            anchor=framed.anchor if framed else None,
            window_class=window.window_class if window else None,
            window_title=window.title if window else None,
            widget=self._widget(r, job, framed.shown if framed else None),
            after_settled=framed.chosen.settled if framed and after is not None else None,
            told=self._told(r, job, framed.shown if framed else None, following),
        )
        return step, framed

    def _widget(self, r: Reduced, job: Job, shown: tuple[float, float] | None) -> Widget | None:
        """What the step's press was on, as the toolkit said (recorder/aiming.py), and
        what it said of itself while its after-frame was on screen (`shown`: from when,
        until when; meaning.py)."""
        target = r.action.target
        if not r.action.is_pointer or target is None or r.action.action == "mouse_move":
            return None
        press = job.t0 + r.t_start
        presses = [job.t0 + e.t for e in job.events if e.kind == "button_down"]
        found = object_of_press(job.timeline, press, target, presses, frames=self.frames)
        if found is not None and shown is not None:
            start = max(job.t0 + r.t_end, shown[0])
            found = replace(found, after=said_after(job.timeline, found, target, start, shown[1]))
        return None if found is None else self.redaction.widget(found)

    def _told(
        self, r: Reduced, job: Job, shown: tuple[float, float] | None, following: float | None
    ) -> StepTold | None:
        """What the window of the step's target told before it, once its effect was drawn
        and before the next step (told.py); none under redaction, as no object is kept
        then."""
        if not self.frames or self.redaction.enabled or r.action.action == "wait":
            return None
        drawn = None if shown is None else (max(job.t0 + r.t_end, shown[0]), shown[1])
        until = None if following is None else job.t0 + following
        return told_for_step(job.timeline, job.t0 + r.t_start, drawn, r.action.target, until)

    def _frames(
        self,
        r: Reduced,
        action: Action,
        job: Job,
        around: tuple[float | None, float | None],
        *,
        lean: bool,
    ) -> Framed:
        """The step's frames (Framed); `action` is the step's, redacted."""
        t0, timeline, now = job.t0, job.timeline, job.now
        previous, following = around
        before_frame = timeline.before(t0 + r.t_start)
        limit = t0 + r.t_end + self.settle_cap
        if following is not None:
            limit = min(limit, t0 + following)
        after_frame = timeline.settled_after(
            t0 + r.t_end,
            settle=self.settle,
            limit=limit,
            now=now if not job.final else max(now, limit),
        )
        settled = after_frame is not None and after_frame.settled(t0 + r.t_end, self.settle)
        calmed: tuple[Box, ...] = ()
        if after_frame is not None and not settled and not lean and self._at is not None:
            # still but for what its toolkit animates, which moved before the step too
            since = t0 + (r.t_start - self.settle_cap if previous is None else previous)
            boxes = animating_before(timeline, since, t0 + r.t_start, self._at)
            calm = still_apart(timeline, t0 + r.t_end, settle=self.settle, limit=limit, boxes=boxes)
            if calm is not None:
                after_frame, settled, calmed = calm, True, tuple(boxes)
        shown = None if after_frame is None else _on_screen(timeline, after_frame, limit)
        chosen = StepFrames(before_frame, after_frame, settled)
        before_frame, after_frame = self.redaction.frames(action, before_frame, after_frame)
        before, pixels = self._store_frame(before_frame)
        anchor = None
        if pixels is not None and r.action.is_pointer and r.action.target:
            # before the after-frame is hidden: typing that frame no longer shows is
            # forgotten then, and the frames at rest, older, may show it still
            rest = None
            if lean:
                self.shed[SHED_REST] += 1
            else:
                rest = self._at_rest(pixels, r, job, before_frame)
            anchor = rest or _anchor(pixels, r.action.target)
        after, _ = self._store_frame(after_frame)
        return Framed(before, after, anchor, shown, chosen, calmed)

    def _at_rest(self, pixels: Any, r: Reduced, job: Job, before: Frame | None) -> Anchor | None:
        """The anchor in two looks (rest.py): at rest, from a frame shown while the pointer
        came onto the target, and hovered, from `pixels`; None when no frame shows it at
        rest otherwise."""
        target = r.action.target
        if target is None or r.first < 0 or not job.events:
            return None
        from deskreel.matching import grayscale
        from deskreel.matching import object_box

        calm = calm_since(job.events, r.first, r.last)
        if calm is None:
            return None
        frames = [
            f
            for f in job.timeline.shown_between(job.t0 + calm[0], job.t0 + calm[1])
            if f is not before
        ]
        found = at_rest(
            frames,
            pixels,
            target,
            lambda start, end: pointer_path(job.events, start - job.t0, end - job.t0),
            lambda rgb: self.redaction.hide(rgb, forget=False),
            job.t0 + calm[0],
            object_box(grayscale(pixels), target),
        )
        if found is None:
            return None
        anchor = anchor_in_two_looks(pixels, found.pixels, target)
        # another region the hover changed (a status tip) stays out of the anchor: redacted
        # typing an older frame failed to hide would change one too
        return None if meets(anchor.box, found.apart) else anchor

    def _store_frame(self, frame: Frame | None) -> tuple[str | None, Any]:
        """Store a frame, redacted typing painted out of it: its key, and the pixels stored
        (kept for the latest frame only, which is the next step's before-frame; else None)."""
        if frame is None:
            return None, None
        key = self._frame_keys.get(id(frame))
        if key is None:
            rgb = self.redaction.hide(frame.pixels())
            data = encode_webp(rgb)
            key = self.writes.call(
                self.writes.store.put_frame,
                data,
                width=frame.width,
                height=frame.height,
                fmt="webp",
                pixel_hash=pixel_hash(rgb),
            )
            self._frame_keys[id(frame)] = key
            self._latest = (frame, rgb)
            self.frames_stored += 1
            self.frame_bytes += len(data)
        return key, self._latest[1] if self._latest[0] is frame else None


def _anchor(pixels: Any, target: tuple[int, int]) -> Anchor | None:
    """Cut from the pixels stored as the step's before-frame."""
    from deskreel.matching import choose_anchor

    x, y = target
    if not (0 <= x < pixels.shape[1] and 0 <= y < pixels.shape[0]):
        return None
    choice = choose_anchor(pixels, target)
    bx, by, bw, bh = choice.box
    return Anchor(
        png=encode_png(pixels[by : by + bh, bx : bx + bw]),
        box=choice.box,
        offset=choice.offset,
        score=choice.score,
        margin=choice.margin,
        twins=choice.twins,
    )


def _next_input(later: list[tuple[int, Reduced]]) -> float | None:
    """When the first of the `later` steps that is input began (a `wait` is none: the
    screen it shows is the step before it settling); None: none in this job."""
    return next((r.t_start for _, r in later if r.action.action != "wait"), None)


def _on_screen(timeline: FrameTimeline, frame: Frame, limit: float) -> tuple[float, float]:
    """From when to when `frame` was on screen, as far as the grabs tell: until the next
    frame replaced it, and never past `limit` (the next step's start, or the end of the
    after-frame's settling)."""
    later = [f for f in timeline.shown_between(frame.t_first, limit) if f.t_first > frame.t_first]
    return frame.t_first, min([limit, *(f.t_first for f in later[:1])])
