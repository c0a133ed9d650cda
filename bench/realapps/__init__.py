"""The re-anchoring corpus of real applications (issue 19): software nobody here wrote,
recorded doing a short task, then shown again in scenarios (pointer elsewhere, moved,
resized, bigger fonts, another theme, a target removed or renamed). The truth of where each
target is comes from the toolkit itself: the accessibility tree (AT-SPI) or the X window
tree, never from deskreel's matching.

- `desktop`: a private X session with a D-Bus session bus and the AT-SPI registry.
- `truth`: the widgets on screen, from AT-SPI or the X window tree, and which one a point hits.
- `catalog`: the applications, their tasks and how each scenario changes them.
- `corpus`: records the tasks and shoots every scenario's screens, with their truth.
"""
