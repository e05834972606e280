"""How commands speak: to people (text, colour, a live progress line) or to programs
(OpenTofu's machine-readable JSON-lines stream). Commands emit the same events to one or
more views, as OpenTofu's ``internal/command/views`` do."""

from .human import HumanView, use_color
from .json_stream import JSON_UI_VERSION, JsonStream, warning_data

__all__ = ["JSON_UI_VERSION", "HumanView", "JsonStream", "use_color", "warning_data"]
