"""Where the course lives: its root, settings, notebooks and nbgrader configuration."""
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

PACKAGE_PARENT = Path(__file__).resolve().parents[2]  # the folder that holds maskdiff_solutions/


@dataclass(frozen=True)
class Course:
    root: Path
    assignment: str = "maskdiff"
    repository: str = ""
    branch: str = "main"

    @classmethod
    def find(cls, start=None):
        """The course whose root holds nbgrader_config.py: start (or the cwd), else this checkout."""
        for candidate in (Path(start or os.getcwd()).resolve(), PACKAGE_PARENT):
            if (candidate / "nbgrader_config.py").is_file() and (candidate / "source").is_dir():
                return cls.load(candidate)
        raise FileNotFoundError("no course root found: run from the folder that holds "
                                "nbgrader_config.py and source/, or pass --course-dir")

    @classmethod
    def load(cls, root):
        root = Path(root).resolve()
        settings = {}
        pyproject = root / "pyproject.toml"
        if pyproject.is_file():
            settings = tomllib.loads(pyproject.read_text()).get("tool", {}).get("maskdiff", {})
        return cls(root, settings.get("assignment", "maskdiff"), settings.get("repository", ""),
                   settings.get("branch", "main"))

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
        return (f"https://colab.research.google.com/github/{self.repository}/blob/{self.branch}/"
                f"release/{self.assignment}/{notebook}")

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
