"""What an instructor makes before the term: the release, the students' public repository, the Gradescope bundle, the demo, the set-up check. Imports run/ and every wing below it."""
