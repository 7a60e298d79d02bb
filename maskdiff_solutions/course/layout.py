"""Where the course lives: its root, settings, notebooks and nbgrader configuration, and the names
grading shares across modules (packages, sandbox modes, the stand-in cache, the seed variable)."""
import errno
import importlib
import os
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from maskdiff_client.seeding import SEED_VARIABLE  # noqa: F401 - named here for the course's modules

PACKAGE_PARENT = Path(__file__).resolve().parents[2]  # the folder that holds maskdiff_solutions/
# on a grading kernel's path (never a student's): google.colab's stand-in (maskdiff_client/stand_ins/README.md)
STAND_INS = ("maskdiff_client", "stand_ins")
HIDDEN_PACKAGE = "maskdiff_solutions"
CLIENT_PACKAGE = "maskdiff_client"        # what hidden test cells import in the kernel
COURSE_PACKAGES = (HIDDEN_PACKAGE, CLIENT_PACKAGE)   # a student file named like these is flagged
SANDBOX_MODES = ("auto", "required", "off")
CACHE_VARIABLE = "MASKDIFF_CACHE"          # where the stand-ins and the quick denoisers are kept
COURSE_ID = "maskdiff"                     # nbgrader's course_id of every gradebook we open
# notebooks whose given cells load what modules of the package keep in the cache: {notebook: modules}.
# warm_caches imports them by name, so an autograder holds them only for those notebooks (term/gradescope.py)
KEPT_FOR = {"05_sampler_internals": ("story_denoiser",), "06_revising_and_faster": ("story_denoiser",),
            "07_caching": ("story_denoiser", "block_denoiser"),
            "08_noise_without_a_mask": ("story_denoiser", "uniform_denoiser")}
KEEPERS = {"story_denoiser": "KeepQuickDenoiser", "block_denoiser": "KeepBlockDenoiser",
           "uniform_denoiser": "KeepUniformDenoiser"}   # each module's keeper


def plural(count, word, words=None):
    """'1 student', '2 students': one spelling of a count in every message the course prints."""
    return f"{count:g} {word if count == 1 else words or word + 's'}"


def cache_folder():
    """The stand-in cache: $MASKDIFF_CACHE, else ~/.cache/maskdiff (models.StandIn's and
    story_denoiser.KeptDenoiser's default too, which notebook cells hold verbatim and so cannot import)."""
    return Path(os.environ.get(CACHE_VARIABLE) or Path.home() / ".cache" / "maskdiff")


def beside_cache(suffix):
    """What a grading machine keeps for the grader alone: beside the stand-in cache, not in it (kernels
    see that folder). beside_cache("-gradebooks") is ~/.cache/maskdiff-gradebooks."""
    cache = cache_folder()
    return cache.with_name(cache.name + suffix)


def warm_caches(notebooks=None):
    """Build what the notebooks load under the grader (notebook 03's stand-in networks, notebooks 05 to 08's
    quick story denoiser, notebook 07's block-causal one, notebook 08's uniform one) before any kernel runs:
    kernels get the cache read-only, and each would otherwise build them again. `notebooks` (file names or
    stems), when given, are the notebooks about to be graded: only what they load is built (a week's grading
    of notebook 01 trains no network). Returns the cache folder."""
    folder = cache_folder()
    stems = None if notebooks is None else {Path(name).stem for name in notebooks}
    for kind in ("bert", "qwen") if stems is None or any(stem.startswith("03") for stem in stems) else ():
        try:
            from .. import models  # transformers: heavy, and only the grader needs it
            models.StandIn(kind, folder)
        except ImportError:
            pass  # Qwen3 on a transformers older than 4.51: notebook 03 says so itself
        except Exception as err:  # noqa: BLE001 - notebook 03 then says what is missing in its own cells
            print(f"warning: could not build notebook 03's {kind} stand-in: {err}", file=sys.stderr)
    wanted = KEPT_FOR.values() if stems is None else [KEPT_FOR.get(stem, ()) for stem in stems]
    for module in sorted({m for modules in wanted for m in modules}, key=list(KEEPERS).index):
        try:
            getattr(importlib.import_module(f"{HIDDEN_PACKAGE}.{module}"), KEEPERS[module])(folder)
        except ModuleNotFoundError:
            pass  # an autograder built for other notebooks
        except Exception as err:  # noqa: BLE001 - the notebooks then train it themselves, in seconds
            print(f"warning: could not train the quick denoiser of {module}.py: {err}", file=sys.stderr)
    if not folder.is_dir():
        return ""
    # the sandbox's user reads what is kept (safetensors writes 0600); nothing else of the folder
    kept = [*folder.glob("stand-in-*"), *folder.glob("story-denoiser-*.pt"), *folder.glob("block-denoiser-*.pt"),
            *folder.glob("uniform-denoiser-*.pt")]
    for path in [folder, *(p for top in kept for p in [top, *(top.rglob("*") if top.is_dir() else [])])]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return str(folder)


class OtherCopy(ValueError):
    """The course holds its own copy of the packages, and this command runs another whose checks differ."""


def _package_files(parent):
    """{path relative to parent: bytes} of the course packages' files in parent (caches left out)."""
    return {path.relative_to(parent).as_posix(): path.read_bytes() for package in COURSE_PACKAGES
            for path in sorted((parent / package).rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"}


def running_copy(course):
    """Which copy of the packages this command runs for `course`, in words, and the files in which the
    course's own copy differs from it (empty: the same checks, or the course holds no copy)."""
    mine = PACKAGE_PARENT / HIDDEN_PACKAGE
    if PACKAGE_PARENT == course.root:
        return f"course {course.root} (its own {HIDDEN_PACKAGE})", []
    if not (course.root / HIDDEN_PACKAGE / "__init__.py").is_file():
        return f"course {course.root}; {HIDDEN_PACKAGE} from {mine} (the course holds none of its own)", []
    ours, theirs = _package_files(PACKAGE_PARENT), _package_files(course.root)
    differ = sorted(name for name in ours.keys() | theirs.keys() if ours.get(name) != theirs.get(name))
    same = "the same files as the course's own" if not differ else "NOT the course's own"
    return f"course {course.root}; {HIDDEN_PACKAGE} from {mine} ({same})", differ


def same_checks(course):
    """Stop (OtherCopy) where the course holds its own packages and this command runs another copy whose
    files differ: students would be graded by checks the course does not hold."""
    _, differ = running_copy(course)
    if differ:
        listed = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
        raise OtherCopy(f"this command runs the {HIDDEN_PACKAGE} of {PACKAGE_PARENT}, not the course's own in "
                        f"{course.root}, and they differ ({listed}): the students would be graded by checks the "
                        f"course does not hold; run it from the course root (`cd {course.root}` first: Python "
                        f"then imports the course's copy), or install the course's copy into this environment "
                        f"(`pip install -e {course.root}`)")


# [tool.maskdiff] of pyproject.toml: each setting, what a valid value looks like, and what it is.
SETTINGS = {
    "assignment": (r"[A-Za-z0-9_-]+", "the nbgrader assignment (source/<assignment>/)"),
    "public_repository": (r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+",
                          "the students' public GitHub repository, owner/name (`publish` writes it; "
                          "the Colab badges point at it)"),
    "public_branch": (r"[A-Za-z0-9_.][A-Za-z0-9_./-]*", "its branch the badges open"),
    "written_answers": (r"graded|optional", "\"graded\" (a person grades the written answers) or "
                        "\"optional\" (they are not graded: the grade is the autograded points alone)"),
    "student_notes": (r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*\.md",
                      "a Markdown file of the course, its path from the course root (`STUDENT_NOTES.md`): "
                      "the course's own words to students, such as where and when to hand in, which "
                      "`publish` puts in the students' README under *From your instructors*"),
}
PLACEHOLDER_REPOSITORY = "maskdiff-course/maskdiff-students"  # what the bundle names until a course sets its own
READER = "drawing_reader.py"  # what the set-up cells fetch (Course.reader_url)
RENAMED = {"repository": "public_repository", "branch": "public_branch"}
TABLES = {"sandbox", "gradescope"}  # sub-tables read elsewhere (course/sandbox/settings.py, course/term/gradescope.py)


def _settings(pyproject):
    """[tool.maskdiff] of pyproject.toml, checked: an unknown key or a malformed value is an error
    that names it (a typo must not silently fall back to a default)."""
    if not pyproject.is_file():
        return {}
    try:
        settings = tomllib.loads(pyproject.read_text()).get("tool", {}).get("maskdiff", {})
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{pyproject} is not valid TOML: {err}") from None
    for key, value in settings.items():
        where = f"{pyproject} [tool.maskdiff] {key}"
        if key in RENAMED:
            raise ValueError(f"{where}: renamed to {RENAMED[key]} (the badges point at the students' "
                             f"public repository, not at this one, which holds the solutions)")
        if key in TABLES:
            continue
        if key not in SETTINGS:
            raise ValueError(f"{where}: unknown setting; known: {', '.join(SETTINGS)}")
        pattern, meaning = SETTINGS[key]
        if not isinstance(value, str) or not re.fullmatch(pattern, value):
            raise ValueError(f"{where} = {value!r} is not {meaning}")
    return settings


def settings_table(pyproject, name):
    """[tool.maskdiff.NAME] of pyproject.toml ({} when there is none); its module checks its keys."""
    if not pyproject.is_file():
        return {}
    table = tomllib.loads(pyproject.read_text()).get("tool", {}).get("maskdiff", {}).get(name, {})
    if not isinstance(table, dict):
        raise ValueError(f"{pyproject} [tool.maskdiff] {name} must be a table ([tool.maskdiff.{name}])")
    return table


@dataclass(frozen=True)
class Course:
    root: Path
    assignment: str = "maskdiff"
    public_repository: str = ""
    public_branch: str = "main"
    written_answers: str = "graded"   # or "optional": nobody grades them (course/records/answers.py)
    student_notes: str = ""           # a Markdown file of the course for the students' README (publish.py)

    @classmethod
    def find(cls, start=None):
        """The course whose root holds nbgrader_config.py and source/: start (default the current
        folder) or the nearest folder above it. Never anywhere else (not the checkout this package
        was installed from): grading writes into the course root."""
        start = Path(start or os.getcwd()).resolve()
        for candidate in (start, *start.parents):
            if (candidate / "nbgrader_config.py").is_file() and (candidate / "source").is_dir():
                return cls.load(candidate)
        raise FileNotFoundError(f"no course root in {start} or any folder above it (a course root holds "
                                f"nbgrader_config.py and source/): run from the course root or pass "
                                f"--course-dir DIR")

    @classmethod
    def load(cls, root):
        root = Path(root).resolve()
        if not root.exists():   # a mistyped --course-dir: said with the nearest names (course/errors.py)
            raise FileNotFoundError(errno.ENOENT, "no such folder", str(root))
        if not (root / "nbgrader_config.py").is_file() or not (root / "source").is_dir():
            raise FileNotFoundError(f"{root} is not a course root: it must hold nbgrader_config.py and "
                                    f"source/")
        settings = _settings(root / "pyproject.toml")
        return cls(root, settings.get("assignment", "maskdiff"), settings.get("public_repository", ""),
                   settings.get("public_branch", "main"), settings.get("written_answers", "graded"),
                   settings.get("student_notes", ""))

    def workspace(self, given=None):
        """Where grading writes: --workspace DIR, else the course root."""
        return Path(given or self.root).resolve()

    @property
    def answers_optional(self):
        """Whether the manually graded cells are optional: the grade is then fully automatic."""
        return self.written_answers == "optional"

    @property
    def source_dir(self):
        return self.root / "source" / self.assignment

    @property
    def release_dir(self):
        return self.root / "release" / self.assignment

    def notebooks(self):
        """Names of the assignment's notebooks, in course order."""
        return sorted(p.name for p in self.source_dir.glob("*.ipynb"))

    def select(self, wanted=None):
        """The notebooks named in `wanted` (each by number, `01`, by name, `01_noise_for_words`, or
        file name), in course order; all of them when wanted is empty."""
        every = self.notebooks()
        if not wanted:
            return every
        chosen = set()
        for word in wanted:
            word = str(word).strip()
            match = [name for name in every if word in (name, name[:-len(".ipynb")], name.split("_")[0])]
            if not match:
                raise ValueError(f"no notebook {word!r} in this course; its notebooks are "
                                 f"{', '.join(name.split('_')[0] for name in every)} "
                                 f"({', '.join(every)})")
            chosen.update(match)
        return [name for name in every if name in chosen]

    def colab_url(self, notebook):
        """Where a notebook's "Open in Colab" badge points: the notebook at the top of the students'
        public repository (see `publish`)."""
        return (f"https://colab.research.google.com/github/{self.public_repository}/blob/"
                f"{self.public_branch}/{notebook}")

    def reader_url(self):
        """Where the notebooks' set-up cells fetch drawing_reader.py: the students' repository, raw
        (`publish` writes the file there)."""
        return f"https://raw.githubusercontent.com/{self.public_repository}/{self.public_branch}/{READER}"

    def nbgrader_config(self, workspace=None, **overrides):
        """nbgrader_config.py plus absolute paths, so that a workspace elsewhere still reads source/."""
        config = Config()
        config_file = self.root / "nbgrader_config.py"
        if config_file.is_file():
            config.merge(PyFileConfigLoader(config_file.name, path=str(self.root)).load_config())
        workspace = Path(workspace or self.root).resolve()
        config.CourseDirectory.root = str(workspace)
        config.CourseDirectory.source_directory = str(self.root / "source")
        config.CourseDirectory.release_directory = str(overrides.pop("release_directory",
                                                                     self.root / "release"))
        config.CourseDirectory.db_url = f"sqlite:///{workspace / 'gradebook.db'}"
        config.Exchange.root = str(workspace / "exchange")
        for key, value in overrides.items():
            section, name = key.split("__")
            setattr(getattr(config, section), name, value)
        return config
