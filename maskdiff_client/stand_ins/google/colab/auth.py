"""auth: nobody signs in under the grader."""
from . import note


def authenticate_user(clear_output=True, project_id=None):
    note("auth.authenticate_user: nobody signs in under the grader")
