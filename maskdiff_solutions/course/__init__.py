"""Course tooling for instructors: release the assignment, grade submissions, run the demo."""
