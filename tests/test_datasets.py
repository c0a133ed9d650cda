"""Exports load where people train: Hugging Face `datasets` (by the folder's layout, and as
`imagefolder`), pyarrow, and the Hub's card parser, for real, in every format.

Everything runs offline, from another working directory, with every cache under tmp_path:
nothing is written to ~/.cache and a connection attempt fails the test.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import datasets  # type: ignore[import-untyped]  # no type information is shipped
import huggingface_hub
import huggingface_hub.constants
import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.json as paj  # type: ignore[import-untyped]
import pytest
import yaml  # type: ignore[import-untyped]
from huggingface_hub import DatasetCard
from PIL import Image

from deskreel.cli import run
from deskreel.export import DIALECTS, FORMATS
from tests.fixture_recording import SCREEN, Fixture, build_recording

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
SCRIPT = SAMPLES / "scripts" / "every-action.json"  # 20 steps, no frames, no screen
RECORDED, SCRIPT_NAME = "every-kind", "script"
OBJECT_FORMATS = tuple(f for f in FORMATS if DIALECTS[f].join is None)
CODE_FORMATS = tuple(f for f in FORMATS if DIALECTS[f].join is not None)
HOW = ("folder", "imagefolder")  # load_dataset(DIR), load_dataset("imagefolder", data_dir=DIR)
AFTER = pytest.mark.parametrize("after", [False, True], ids=["before", "with-after"])

# The column types every line's keys must have in Arrow; `screen` is a list of nothing only
# in an export where no recording has a screen size (imported scripts).
TYPES = {
    "recording": pa.string(),
    "step": pa.int64(),
    "t": pa.float64(),
    "screen": pa.list_(pa.int64()),
    "instruction": pa.string(),
    "note": pa.string(),
    "file_name": pa.string(),
    "image_after_file_name": pa.string(),
    "action": pa.string(),
    "unexpressed": pa.string(),
}

# Text that is never null: "" when there is none
TEXT = ("recording", "instruction", "note", "file_name", "unexpressed")

Export = Callable[..., Path]


def deskreel(*args: object) -> int:
    return run([str(a) for a in args])


# -- quiet, offline, elsewhere ----------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def quiet_datasets() -> Iterator[None]:
    """No progress bars and only errors from `datasets` here; as they were afterwards."""
    bars_off, verbosity = datasets.are_progress_bars_disabled(), datasets.logging.get_verbosity()
    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()
    yield
    datasets.logging.set_verbosity(verbosity)
    if not bars_off:
        datasets.enable_progress_bars()


def _no_network(*args: object, **kwargs: object) -> None:
    raise AssertionError(f"a test of local files tried to connect: {args[1:]!r}")


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Offline (the libraries read the variables at import: their constants are set too), no
    connection possible, and the working directory is not the export's parent."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    monkeypatch.setattr(socket.socket, "connect_ex", _no_network)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")


# -- databases and exports, shared by the module -------------------------------------------


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    return build_recording(tmp_path_factory.mktemp("db") / "rec.db")


@pytest.fixture(scope="module")
def dbs(tmp_path_factory: pytest.TempPathFactory, recording: Fixture) -> dict[str, Path]:
    """recorded: the fixture recording; mixed: it, then the script; script-first: the script,
    then the recording (so the first lines have no frame and no screen); script: only it."""
    base = tmp_path_factory.mktemp("dbs")
    mixed, first, script = base / "mixed.db", base / "first.db", base / "script.db"
    build_recording(mixed)
    for db in (mixed, first, script):
        assert deskreel("import", SCRIPT, db, "--name", SCRIPT_NAME) == 0
    build_recording(first)
    return {"recorded": recording.db, "mixed": mixed, "script-first": first, "script": script}


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory, dbs: dict[str, Path]) -> Export:
    """export(db, fmt, *options): the dataset directory, written once per module."""
    base = tmp_path_factory.mktemp("exports")
    done: dict[tuple[str, str, tuple[str, ...]], Path] = {}

    def exported(db: str, fmt: str, *options: str) -> Path:
        key = (db, fmt, options)
        if key not in done:
            out = base / f"{db}-{fmt}-{len(done)}"
            assert (
                deskreel("export", dbs[db], "--all", "--format", fmt, "--out", out, *options) == 0
            )
            done[key] = out
        return done[key]

    return exported


def after_options(after: bool) -> tuple[str, ...]:
    return ("--with-after",) if after else ()


def metadata(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "metadata.jsonl").read_text("utf-8").splitlines()]


def load(out: Path, how: str, cache: Path) -> Any:
    """The train split as `datasets` builds it, cached under `cache`."""
    if how == "folder":
        return datasets.load_dataset(str(out), split="train", cache_dir=str(cache))
    return datasets.load_dataset(
        "imagefolder", data_dir=str(out), split="train", cache_dir=str(cache)
    )


def image_names(lines: list[dict[str, Any]]) -> set[str]:
    keys = ("file_name", "image_after_file_name")
    return {line[k] for line in lines for k in keys if line.get(k)}


# -- checks shared by the tests ------------------------------------------------------------


def check_dataset(ds: Any, out: Path, *, after: bool) -> None:
    """`ds` holds metadata.jsonl line for line, with the named frames as decoded images."""
    lines = metadata(out)
    assert ds.num_rows == len(lines) > 0
    images = {"image": "file_name"} | ({"image_after": "image_after_file_name"} if after else {})
    for feature in images:
        assert isinstance(ds.features[feature], datasets.Image), ds.features
    assert not set(images.values()) & set(ds.column_names), ds.column_names
    assert ("image_after" in ds.column_names) == after
    assert ds.features["action"] == datasets.Value("string"), ds.features
    assert ds.features["t"] == datasets.Value("float64")
    for i, line in enumerate(lines):
        row = decoded_row(ds, i, {key: line[key] for key in images.values()})
        plain = {k: v for k, v in line.items() if k not in images.values()}
        assert {k: row[k] for k in plain} == plain, f"row {i}"
        for feature, key in images.items():
            image = row[feature]
            if line[key]:
                assert isinstance(image, Image.Image), f"row {i} {feature}: {image!r}"
                assert image.size == SCREEN, f"row {i} {feature}"
                assert Path(getattr(image, "filename", "")) == out / line[key], f"row {i}"
            else:
                assert image is None, f"row {i} {feature}: {image!r} (no frame)"


def decoded_row(ds: Any, i: int, named: dict[str, str]) -> dict[str, Any]:
    """Row i with its images decoded; a failure says which file names could not be."""
    try:
        return dict(ds[i])
    except OSError as err:
        failure = f"datasets cannot decode row {i} ({named}): {err}"
    pytest.fail(failure)


def check_frames(out: Path) -> None:
    """frames/ holds exactly the frames the lines name, each once, as PNG."""
    names = image_names(metadata(out))
    on_disk = {f"frames/{p.name}" for p in (out / "frames").iterdir()}
    assert on_disk == names
    for name in names:
        assert re.fullmatch(r"frames/[0-9a-f]{64}\.png", name), name
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name


def check_table(table: Any, out: Path, *, screen: Any = TYPES["screen"]) -> None:
    lines = metadata(out)
    assert table.num_rows == len(lines)
    assert table.column_names == list(lines[0])
    # every key, in its order; image_after_file_name only with --with-after
    assert table.column_names == [k for k in TYPES if k in table.column_names]
    assert set(TYPES) - set(table.column_names) <= {"image_after_file_name"}
    for line in lines:
        assert list(line) == table.column_names, line
        assert all(isinstance(line[k], str) for k in TEXT), line  # "" when absent, not null
        assert isinstance(line["t"], float), line
    expected = {name: TYPES[name] for name in table.column_names} | {"screen": screen}
    assert {f.name: f.type for f in table.schema} == expected
    assert table.to_pylist() == lines


# -- 1, 2: load_dataset(DIR) and imagefolder, every format -----------------------------------


@AFTER
@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("fmt", FORMATS)
def test_datasets_loads_the_export(
    export: Export, recording: Fixture, tmp_path: Path, fmt: str, how: str, after: bool
):
    out = export("recorded", fmt, *after_options(after))
    check_frames(out)
    assert image_names(metadata(out)) <= {f"frames/{key}.png" for key in recording.frames}
    check_dataset(load(out, how, tmp_path / "cache"), out, after=after)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_json_builder_loads_the_lines(export: Export, tmp_path: Path, fmt: str) -> None:
    """`load_dataset("json", data_files=...)` reads metadata.jsonl as it is; file_name,
    made absolute, casts to images from any working directory."""
    out = export("mixed", fmt)
    ds = datasets.load_dataset(
        "json",
        data_files=str(out / "metadata.jsonl"),
        split="train",
        cache_dir=str(tmp_path / "cache"),
    )
    lines = metadata(out)
    assert ds.num_rows == len(lines) and ds["action"] == [x["action"] for x in lines]
    assert ds.features["action"] == datasets.Value("string")
    framed = ds.filter(lambda row: row["file_name"] != "")
    framed = framed.map(lambda row: {"file_name": str(out / row["file_name"])})
    images = framed.cast_column("file_name", datasets.Image())
    assert framed.num_rows > 0 and all(im.size == SCREEN for im in images["file_name"])


@pytest.mark.parametrize(
    "option", [("--tool-version", "computer_20241022"), ("--coords", "normalized")]
)
@pytest.mark.parametrize("how", HOW)
def test_datasets_loads_the_variants(
    export: Export, tmp_path: Path, how: str, option: tuple[str, str]
):
    fmt = "anthropic" if option[0] == "--tool-version" else "pyautogui"
    out = export("recorded", fmt, *option)
    check_dataset(load(out, how, tmp_path / "cache"), out, after=False)


# -- 3: pyarrow --------------------------------------------------------------------------


@AFTER
@pytest.mark.parametrize("db", ["recorded", "mixed", "script-first"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_pyarrow_reads_the_lines_as_one_table(export: Export, fmt: str, db: str, after: bool):
    out = export(db, fmt, *after_options(after))
    check_table(paj.read_json(out / "metadata.jsonl"), out)


@pytest.mark.parametrize("db", ["recorded", "mixed", "script-first"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_pyarrow_types_do_not_depend_on_where_blocks_end(export: Export, fmt: str, db: str):
    """pyarrow infers types block by block (1 MB by default; `datasets` reads metadata in
    blocks of 320 KB): small blocks stand for a large export, whose first blocks may hold only
    an imported script's lines. Each column must have one type whichever lines a block holds."""
    out = export(db, fmt)
    longest = max(len(line) for line in (out / "metadata.jsonl").read_bytes().splitlines())
    options = paj.ReadOptions(block_size=2 * longest, use_threads=False)
    try:
        table = paj.read_json(out / "metadata.jsonl", read_options=options)
    except pa.ArrowException as err:
        failure = f"pyarrow cannot read it in blocks of {2 * longest} bytes: {err}"
    else:
        check_table(table, out)
        return
    pytest.fail(failure)


# -- 4: recordings with frames and an imported script in one export ------------------------


@pytest.mark.parametrize("db", ["mixed", "script-first"])
@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("fmt", FORMATS)
def test_datasets_loads_a_recording_and_a_script(
    export: Export, tmp_path: Path, fmt: str, how: str, db: str
):
    out = export(db, fmt)
    check_frames(out)
    ds = load(out, how, tmp_path / "cache")
    check_dataset(ds, out, after=False)
    order = [RECORDED, SCRIPT_NAME] if db == "mixed" else [SCRIPT_NAME, RECORDED]
    assert list(dict.fromkeys(ds["recording"])) == order
    script = [row for row in ds if row["recording"] == SCRIPT_NAME]
    assert len(script) == sum(line["recording"] == SCRIPT_NAME for line in metadata(out)) >= 19
    for row in script:  # 20 steps (a dialect may fold one into the step before): no frames
        assert row["image"] is None and row["screen"] == []


# -- 5: the card ---------------------------------------------------------------------------


def front_matter(out: Path) -> dict[str, Any]:
    text = (out / "README.md").read_text("utf-8")
    match = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL)
    assert match, text[:200]
    data = yaml.safe_load(match[1])
    assert isinstance(data, dict)
    return data


def check_card(out: Path, fmt: str) -> None:
    card = DatasetCard.load(out / "README.md")  # a local file: no network, no validate()
    assert isinstance(card.data, huggingface_hub.DatasetCardData)
    assert card.text.lstrip().startswith(f"# deskreel export: {fmt}\n")
    for data in (card.data.to_dict(), front_matter(out)):
        assert data["pretty_name"] == f"deskreel export ({fmt})"
        assert data["license"] == "other" and data["license_name"] == "unspecified"
        assert data["task_categories"] == ["image-to-text"]
        assert data["tags"] == ["computer-use", "gui-agent", "deskreel", fmt]
        assert data["size_categories"] == ["n<1K"]
        # no configs: with them, datasets keys its cache on the card (test 7)
        assert "configs" not in data
    assert card.data.to_dict() == front_matter(out)


@pytest.mark.parametrize("db", ["recorded", "mixed"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_the_card_and_the_data_files(export: Export, fmt: str, db: str):
    out = export(db, fmt)
    check_card(out, fmt)
    # the frames are every frame the lines name, and nothing else is a data file
    assert {p.relative_to(out).as_posix() for p in out.glob("frames/*.png")} == image_names(
        metadata(out)
    )
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "frames", "metadata.jsonl"]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("fmt", FORMATS)
def test_an_export_without_frames(export: Export, tmp_path: Path, fmt: str, how: str):
    out = export("script", fmt)
    lines = metadata(out)
    assert image_names(lines) == set() and list(out.glob("frames/*")) == []
    check_card(out, fmt)
    ds = load(out, how, tmp_path / "cache")
    assert ds.num_rows == len(lines) >= 19
    assert ds["step"] == [line["step"] for line in lines]
    assert ds["action"] == [line["action"] for line in lines]
    assert ds.features["action"] == datasets.Value("string")
    if "image" in ds.column_names:  # imagefolder: an Image column of nothing
        assert isinstance(ds.features["image"], datasets.Image)
        assert set(ds["image"]) == {None}
    check_table(paj.read_json(out / "metadata.jsonl"), out, screen=pa.list_(pa.null()))


# -- 6: what `action` holds ----------------------------------------------------------------


@pytest.mark.parametrize("db", ["recorded", "mixed"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_action_is_text_each_dialect_reads(export: Export, fmt: str, db: str):
    """Object dialects: the JSON text of a list of call objects. Code dialects: Python."""
    lines = metadata(export(db, fmt))
    expressed = [line for line in lines if line["action"] is not None]
    assert expressed
    for line in lines:
        assert (line["action"] is None) == (line["unexpressed"] != ""), line
        assert line["action"] is None or isinstance(line["action"], str), line
    for line in expressed:
        if fmt in OBJECT_FORMATS:
            calls = json.loads(line["action"])
            assert isinstance(calls, list) and calls, line
            assert all(isinstance(call, dict) and call for call in calls), line
        else:
            ast.parse(line["action"])


def test_the_formats_are_split_between_objects_and_code():
    assert set(OBJECT_FORMATS) == {"actions", "anthropic", "normalized"}
    assert set(CODE_FORMATS) == {"browsergym", "pyautogui"}


# -- 7: a re-export loads as it is now (issue 38) ------------------------------------------


def check_edits(ds: Any, out: Path, *, instruction: str, note: tuple[int, str]) -> None:
    """`ds` is the export in `out` as written now: its lines, the edited instruction and note,
    and every frame decoded from `out` itself."""
    check_dataset(ds, out, after=False)
    assert set(ds["instruction"]) == {instruction}
    step, text = note
    assert {row["step"]: row["note"] for row in ds.select_columns(["step", "note"])}[step] == text


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_reexport_loads_as_it_is_now(tmp_path: Path, fmt: str, how: str) -> None:
    """Export, edit, export again into the same folder (with --force, then after deleting it),
    then into another folder of the same name: each load, through one cache as a user's
    ~/.cache is, gives what was exported last."""
    db = build_recording(tmp_path / "rec.db").db
    cache = tmp_path / "cache"
    out, elsewhere = tmp_path / "first" / "dataset", tmp_path / "second" / "dataset"
    out.parent.mkdir()
    elsewhere.parent.mkdir()

    def exported(folder: Path, *options: str) -> Path:
        assert (
            deskreel("export", db, "-r", RECORDED, "--format", fmt, "--out", folder, *options) == 0
        )
        return folder

    def edited(instruction: str, note: tuple[int, str]) -> dict[str, Any]:
        step, text = note
        assert (
            deskreel("edit", db, "-r", RECORDED, "--instruction", instruction, "--note", step, text)
            == 0
        )
        return {"instruction": instruction, "note": note}

    check_edits(load(exported(out), how, cache), out, instruction="", note=(2, ""))
    now = edited("Open the report", (2, "the menu first"))
    check_edits(load(exported(out, "--force"), how, cache), out, **now)
    now = edited("Open the report twice", (3, "then the list"))
    shutil.rmtree(out)
    check_edits(load(exported(out), how, cache), out, **now)
    shutil.rmtree(out)
    check_edits(load(exported(elsewhere), how, cache), elsewhere, **now)
