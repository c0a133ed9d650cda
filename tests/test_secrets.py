"""`{{env:NAME}}` on a real Xvfb: replay types the variable's value into the application, and
no file that replay, report or export writes holds it (checked in the bytes)."""

import json
import sqlite3

from tests.commands import deskreel

SECRET = "Zq9-hunter7-envvalue"
VARIABLE = "DESKREEL_TEST_ENV_SECRET"
PLACEHOLDER = "{{env:" + VARIABLE + "}}"
FORMATS = ("actions", "anthropic", "normalized", "browsergym", "pyautogui")


def written_bytes(folder, skip):
    """Every file under `folder` but those in `skip` (the sample app's log), path -> bytes."""
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and p not in skip}


def assert_nowhere(folder, skip, after):
    files = written_bytes(folder, skip)
    holding = [str(p.relative_to(folder)) for p, data in files.items() if SECRET.encode() in data]
    assert not holding, f"after {after}, the value of ${VARIABLE} is in {holding}"
    return files


def test_env_placeholder_is_typed_and_never_written(launch_app, xvfb, tmp_path):
    app = launch_app()
    skip = {app.log_path, app.stderr_path}
    script = tmp_path / "login.jsonl"
    script.write_text(
        "\n".join(
            json.dumps(obj)
            for obj in [
                {"action": "left_click", "coordinate": list(app.center("entry"))},
                {"action": "type", "text": f"pw={PLACEHOLDER}!"},
                {"action": "key", "text": "Return"},
            ]
        )
        + "\n"
    )
    db = tmp_path / "rec.db"
    assert deskreel("import", script, db, "--name", "login").returncode == 0
    env = {**xvfb.env(), VARIABLE: SECRET}

    done = deskreel(
        "replay",
        db,
        "--verify",
        "--report",
        tmp_path / "run-report",
        "--junit",
        tmp_path / "junit.xml",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert app.events("text_changed")[-1]["value"] == f"pw={SECRET}!"  # typed for real
    assert SECRET not in done.stdout + done.stderr
    assert_nowhere(tmp_path, skip, "replay --verify --report --junit")

    outputs = [("report", db, "--out", tmp_path / "report")]
    outputs += [
        ("export", db, "--format", fmt, "--out", tmp_path / f"export-{fmt}", "--with-after")
        for fmt in FORMATS
    ]
    outputs.append(("export", db, "--out", tmp_path / "plain.jsonl"))
    for args in outputs:
        ran = deskreel(*args, env=env)
        assert ran.returncode == 0, (args, ran.stderr)
        assert SECRET not in ran.stdout + ran.stderr, args
        files = assert_nowhere(tmp_path, skip, " ".join(str(a) for a in args if a != db))

    # The checks above bite: these files exist and describe the typing step.
    run = sqlite3.connect(db).execute("SELECT count(*) FROM step_results").fetchone()[0]
    assert run == 3  # the replay's results were stored
    for name in (
        "rec.db",
        "junit.xml",
        "run-report",
        "report",
        *(f"export-{f}" for f in FORMATS),
        "plain.jsonl",
    ):
        assert any(p == tmp_path / name or tmp_path / name in p.parents for p in files), name
    placeholder = PLACEHOLDER.encode()
    for name in (
        "rec.db",
        "run-report",
        "report",
        "plain.jsonl",
        *(f"export-{f}" for f in FORMATS),
    ):
        assert any(
            placeholder in data
            for p, data in files.items()
            if p == tmp_path / name or tmp_path / name in p.parents
        ), name
