"""``TF_LOG`` and ``TF_LOG_PATH``, as OpenTofu reads them, through the standard
:mod:`logging` module.

``TF_LOG`` names the level: ``TRACE``, ``DEBUG``, ``INFO``, ``WARN``, ``ERROR`` (any case),
``JSON`` (TRACE as one JSON object a line), or ``OFF``/empty for nothing. An unknown name
means TRACE, as in OpenTofu (``internal/logging/logging.go``). ``TF_LOG_PATH`` appends the
log to a file instead of standard error. Every URL logged is redacted.

Only the command line configures logging; the library only logs, to the ``tofu_solve``
logger and its children, so a program using it keeps control.
"""

from __future__ import annotations

import json
import logging
import sys
import time

from ..output_edge import json_safe

TRACE = 5
_LEVELS = {"TRACE": TRACE, "DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
           "ERROR": logging.ERROR, "JSON": TRACE}
logging.addLevelName(TRACE, "TRACE")
logging.addLevelName(logging.WARNING, "WARN")


class _TofuFormatter(logging.Formatter):
    """``2026-11-22T17:00:00.000Z [DEBUG] tofu_solve.remote.registry: message``, as OpenTofu's lines look."""

    def format(self, record: logging.LogRecord) -> str:
        t = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
        return f"{t} [{record.levelname}] {record.name}: {record.getMessage()}"


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        t = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
        return json.dumps(json_safe({"@level": record.levelname.lower(), "@message": record.getMessage(),
                                     "@module": record.name, "@timestamp": t}))


def configure(level: str, path: str | None) -> logging.Handler | None:
    """Set up the ``tofu_solve`` logger from ``TF_LOG`` (``level``, upper-cased) and
    ``TF_LOG_PATH`` (``path``), as :class:`tofu_solve.settings.Settings` holds them. Returns
    the handler added (None when logging is off). A log file that cannot be opened is
    reported on standard error and logging goes there instead."""
    name = level
    if name in ("", "OFF"):
        return None
    number = _LEVELS.get(name, TRACE)
    handler: logging.Handler
    try:
        handler = logging.FileHandler(path, mode="a", encoding="utf-8") if path else logging.StreamHandler(sys.stderr)
    except OSError as e:
        print(f"Warning: cannot open TF_LOG_PATH {path}: {e.strerror}; logging to standard error.", file=sys.stderr)
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter() if name == "JSON" else _TofuFormatter())
    logger = logging.getLogger("tofu_solve")
    logger.setLevel(number)
    logger.addHandler(handler)
    if name not in _LEVELS:
        logger.warning("Invalid log level: %r. Defaulting to level: TRACE. Valid levels are: %s", name,
                       sorted(_LEVELS))
    return handler
