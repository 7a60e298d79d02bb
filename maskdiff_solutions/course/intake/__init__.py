"""What comes in: a platform's export, the roster, zips, a student's folder and its notebooks, repaired against the release. Imports only course/layout.py."""
