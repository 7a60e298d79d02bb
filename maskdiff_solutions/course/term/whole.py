"""What the term's commands make (release/, the students' repository, the autograder zip) is put in place
whole or not at all: written beside its place, on the same disk, then renamed into it. A full disk, a
read-only copy or a permission refused half-way removes what was half-written and leaves the place as
it was, so the error's sentence can say so (course/errors.py)."""
import contextlib
import os
import shutil
from pathlib import Path

PARTIAL = ".maskdiff-partial"   # the suffix of what is being written; never left behind


def _named(err, partial, path):
    """err naming the path being written (never its partial copy beside it), where the library raised it
    with the partial one or none (zipfile, a write())."""
    if not isinstance(err, OSError) or not err.errno:
        return err
    named = str(err.filename) if err.filename is not None else str(partial)
    if not named.startswith(str(partial)):
        return err
    return type(err)(err.errno, err.strerror, str(path) + named[len(str(partial)):])


def _remove(path):
    """path gone, as far as the machine lets it (a cleanup never hides the error that called for it)."""
    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists() or path.is_symlink():
            path.unlink()


@contextlib.contextmanager
def new_file(path):
    """Yields a path beside `path` to write; renamed onto `path` when the block ends, removed if it fails."""
    path = Path(path)
    partial = path.with_name(path.name + PARTIAL)
    _remove(partial)
    try:
        yield partial
        os.replace(partial, path)
    except BaseException as err:
        _remove(partial)
        named = _named(err, partial, path)
        if named is not err:
            raise named from None
        raise


@contextlib.contextmanager
def new_folder(path):
    """Yields an empty folder beside `path` to fill; it takes the place of `path` (whose earlier content
    goes) when the block ends, and is removed, `path` untouched, if it fails."""
    path = Path(path)
    partial, old = path.with_name(path.name + PARTIAL), path.with_name(path.name + PARTIAL + "-old")
    for leftover in (partial, old):
        _remove(leftover)
    try:
        partial.mkdir(parents=True)
        yield partial
        if path.exists():
            os.replace(path, old)
        os.replace(partial, path)
    except BaseException as err:
        _remove(partial)
        if old.exists() and not path.exists():
            with contextlib.suppress(OSError):
                os.replace(old, path)
        named = _named(err, partial, path)
        if named is not err:
            raise named from None
        raise
    _remove(old)


def write_text(path, text):
    """path holds text (LF line ends), whole or not at all."""
    with new_file(path) as partial:
        with open(partial, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)


def put_files(folder, files, gone=()):
    """folder holds files ({relative path: text}) and no longer the files `gone` (relative), every other
    file of it left alone: all are written into a folder of their own inside it first, then renamed
    into place, so a failure while writing leaves folder as it was (a new folder is removed)."""
    folder = Path(folder).absolute()
    made = None if folder.exists() else folder   # the first folder this makes, parents included
    while made is not None and not made.parent.exists():
        made = made.parent
    staging = folder / PARTIAL
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _remove(staging)
        for relative, text in sorted(files.items()):
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            with open(staging / relative, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
    except BaseException as err:
        _remove(staging)
        if made is not None:
            _remove(made)
        named = _named(err, staging, folder)
        if named is not err:
            raise named from None
        raise
    for relative in gone:   # renames from here on: nothing more to write
        _remove(folder / relative)
    for relative in sorted(files):
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        if (folder / relative).is_symlink() or (folder / relative).is_dir():
            _remove(folder / relative)
        os.replace(staging / relative, folder / relative)
    _remove(staging)
