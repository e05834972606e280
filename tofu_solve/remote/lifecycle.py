"""What a registry says of a version's life (issue #62 §3): deprecated (HCP Terraform's and
TFE's private registry, ``deprecation: {reason, link}`` per version in the module versions
listing of the module registry protocol) and revoked (their v2 API only:
``data.attributes["revoked-versions"]`` of a private registry module, and each version's
``attributes.revocation`` = ``{status, message, link}``). Facts:
``../shared/docs/policy-lifecycle-reference.md`` §2.

A deprecated version is still a candidate, taken only when no other gives an equally good
selection, and a warning when selected or locked; a revoked version "blocks new users": it
is never selected anew, and a lock on it is a lock change with the revocation's message as
the reason, as a version the policy denies is (:class:`Revocation` answers the same
questions as a policy denial, :class:`tofu_solve.config.policy.DenyRule`). The OpenTofu
registry has neither: a bad version is deleted from its index, which a lock naming it
meets as "withdrawn or deleted" (:func:`tofu_solve.errors.locked_version_gone`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from ..addrs.redact import redact
from ..errors import SourceRange
from ..output_edge import one_line as quoted

MAX_REVOKED_READ = 50  # revoked versions whose message is read, per module (one request each)
LIFECYCLE_SECONDS = 15.0
"""The run-wide deadline of the revocation messages' reads (issue #67 §7): they run in
parallel; a message not read by then is left out, and its version stays revoked."""


def one_line(v: object, limit: int = 500) -> str:
    """A registry-given string, bounded, on one line, control characters escaped
    (:func:`tofu_solve.output_edge.one_line`) and without credentials ("" for anything else):
    it reaches messages and files."""
    return quoted(redact(" ".join(v.split())), limit) if isinstance(v, str) else ""


def safe_link(v: object) -> str:
    """A registry-given link, passed on only when it is an ``https`` or ``http`` URL
    (:func:`one_line`; "" for a ``javascript:`` or any other scheme: issue #67 §7)."""
    text = one_line(v)
    return text if re.match(r"https?://[^\s]+$", text, re.I) else ""


@dataclass(frozen=True)
class Deprecation:
    """A version its registry marks deprecated: ``reason`` and ``link`` as the registry
    gives them ("" for none)."""

    reason: str
    link: str

    @classmethod
    def from_registry(cls, value: object) -> Deprecation | None:
        """A listing entry's ``deprecation`` (an object, or null for none)."""
        if not isinstance(value, dict):
            return None
        return cls(one_line(value.get("reason")), safe_link(value.get("link")))

    def words(self) -> str:
        """``deprecated by its registry: reason (link)``."""
        why = f": {self.reason}" if self.reason else ""
        return f"deprecated by its registry{why}" + (f" ({self.link})" if self.link else "")

    def as_data(self) -> dict:
        return {"reason": self.reason or None, "link": self.link or None}


@dataclass(frozen=True)
class Revocation:
    """A version its registry revoked: the module's ``package`` address (host included),
    the ``version``, and the revocation's ``message`` and ``link``.

    Named as the policy's denials are (``cite``, ``heading``, ``where``, ``as_data``), so
    that the lock change, ``-lockfile=readonly``'s refusal, ``check`` and the explanation
    name it alike."""

    package: str
    version: str
    message: str
    link: str = ""
    where: SourceRange | None = None
    kind: Literal["module"] = field(default="module", init=False)  # registries revoke module versions only
    refused_by: Literal["revocation"] = field(default="revocation", init=False)  # what refuses: see ``Refusal``

    @property
    def subject(self) -> str:
        return self.package

    @property
    def reason(self) -> str:
        return self.message or "revoked"

    def heading(self) -> str:
        return f"the registry's revocation of {self.package} {self.version}"

    def refusal(self) -> str:
        """Why a candidate is passed over: ``its registry revoked it: message (link)``."""
        return f"its registry revoked it: {self.reason}" + (f" ({self.link})" if self.link else "")

    def cite(self) -> str:
        """``the registry's revocation of HOST/NS/NAME/TARGET 1.2.0: message (link)``."""
        return f"{self.heading()}: {self.reason}" + (f" ({self.link})" if self.link else "")

    def as_data(self) -> dict:
        return {"kind": "revocation", "subject": self.package, "version": self.version, "reason": self.reason,
                "link": self.link or None, "file": None, "line": None}


__all__ = ["LIFECYCLE_SECONDS", "MAX_REVOKED_READ", "Deprecation", "Revocation", "one_line", "safe_link"]
