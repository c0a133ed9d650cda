"""Every threshold of choosing an anchor, of finding it again and of checking what a step
did (replay --verify), named once, in one frozen object (PARAMS). The engine reads them
from here; a benchmark or a test may build another Params with dataclasses.replace() to see
what one value does. Scores are normalized
cross-correlation (1.0 = exact); "grey levels" are 0-255; "px" are of the recorded screen
unless a field says otherwise. No heavy imports: the command line declares its options with
the first two."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PARAMS", "Params"]


@dataclass(frozen=True, slots=True)
class Params:
    # --- what counts as found (the two the command line can change) ---
    threshold: float = 0.85  # least correlation that counts as the target
    margin: float = 0.05  # how clearly the best match must beat any look-alike

    # --- choosing an anchor when recording (choice.py) ---
    anchor_least: int = 24  # px: the smallest crop
    anchor_most: int = 240  # px: the largest crop with the target in its middle
    anchor_reach: int = 480  # px: the largest crop with the target towards a side or corner
    anchor_contrast: float = 10.0  # grey-level std a crop needs to say anything
    distinct_margin: float = 0.1  # how clearly a crop must beat its look-alikes to be distinctive
    growth: float = 1.5  # how much a crop grows per round
    exact_near: int = 48  # px around a crop checked exactly for look-alikes
    # A side of a one-row crop (at most cut_high px high) cuts through something when the
    # column just outside it differs from an empty column of the crop by more than cut grey
    # levels somewhere; the crop grows past it, to cut_more times its width at most.
    cut: int = 48
    cut_high: int = 36
    cut_more: float = 3.0
    label_gap: int = 5  # px of empty columns that end a label
    # A border: a column at most fence px beyond the grown crop, three quarters of whose
    # pixels differ by more than fence_shade grey levels from the crop's face.
    fence: int = 48
    fence_shade: float = 24.0
    strip_pad: int = 4  # px above and below an object that the strips of its row hold

    # --- twins: the object around a target, drawn alike elsewhere (twins.py) ---
    # When recording, an object that matches this well elsewhere on the same screen is drawn
    # alike: a twin. (A replay counts today's twins at its own threshold, so that a twin drawn
    # a little otherwise today, with a focus ring or a prelight, still counts.)
    twin_score: float = 0.95
    outline_reach: tuple[int, int] = (240, 80)  # px either side of the target looked in
    outline_least: tuple[int, int] = (20, 12)  # an outline smaller than this is a glyph
    outline_most: tuple[int, int] = (480, 120)  # and one larger is a container, not the object
    canny: tuple[int, int] = (20, 60)  # Canny thresholds: a 1 px border of 20 grey levels is one
    row_flat: float = 4.0  # grey-level std below which a row, twins painted out, says nothing
    same_instance: int = 3  # px: an instance this close to where a match puts the object is it
    # An object at least 2 * half_least px on each side is looked for at half resolution
    # first, where blur lowers a twin's score by up to half_loss.
    half_least: int = 6
    half_loss: float = 0.15
    outline_pad: int = 2  # px around a twin painted out with it: where its outline runs
    twins_most: int = 64  # places of one object counted at most: past it, a pattern or a table

    # --- searching a screen (search.py) ---
    peaks: int = 10  # candidates per search that are scored at full resolution
    peak_pool: int = 400  # local maxima considered when spreading those candidates out
    search_floor: float = 0.25  # correlation below which a place is not worth a closer look
    busy_edge: int = 2  # grey step a busy part of a screen has somewhere in every 3x3 square
    flat_norm: float = 1e-3  # a template's norm (mean taken off) below which it is flat
    same_place: int = 8  # px: a second match further than this from the best is a look-alike
    # The edges look (looks.py): each pixel's grey-level gradient (Sobel, 3x3), its square
    # root times edge_gain as a grey level, so faint edges (a border one shade off its
    # face) count beside strong ones (black text on white) and 0-255 holds them all.
    edge_gain: float = 8.0
    # A theme recolours a window, not one control: the edges look's place is taken only
    # where at least this share of the target's surroundings (the anchor's box grown by its
    # own size each way, theme_ring px at most, less the box, inside the recorded screen's
    # busy part: not the plain desktop around a window) changed from the recording.
    theme_changed_least: float = 0.5
    theme_ring: int = 48
    # A window's box is blank (xwindows.py) only where the recorder's masks hide at most
    # this share of it: a caret's (NEdit's is 0.1% of its text area), not a control's.
    blank_masked_most: float = 0.02
    blank_least: int = 16  # px: a smaller box (a check box, a thin bar) tells nothing by its blank

    # --- the 1x stage (locating.py, doubts.py, checks.py) ---
    window: int = 64  # px around the recorded place searched first
    flat: float = 1.0  # grey-level std below which an image has no pattern to correlate
    # Scales tried at the place of a 1x match that is not exact, and by how much one of them
    # must fit better to send the search to other scales.
    near_scales: tuple[float, ...] = (-0.1, -0.06, -0.03, 0.03, 0.06, 0.1)
    scale_lead: float = 0.01
    sure: float = 0.97  # a match this good is the recorded pixels, not merely similar ones
    inner: int = 32  # px: the square around the target that must match on its own
    inner_floor: float = 0.5  # least score of that square in a match that is not exact
    inner_flat: float = 4.0  # grey-level std below which that square has nothing to compare
    context_least: tuple[int, int] = (128, 72)  # px: the wider crop checking a doubtful match
    context_floor: float = 0.3  # least score of that wider crop
    context_pad: int = 3  # px the context may sit off where the anchor puts it (uneven scaling)
    parts_spread: float = 0.02  # how far from 1 the parts of a 1x match may put the scale

    # --- other scales (other_scales.py, scaling.py) ---
    # 0.8x to 1.25x in steps of ~8%, finer steps only around the best of them; 1.0 is left
    # out because the 1x stage tries it first.
    scales: tuple[float, ...] = (0.8, 0.86, 0.93, 1.08, 1.16, 1.25)
    fine_steps: tuple[float, ...] = (-0.04, -0.03, -0.02, -0.01, 0.01, 0.02, 0.03, 0.04)
    hint_steps: tuple[float, ...] = (-0.02, -0.01, 0.01, 0.02)  # around earlier steps' scale
    # A place at another scale, or changed around the target, is decided by its parts: this
    # share of them must fit there (and parts_margin more than at any other place).
    parts_score: float = 0.55
    alone_score: float = 0.75  # the same, for parts cut from the anchor alone (no screen)
    parts_margin: float = 0.1
    # The parts judge only places where the whole crop scores within worth of its best
    # place: a place it fits that much worse is not where it is (judging one costs a few ms).
    worth: float = 0.2
    candidates: int = 8  # places judged at most
    per_scale: int = 3  # the best places at each scale that the parts judge
    # When the parts of the neighbourhood cannot decide (and fit somewhere at least
    # wide_from), those of a wide one judge the wide_places likeliest places.
    wide_from: float = 0.3
    wide_places: int = 4
    wide_least: tuple[int, int] = (640, 480)  # px: the wide neighbourhood, at least
    wide_most: int = 128  # its parts at most

    # --- parts: the textured pieces around an anchor (parts.py) ---
    part_side: int = 24  # px: the side of a part
    texture: float = 8.0  # grey-level std a part needs to say anything
    parts_most: int = 48  # parts at most: the stride grows on big neighbourhoods
    parts_reach: int = 16  # px of the recorded screen around the anchor that parts come from
    parts_least: tuple[int, int] = (128, 72)  # px: the least neighbourhood parts come from
    level: int = 8  # px of the target's row or column that a part level with it is within
    border_even: float = 3.0  # a border line: grey-level std along it at most
    border_shade: float = 24.0  # and its contrast

    # --- fitting the parts found at a place (fitting.py, deciding.py) ---
    part_fit: float = 0.7  # least score of a part that counts as found
    fit_slack: float = 3.0  # px a found part may sit off the fit of all of them
    near_part: float = 24.0  # px: parts this close to the target weigh e times the next band
    say_falloff: float = 48.0  # px: how fast a part's say in the score falls with distance
    say_floor: float = 0.25  # the least say of a part
    # outside: stray parts fitted nonsense; 2.5 holds the 200% of a HiDPI desktop and its
    # fitting error (2.0 refused a 2x screen)
    sane_scales: tuple[float, float] = (0.5, 2.5)
    # An object found in a box whose width and height grew within this fraction of each
    # other tells the screen's scale by it (objects.py); more apart, its layout stretched it
    box_scale_agree: float = 0.06
    # A target is placed surely enough along an axis when a part within pin_reach px places
    # it, or the flat stretch it was in does, or the fit's one-sigma error there is at most
    # pin_spread px and the target was in no flat stretch along it, or in one found again.
    pin_reach: int = 96
    pin_spread: float = 0.5
    # px a target placed from afar may be put off: by a part found level with it when the
    # target is further than near_part px from its nearest part, and by the difference
    # between the parts' scale and the known one.
    far_off: float = 2.0
    scale_agree: float = 0.02  # how close the parts' scale must be to the known one to hold it
    apart: int = 8  # px between two targets that count as two places

    # --- flat stretches: a target placed by the ends of the flat run it is in ---
    # (stretches.py) the run of its shade (within span_shade grey levels), at least span_least
    # px long, found again today with a length the parts' scale explains within span_agree,
    # looked for along the lines span_across px across the way.
    span_least: int = 48
    span_shade: int = 2
    span_agree: float = 0.03
    span_across: tuple[int, ...] = (0, -1, 1)

    # --- verify: what a step changed, found again after it (matching/compare/: effects.py,
    # content.py, scaled.py, recolour.py); the user's own tolerances are VerifyOptions ---
    effect_pad: int = 6  # px of context around a changed region
    # px around a changed pixel that are its anti-aliased edge: part of the change, never
    # of an effect's context (compare/content.py)
    change_halo: int = 2
    # share of what a step had to draw at a place (the recorded change's pixels that today's
    # screen did not show before the step) that today's step must have drawn there for the
    # effect's context to be excused (compare/content.py)
    drawn_share: float = 0.5
    # steps before one whose before-frames an effect may have restored (a menu or a dialog
    # they opened, closed: compare/restored.py); the replay keeps today's screen before each
    restored_back: int = 3
    effect_join: int = 9  # px: changed pixels closer than this are one region (a square's side)
    effect_least: int = 30  # px: smaller changes (a caret blink) are not effects
    # A text caret, as every toolkit draws it: a bar at most this many px wide and this many
    # tall (one line of text up to 36 pt). A failed step is judged again on its screen's
    # other looks (replayer/verify.py) only where what changed between them is such bars.
    caret_widest: int = 3
    caret_tallest: int = 48
    looks_kept: int = 4  # screens remembered while watching: a caret has two looks, on and off
    effects_most: int = 6  # changed regions checked per step at most
    # places checked per step at most that changed today where the recording shows no change
    # (compare/unrecorded.py), the recorded effects and the masks left out first
    unrecorded_most: int = 12
    around_press: tuple[int, int] = (96, 48)  # px around a press not looked for
    content_near: int = 48  # px around the expected place searched before the whole screen
    far_tries: int = 8  # places far away, best first, checked for content that appeared there
    resize_context: int = 4  # px (recorded) around a region resized and blurred with it
    verify_blur: float = 1.0  # px (sigma, today's) of the blur scaled regions are compared under
    verify_part: int = 16  # px (recorded) of the parts a scaled region is compared by
    verify_slack: int = 4  # px (today's) a part may lie from where its neighbours put it
    verify_flat_slack: int = 2  # the same, for a part without detail (it hides what is beside it)
    verify_contrast: float = 1.5  # how much more or less contrast than recorded a part may have
    verify_half: int = 6  # px (today's): a part is looked for by halves when they are this wide
    same_gain: float = 0.1  # a recolouring gain within this of 1: no theme change
    least_gain: float = 1 / 3  # least share of the recorded contrast a theme keeps
    # The X-window rung (xwindows.py): px of a window's rim left out when what it shows is
    # compared, where toolkits draw hover and focus rings (Athena's highlight, Tk's
    # highlightthickness, Motif's shadow: 1 to 3 px; GTK's focus outline and shadow); the
    # recorder (aiming.py) leaves it to the object as well when its look changes
    # under the pointer
    window_rim: int = 3
    # Look-alike windows (twins) read one by one to tell the pressed one by what it says, at
    # most this many on each screen: a reading costs about 15 ms, and a step that needs the
    # recogniser may take 100 ms more (issue 32); more twins than that, the pixels decide
    twins_read_most: int = 3
    # Text recognition (reading.py): the recogniser's least score for a confident reading
    # (its own confidence, 0 to 1), and the least side (px) of a box it is given
    read_sure: float = 0.7
    read_least: int = 8
    # Two confident readings less alike than this (difflib's ratio: 2 x matched characters /
    # all characters) name different things; closer, one may be a slip of the recogniser,
    # which reads a character wrong at another size, sure of it ("Double-lick me" at 1.25x)
    read_renamed: float = 0.6


PARAMS = Params()
