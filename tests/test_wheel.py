"""deskreel as its users install it (issue 31): the sdist and the wheel built from this tree,
the wheel installed into a fresh venv outside the checkout by the CI job of docs/suites.md,
and every command run from another directory with no display.

The job is read from the document and run as it stands, but for the steps that are
GitHub's own (`uses:`) and its `apt-get` line, whose packages are checked to be installed
instead: a test does not install system packages (`make deps` does).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

from deskreel.cli import cli
from deskreel.export import FORMATS

ROOT = Path(__file__).resolve().parent.parent
CI_JOB_DOC = ROOT / "docs" / "suites.md"
SAMPLES = ROOT / "samples"
# Alembic loads the migrations itself, into its own context; they are not importable alone
NOT_IMPORTED = ("deskreel.__main__", "deskreel.storage.migrations.")


@dataclass(frozen=True)
class Dist:
    wheel: Path
    sdist: Path


@dataclass(frozen=True)
class Installed:
    """A copy of samples/ (a user's repository holding a suite) after the CI job ran in it."""

    project: Path
    steps: list[tuple[str, subprocess.CompletedProcess[str]]]

    @property
    def bin(self) -> Path:
        return self.project / ".venv" / "bin"

    def run(self, *args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
        """The installed `deskreel ARGS`, from `cwd`."""
        return subprocess.run(
            [self.bin / "deskreel", *map(str, args)],
            cwd=cwd,
            env=user_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )


def user_env() -> dict[str, str]:
    """This process's environment as a CI machine's shell has it: no display, no venv, no
    path into the checkout."""
    drop = {"DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if p and not p.startswith(str(ROOT))
    )
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def tree_files(top: Path) -> set[str]:
    """What the wheel must hold of `top`/deskreel: every file, through the layers' links."""
    found = set()
    for folder, dirs, files in os.walk(top / "deskreel", followlinks=True):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found |= {(Path(folder) / f).relative_to(top).as_posix() for f in files}
    return found


def source_copy(dest: Path) -> Path:
    """The tree as a clone with this work in it has it (git's tracked and unignored files),
    links kept as links: the build writes its egg-info there, not into the checkout."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        src, dst = ROOT / name, dest / name
        if not src.is_symlink() and not src.exists():
            continue  # deleted in the work tree, not yet in git
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            dst.symlink_to(os.readlink(src))
        else:
            shutil.copy2(src, dst)
    return dest


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    """`python -m build`: the sdist, then the wheel built from the sdist, as pip builds a
    source it is given."""
    src = source_copy(tmp_path_factory.mktemp("source") / "deskreel")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", out, src],
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return Dist(wheel, sdist)


def ci_job() -> tuple[dict[str, str], list[str]]:
    """The environment and the `run:` lines of the CI job in docs/suites.md."""
    text = CI_JOB_DOC.read_text("utf-8")
    found = re.search(r"^## A CI job\n.*?^```yaml\n(.*?)^```", text, re.S | re.M)
    assert found is not None, f"{CI_JOB_DOC} has no yaml block under '## A CI job'"
    (job,) = yaml.safe_load(found.group(1))["jobs"].values()
    runs = [step["run"] for step in job["steps"] if "run" in step]
    return dict(job.get("env", {})), runs


def installed_packages(names: list[str]) -> list[str]:
    """Those of the Debian packages `names` that are not installed."""
    missing = []
    for name in names:
        done = subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True
        )
        if "install ok installed" not in done.stdout:
            missing.append(name)
    return missing


def apt_packages(line: str) -> list[str] | None:
    """The packages an `apt-get install` line installs, or None for another line."""
    if "apt-get" not in line:
        return None
    install = line.split("apt-get install", 1)[1]
    return [word for word in install.split() if not word.startswith("-")]


@pytest.fixture(scope="module")
def installed(dist: Dist, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The CI job, run in a copy of samples/ with DESKREEL set to the wheel just built."""
    # named so that the sample app, run as a script, finds its package (samples/app.py)
    project = tmp_path_factory.mktemp("user") / "samples"
    shutil.copytree(SAMPLES, project, ignore=shutil.ignore_patterns("__pycache__"))
    job_env, runs = ci_job()
    env = user_env() | job_env | {"DESKREEL": str(dist.wheel)}
    steps = []
    for line in runs:
        packages = apt_packages(line)
        if packages is not None:
            assert packages, line
            assert installed_packages(packages) == [], f"the CI job's packages: {line}"
            continue
        done = subprocess.run(
            ["bash", "-eo", "pipefail", "-c", line],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        steps.append((line, done))
        if done.returncode != 0:
            break
    return Installed(project, steps)


def test_the_metadata_is_clean(dist: Dist) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", dist.wheel, dist.sdist],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(dist.wheel) as wheel:
        meta = wheel.read(next(n for n in wheel.namelist() if n.endswith("/METADATA"))).decode()
    assert "License-Expression: MIT" in meta
    assert "License-File: LICENSE" in meta
    assert "Classifier: Operating System :: POSIX :: Linux" in meta


def test_the_wheel_holds_the_whole_tree_under_one_import_root(dist: Dist) -> None:
    with zipfile.ZipFile(dist.wheel) as wheel:
        names = set(wheel.namelist())
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/WHEEL"))
        top_level = wheel.read(f"{info}/top_level.txt").decode().split()
    assert {n.split("/")[0] for n in names} == {"deskreel", info}
    assert top_level == ["deskreel"]
    packaged = {n for n in names if n.startswith("deskreel/")}
    expected = tree_files(ROOT)
    assert expected - packaged == set(), "left out of the wheel"
    assert packaged - expected == set(), "in the wheel but not in the tree"
    assert {"deskreel/py.typed", "deskreel/storage/migrations/script.py.mako"} <= packaged


def test_the_sdist_builds_the_same_wheel(dist: Dist) -> None:
    with tarfile.open(dist.sdist) as sdist:
        members = {m.name.split("/", 1)[1]: m for m in sdist.getmembers() if "/" in m.name}
    assert tree_files(ROOT) <= {name for name, m in members.items() if m.isfile()}
    assert {"LICENSE", "README.md", "pyproject.toml"} <= set(members)


def test_the_ci_job_passes_with_the_installed_wheel(installed: Installed) -> None:
    assert [line for line, _ in installed.steps][-1].startswith(".venv/bin/deskreel test")
    for line, done in installed.steps:
        assert done.returncode == 0, f"{line}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    junit = ET.parse(installed.project / "junit.xml").getroot()
    suites = [junit] if junit.tag == "testsuite" else list(junit)
    assert sum(int(s.get("tests", 0)) for s in suites) >= 1
    assert sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites) == 0
    assert (installed.project / "deskreel-report" / "index.html").is_file()


def test_the_venv_has_deskreel_alone_at_the_top_and_no_broken_requirement(
    installed: Installed,
) -> None:
    (record,) = (installed.project / ".venv").glob("lib/python*/site-packages/deskreel-*/RECORD")
    tops = {line.split(",")[0].split("/")[0] for line in record.read_text().splitlines()}
    assert {t for t in tops if t != ".."} == {"deskreel", record.parent.name}
    done = subprocess.run(
        [installed.bin / "pip", "check"], env=user_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_module_imports_from_the_wheel_without_a_display(
    installed: Installed, tmp_path: Path
) -> None:
    program = f"""
import importlib, json, pkgutil, deskreel
skip = {NOT_IMPORTED!r}
names = ["deskreel"] + [m.name for m in pkgutil.walk_packages(deskreel.__path__, "deskreel.")
         if m.name not in skip and not m.name.startswith(skip)]
for name in names:
    importlib.import_module(name)
print(json.dumps({{"where": deskreel.__file__, "names": names}}))
"""
    done = subprocess.run(
        [installed.bin / "python", "-c", program],
        cwd=tmp_path,
        env=user_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert Path(said["where"]).is_relative_to(installed.project / ".venv")
    in_tree = {
        ".".join(Path(f).with_suffix("").parts).removesuffix(".__init__")
        for f in tree_files(ROOT)
        if f.endswith(".py")
    }
    assert set(said["names"]) == {
        n for n in in_tree if n not in NOT_IMPORTED and not n.startswith(NOT_IMPORTED)
    }


def test_every_command_answers_help_from_another_directory(
    installed: Installed, tmp_path: Path
) -> None:
    assert len(cli.commands) >= 17
    for name in ["", *sorted(cli.commands)]:
        done = installed.run(*filter(None, [name]), "--help", cwd=tmp_path)
        assert done.returncode == 0, f"deskreel {name} --help: {done.stderr}"
        assert done.stdout.startswith(f"Usage: deskreel {name}".rstrip()), done.stdout[:200]
        assert done.stderr == ""


def test_import_export_show_doctor_report_from_the_wheel(
    installed: Installed, tmp_path: Path
) -> None:
    """A script imported into a new database, and the committed sample recording (an older
    schema: the migrations in the wheel upgrade it), through every reading command."""
    script = SAMPLES / "scripts" / "sample-app-tour.json"
    done = installed.run(
        "import", script, "new.db", "--name", "tour", "--screen", "1280x800", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    demo = tmp_path / "demo.db"
    shutil.copy(SAMPLES / "demo.db", demo)
    for db, name in ((tmp_path / "new.db", "tour"), (demo, "demo")):
        for fmt in FORMATS:
            out = tmp_path / f"{name}-{fmt}"
            done = installed.run(
                "export", db, "-r", name, "--format", fmt, "--out", out, cwd=tmp_path
            )
            assert done.returncode == 0, f"export --format {fmt}: {done.stderr}"
            assert (out / "metadata.jsonl").stat().st_size > 0
        done = installed.run("show", db, "-r", name, cwd=tmp_path)
        assert done.returncode == 0 and done.stdout, done.stderr
        done = installed.run("doctor", db, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        done = installed.run(
            "report", db, "-r", name, "--out", tmp_path / f"{name}-report", cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
        assert (tmp_path / f"{name}-report" / "index.html").is_file()
    assert list((tmp_path / "demo-actions" / "frames").iterdir()), "the sample's frames"
