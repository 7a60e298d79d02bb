"""userdata: the grader holds none of a student's secrets."""


class SecretNotFoundError(Exception):
    pass


class NotebookAccessError(Exception):
    pass


def get(key):
    raise SecretNotFoundError(f"Secret {key} does not exist (the grader holds no secrets).")
