"""What one grading writes: rows and CSVs, the gradebook's scores, totals, the summary, feedback pages, and nbgrader's apps that write them. Imports intake/ and course/layout.py."""
