"""FrameTimeline, the recorder's frames in time: which frame an action saw before it and
which one after; pure, no X server."""

from deskreel.recorder.screen import FrameTimeline


def grabbed(times, **limits):
    """A timeline with one distinct 2x2 frame first grabbed at each of `times`, each seen
    again by the grabs up to the next one (10 fps)."""
    timeline = FrameTimeline(**limits)
    times = list(times)
    for n, t in enumerate(times):
        timeline.add(t, n, 2, 2, bytes(16))
        end = times[n + 1] if n + 1 < len(times) else t + 0.05
        grab = t + 0.1
        while grab < end - 1e-9:
            timeline.add(grab, n, 2, 2, bytes(16))
            grab += 0.1
    return timeline


def test_before_is_the_frame_on_screen_at_the_action():
    timeline = grabbed([0.0, 1.0, 2.0])
    assert timeline.before(1.5).t_first == 1.0
    assert timeline.before(1.0).t_first == 1.0
    assert timeline.before(0.99).t_first == 0.0
    assert timeline.before(-0.1) is None  # before the first grab: nothing was seen yet


def test_the_ring_keeps_the_frames_an_open_chunk_needs():
    """Regression: after 600 frames of a busy chunk its first action's before-frame was
    dropped, and before() returned the oldest frame left: one taken after the action."""
    timeline = grabbed([i / 10 for i in range(700)])  # 70 s of a changing screen
    assert timeline.before(5.0) is None  # dropped: no frame rather than a later one
    assert timeline.settled_after(5.0, settle=0.05, limit=7.0, now=70.0) is None
    kept = FrameTimeline()
    kept.keep_from = 5.0  # the open chunk began at 5 s
    for i in range(700):
        kept.add(i / 10, i, 2, 2, bytes(16))
    assert kept.before(5.0).t_first == 5.0 and kept.before(5.05).t_first == 5.0
    assert kept.before(4.9) is None  # not needed, so the ring let it go
    assert len(kept) == 650


def test_held_frames_give_way_past_the_byte_cap():
    timeline = FrameTimeline(max_frames=10, max_bytes=40 * 30)
    timeline.keep_from = 0.0
    for i in range(100):
        timeline.add(i / 10, i, 2, 2, bytes(range(16)))  # ~24 bytes each compressed
    assert 10 < len(timeline) < 100
    assert timeline.before(0.0) is None  # the oldest went: none, not a later frame


def test_settled_after_waits_for_the_screen_to_stay_still():
    # the action at 1.0 starts an animation: frames at 1.1 and 1.2, then still from 1.3
    timeline = grabbed([0.0, 1.1, 1.2, 1.3])
    timeline.add(1.9, 3, 2, 2, bytes(16))  # the screen still the same at 1.9
    assert timeline.settled_after(1.0, settle=0.4, limit=3.0, now=1.9).t_first == 1.3
    # not settled for 0.4 s yet, and the limit not reached: unknown for now
    assert timeline.settled_after(1.0, settle=0.8, limit=3.0, now=1.9) is None
    # the limit came first: the frame on screen at the limit
    assert timeline.settled_after(1.0, settle=0.8, limit=1.25, now=1.9).t_first == 1.2
    assert timeline.settled_after(1.0, settle=0.8, limit=3.0, now=3.0).t_first == 1.3


def test_a_frame_seen_once_before_a_late_grab_is_not_settled():
    # the step at 1.0 closes a menu: the grab at 1.05 still shows it, and the next grab
    # comes late, at 1.6 (a busy machine), showing it closed; seen again at 2.0
    timeline = FrameTimeline()
    for t, crc in ((0.0, 0), (1.05, 1), (1.6, 2), (2.0, 2)):
        timeline.add(t, crc, 2, 2, bytes(16))
    assert timeline.settled_after(1.0, settle=0.3, limit=3.0, now=2.0).t_first == 1.6


def test_between_keeps_a_chunks_frames_while_the_ring_moves_on():
    timeline = grabbed([0.0, 1.0, 2.0, 3.0])
    piece = timeline.between(1.5, 2.5)
    assert [f.t_first for f in piece._frames] == [1.0, 2.0]
    timeline.forget_before(10.0)
    assert timeline.before(1.5) is None and piece.before(1.5).t_first == 1.0
    assert piece.settled_after(2.0, settle=0.3, limit=4.0, now=4.0).t_first == 2.0


def test_forget_before_keeps_the_frame_on_screen_then():
    timeline = FrameTimeline()
    for n, t in enumerate([0.0, 1.0, 5.0]):  # grabbed once each (grabs were paused)
        timeline.add(t, n, 2, 2, bytes(16))
    timeline.forget_before(3.0)
    assert timeline.before(3.0).t_first == 1.0  # on screen from 1.0 until 5.0
