"""Grading itself: the batch, one student, one notebook, jobs and the Dask cluster, the canary, reruns, nbgrader's preprocessors. Imports records/, sandbox/, intake/ and course/layout.py."""
