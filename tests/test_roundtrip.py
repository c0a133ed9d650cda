"""The round trip on real X: scripts generated over the whole vocabulary are imported,
replayed into the sample app while a recorder runs, and the recording must be the script
(tests/roundtrip.py says what equal means). A fixed selection: bench/bench_roundtrip.py
runs many more, at every speed."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from tests.roundtrip import SPEEDS, round_trip, scripts

# The issue's own script: doubled letters and double spaces at four times the speed.
ISSUE_SCRIPT = [
    {"action": "type", "text": "Mississippi 1000 balloon"},
    {"action": "key", "text": "Return"},
    {"action": "type", "text": "aabbcc  zz"},
]


@settings(
    max_examples=24,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # a failing replay is slow to shrink
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(script=scripts(max_actions=6), speed=st.sampled_from(SPEEDS))
@example(script=ISSUE_SCRIPT, speed=4.0)
def test_what_the_replayer_does_the_recorder_records(
    sample_app, xvfb, tmp_path_factory, script: list[dict[str, Any]], speed: float
) -> None:
    outcome = round_trip(
        script, speed=speed, display=xvfb.display, folder=tmp_path_factory.mktemp("roundtrip")
    )
    assert outcome.exact, outcome.describe()
