"""nbgrader settings for the maskdiff course; the repository root is the course root.

`python -m maskdiff_solutions` (release, grade, demo) loads this file too, so plain `nbgrader ...`
commands and the course tooling behave the same.
"""
c = get_config()  # noqa: F821 - provided by nbgrader

c.CourseDirectory.course_id = "maskdiff"
# No list of assignments here: nbgrader 0.9 adds the assignment to the gradebook when
# generate_assignment runs (`release`, and `grade` before it grades), and warns about any setting it
# does not know (tests/course/test_cli.py runs a plain nbgrader command and checks).

# Stubs students see in place of solutions.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Every cell may compute for nbgrader's default 30 s (counted in CPU time, not on the clock, with a clock
# backstop of four times that: course/run/preprocessors.py); the notebooks shrink their experiments
# while NBGRADER_EXECUTION is set, so a whole notebook grades in well under a minute.
c.Execute.timeout = 30
# nbgrader's default kernel arguments, plus a quieter kernel log.
c.Execute.extra_arguments = ["--HistoryManager.hist_file=:memory:", "--IPKernelApp.log_level=ERROR"]

# A dead kernel fails its cell and the cells after it instead of the whole student; huge outputs are
# cut (maskdiff_solutions/course/run/preprocessors.py). The rest is nbgrader's default chain.
c.Autograde.autograde_preprocessors = [
    "maskdiff_solutions.course.run.preprocessors.SurvivingExecute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "maskdiff_solutions.course.run.preprocessors.LimitOutputSize",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Feedback shows what failed, never the hidden tests' code; points a person has still to grade say so
# on the page template `python -m maskdiff_solutions` uses (course/templates/maskdiff_feedback; it is
# not set here, where it would replace formgrader's own template too; plain `nbgrader generate_feedback`
# uses nbgrader's page, which shows those points as 0).
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "maskdiff_solutions.course.records.feedback.PendingManualGrades",
    "maskdiff_solutions.course.records.feedback.StudentWords",
    "maskdiff_solutions.course.records.feedback.HideHiddenTracebacks",
    "maskdiff_solutions.course.records.feedback.ScrubHiddenCode",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
