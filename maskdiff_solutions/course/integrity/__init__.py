"""What an instructor looks into beyond the marks: the students' handed-in solutions compared for submissions suspiciously alike (`similarity`). Imports records/, intake/ and course/layout.py."""
