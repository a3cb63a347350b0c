"""Where the plugin writes: regular files only, atomically, with the permissions any file gets.

`output_problem` says at the start of a run why a path cannot take an output (an empty name, a
folder, a device or FIFO, a path under a file, a folder that cannot be written), so a bad path is a
usage error before any test runs. `write_text` then replaces the file in one rename: a crash leaves
either the old file or the new one, never half of either. A symbolic link is followed: its target
is written and the link stays a link.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def _kind(mode: int) -> str | None:
    """What a file of this mode is, where it is not a regular file."""
    return next((name for test, name in _KINDS if test(mode)), None if stat.S_ISREG(mode) else "not a regular file")


def target(path: Path) -> Path:
    """The file a write to `path` replaces: the final target of a symbolic link, else the path."""
    return path.resolve() if path.is_symlink() else path


def output_problem(path: Path) -> str | None:
    """Why `path` cannot take an output file, or None."""
    if str(path) in ("", "."):
        return "an empty path"
    real = target(path)
    try:
        mode = real.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None
    except OSError as exc:
        return f"cannot be examined: {exc.strerror or exc}"
    if mode is not None:
        kind = _kind(mode)
        if kind:
            where = f"{path} -> {real}" if real != path else f"{path}"
            return f"{where} is {kind}; outputs are written only to regular files"
    folder = real.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        return f"lies under {folder}, which is a file, not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} cannot be written"
    return None


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Replace the file at `path` (a link's target) with `text` atomically; make its folders.

    A new file gets mode 0666 less the umask, as any file the user writes; a replaced file keeps
    its mode. Raises OSError where the path cannot be written (callers say which option it was).
    """
    real = target(Path(path))
    problem = output_problem(real)
    if problem:
        raise OSError(f"{real}: {problem}")
    real.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(real.stat().st_mode)
    except FileNotFoundError:
        mode = None
    tmp = real.parent / f".{real.name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as for any file
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return real
