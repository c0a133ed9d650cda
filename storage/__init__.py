"""deskreel's storage: the action vocabulary, the values of a recording, and the store."""

from .edit import EditError, EditSummary, RecordingEdit, edit_recording
from .errors import NotFoundError, StorageError
from .keys import Chord, KeyNameError, parse_chord
from .rows import utc
from .schema import SCHEMA_VERSION
from .script import Script, ScriptError, ScriptStep, parse_script, script_lines
from .store import Store, open_store, store_to_fill
from .transfer import Copied, copy_recording
from .upgrade import Upgrade
from .values import RESULT_FRAME_KEYS, Anchor, Evidence, RawEvent, Recording, Run, Step, StepResult
from .widgets import Widget
from .vocabulary import ACTIONS, CLICKS, POINTER_ACTIONS, Action, ActionError

__all__ = [
    "EditError",
    "EditSummary",
    "RecordingEdit",
    "edit_recording",
    "Copied",
    "copy_recording",
    "ACTIONS",
    "CLICKS",
    "POINTER_ACTIONS",
    "SCHEMA_VERSION",
    "Action",
    "Widget",
    "ActionError",
    "Anchor",
    "Chord",
    "KeyNameError",
    "NotFoundError",
    "RawEvent",
    "Recording",
    "Run",
    "ScriptError",
    "Script",
    "ScriptStep",
    "Step",
    "StepResult",
    "StorageError",
    "Store",
    "Upgrade",
    "open_store",
    "store_to_fill",
    "parse_chord",
    "parse_script",
    "script_lines",
    "RESULT_FRAME_KEYS",
    "Evidence",
    "utc",
]
