"""Image anchors: choose a distinctive crop around a pointer target, and find it on a screen.

Pure functions over RGB frames (H x W x 3, uint8); nothing here talks to X. OpenCV is
imported inside the functions so that importing this package stays cheap for `--help`.
Scores are normalized cross-correlation (cv2.TM_CCOEFF_NORMED) on grayscale, 1.0 = exact;
colour only breaks ties between places that grayscale cannot tell apart.

`choice` picks the crop when recording (choose_anchor), `locating` finds it when replaying
(locate); both search with the pieces in `search`.
"""

from .choice import DISTINCT_MARGIN, AnchorChoice, choose_anchor
from .locating import Located, Recorded, hints_after, locate

__all__ = ["DISTINCT_MARGIN", "AnchorChoice", "Located", "Recorded", "choose_anchor", "hints_after",
           "locate"]
