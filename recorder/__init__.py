"""deskreel's recorder: a person's input and screen, as vocabulary actions."""

from .reduce import DEFAULT_THRESHOLDS, Reduced, Thresholds, reduce_events
from .session import (DEFAULT_PAUSE_KEY, DEFAULT_STOP_KEY, RecordOptions, Recorder,
                      RecordSummary)

__all__ = ["DEFAULT_PAUSE_KEY", "DEFAULT_STOP_KEY", "DEFAULT_THRESHOLDS", "RecordOptions",
           "RecordSummary", "Recorder", "Reduced", "Thresholds", "reduce_events"]
