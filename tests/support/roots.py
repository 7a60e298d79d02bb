"""Course roots made up for a test: a folder that `Course.load` reads as a course with the settings given."""


def fake_course(folder, settings):
    (folder / "source" / "maskdiff").mkdir(parents=True)
    (folder / "nbgrader_config.py").write_text("c = get_config()\n")
    (folder / "pyproject.toml").write_text("[tool.maskdiff]\n" + settings)
    return folder
